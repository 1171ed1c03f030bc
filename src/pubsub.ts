/**
 * Live events fan out through Redis when REDIS_URL is set (any number of instances share
 * them), in process otherwise. Payloads are plain JSON: they cross the wire as is. This is
 * transport only: the modules own their topics and message shapes (orders/order-events.ts).
 * Channels on Redis carry a prefix (REDIS_PREFIX, by default the database name) so that two
 * deployments or test runs sharing one Redis never receive each other's `order:1`.
 */
import { createPubSub, PubSub, PubSubEventTarget } from '@graphql-yoga/subscription';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import Redis from 'ioredis';
import type { Logger } from './common/logger';
import { eventsPublished } from './common/metrics';

/** Topic -> one JSON payload; each topic's owner types its payload. */
export type AppPubSub = PubSub<Record<string, [unknown]>>;

/** A logged-out token: every instance closes the sockets that authenticated with it. */
export type TokenEvents = PubSub<{ revoked: [{ jti: string }] }>;

type Target = PubSubEventTarget<Record<string, [unknown]>>;

export interface PubSubHandle {
  pubSub: AppPubSub;
  tokenEvents: TokenEvents;
  /** Live subscribers of a topic on this instance (a subscription is set up once counted). */
  listeners(topic: string): number;
  /** Live subscribers of every topic on this instance (the metrics' gauge). */
  subscriptions(): number;
  /** Whether the bus answers now (always true in process); /readyz reports it. */
  ping(): Promise<boolean>;
  /** Whether both connections are up, without a round trip (streams poll the database when not). */
  healthy(): boolean;
  close(): Promise<void>;
}

/** Counts the listeners the pubsub adds and removes per topic, around any event target. */
function counting(target: Target): { target: Target; listeners: (topic: string) => number; subscriptions: () => number } {
  const counts = new Map<string, number>();
  let total = 0;
  const add = (topic: string, by: number) => {
    counts.set(topic, (counts.get(topic) ?? 0) + by);
    total += by;
  };
  const counted: Target = {
    addEventListener: (topic, listener, options) => {
      add(topic, 1);
      target.addEventListener(topic, listener, options);
    },
    removeEventListener: (topic, listener, options) => {
      add(topic, -1);
      target.removeEventListener(topic, listener, options);
    },
    dispatchEvent: (event) => {
      eventsPublished.inc({ topic: event.type.split(':')[0] });
      return target.dispatchEvent(event);
    },
  };
  return { target: counted, listeners: (topic) => counts.get(topic) ?? 0, subscriptions: () => total };
}

/** Logouts travel on the same target as order events, under their own topic. */
const tokenEvents = (target: Target): TokenEvents =>
  createPubSub<{ revoked: [{ jti: string }] }>({ eventTarget: target as unknown as PubSubEventTarget<{ revoked: [{ jti: string }] }> });

/** The same event target with every channel name prefixed (listeners see the bare name). */
function prefixed(target: Target, prefix: string): Target {
  if (!prefix) return target;
  return {
    addEventListener: (topic, listener, options) => target.addEventListener(prefix + topic, listener, options),
    removeEventListener: (topic, listener, options) => target.removeEventListener(prefix + topic, listener, options),
    dispatchEvent: (event) =>
      target.dispatchEvent(new CustomEvent(prefix + event.type, { detail: (event as CustomEvent<unknown>).detail })),
  };
}

export function createAppPubSub(redisUrl?: string, logger?: Logger, prefix = ''): PubSubHandle {
  if (!redisUrl) {
    const { target, listeners, subscriptions } = counting(new EventTarget() as Target);
    return {
      pubSub: createPubSub({ eventTarget: target }),
      tokenEvents: tokenEvents(target),
      listeners,
      subscriptions,
      ping: () => Promise.resolve(true),
      healthy: () => true,
      close: () => Promise.resolve(),
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
  const { target, listeners, subscriptions } = counting(prefixed(createRedisEventTarget({ publishClient, subscribeClient }), prefix));
  return {
    pubSub: createPubSub<Record<string, [unknown]>>({ eventTarget: target }),
    tokenEvents: tokenEvents(target),
    listeners,
    subscriptions,
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
      await Promise.allSettled(
        [publishClient, subscribeClient].map((c) => (c.status === 'ready' ? c.quit() : Promise.resolve(c.disconnect()))),
      );
    },
  };
}
