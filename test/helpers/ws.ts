/** The real graphql-ws client over a real websocket, with helpers to await what arrives. */
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

export function wsClient(url: string, token?: string): Client {
  return createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
  });
}

/** Resolves once `condition` holds, checking every 20 ms (rejects after `ms`): waiting for an event, never a fixed sleep. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface Subscription<T> {
  events: T[];
  errors: unknown[];
  completed: Promise<void>;
  /** Resolves once `count` events have arrived (rejects after `ms`). */
  waitFor(count: number, ms?: number): Promise<T[]>;
  unsubscribe(): void;
}

export function subscribe<T = Record<string, unknown>>(client: Client, query: string, variables: Record<string, unknown> = {}): Subscription<T> {
  const events: T[] = [];
  const errors: unknown[] = [];
  let waiters: (() => void)[] = [];
  let finish!: () => void;
  const completed = new Promise<void>((resolve) => (finish = resolve));
  const wake = () => {
    const current = waiters;
    waiters = [];
    current.forEach((w) => w());
  };
  const unsubscribe = client.subscribe<Record<string, T>>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) errors.push(...result.errors);
        if (result.data) events.push(Object.values(result.data)[0]);
        wake();
      },
      error: (error) => {
        errors.push(error);
        wake();
        finish();
      },
      complete: () => {
        wake();
        finish();
      },
    },
  );
  return {
    events,
    errors,
    completed,
    unsubscribe,
    waitFor(count: number, ms = 10_000) {
      return new Promise<T[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${count} events; got ${events.length}: ${JSON.stringify(events)} ${JSON.stringify(errors)}`)), ms);
        const check = () => {
          if (events.length >= count) {
            clearTimeout(timer);
            resolve(events.slice(0, count));
          } else if (errors.length > 0) {
            clearTimeout(timer);
            reject(new Error(`subscription failed: ${JSON.stringify(errors)}`));
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}
