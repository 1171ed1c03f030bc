/**
 * Web Push to browsers (RFC 8030/8291/8292): the `web-push` package encrypts the payload to
 * the browser's keys and signs the VAPID header; the request itself is sent here, so that it
 * goes only to public addresses (resolved at connect time: a saved host name may later point
 * at our own network), follows no redirect, and reads no more than a small answer.
 */
import http from 'node:http';
import https from 'node:https';
import webpush from 'web-push';
import type { VapidKeys, WebPushConfig } from '../../config';
import { publicOnlyLookup } from '../../common/public-address';
import { Channel, OutgoingMessage, Outcome, retryAfter } from './channel';
import { endpointProblem } from './web-push.service';

/** An order message is stale after an hour (a new order is rejected long before): push services drop it then. */
const TTL_SECONDS = 3600;

export class WebPushChannel implements Channel {
  constructor(
    private readonly vapid: VapidKeys,
    private readonly config: WebPushConfig,
    /** No answer's status this long after the request began fails the send (see channels.ts `sendDeadline`). */
    readonly deadlineMs = config.timeoutMs,
  ) {}

  async send(message: OutgoingMessage): Promise<Outcome> {
    if (!message.keys) return { ok: false, retry: false, error: 'no subscription keys' };
    // What the dashboard's service worker shows (web/public/service-worker.js); push services take 4 KB at most.
    const payload = JSON.stringify({ title: message.title, body: message.body.slice(0, 1000), data: message.data });
    const request = webpush.generateRequestDetails({ endpoint: message.to, keys: message.keys }, payload, {
      vapidDetails: this.vapid,
      TTL: TTL_SECONDS,
      urgency: 'high',
    });
    // Checked when saved, and again here (IP literals never reach the lookup below).
    const problem = endpointProblem(message.to, this.config.allowedOrigins);
    if (problem) return { ok: false, retry: false, invalidTarget: true, error: problem };
    const url = new URL(request.endpoint);
    // A fake push service of the allowlist (outside production) is the one thing allowed to be local.
    const trusted = this.config.allowedOrigins.includes(url.origin);
    let answer: { status: number; retryAfter: string | null };
    try {
      answer = await post(url, request.headers, request.body, trusted, this.deadlineMs);
    } catch (error) {
      // A name that now resolves to our own network is no push service: the subscription is dropped
      // (the worker forgets an invalid target), the reason kept in the row (the sent log).
      const refused = (error as { code?: string }).code === 'ENOTPUBLIC';
      return { ok: false, retry: !refused, invalidTarget: refused, error: `push service unreachable: ${(error as Error).message}` };
    }
    const { status } = answer;
    if (status >= 200 && status < 300) return { ok: true };
    const error = `push service answered ${status}`;
    // 404/410: the browser unsubscribed or the subscription expired (RFC 8030 §7.3): forget it.
    if (status === 404 || status === 410) return { ok: false, retry: false, invalidTarget: true, error };
    const retry = status === 429 || status >= 500;
    return { ok: false, retry, error, retryAfterMs: retryAfter(answer.retryAfter) };
  }
}

function post(
  url: URL,
  headers: Record<string, string | number>,
  body: Buffer | null,
  trusted: boolean,
  timeoutMs: number,
): Promise<{ status: number; retryAfter: string | null }> {
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      { method: 'POST', headers, timeout: timeoutMs, lookup: trusted ? undefined : publicOnlyLookup, agent: false },
      (res) => {
        clearTimeout(deadline);
        // The answer's body says nothing we act on: never read.
        res.destroy();
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] ?? null });
      },
    );
    // A total deadline besides the idle timeout: headers sent a byte at a time never hold the send.
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    req.end(body ?? undefined);
  });
}
