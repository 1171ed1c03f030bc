/**
 * The Content-Security-Policy of the pages the service serves (/docs, /graphql in a browser,
 * /dashboard): everything from this origin only — no CDN, no inline script, no eval. Styles
 * allow 'unsafe-inline' because Swagger UI, Monaco (GraphiQL's editor) and React set `style`
 * attributes at run time; no script can be injected through that (docs/decisions.md).
 */
import { Response } from 'express';

export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  // 'self' covers ws:// and wss:// on this origin (CSP level 3), which the subscriptions use.
  "connect-src 'self'",
  // Monaco's language workers are bundled files of this origin.
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every page and page asset; set last, so they win over any global default. */
export function setPageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
}
