/**
 * Live events fan out through Redis when REDIS_URL is set (any number of instances share
 * them), in process otherwise. Payloads are plain JSON: they cross the wire as is. This is
 * transport only: the modules own their topics and message shapes (orders/order-events.ts).
 */
import { createPubSub, PubSub, PubSubEventTarget } from '@graphql-yoga/subscription';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import Redis from 'ioredis';
import type { Logger } from './common/logger';

/** Topic -> one JSON payload; each topic's owner types its payload. */
export type AppPubSub = PubSub<Record<string, [unknown]>>;

type Target = PubSubEventTarget<Record<string, [unknown]>>;

export interface PubSubHandle {
  pubSub: AppPubSub;
  /** Live subscribers of a topic on this instance (a subscription is set up once counted). */
  listeners(topic: string): number;
  close(): Promise<void>;
}

/** Counts the listeners the pubsub adds and removes per topic, around any event target. */
function counting(target: Target): { target: Target; listeners: (topic: string) => number } {
  const counts = new Map<string, number>();
  const add = (topic: string, by: number) => counts.set(topic, (counts.get(topic) ?? 0) + by);
  const counted: Target = {
    addEventListener: (topic, listener, options) => {
      add(topic, 1);
      target.addEventListener(topic, listener, options);
    },
    removeEventListener: (topic, listener, options) => {
      add(topic, -1);
      target.removeEventListener(topic, listener, options);
    },
    dispatchEvent: (event) => target.dispatchEvent(event),
  };
  return { target: counted, listeners: (topic) => counts.get(topic) ?? 0 };
}

export function createAppPubSub(redisUrl?: string, logger?: Logger): PubSubHandle {
  if (!redisUrl) {
    const { target, listeners } = counting(new EventTarget() as Target);
    return { pubSub: createPubSub({ eventTarget: target }), listeners, close: () => Promise.resolve() };
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
  const { target, listeners } = counting(createRedisEventTarget({ publishClient, subscribeClient }));
  return {
    pubSub: createPubSub<Record<string, [unknown]>>({ eventTarget: target }),
    listeners,
    async close() {
      // quit() lets queued commands finish; a client that never connected is just dropped.
      await Promise.allSettled([publishClient, subscribeClient].map((c) => (c.status === 'ready' ? c.quit() : Promise.resolve(c.disconnect()))));
    },
  };
}
