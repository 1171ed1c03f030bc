/**
 * GET /docs: the REST reference, Swagger UI rendering /openapi.json. Its files are served
 * from the swagger-ui-dist package (no CDN); the page and its start-up script are ours, the
 * script a file of its own so that the page runs under a CSP without inline scripts.
 */
import path from 'node:path';
import express, { Router } from 'express';
import { setPageHeaders } from './csp';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Delivery platform — REST reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
// persistAuthorization keeps the bearer token of "Authorize" across reloads.
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: true,
    tryItOutEnabled: true,
    displayRequestDuration: true,
  });
});
`;

// The package's directory, found without loading its index (which would load the whole
// browser bundle into this process).
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/swagger-ui.css'));

export function docsRouter(): Router {
  const router = Router();
  router.get('/docs', (_req, res) => {
    setPageHeaders(res);
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    setPageHeaders(res);
    res.type('js').send(INIT);
  });
  router.use(
    '/docs/assets',
    express.static(SWAGGER_UI_DIR, {
      index: false,
      maxAge: '1h',
      setHeaders: (res) => setPageHeaders(res),
    }),
  );
  return router;
}
