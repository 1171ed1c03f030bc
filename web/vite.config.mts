/**
 * The browser pages, built by `npm run build` into dist/web and served by the service under
 * /web: the dashboard (/dashboard) and GraphiQL (GET /graphql in a browser). Everything is
 * bundled from npm: the built pages load nothing from another origin.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/web/',
  // Copied as they are: the service worker keeps one URL (/web/service-worker.js) across builds.
  publicDir: here('public'),
  logLevel: 'warn',
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    // Monaco (GraphiQL's editor) is large by nature; it is loaded only by GraphiQL's page.
    chunkSizeWarningLimit: 6000,
    rollupOptions: {
      // React libraries' "use client" markers mean nothing outside a server-components bundler.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      input: {
        dashboard: here('dashboard/index.html'),
        graphiql: here('graphiql/index.html'),
      },
    },
  },
});
