/**
 * The caller's address for rate limits, for requests Express did not parse (websocket
 * upgrades). With TRUST_PROXY the left-most X-Forwarded-For entry, as Express's `req.ip`.
 */
import type { IncomingMessage } from 'node:http';

export function clientIp(request: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return request.socket.remoteAddress ?? 'unknown';
}
