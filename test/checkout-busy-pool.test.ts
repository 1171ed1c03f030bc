/**
 * Checkout (spec §4.3) on a busy evening: a checkout may wait for a pooled connection. What changed
 * during that wait (a store closed, a product repriced) must not be written as it was before: the
 * checkout reads after the wait (docs/perf/2026-11-27-checkout-5.md), and an order is written only
 * from reads less than CLAIM_WAIT_MS old (checkout.test.ts: "writes no order from reads older than
 * CLAIM_WAIT_MS"). A pool of 4 (and the read pool's 2), held by the test.
 */
import { Client, PoolClient } from 'pg';
import { readPoolOf } from '../src/common/entity-manager';
import { cart, placeOrder, useOrderWorld } from './helpers/orders';

const POOL = 4;
const t = useOrderWorld({ DB_POOL_MAX: String(POOL) });
const sql = <T>(query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute<T[]>(query, params);

/** Holds every connection of the ORM's pool and of its read pool until `release()`. */
async function holdPool(): Promise<{ release: () => Promise<void> }> {
  const readPool = readPoolOf(t.server.db.orm)!;
  const reads: PoolClient[] = [];
  for (let k = 0; k < readPool.options.max; k++) reads.push(await readPool.connect());
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let begun = 0;
  const held = Array.from({ length: POOL }, () =>
    t.server.db.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select 1');
      begun++;
      await gate;
    }),
  );
  while (begun < POOL) await new Promise((resolve) => setTimeout(resolve, 10));
  return {
    release: async () => {
      for (const client of reads) client.release();
      open();
      await Promise.all(held);
    },
  };
}

/** A change made by someone else (the owner's dashboard) on a connection of its own. */
async function meanwhile(query: string, params: unknown[]): Promise<void> {
  const client = new Client({ connectionString: t.server.db.orm.config.get('clientUrl') });
  await client.connect();
  try {
    await client.query(query, params);
  } finally {
    await client.end();
  }
}

describe('POST /api/v1/customer/orders while every pooled connection is busy', () => {
  for (const key of [null, 'busy-evening-key']) {
    it(`refuses an order for a store deactivated while it waited for a connection (Idempotency-Key: ${key ?? 'none'})`, async () => {
      expect((await placeOrder(t.server, t.w)).status).toBe(201); // the store's zone is met
      const pool = await holdPool();
      const pending = placeOrder(t.server, t.w, cart(t.w), key ? { 'Idempotency-Key': key } : undefined);
      await new Promise((resolve) => setTimeout(resolve, 400)); // read and checked; waiting for a connection
      await meanwhile(`update stores set is_active = false where id = $1`, [t.w.owner.store.id]);
      await pool.release();
      const res = await pending;
      expect(res.status).toBe(422);
      expect(await sql<{ n: number }>(`select count(*)::int as n from orders`)).toEqual([{ n: 1 }]);
      expect(await sql<{ n: number }>(`select count(*)::int as n from notification_outbox`)).toEqual(
        await sql<{ n: number }>(`select count(*)::int as n from notification_outbox where order_id = (select min(id) from orders)`),
      );
    });
  }

  it('charges the price raised while it waited for a connection', async () => {
    const before = await placeOrder(t.server, t.w);
    expect(before.status).toBe(201);
    const pool = await holdPool();
    const pending = placeOrder(t.server, t.w, cart(t.w));
    await new Promise((resolve) => setTimeout(resolve, 400));
    await meanwhile(`update products set price_cents = price_cents + 100 where id = $1`, [t.w.cola.id]);
    await pool.release();
    const res = await pending;
    expect(res.status).toBe(201);
    expect(res.body.data.total).toBe(before.body.data.total + 1); // the cart holds one cola
  });
});
