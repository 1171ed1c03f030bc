/** After the whole suite: stops the PostgreSQL server test/global-setup.ts started, if any. */
import type { PostgresServer } from '../src/db/postgres-server';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { embeddedPostgres?: PostgresServer }).embeddedPostgres;
  if (!server) return;
  delete process.env.TEST_DATABASE_URL;
  await server.stop();
}
