/**
 * The one way the service POSTs to a messaging provider (FCM, WhatsApp's notifications and
 * sign-in codes): kept-alive connections of node:https (node:http for a local fake). fetch cost
 * ~5× the CPU per send (docs/perf/2026-11-26-notifications-3.md), which in a checkout's bench was
 * ~17 % of the service's CPU for the owner's WhatsApp message (docs/perf/2026-11-27-checkout-3.md).
 */
import http from 'node:http';
import https from 'node:https';

/** An HTTP answer: its status, its body as JSON ({} when it is not) and as text (the first 64 KB), its Retry-After. */
export interface Answer {
  status: number;
  json: unknown;
  text: string;
  retryAfter: string | null;
}

export const answeredOk = (answer: Answer) => answer.status >= 200 && answer.status < 300;

export class KeptAlivePoster {
  // An idle connection is closed after 4 s, before a server's usual 5 s (Node's default): a send
  // never starts on a connection the server is closing.
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 32, timeout: 4000 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 32, timeout: 4000 }),
  };

  /**
   * `deadlineMs`: a send not fully answered this long after it began fails (its connection is
   * dropped), whether the server is silent or answers a byte at a time: a send never holds its
   * caller (the outbox worker's claim has a lease) longer than that. "Began" is the call, so the
   * time waiting in the agent's queue for one of its `maxSockets` connections counts too, on
   * purpose: the deadline bounds what the caller waits (the lease, a sign-in request), and a queue
   * that long means the provider is slow, when failing (the worker retries later) is right.
   */
  constructor(private readonly deadlineMs: () => number) {}

  /** POSTs `body` and reads the whole answer; `deadlineMs`: what is left of a caller's own deadline. */
  post(url: string, headers: Record<string, string>, body: string, deadlineMs = this.deadlineMs()): Promise<Answer> {
    const target = new URL(url);
    const transport = target.protocol === 'http:' ? http : https;
    const agent = target.protocol === 'http:' ? this.agents['http:'] : this.agents['https:'];
    if (deadlineMs <= 0) return Promise.reject(new Error('no time left before the deadline'));
    return new Promise((resolve, reject) => {
      const req = transport.request(
        target,
        { method: 'POST', agent, timeout: deadlineMs, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (text.length < 65_536) text += chunk;
          });
          res.on('error', fail);
          res.on('end', () => {
            clearTimeout(deadline);
            let json: unknown = {};
            try {
              json = text ? JSON.parse(text) : {};
            } catch {
              // not JSON: nothing to read in it
            }
            const retryAfter = res.headers['retry-after'];
            resolve({ status: res.statusCode ?? 0, json, text, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
          });
        },
      );
      const fail = (error: Error) => {
        clearTimeout(deadline);
        reject(error);
      };
      const deadline = setTimeout(() => req.destroy(new Error(`no full answer within ${deadlineMs} ms`)), deadlineMs);
      req.on('timeout', () => req.destroy(new Error(`no answer within ${deadlineMs} ms`)));
      req.on('error', fail);
      req.end(body);
    });
  }
}
