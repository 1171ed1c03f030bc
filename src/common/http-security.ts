/**
 * HTTP answers' security headers (helmet), CORS by allow-list, and no-store on answers that may
 * carry tokens or personal data. The HTML pages (src/pages) set their own CSP over the API's.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * The API answers JSON: its CSP allows nothing at all (a JSON answer opened as a page runs
 * nothing and cannot be framed). HSTS for a year, no framing, no referrer, nosniff.
 * Helmet's options say which headers; their values depend on nothing in the request, so helmet
 * runs once at start and each answer gets the recorded headers in one pass (helmet itself
 * chains a dozen middlewares per answer, one call and one `next()` each).
 */
export function securityHeaders(): RequestHandler {
  const headers = recordHeaders(
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"] },
      },
      strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: true },
      xFrameOptions: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
    }),
  );
  return (_req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/**
 * The headers a request-independent middleware sets, in order. It must set them synchronously
 * and remove none (X-Powered-By is disabled on the app): anything else fails the start.
 */
function recordHeaders(middleware: RequestHandler): [string, string][] {
  const headers: [string, string][] = [];
  let passed = false;
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.push([name, String(value)]),
    removeHeader: (name: string) => {
      if (name.toLowerCase() !== 'x-powered-by') throw new Error(`security headers: unexpected removal of ${name}`);
    },
  };
  void middleware({} as Request, res as unknown as Response, (error?: unknown) => {
    if (error) throw new Error('security headers: helmet passed an error', { cause: error });
    passed = true;
  });
  if (!passed || headers.length === 0) throw new Error('security headers: helmet did not answer synchronously');
  return headers;
}

const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE';

/**
 * CORS for the listed origins only (CORS_ORIGINS; none by default: the mobile apps need no CORS
 * and a browser page served elsewhere must be named). Credentials are not allowed: tokens travel
 * in the Authorization header, never in cookies.
 */
export function cors(origins: string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (allowed.size === 0 || !origin) return next();
    res.vary('Origin');
    if (!allowed.has(origin)) return next();
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', 'Retry-After, X-Request-Id');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}

/**
 * Sign-in answers carry tokens, GraphQL answers may, and any answer to a signed-in caller is
 * theirs alone: none may be stored by a browser or a shared cache.
 */
export function noStore(req: Request, res: Response, next: NextFunction): void {
  if (req.path.startsWith('/v1/auth/') || req.path === '/graphql' || req.headers.authorization) {
    res.setHeader('Cache-Control', 'no-store');
  }
  next();
}
