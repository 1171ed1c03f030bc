/**
 * The REST table's route index (src/rest/route-index.ts) against Express 5's own routing, the
 * oracle: for the real table and awkward paths (case, trailing and doubled slashes, encoded
 * and undecodable parameters, a longer or shorter path), the row and parameters it finds are
 * the ones Express picks. Real HTTP on a loopback port, raw paths (no URL normalisation).
 */
import http from 'node:http';
import { AddressInfo } from 'node:net';
import express, { NextFunction, Request, Response } from 'express';
import { RouteIndex } from '../src/rest/route-index';
import { restRoutes } from '../src/routes';

type Found = { row: number; params: Record<string, string> } | { status: number };

let server: http.Server;
let port: number;
const index = new RouteIndex<number>();

beforeAll(async () => {
  const app = express();
  restRoutes.forEach((route, row) => {
    app[route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](route.path, (req: Request, res: Response) => {
      res.json({ row, params: { ...req.params } });
    });
    index.add(route.method, route.path, row);
  });
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ status: 404 });
  });
  app.use((error: { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(200).json({ status: error.status ?? 500 });
  });
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** What Express answers for `method path`, the path sent byte for byte. */
function express5(method: string, path: string): Promise<Found> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(JSON.parse(body) as Found));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Paths derived from a pattern: its parameters filled in several ways, its case and slashes changed, one segment more or less. */
function pathsOf(pattern: string): string[] {
  const fills = ['7', 'abc', 'a.b', 'A%20b', 'a%2Fb', '%41%42', '%E0%A4%A', 'caf%C3%A9', 'x:y', "it's", '~'];
  const paths = new Set<string>();
  for (const fill of fills) {
    const path = pattern.replace(/:\w+/g, fill);
    paths.add(path).add(path.toUpperCase()).add(`${path}/`).add(`${path}//`).add(`/${path}`).add(`${path}/extra`);
    paths.add(path.split('/').slice(0, -1).join('/') || '/').add(path.replace(/\/([^/]+)$/, '//$1'));
    paths.add(`${path}?q=1&r=/x`);
  }
  return [...paths];
}

describe('the route index', () => {
  it('finds the row and parameters Express picks, for every row of the table and awkward paths', async () => {
    const methods = [...new Set(restRoutes.map((route) => route.method))];
    let compared = 0;
    let hits = 0;
    for (const route of restRoutes) {
      for (const raw of pathsOf(route.path)) {
        const pathname = raw.split('?')[0];
        for (const method of methods) {
          const expected = await express5(method, raw);
          const found = index.find(method, pathname);
          compared++;
          if ('row' in expected) {
            // Express matched: the index finds the same row with the same parameters.
            expect({ method, raw, found: found && { row: found.value, params: { ...found.params } } }).toEqual({ method, raw, found: expected });
            hits++;
          } else {
            // No row (404) or a parameter Express refuses to decode (400): the index finds nothing, Express answers.
            expect({ method, raw, found }).toEqual({ method, raw, found: undefined });
          }
        }
      }
    }
    expect(hits).toBeGreaterThan(restRoutes.length);
    expect(compared).toBeGreaterThan(1000);
  });

  it('refuses patterns it cannot match as Express does', () => {
    for (const path of ['/files/{*rest}', '/a/:id.json', '/a/(b)', '/a/:id?', 'no-slash']) {
      expect(RouteIndex.accepts(path)).toBe(false);
      expect(() => new RouteIndex().add('GET', path, 1)).toThrow(/literal segments and :name parameters/);
    }
  });

  it('every row of the table is under /api/ or /v1/: the app answers REST reads ahead of its probes and pages (app.ts), none of which are', () => {
    for (const route of restRoutes) expect(route.path).toMatch(/^\/(api|v1)\//);
  });
});
