/**
 * Live events fan out through Redis when REDIS_URL is set (any number of instances share
 * them), in process otherwise. Payloads are plain JSON: they cross the wire as is. This is
 * transport only: the modules own their topics and message shapes (orders/order-events.ts).
 * Channels on Redis carry a prefix (REDIS_PREFIX, by default the database name) so that two
 * deployments or test runs sharing one Redis never receive each other's `order:1`.
 */
import { createPubSub, PubSub } from '@graphql-yoga/subscription';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import Redis from 'ioredis';
import type { Logger } from './common/logger';

/** Topic -> one JSON payload; each topic's owner types its payload. */
export type AppPubSub = PubSub<Record<string, [unknown]>>;

/** A logged-out token: every instance closes the sockets that authenticated with it. */
export type TokenEvents = PubSub<{ revoked: [{ jti: string }] }>;

export interface PubSubHandle {
  pubSub: AppPubSub;
  tokenEvents: TokenEvents;
  /** Whether the bus answers now (always true in process); /readyz reports it. */
  ping(): Promise<boolean>;
  /** Whether both connections are up, without a round trip (streams poll the database when not). */
  healthy(): boolean;
  close(): Promise<void>;
}

export function createAppPubSub(redisUrl?: string, logger?: Logger, prefix = ''): PubSubHandle {
  if (!redisUrl) {
    const eventTarget = new EventTarget();
    return {
      pubSub: createPubSub({ eventTarget }),
      tokenEvents: createPubSub({ eventTarget }),
      ping: async () => true,
      healthy: () => true,
      close: async () => undefined,
    };
  }
  const publishClient = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  for (const client of [publishClient, subscribeClient]) {
    client.on('error', (error) => logger?.warn({ err: error }, 'redis connection error'));
  }
  // The event target publishes and (un)subscribes without awaiting: while Redis is down such
  // a promise would reject unhandled and stop the process. Log instead; a lost live event is
  // recovered by subscribers from the database (sequence numbers, resume).
  const guard = (client: Redis, command: 'publish' | 'subscribe' | 'unsubscribe') => {
    const original = (client[command] as (...args: unknown[]) => Promise<unknown>).bind(client);
    (client as unknown as Record<string, unknown>)[command] = (...args: unknown[]) =>
      original(...args).catch((error: unknown) => logger?.warn({ err: error, command }, 'redis command failed'));
  };
  guard(publishClient, 'publish');
  guard(subscribeClient, 'subscribe');
  guard(subscribeClient, 'unsubscribe');
  const eventTarget = prefixed(createRedisEventTarget({ publishClient, subscribeClient }), prefix);
  return {
    pubSub: createPubSub<Record<string, [unknown]>>({ eventTarget }),
    tokenEvents: createPubSub({ eventTarget }),
    healthy: () => publishClient.status === 'ready' && subscribeClient.status === 'ready',
    // While connecting, the command waits in ioredis's queue; /readyz bounds the wait.
    async ping() {
      return publishClient.ping().then(
        () => true,
        () => false,
      );
    },
    async close() {
      // quit() lets queued commands finish; a client that never connected is just dropped.
      await Promise.allSettled([publishClient, subscribeClient].map((c) => (c.status === 'ready' ? c.quit() : c.disconnect())));
    },
  };
}

type Target = ReturnType<typeof createRedisEventTarget>;

/** The same event target with every channel name prefixed (listeners see the bare name). */
function prefixed(target: Target, prefix: string): Target {
  if (!prefix) return target;
  return {
    addEventListener: (topic, listener) => target.addEventListener(prefix + topic, listener),
    removeEventListener: (topic, listener) => target.removeEventListener(prefix + topic, listener),
    dispatchEvent: (event) => target.dispatchEvent(new CustomEvent(prefix + event.type, { detail: (event as CustomEvent).detail })),
  };
}
