/** Builds the long-lived services once per app (the composition root's half of the context). */
import { Clock, systemClock } from './common/clock';
import { Config } from './config';
import { Logger } from './common/logger';
import { MessageSender } from './common/message-sender';
import { Services } from './context';
import { createMessageSender } from './modules/auth/senders';
import { authenticate, Revocations, VerifiedTokens } from './modules/auth/token.service';
import { onOrderTransition, settlePayments } from './modules/payments/payment-lifecycle';
import { createPaymentProviders } from './modules/payments/providers';
import { vapidKeys } from './modules/notifications/vapid-keys';
import type { AppPubSub, TokenEvents } from './pubsub';
import type { RateLimits } from './rate-limits';
import type { DriverPositionsService } from './common/driver-positions';

export type { Services };

export function createServices(
  config: Config,
  logger: Logger,
  bus: { pubSub: AppPubSub; tokenEvents: TokenEvents; healthy(): boolean },
  rateLimits: RateLimits,
  positions: DriverPositionsService,
  sender?: MessageSender,
  clock: Clock = systemClock,
): Services {
  const payments = createPaymentProviders(config.payments);
  const revocations = new Revocations(config.jwt.revocationRecheckSeconds * 1000);
  const verified = new VerifiedTokens();
  const heard = bus.tokenEvents.subscribe('revoked');
  void (async () => {
    for await (const { jti } of heard) revocations.heardRevoked(jti);
  })().catch((error) => logger.error({ err: error }, 'token revocation feed stopped (HTTP)'));
  return {
    config,
    pubSub: bus.pubSub,
    tokenEvents: bus.tokenEvents,
    clock,
    busHealthy: () => bus.healthy(),
    rateLimits,
    positions,
    sender: sender ?? createMessageSender(config, logger),
    payments,
    webPush: vapidKeys(config, logger),
    orderPayments: {
      onTransition: onOrderTransition,
      settle: (em, log, ids) => settlePayments(em, { payments, pubSub: bus.pubSub, logger: log }, ids),
    },
    tokenRevoked: (jti) => revocations.heardRevoked(jti),
    authenticate: (emOf, authorization) => authenticate(emOf, config.jwt, authorization, revocations, verified),
  };
}
