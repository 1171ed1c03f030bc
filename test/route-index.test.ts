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
  agent.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** What Express answers for `method path`, the path sent byte for byte. */
function express5(method: string, path: string): Promise<Found> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent }, (res) => {
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
  const fills = ['7', 'a.b', 'A%20b', 'a%2Fb', '%E0%A4%A', 'caf%C3%A9', "x:y'~"];
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
    // Each path with its row's method and one other (the same path under another method is another row, or none).
    const cases = new Map<string, { method: string; raw: string }>();
    for (const route of restRoutes) {
      for (const raw of pathsOf(route.path)) {
        for (const method of [route.method, route.method === 'GET' ? 'POST' : 'GET']) cases.set(`${method} ${raw}`, { method, raw });
      }
    }
    const list = [...cases.values()];
    const answers: Found[] = [];
    for (let i = 0; i < list.length; i += 64)
      answers.push(...(await Promise.all(list.slice(i, i + 64).map(({ method, raw }) => express5(method, raw)))));
    let hits = 0;
    list.forEach(({ method, raw }, i) => {
      const expected = answers[i];
      const found = index.find(method, raw.split('?')[0]);
      if ('row' in expected) {
        // Express matched: the index finds the same row with the same parameters.
        expect({ method, raw, found: found && { row: found.value, params: { ...found.params } } }).toEqual({
          method,
          raw,
          found: expected,
        });
        hits++;
      } else {
        // No row (404) or a parameter Express refuses to decode (400): the index finds nothing, Express answers.
        expect({ method, raw, found }).toEqual({ method, raw, found: undefined });
      }
    });
    expect(hits).toBeGreaterThan(restRoutes.length);
    expect(list.length).toBeGreaterThan(1000);
    // Thousands of loopback requests: minutes on a machine busy with other suites.
  }, 180_000);

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
