/**
 * The pages over plain HTTP (no browser): what each path serves, under which CSP, and that the
 * built pages reference nothing outside this origin. test/browser.test.ts runs them for real.
 */
import fs from 'node:fs';
import path from 'node:path';
import { useTestServer } from './helpers/setup';
import { startTestServer, TestServer } from './helpers/server';
import { PAGE_CSP } from '../src/pages/csp';
import { WEB_BUILD_DIR } from '../src/pages/web-build';

let server: TestServer;
useTestServer((s) => {
  server = s;
});

const page = (url: string, accept = 'text/html,application/xhtml+xml,*/*;q=0.8', headers: Record<string, string> = {}) =>
  fetch(url, { headers: { accept, ...headers } });

/** Every src/href of a page: all must be paths on this origin (or data:). */
const references = (html: string) => [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]);

describe('GET /docs', () => {
  it('serves Swagger UI from the package, pointed at /openapi.json, under the self-only CSP', async () => {
    const res = await page(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    const html = await res.text();
    expect(references(html)).toEqual([
      '/docs/assets/favicon-32x32.png',
      '/docs/assets/swagger-ui.css',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/init.js',
    ]);
    expect(html).not.toMatch(/<script>/); // no inline script

    const init = await fetch(`${server.url}/docs/init.js`);
    expect(init.headers.get('content-type')).toMatch(/javascript/);
    const script = await init.text();
    expect(script).toContain("url: '/openapi.json'");
    expect(script).toContain('validatorUrl: null'); // never sends the document to an outside validator

    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) {
      const res = await fetch(`${server.url}/docs/assets/${asset}`);
      expect([asset, res.status]).toEqual([asset, 200]);
      expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    }
  });

  it('serves no directory listing and no file outside the package', async () => {
    expect((await fetch(`${server.url}/docs/assets/`)).status).toBe(404);
    expect((await fetch(`${server.url}/docs/assets/..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/docs/assets/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
  });

  it('CSP: only this origin, no inline script, no eval, no framing', () => {
    expect(PAGE_CSP).toContain("default-src 'self'");
    expect(PAGE_CSP).toContain("script-src 'self';");
    expect(PAGE_CSP).not.toMatch(/unsafe-eval|https?:|\*/);
    expect(PAGE_CSP).toContain("frame-ancestors 'none'");
  });
});

describe('GET /graphql', () => {
  it('a browser gets GraphiQL; GraphQL clients still get GraphQL', async () => {
    const html = await page(`${server.url}/graphql`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(html.headers.get('cache-control')).toBe('no-cache');
    expect(await html.text()).toContain('<div id="graphiql">');

    // (Apollo's CSRF guard wants a preflight header on GET operations.)
    const get = await page(`${server.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, undefined, {
      'apollo-require-preflight': 'true',
    });
    expect(await get.json()).toEqual({ data: { __typename: 'Query' } });
    const json = await page(`${server.url}/graphql`, 'application/json');
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect((await server.http.graphql('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('is off when GRAPHIQL_ENABLED=false: no page, no Apollo landing page either', async () => {
    const off = await startTestServer({ GRAPHIQL_ENABLED: 'false' }, server.db);
    try {
      const res = await page(`${off.url}/graphql`);
      expect(res.headers.get('content-type')).not.toMatch(/text\/html/);
      expect(await res.text()).not.toMatch(/<html|graphiql|<script/i);
      expect((await off.http.graphql('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
      // Nor by the built file's own name.
      for (const file of ['/web/graphiql/index.html', '/web/graphiql/index.htm', '/web/GRAPHIQL/INDEX.HTML', '/web/graphiql/']) {
        expect([file, (await page(`${off.url}${file}`)).status]).toEqual([file, 404]);
      }
    } finally {
      await off.close();
    }
  });
});

describe('GET /dashboard', () => {
  it('every dashboard path is the one page; its files are cached for good, the page never', async () => {
    for (const p of ['/dashboard', '/dashboard/', '/dashboard/orders', '/dashboard/orders/42']) {
      const res = await page(`${server.url}${p}`);
      expect([p, res.status]).toEqual([p, 200]);
      expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<div id="app">');
    }
    const html = await (await page(`${server.url}/dashboard`)).text();
    const script = references(html).find((r) => r.endsWith('.js'))!;
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${server.url}/web/assets/missing.js`)).status).toBe(404);
  });
});

describe('the built pages', () => {
  it('reference only this origin and carry no inline script', () => {
    for (const name of ['dashboard', 'graphiql']) {
      const html = fs.readFileSync(path.join(WEB_BUILD_DIR, name, 'index.html'), 'utf8');
      for (const reference of references(html)) expect([name, reference]).toEqual([name, expect.stringMatching(/^(\/web\/|data:)/)]);
      // Every <script> has a src: nothing inline for the CSP to refuse.
      expect([...html.matchAll(/<script\b([^>]*)>/g)].every((m) => /\ssrc="/.test(m[1]))).toBe(true);
    }
  });

  it('load no font, style or script from another origin', () => {
    // The bundles contain URLs as text (licences, specs); what would be fetched is @import/url() in CSS.
    const css = fs.readdirSync(path.join(WEB_BUILD_DIR, 'assets')).filter((f) => f.endsWith('.css'));
    expect(css.length).toBeGreaterThan(0);
    for (const file of css) {
      const text = fs.readFileSync(path.join(WEB_BUILD_DIR, 'assets', file), 'utf8');
      expect([file, text.match(/(@import|url\()\s*["']?(https?:)?\/\/[^)"']+/g)]).toEqual([file, null]);
    }
  });
});
