/**
 * Live events fan out through Redis when REDIS_URL is set (any number of instances share
 * them), in process otherwise. Payloads are plain JSON: they cross the wire as is. This is
 * transport only: the modules own their topics and message shapes (orders/order-events.ts).
 */
import { createPubSub, PubSub } from '@graphql-yoga/subscription';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import Redis from 'ioredis';
import type { Logger } from './common/logger';

/** Topic -> one JSON payload; each topic's owner types its payload. */
export type AppPubSub = PubSub<Record<string, [unknown]>>;

export interface PubSubHandle {
  pubSub: AppPubSub;
  close(): Promise<void>;
}

export function createAppPubSub(redisUrl?: string, logger?: Logger): PubSubHandle {
  if (!redisUrl) return { pubSub: createPubSub(), close: async () => undefined };
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
  const eventTarget = createRedisEventTarget({ publishClient, subscribeClient });
  return {
    pubSub: createPubSub<Record<string, [unknown]>>({ eventTarget }),
    async close() {
      // quit() lets queued commands finish; a client that never connected is just dropped.
      await Promise.allSettled([publishClient, subscribeClient].map((c) => (c.status === 'ready' ? c.quit() : c.disconnect())));
    },
  };
}
