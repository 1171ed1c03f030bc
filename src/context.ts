/**
 * The request context every resolver and service receives first: one forked EntityManager,
 * the authenticated viewer (if any), the request id, a logger and the shared services.
 * It belongs to the application, not to GraphQL: REST, /graphql and websockets build it the
 * same way, and it imports nothing of the modules (they all import it).
 */
import { randomUUID } from 'node:crypto';
import { EntityManager } from '@mikro-orm/postgresql';
import { Config, VapidKeys } from './config';
import { AppError, unauthenticated } from './common/errors';
import { LoaderCache } from './common/batch-loader';
import { Clock } from './common/clock';
import { Logger } from './common/logger';
import { MessageSender } from './common/message-sender';
import { PaymentProviders } from './common/payment-provider';
import type { OrderPayments } from './common/order-payments';
import { AppPubSub, TokenEvents } from './pubsub';
import type { RateLimits } from './rate-limits';
import type { DriverPositionsService } from './common/driver-positions';

/** Who is calling, as proven by a valid, unrevoked token. */
export interface Viewer {
  userId: number;
  tokenId: string;
  expiresAt: Date;
}

/** The long-lived services, built once per app (src/services.ts) and reached through the context. */
export interface Services {
  config: Config;
  /** Live events: published after commit, read by subscriptions. */
  pubSub: AppPubSub;
  /** Logouts, so that every instance closes the sockets of a revoked token. */
  tokenEvents: TokenEvents;
  /** False while the bus (Redis) is disconnected: live streams then read the database often. */
  busHealthy(): boolean;
  /** Limits shared by every instance (orders, promo-code guessing). */
  rateLimits: RateLimits;
  /** Delivers one-time codes (WhatsApp, or the log in development). */
  sender: MessageSender;
  /** The configured payment providers by name (cash always; Stripe when its keys are set). */
  payments: PaymentProviders;
  /** The payment's part of the order's moves (implemented by the payments module). */
  orderPayments: OrderPayments;
  /** The VAPID keys Web Push signs with (notifications/vapid-keys.ts); null: Web Push is off. */
  webPush: VapidKeys | null;
  /** "Now" for rules computed in Node (opening hours); fixed in tests. */
  clock: Clock;
  /** Drivers' latest positions, kept in memory and written in batches (modules/drivers/driver-positions.ts). */
  positions: DriverPositionsService;
  /** A token this instance revoked: refused here from now on (other instances hear it through tokenEvents). */
  tokenRevoked(jti: string): void;
  /**
   * The viewer behind an `Authorization` header value, or an UNAUTHENTICATED AppError. `emOf` is
   * called only when the database must be read (a token not checked lately): no fork otherwise.
   */
  authenticate(emOf: () => EntityManager, authorization: string): Promise<Viewer>;
}

export interface Context {
  em: EntityManager;
  requestId: string;
  ip: string;
  /** Set when a valid, unrevoked token came with the request. */
  viewer: Viewer | null;
  /** The caller's language for texts sent later (notifications), from Accept-Language; null when we have none of theirs. */
  locale?: string | null;
  /** Why a presented token was refused; thrown by operations that need a viewer. */
  authError?: AppError;
  logger: Logger;
  services: Services;
  /** Per-request batch loaders over `em` (nested lists cost one statement per level). */
  loaders: LoaderCache;
}

export interface ContextSource {
  em: EntityManager;
  services: Services;
  logger: Logger;
  ip: string;
  authorization?: string;
  requestId?: string;
  locale?: string | null;
}

/**
 * Schema extension on every root field declared `@Authorized()` (set when the schema is
 * built): the REST adapter derives its 401-before-reading-input from it, so authentication is
 * declared once, on the field.
 */
export const SIGNED_IN = 'signedIn';

/** The authentication check (GraphQL's auth checker, the REST adapter): the refusal says why. */
export function assertSignedIn(ctx: Context): Viewer {
  if (ctx.viewer) return ctx.viewer;
  throw ctx.authError ?? unauthenticated();
}

/**
 * The caller of an operation that needs one. The field's `@Authorized()` has already refused
 * anonymous callers, so a missing viewer here is a missing declaration: an internal error,
 * never an anonymous call that slips through.
 */
export function viewerOf(ctx: Context): Viewer {
  if (!ctx.viewer) throw new AppError('INTERNAL', 'This operation needs a caller but is not declared @Authorized().');
  return ctx.viewer;
}

/** Request ids from a caller are kept only when they look like ids (no log injection). */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

export async function createContext(source: ContextSource): Promise<Context> {
  const requestId = source.requestId && REQUEST_ID.test(source.requestId) ? source.requestId : randomUUID();
  // The fork is made when something first reads `ctx.em`.
  let em: EntityManager | undefined;
  // The child logger is made when something logs (most requests log only their request line,
  // which app.ts writes with the request id itself): a pino child costs a few µs per request.
  let logger: Logger | undefined;
  const context: Context = {
    get em() {
      return (em ??= source.em.fork());
    },
    requestId,
    ip: source.ip,
    viewer: null,
    locale: source.locale ?? null,
    get logger() {
      return (logger ??= source.logger.child({ requestId }));
    },
    services: source.services,
    loaders: new Map(),
  };
  if (source.authorization) {
    try {
      context.viewer = await source.services.authenticate(() => context.em, source.authorization);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      context.authError = error;
    }
  }
  return context;
}
