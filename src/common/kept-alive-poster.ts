/**
 * The one way the service POSTs to a messaging provider (FCM, WhatsApp's notifications and
 * sign-in codes): kept-alive HTTP/1.1 connections of undici's Agent (the Node.js project's HTTP
 * client, the one under Node's own fetch), through its `dispatch` with a handler, not its
 * `request` nor fetch. fetch cost ~5× the CPU per send of node:http
 * (docs/perf/2026-11-26-notifications-3.md), node:http ~1.3–2× undici's `request`
 * (docs/perf/2026-11-28-notifications-node.md), and `request` ~1.3× `dispatch` in the service's
 * process, where a send is most of a notification's cost: `request` wraps each answer in a
 * promise, a body stream and an async resource, each paying the async hooks MikroORM's
 * AsyncLocalStorage turns on (docs/perf/2026-11-28-notifications-send.md).
 */
import { Agent, Dispatcher } from 'undici';

/** An HTTP answer: its status, its body as JSON ({} when it is not) and as text (the first 64 KB), its Retry-After. */
export interface Answer {
  status: number;
  json: unknown;
  text: string;
  retryAfter: string | null;
}

export const answeredOk = (answer: Answer) => answer.status >= 200 && answer.status < 300;

/** How much of an answer's body is kept, in whole chunks (the rest is read and dropped). */
const KEPT_BYTES = 65_536;

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
      // Set once the send has failed or been answered: whatever undici reports after is ignored.
      let settled = false;
      // Undici's handle on the request, from when a connection takes it (null while it waits in the queue).
      let controller: Dispatcher.DispatchController | null = null;
      const late = () => new Error(`no full answer within ${deadlineMs} ms`);
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        reject(error);
      };
      // At the deadline the send fails at once; aborting drops the request from the queue (when a
      // connection takes it, before it is written) or, once sent, its connection.
      const deadline = setTimeout(() => {
        fail(late());
        controller?.abort(late());
      }, deadlineMs);
      let status = 0;
      let retryAfter: string | null = null;
      const kept: Buffer[] = [];
      let keptBytes = 0;
      this.agent.dispatch(
        { origin: target.origin, path: target.pathname + target.search, method: 'POST', headers, body },
        {
          onRequestStart(started) {
            controller = started;
            if (settled) started.abort(late());
          },
          onResponseStart(_controller, statusCode, answerHeaders) {
            status = statusCode;
            const value = answerHeaders['retry-after'];
            retryAfter = typeof value === 'string' ? value : null;
          },
          onResponseData(_controller, chunk) {
            if (keptBytes >= KEPT_BYTES) return;
            kept.push(chunk);
            keptBytes += chunk.length;
          },
          onResponseEnd() {
            if (settled) return;
            settled = true;
            clearTimeout(deadline);
            const text = Buffer.concat(kept).toString('utf8');
            let json: unknown = {};
            try {
              json = text ? JSON.parse(text) : {};
            } catch {
              // not JSON: nothing to read in it
            }
            resolve({ status, json, text, retryAfter });
          },
          onResponseError(_controller, error) {
            fail(error);
          },
        },
      );
    });
  }
}
