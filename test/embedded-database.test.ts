/**
 * The embedded database (PGlite behind the PostgreSQL wire protocol) used when DATABASE_URL is
 * unset: always embedded here, whatever DATABASE_URL says. PGlite loads its WASM through a
 * dynamic import, which Jest allows only with --experimental-vm-modules (`npm test` passes it);
 * without it these tests are skipped rather than crash the worker.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { startEmbeddedDatabase } from '../src/db/embedded';
import { Database, openDatabase } from '../src/db/orm';
import { executePrepared } from '../src/common/entity-manager';

const vmModules = typeof (vm as { SourceTextModule?: unknown }).SourceTextModule === 'function';
const describeEmbedded = vmModules ? describe : describe.skip;
if (!vmModules) {
  console.warn('embedded-database.test.ts skipped: run it with `npm test` (node --experimental-vm-modules).');
}

// A first start runs initdb inside PGlite's WebAssembly, then every migration: 10–20 s on an idle
// two-core machine, past Jest's 30 s when the machine is busy (a newcomer's `npm test` beside other
// work timed out here), so these tests get more time than the suite's default.
jest.setTimeout(120_000);

const MIGRATIONS = fs.readdirSync(path.resolve(__dirname, '..', 'migrations')).filter((f) => /^Migration.*\.ts$/.test(f)).length;

let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-db-test-'));
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describeEmbedded('startEmbeddedDatabase', () => {
  it('creates the data directory with its parents, serves PostgreSQL on a loopback port and stops', async () => {
    const dataDir = path.join(tmp, 'nested', 'pg');
    const embedded = await startEmbeddedDatabase(dataDir);
    const port = Number(new URL(embedded.url).port);
    try {
      expect(embedded.url).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
      const orm = await MikroORM.init<PostgreSqlDriver>({
        driver: PostgreSqlDriver,
        clientUrl: embedded.url,
        entities: [],
        discovery: { warnWhenNoEntities: false },
        allowGlobalContext: true,
        pool: { min: 0, max: 2 },
      });
      try {
        const [row] = await orm.em.execute<{ version: string }[]>('select version() as version');
        expect(row.version).toMatch(/^PostgreSQL \d+/);
      } finally {
        await orm.close(true);
      }
      expect(await accepts(port)).toBe(true);
    } finally {
      await embedded.stop();
    }
    expect(await accepts(port)).toBe(false);
  });
});

describeEmbedded('openDatabase({ dataDir })', () => {
  const dataDir = () => path.join(tmp, 'app');
  let db: Database | undefined;

  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('migrates a fresh directory, and data survives a restart', async () => {
    db = await openDatabase({ dataDir: dataDir() });
    expect(db.embedded).toBe(true);
    const em = () => db!.orm.em.fork();
    expect(await em().execute('select name from mikro_orm_migrations')).toHaveLength(MIGRATIONS);
    await em().execute(`insert into users (phone_number, first_name, last_name) values ('+212600000042', 'Nadia', 'Alaoui')`);
    await db.close();
    db = undefined;

    db = await openDatabase({ dataDir: dataDir() });
    const rows = await db.orm.em.fork().execute(`select id, phone_number, first_name, last_name from users`);
    expect(rows).toEqual([{ id: 1, phone_number: '+212600000042', first_name: 'Nadia', last_name: 'Alaoui' }]);
    // Nothing was applied twice.
    expect(await db.orm.em.fork().execute('select name from mikro_orm_migrations')).toHaveLength(MIGRATIONS);
  });

  it('has the cube, earthdistance and pg_trgm extensions, and earth_distance works', async () => {
    db = await openDatabase({ dataDir: dataDir() });
    const em = db.orm.em.fork();
    const extensions = (await em.execute<{ extname: string }[]>('select extname from pg_extension')).map((r) => r.extname);
    expect(extensions).toEqual(expect.arrayContaining(['cube', 'earthdistance', 'pg_trgm', 'unaccent']));
    const [row] = await em.execute<{ metres: number }[]>('select earth_distance(ll_to_earth(0, 0), ll_to_earth(0, 1)) as metres');
    // One degree of longitude on the equator of earthdistance's sphere (radius 6378168 m).
    expect(Number(row.metres)).toBeCloseTo((6_378_168 * Math.PI) / 180, 0);
    const [similar] = await em.execute<{ score: number }[]>(`select similarity('pizza', 'pizzas') as score`);
    expect(Number(similar.score)).toBeGreaterThan(0.5);
  });

  it('answers prepared reads on every pooled connection at once (one shared session: sent unnamed)', async () => {
    db = await openDatabase({ dataDir: dataDir() });
    const sql = 'select ?::text as text, earth_distance(ll_to_earth(?, ?), ll_to_earth(0, 0)) as metres';
    const reads = Array.from({ length: 6 }, (_, k) => executePrepared(db!.orm.em.fork(), sql, [`read ${k}`, k, 0]));
    const rows = await Promise.all(reads);
    rows.forEach(([row], k) => {
      expect(row.text).toBe(`read ${k}`);
      expect(Number(row.metres)).toBeCloseTo(((6_378_168 * Math.PI) / 180) * k, 0);
    });
  });
});
