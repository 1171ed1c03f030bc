/**
 * The embedded database used when DATABASE_URL is unset: PGlite (PostgreSQL compiled to WASM)
 * served over the PostgreSQL wire protocol on a loopback port, so the app reaches it through
 * the same @mikro-orm/postgresql driver as a real server.
 */
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { cube } from '@electric-sql/pglite/contrib/cube';
import { earthdistance } from '@electric-sql/pglite/contrib/earthdistance';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { freeLoopbackPort } from './postgres-server';

export interface EmbeddedDatabase {
  url: string;
  /** Connections the socket server accepts; the ORM pool must stay below it. */
  maxConnections: number;
  stop(): Promise<void>;
}

/** `dataDir` undefined keeps the database in memory (tests). */
export async function startEmbeddedDatabase(dataDir?: string): Promise<EmbeddedDatabase> {
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true }); // PGlite does not create parents
  const db = await PGlite.create({ dataDir, extensions: { cube, earthdistance, pg_trgm, unaccent } });
  const maxConnections = 20;
  const port = await freeLoopbackPort();
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port, maxConnections });
  await server.start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    maxConnections,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
