/**
 * The servers `npm run bench` loads, one kind per process so each has its own core time and
 * resident memory:  node -r @swc-node/register scripts/bench-servers.ts <kind>
 *   node-http  a bare node:http hello (the ceiling of this machine)
 *   express    a bare Express 5 hello (the baseline every ratio is taken against)
 *   hand       hand-written Express 5 handlers, straight from `pg`, that run the statements
 *              the service runs and answer the same JSON (the gateway's own overhead is the
 *              service's cost over theirs; the bench checks the bodies are equal):
 *              GET /api/v1/global/ads (one statement) and GET /api/v1/store/stores/:slug
 *              (one statement: the store with its category, hours, active offers and "open
 *              now" as JSON columns, as the service sends it)
 *   service    the service itself, in production mode, on DATABASE_URL, with the pool size
 *              and session limits `npm start` gives it
 * Each prints `{"port":N}` on stdout once it listens on 127.0.0.1.
 * With BENCH_RECORD_SQL=1 (the service only, started with an IPC channel) every statement its
 * `pg` clients send is recorded; the message "take-sql" answers with the statements recorded
 * since the last one (scripts/bench-plans.ts explains them). Never set in a loaded run.
 */
import 'reflect-metadata';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import express from 'express';
import pg, { Pool } from 'pg';
import { localTimesOf } from '../src/modules/stores/local-time';
// pg's own serialisation of parameters (Dates, arrays, objects), so a recorded statement is
// replayed with exactly the text the server received. No types ship for this module.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => string | null };

const HELLO = JSON.stringify({ hello: 'world' });

function ready(server: http.Server): void {
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`));
}

/** The ads statement of src/modules/ads (its rule: switched on, inside its window, display order). */
export const ADS_SQL = `select id, title, type, image, redirect_type, store_id, product_id, sort_order from ads
  where is_active and (starts_at is null or starts_at <= now()) and (ends_at is null or ends_at > now())
  order by sort_order asc, id asc`;

/** The zones the handler has met: "open now" in the statement for those (the service's rule, src/modules/stores/local-time.ts). */
const zonesMet = new Set<string>();

const isoOf = (at: string | null) => (at === null ? null : new Date(at).toISOString());

/**
 * Store details as the service reads them (src/modules/stores/store-details.ts: the store with
 * its category, hours, active offers and "open now" as JSON columns of ONE statement; a second
 * statement only the first time a zone is met) and shapes them (src/rest/fragments.ts
 * RestStoreDetail), written by hand.
 */
async function storeDetails(pool: Pool, key: string): Promise<Record<string, unknown> | null> {
  const byId = /^\d+$/.test(key) && Number(key) <= 2 ** 31 - 1;
  const now = new Date();
  const { rows: found } = await pool.query<StoreRow>(
    `select s.id, s.category_id, s.name, s.slug, s.description, s.logo, s.image, s.address, s.latitude, s.longitude, s.delivery_radius_km,
            s.delivery_price_cents, s.free_delivery, s.delivery_time, s.rating, s.rating_count, s.timezone,
            (select json_build_object('id', c.id, 'name', c.name, 'icon', c.icon, 'image', c.image, 'main_category_id', c.main_category_id, 'sort_order', c.sort_order)
               from store_categories c where c.id = s.category_id) as category,
            (select json_agg(json_build_object('day_of_week', h.day_of_week, 'opens_at', h.opens_at, 'closes_at', h.closes_at) order by h.day_of_week, h.opens_at)
               from store_opening_hours h where h.store_id = s.id) as hours,
            (select json_agg(json_build_object('id', o.id, 'title', o.title, 'description', o.description, 'discount', o.discount, 'token', o.token,
                                               'image', o.image, 'store_id', o.store_id, 'starts_at', o.starts_at, 'ends_at', o.ends_at) order by o.id)
               from offers o where o.store_id = s.id and (o.starts_at is null or o.starts_at <= now()) and (o.ends_at is null or o.ends_at > now())) as offers,
            case when jsonb_exists($1::jsonb, s.timezone) then store_is_open(s.id, $1::jsonb) end as open
       from stores s where ${byId ? 's.id' : 's.slug'} = $2 and s.is_active`,
    [localTimesOf(zonesMet, now), byId ? Number(key) : key.trim().toLowerCase()],
  );
  const s = found[0];
  if (!s) return null;
  let open = s.open;
  if (open === null) {
    zonesMet.add(s.timezone);
    const { rows } = await pool.query<{ open: boolean }>(`select id, store_is_open(id, $1::jsonb) as open from stores where id = $2`, [
      localTimesOf([s.timezone], now),
      s.id,
    ]);
    open = rows[0]?.open ?? false;
  }
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  return {
    id: s.id,
    name: s.name,
    slug: s.slug,
    logo: s.logo,
    image: s.image,
    address: s.address,
    delivery_time: s.delivery_time,
    category: s.category?.name ?? null,
    category_id: s.category_id,
    rating: s.rating,
    rating_count: s.rating_count,
    delivery_price: s.free_delivery ? 0 : Math.round(s.delivery_price_cents) / 100,
    free_delivery: s.free_delivery,
    distance_km: null,
    is_open: open,
    description: s.description,
    latitude: round(s.latitude),
    longitude: round(s.longitude),
    timezone: s.timezone,
    delivery_radius_km: s.delivery_radius_km,
    category_detail: s.category,
    opening_hours: s.hours ?? [],
    offers: (s.offers ?? []).map((o) => ({ ...o, starts_at: isoOf(o.starts_at), ends_at: isoOf(o.ends_at) })),
  };
}

interface StoreRow {
  id: number;
  category_id: number | null;
  name: string;
  slug: string;
  description: string | null;
  logo: string | null;
  image: string | null;
  address: string;
  latitude: number;
  longitude: number;
  delivery_radius_km: number;
  delivery_price_cents: number;
  free_delivery: boolean;
  delivery_time: number;
  rating: number;
  rating_count: number;
  timezone: string;
  category: { name: string } | null;
  hours: object[] | null;
  offers: ({ starts_at: string | null; ends_at: string | null } & Record<string, unknown>)[] | null;
  open: boolean | null;
}

export interface RecordedStatement {
  text: string;
  values: (string | null)[];
}

/** Records what every pg client of this process sends (MikroORM's knex and raw SQL alike). */
function recordStatements(): void {
  const recorded: RecordedStatement[] = [];
  const client = pg.Client.prototype as unknown as { query: (this: pg.Client, ...args: unknown[]) => unknown };
  const original = client.query;
  client.query = function (this: pg.Client, ...args: unknown[]) {
    const [config, values] = args;
    const text = typeof config === 'string' ? config : (config as { text?: string } | null)?.text;
    const params = typeof config === 'string' ? values : (config as { values?: unknown }).values;
    if (typeof text === 'string') recorded.push({ text, values: Array.isArray(params) ? params.map(prepareValue) : [] });
    return original.apply(this, args);
  };
  process.on('message', (message) => {
    if (message === 'take-sql') process.send!(recorded.splice(0));
  });
}

async function main(kind: string): Promise<void> {
  if (kind === 'node-http') {
    ready(http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(HELLO)));
  } else if (kind === 'express') {
    const app = express();
    app.get('/', (_req, res) => {
      res.json({ hello: 'world' });
    });
    ready(http.createServer(app));
  } else if (kind === 'hand') {
    const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    const app = express();
    app.get('/api/v1/global/ads', async (_req, res, next) => {
      try {
        const { rows } = await pool.query(ADS_SQL);
        res.json({ success: true, data: rows });
      } catch (error) {
        next(error);
      }
    });
    app.get('/api/v1/store/stores/:store', async (req, res, next) => {
      try {
        const store = await storeDetails(pool, req.params.store);
        if (store) res.json({ success: true, data: store });
        else res.status(404).json({ success: false, message: 'Store not found.' });
      } catch (error) {
        next(error);
      }
    });
    // The bench cancels the queries a warm-up leaves in flight (bench.ts quietDatabase): those
    // answer 500 to a client that has gone, without a stack trace in the bench's output.
    app.use((error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
      if ((error as { code?: string }).code !== '57014') {
        next(error);
        return;
      }
      res.status(500).json({ success: false, message: 'Cancelled.' });
    });
    ready(http.createServer(app));
  } else if (kind === 'service') {
    if (process.env.BENCH_RECORD_SQL === '1') recordStatements();
    const { createApp } = await import('../src/app');
    const { loadConfig } = await import('../src/config');
    const { createLogger } = await import('../src/common/logger');
    const { openDatabase } = await import('../src/db/orm');
    const config = loadConfig(process.env);
    // As src/main.ts opens it: the pool size and session limits are part of what is measured.
    const db = await openDatabase({ databaseUrl: config.databaseUrl, poolMax: config.database.poolMax, limits: config.database });
    const app = await createApp(config, db.orm, createLogger('silent'));
    ready(app.httpServer);
  } else {
    throw new Error(`unknown server kind "${kind}"`);
  }
}

main(process.argv[2]).catch((error) => {
  console.error(error);
  process.exit(1);
});
