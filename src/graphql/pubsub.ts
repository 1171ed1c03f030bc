/**
 * Live events fan out through Redis when REDIS_URL is set (any number of instances share
 * them), in process otherwise. Payloads are plain JSON: they cross the wire as is.
 */
import { createPubSub, PubSub } from '@graphql-yoga/subscription';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import Redis from 'ioredis';
import type { OrderEventMessage } from '../modules/orders/order-events';

export type AppPubSub = PubSub<Record<string, [OrderEventMessage]>>;

export interface PubSubHandle {
  pubSub: AppPubSub;
  close(): Promise<void>;
}

export function createAppPubSub(redisUrl?: string): PubSubHandle {
  if (!redisUrl) return { pubSub: createPubSub(), close: async () => undefined };
  const publishClient = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  const eventTarget = createRedisEventTarget({ publishClient, subscribeClient });
  return {
    pubSub: createPubSub<Record<string, [OrderEventMessage]>>({ eventTarget }),
    async close() {
      await Promise.allSettled([publishClient.quit(), subscribeClient.quit()]);
    },
  };
}

export const topics = {
  order: (id: number) => `order:${id}`,
  store: (id: number) => `store:${id}`,
  driver: (id: number) => `driver:${id}`,
};
