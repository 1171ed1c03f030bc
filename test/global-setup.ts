/**
 * Once before the whole suite: the browser pages are built (tests serve dist/web), and, when no
 * PostgreSQL server is given (TEST_DATABASE_URL / DATABASE_URL unset: a bare machine), one real
 * PostgreSQL server is started from npm on a free port with a temporary data directory. Its
 * address goes to the workers as TEST_DATABASE_URL, so every test file makes its own databases
 * on it exactly as it does on DATABASE_URL's server. test/global-teardown.ts stops it.
 */
import { startPostgresServer } from '../src/db/postgres-server';
import { ensureWebBuild } from './helpers/web-build';

export default async function globalSetup(): Promise<void> {
  ensureWebBuild();
  if (process.env.TEST_DATABASE_URL || process.env.DATABASE_URL) return;
  const server = await startPostgresServer({ throwaway: true });
  process.env.TEST_DATABASE_URL = server.url;
  (globalThis as { embeddedPostgres?: typeof server }).embeddedPostgres = server;
}
