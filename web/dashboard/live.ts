/**
 * A subscription that survives lost connections: after a drop (a socket closed 1013 "busy"
 * included) or a "busy" error (UNAVAILABLE) it waits (the error's retryAfter, else 1 s doubling
 * to 15 s; jittered, resume-delay.ts) and subscribes
 * again with variables computed anew, so a tracking view resumes with the last seq it saw
 * (afterSeq) and a board reloads what it may have missed.
 */
import type { Client } from 'graphql-ws';
import { createLiveClient } from './api';
import { resumeDelay, retryAfterOf } from './resume-delay';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'ended';

export interface LiveOptions<T> {
  query: string;
  variables: () => Record<string, unknown>;
  onData: (data: T) => void;
  onState: (state: LiveState) => void;
  /** An error the API gave the subscription itself (not a lost connection): no retry. */
  onRefused: (message: string) => void;
  /** Called before each subscribe after the first (a board reloads here). */
  onResume?: () => void;
}

export function follow<T>(options: LiveOptions<T>): () => void {
  let stopped = false;
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let client: Client | undefined;

  const start = () => {
    if (stopped) return;
    if (attempt > 0) options.onResume?.();
    options.onState(attempt === 0 ? 'connecting' : 'reconnecting');
    void client?.dispose();
    client = createLiveClient();
    // The backoff starts over once the stream answers, not when the socket connects: a busy
    // service connects a socket and then refuses its subscription, again and again.
    client.on('connected', () => options.onState('live'));
    client.subscribe<T>(
      { query: options.query, variables: options.variables() },
      {
        next: (result) => {
          attempt = 0;
          if (result.errors?.length) return options.onRefused(result.errors.map((e) => e.message).join(' '));
          if (result.data) options.onData(result.data);
        },
        error: (error) => {
          if (stopped) return;
          if (Array.isArray(error)) {
            // The service was busy (a full database pool at set-up, a failed catch-up read): retry as after a drop.
            if (error.some((e: { extensions?: { code?: unknown } }) => e.extensions?.code === 'UNAVAILABLE'))
              return retry(retryAfterOf(error));
            // Other GraphQL errors at subscribe time (not found, forbidden): retrying cannot help.
            options.onState('ended');
            options.onRefused(error.map((e: { message: string }) => e.message).join(' '));
            return;
          }
          if ((error as CloseEvent | undefined)?.code === 4401) {
            // The token was refused (expired or signed out elsewhere): retrying cannot help.
            options.onState('ended');
            options.onRefused('Your session has ended: sign in again.');
            return;
          }
          retry();
        },
        complete: () => {
          if (!stopped) options.onState('ended');
        },
      },
    );
  };
  const retry = (retryAfterSeconds?: number) => {
    attempt += 1;
    options.onState('reconnecting');
    timer = setTimeout(start, resumeDelay(attempt, { baseMs: 1000, maxMs: 15_000 }, retryAfterSeconds));
  };

  start();
  return () => {
    stopped = true;
    clearTimeout(timer);
    void client?.dispose();
  };
}
