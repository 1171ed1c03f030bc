/**
 * The answer cache keeps a row's answer until a write to one of the tables the row declares it
 * reads (`cache.reads`; docs/decisions.md "City scale: the answer cache"). This file keeps the
 * declarations true: it asks each cached row on a seeded city, with the variables that take
 * each of its paths (filters, sorts, pages, an owner's view), records every statement the
 * service sends meanwhile, and EXPLAINs each one: every table its plan reads (through views,
 * sub-plans and the bodies of the database's own functions it calls) must be declared. A table
 * added to a query and not to its row fails here.
 */
import { Client } from 'pg';
import { restRoutes } from '../src/routes';
import { refreshAfterBulkLoad, seedDemoCity } from '../src/db/seed/demo-city';
import { Factory } from './helpers/factories';
import { makeOwner } from './helpers/owners';
import { useClockedTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';

let server: TestServer;
let make: Factory;
const clock = useClockedTestServer(
  (s, f) => {
    server = s;
    make = f;
  },
  { READ_CACHE: 'off' },
);

/** Wednesday noon in Casablanca: most seeded stores are open, some are not. */
const NOW = new Date('2026-03-04T12:00:00Z');
const AT = 'lat=33.5731&lng=-7.5898';

interface Statement {
  sql: string;
  bindings?: unknown[];
}

/** The statements `call` makes the service send (the ORM's knex emits one `query` event each). */
async function recorded(call: () => Promise<unknown>): Promise<Statement[]> {
  const sent: Statement[] = [];
  const knex = server.db.orm.em.getConnection().getKnex();
  const onQuery = (q: Statement) => sent.push({ sql: q.sql, bindings: q.bindings });
  knex.on('query', onQuery);
  try {
    await call();
  } finally {
    knex.off('query', onQuery);
  }
  return sent;
}

/** The database's own functions (not an extension's) and the tables their bodies name. */
async function functionTables(pg: Client, tables: string[]): Promise<Map<string, string[]>> {
  const { rows } = await pg.query<{ name: string; body: string }>(
    `select p.proname as name, p.prosrc as body from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = current_schema() and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
  );
  return new Map(rows.map((r) => [r.name, tables.filter((t) => new RegExp(`\\b${t}\\b`, 'i').test(r.body))]));
}

/** The tables a statement's plan reads: its relations, and the tables of the database's functions it calls. */
async function planTables(pg: Client, statement: Statement, functions: Map<string, string[]>): Promise<string[]> {
  let sql = statement.sql.trim();
  const cursor = /^declare\s+\w+\s+(?:no\s+)?(?:scroll\s+)?cursor\s+(?:with(?:out)?\s+hold\s+)?for\s+/i.exec(sql);
  if (cursor) sql = sql.slice(cursor[0].length);
  else if (!/^\(?\s*(select|with)\b/i.test(sql)) return [];
  // knex's `?` placeholders, as its pg client numbers them.
  let n = 0;
  if (statement.bindings?.length && !/\$1\b/.test(sql)) sql = sql.replace(/\?/g, () => `$${++n}`);
  const { rows } = await pg.query(`explain (verbose, format json) ${sql}`, statement.bindings ?? []);
  const plan = JSON.stringify(rows[0]['QUERY PLAN']);
  const found = new Set<string>();
  for (const [, relation] of plan.matchAll(/"Relation Name":"([^"]+)"/g)) found.add(relation);
  for (const [name, tables] of functions) {
    if (new RegExp(`\\b${name}\\(`).test(plan)) for (const t of tables) found.add(t);
  }
  return [...found];
}

/** Each cached row's requests: every variable path worth taking (a row missing here fails the test). */
function requests(ids: { store: number; slug: string; token: string; category: number }): Record<string, string[]> {
  const nearby = [
    AT,
    `${AT}&page=2&per_page=5`,
    `${AT}&radius=3&min_rating=4&free_delivery=true`,
    `${AT}&is_open=true&has_offer=true&category_id=${ids.category}`,
    ...['distance', 'rating', 'delivery_fee', 'delivery_time'].map((sort) => `${AT}&sort=${sort}`),
    'lat=0&lng=0',
  ];
  return {
    '/api/v1/homepage': ['/api/v1/homepage', `/api/v1/homepage?${AT}`],
    '/api/v1/global/search': ['pizza', 'piz', 'sushi', 'zzzz', 'cr'].map((q) => `/api/v1/global/search?q=${q}`),
    '/api/v1/stores/nearby': nearby.map((q) => `/api/v1/stores/nearby?${q}`),
    '/api/v1/global/ads': ['/api/v1/global/ads'],
    '/api/v1/store/stores/:id/catalog': [`/api/v1/store/stores/${ids.store}/catalog`],
    '/api/v1/store/products': [`/api/v1/store/products?store_id=${ids.store}`],
    '/api/v1/store/stores/:store': [`/api/v1/store/stores/${ids.store}`, `/api/v1/store/stores/${ids.slug}`],
    '/api/v1/store/store-categories': ['/api/v1/store/store-categories'],
    '/api/store/categories': ['/api/store/categories'],
    '/api/v1/store/offers': ['/api/v1/store/offers', `/api/v1/store/offers?store_id=${ids.store}`],
    '/api/v1/store/offers/:token': [`/api/v1/store/offers/${ids.token}`],
    '/api/v1/payment-methods': ['/api/v1/payment-methods'],
  };
}

it("every table a cached row's statements read is one the row declares", async () => {
  clock.set(NOW);
  await seedDemoCity(server.db.orm.em.fork(), { stores: 300, seed: 7, now: NOW });
  await refreshAfterBulkLoad(server.db.orm.em.fork());
  const owner = await makeOwner(server, make, { isActive: false });
  await make.offer({ storeId: owner.store.id });
  const em = server.db.orm.em.fork();
  const [store] = await em.execute<{ id: number; slug: string; category_id: number }[]>(
    `select s.id, s.slug, s.category_id from stores s where s.is_active and exists (select 1 from offers o where o.store_id = s.id) order by s.id limit 1`,
  );
  const [offer] = await em.execute<{ token: string }[]>(`select token from offers where store_id = ?`, [store.id]);
  const paths = requests({ store: store.id, slug: store.slug, token: offer.token, category: store.category_id });

  const pg = new Client({ connectionString: server.db.orm.config.getClientUrl() });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ name: string }>(
      `select relname as name from pg_class where relkind in ('r', 'p', 'v', 'm') and relnamespace = current_schema()::regnamespace`,
    );
    const tables = rows.map((r) => r.name);
    const functions = await functionTables(pg, tables);
    const undeclared: string[] = [];
    const cached = restRoutes.filter((route) => route.cache);
    expect(cached.map((r) => r.path).sort()).toEqual(Object.keys(paths).sort());
    for (const route of cached) {
      const declared = new Set(route.cache!.reads);
      // Every declared name is a table (a misspelt one would hide the one meant).
      expect([route.path, [...declared].filter((t) => !tables.includes(t))]).toEqual([route.path, []]);
      const read = new Set<string>();
      for (const path of paths[route.path]) {
        for (const token of [undefined, owner.token]) {
          // The in-process reach index is rebuilt when its version moves: each request reads as a first one would.
          await pg.query(`update store_reach_version set version = version + 1`);
          let status = 0;
          const sent = await recorded(async () => {
            status = (await server.http.get(path, { token })).status;
          });
          expect([path, status]).toEqual([path, 200]);
          for (const statement of sent) for (const t of await planTables(pg, statement, functions)) read.add(t);
        }
      }
      // Authentication reads (the revocation check) happen before the row's computation, outside its answer.
      read.delete('revoked_tokens');
      for (const t of read) if (!declared.has(t)) undeclared.push(`${route.path} reads ${t}`);
      if (process.env.SHOW_READS) console.log(route.path, [...read].sort().join(', '));
    }
    expect(undeclared).toEqual([]);
  } finally {
    await pg.end();
  }
}, 120_000);
