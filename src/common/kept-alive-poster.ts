/**
 * The one way the service POSTs to a messaging provider (FCM, WhatsApp's notifications and
 * sign-in codes): kept-alive HTTP/1.1 connections of undici's Agent (the Node.js project's HTTP
 * client, the one under Node's own fetch), through its plain `request`, not fetch. fetch cost ~5×
 * the CPU per send of node:http (docs/perf/2026-11-26-notifications-3.md), and node:http ~1.3–2×
 * undici's `request`, most of a notification's cost in the service's process
 * (docs/perf/2026-11-28-notifications-node.md).
 */
import { EventEmitter } from 'node:events';
import { Agent } from 'undici';

/** An HTTP answer: its status, its body as JSON ({} when it is not) and as text (the first 64 KB), its Retry-After. */
export interface Answer {
  status: number;
  json: unknown;
  text: string;
  retryAfter: string | null;
}

export const answeredOk = (answer: Answer) => answer.status >= 200 && answer.status < 300;

/** How much of an answer's body is kept (the rest is read and dropped). */
const KEPT_CHARS = 65_536;

export class KeptAlivePoster {
  /**
   * At most 32 connections per provider. An idle connection is closed after 4 s, or sooner when
   * the server's Keep-Alive hint says it closes sooner (undici leaves a margin below the hint): a
   * send never starts on a connection the server is closing. No idle timers of undici's own
   * (headers, body): the send's deadline below bounds the whole exchange.
   */
  private readonly agent = new Agent({ connections: 32, keepAliveTimeout: 4000, headersTimeout: 0, bodyTimeout: 0 });

  /**
   * `deadlineMs`: a send not fully answered this long after it began fails (its connection is
   * dropped), whether the server is silent or answers a byte at a time: a send never holds its
   * caller (the outbox worker's claim has a lease) longer than that. "Began" is the call, so the
   * time waiting in the agent's queue for one of its connections counts too, on purpose: the
   * deadline bounds what the caller waits (the lease, a sign-in request), and a queue that long
   * means the provider is slow, when failing (the worker retries later) is right.
   */
  constructor(private readonly deadlineMs: () => number) {}

  /** POSTs `body` and reads the whole answer; `deadlineMs`: what is left of a caller's own deadline. */
  post(url: string, headers: Record<string, string>, body: string, deadlineMs = this.deadlineMs()): Promise<Answer> {
    if (deadlineMs <= 0) return Promise.reject(new Error('no time left before the deadline'));
    const target = new URL(url);
    return new Promise((resolve, reject) => {
      // undici takes an EventEmitter as the abort signal: the deadline emits 'abort', which drops
      // the request from the queue or, once sent, its connection.
      const signal = new EventEmitter();
      let late = false;
      const deadline = setTimeout(() => {
        late = true;
        signal.emit('abort');
      }, deadlineMs);
      const fail = (error: Error) => {
        clearTimeout(deadline);
        reject(late ? new Error(`no full answer within ${deadlineMs} ms`) : error);
      };
      this.agent
        .request({ origin: target.origin, path: target.pathname + target.search, method: 'POST', headers, body, signal })
        .then((res) => {
          let text = '';
          res.body.setEncoding('utf8');
          res.body.on('data', (chunk: string) => {
            if (text.length < KEPT_CHARS) text += chunk;
          });
          res.body.on('error', fail);
          res.body.on('end', () => {
            clearTimeout(deadline);
            let json: unknown = {};
            try {
              json = text ? JSON.parse(text) : {};
            } catch {
              // not JSON: nothing to read in it
            }
            const retryAfter = res.headers['retry-after'];
            resolve({ status: res.statusCode, json, text, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
          });
        }, fail);
    });
  }
}
