/**
 * The pages people open in a browser, all served by this process from this origin:
 * /docs (REST reference), GET /graphql (GraphiQL, when enabled) and /dashboard, plus the
 * files Vite built for the last two under /web. Mounted before the GraphQL endpoint so that a
 * browser's GET /graphql gets GraphiQL while API clients get GraphQL.
 */
import path from 'node:path';
import express, { Request, Response, Router } from 'express';
import { setPageHeaders } from './csp';
import { docsRouter } from './docs';
import { builtPage, WEB_BUILD_DIR } from './web-build';

export interface PagesOptions {
  graphiql: boolean;
  /** Where Vite wrote the pages (tests may point elsewhere). */
  webDir?: string;
}

export function pagesRouter({ graphiql, webDir = WEB_BUILD_DIR }: PagesOptions): Router {
  const router = Router();
  router.use(docsRouter());

  // The HTML pages are served only by their routes below, so that a page turned off
  // (GraphiQL in production) cannot be opened by its file name either.
  router.use('/web', (req, _res, next) => next(/\.html?$/i.test(req.path) ? 'router' : undefined));
  // Hashed file names: cached for a year. The HTML pages themselves are never cached.
  // The service worker is the exception: one URL across builds, so it is checked at every visit.
  const setHeaders = (res: Response, file: string) => {
    setPageHeaders(res);
    if (file.endsWith(`${path.sep}service-worker.js`)) res.setHeader('Cache-Control', 'no-cache');
  };
  router.use('/web', express.static(webDir, { index: false, immutable: true, maxAge: '1y', setHeaders }));

  const sendPage = (name: 'dashboard' | 'graphiql') => (_req: Request, res: Response) => {
    setPageHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    const file = builtPage(name, webDir);
    if (!file) {
      res.status(503).type('text').send(`The ${name} page is not built: run npm run build.`);
      return;
    }
    res.sendFile(file);
  };

  // The dashboard routes in the browser (/dashboard/orders/42): every path is its page.
  router.get(['/dashboard', '/dashboard/{*path}'], sendPage('dashboard'));

  if (graphiql) {
    const page = sendPage('graphiql');
    router.get('/graphql', (req, res, next) => {
      // GET /graphql?query=... and clients that ask for JSON are GraphQL requests.
      if (req.query.query !== undefined || req.accepts(['application/json', 'application/graphql-response+json', 'html']) !== 'html') {
        return next();
      }
      page(req, res);
    });
  }
  return router;
}
