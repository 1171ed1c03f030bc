/** The long-lived services, built once per app and reached through the request context. */
import { Config } from './config';
import { Logger } from './common/logger';
import { AuthService } from './modules/auth/auth.service';
import { OtpService } from './modules/auth/otp.service';
import { createMessageSender, MessageSender } from './modules/auth/senders';
import { TokenService } from './modules/auth/token.service';
import type { AppPubSub, TokenEvents } from './graphql/pubsub';

export interface Services {
  config: Config;
  tokens: TokenService;
  auth: AuthService;
  /** Live events: published after commit, read by subscriptions. */
  pubSub: AppPubSub;
  /** Logouts, so that every instance closes the sockets of a revoked token. */
  tokenEvents: TokenEvents;
}

export function createServices(
  config: Config,
  logger: Logger,
  bus: { pubSub: AppPubSub; tokenEvents: TokenEvents },
  sender?: MessageSender,
): Services {
  const tokens = new TokenService(config.jwt);
  const otp = new OtpService(config.otp, config.jwt.secret);
  const auth = new AuthService(config.otp, otp, tokens, sender ?? createMessageSender(config, logger));
  return { config, tokens, auth, pubSub: bus.pubSub, tokenEvents: bus.tokenEvents };
}
