/** Spec §4.3 create order: server-side pricing, validation, promo codes, idempotency. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { Client } from 'pg';
import { cartColumns } from '../src/modules/orders/cart-pricing';
import { checkoutPlaceStatement, CLAIM_WAIT_MS, insertOrder, insertOrderAlone, NewOrder } from '../src/modules/orders/checkout-query';
import { CLAIM_SQL } from '../src/modules/orders/idempotency';
import { localTimesOf } from '../src/modules/stores/local-time';
import { cart, placeOrder, promo, useOrderWorld } from './helpers/orders';
import { registerCustomer } from './helpers/auth';
import { watchStatements } from './helpers/statements';
import { until } from './helpers/ws';

const t = useOrderWorld();

const sql = (query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute(query, params);
/** Sessions of this database waiting on a lock (a retry behind a first request's claim). */
const lockWaiters = async () =>
  Number((await sql(`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))[0].n);
const countOrders = async () => Number((await sql('select count(*) as n from orders'))[0].n);

describe('POST /api/v1/customer/orders', () => {
  it('answers 201 with order_id, status pending_acceptance and the total the server computed', async () => {
    const res = await placeOrder(t.server, t.w, { ...cart(t.w), total: 1, price: 0 } as never);
    expect(res.status).toBe(201);
    // 2 × (60 + 25 large + 8 cheese) + 12 cola = 198 subtotal, + 15 delivery = 213
    expect(res.body).toEqual({
      success: true,
      message: 'Order placed successfully.',
      data: { order_id: expect.any(Number), status: 'pending_acceptance', total: 213 },
    });
    const [order] = await sql('select subtotal_cents, delivery_fee_cents, discount_cents, total_cents, status, last_event_seq from orders');
    expect(order).toEqual({
      subtotal_cents: 19800,
      delivery_fee_cents: 1500,
      discount_cents: 0,
      total_cents: 21300,
      status: 'pending_acceptance',
      last_event_seq: 1,
    });
    const items = await sql(
      'select product_name, quantity, base_price_cents, unit_price_cents, total_price_cents, special_instructions from order_items order by id',
    );
    expect(items).toEqual([
      {
        product_name: 'Margherita',
        quantity: 2,
        base_price_cents: 6000,
        unit_price_cents: 9300,
        total_price_cents: 18600,
        special_instructions: 'Well done',
      },
      {
        product_name: 'Cola',
        quantity: 1,
        base_price_cents: 1200,
        unit_price_cents: 1200,
        total_price_cents: 1200,
        special_instructions: null,
      },
    ]);
    expect(await sql(`select seq, type, status from order_events`)).toEqual([{ seq: 1, type: 'status', status: 'pending_acceptance' }]);
  });

  it('applies a promo code: percentage with a cap, or a fixed amount', async () => {
    await promo(t.server, { code: 'TENOFF', percentOff: 10, maxDiscountCents: 1500 });
    const pct = await placeOrder(t.server, t.w, cart(t.w, { code_promo: 'tenoff' }));
    expect(pct.status).toBe(201);
    expect(pct.body.data.total).toBe(213 - 15); // 10% of 198 = 19.80, capped at 15
    await promo(t.server, { code: 'FIVE', discountType: 'fixed', percentOff: null, amountOffCents: 500 });
    const fixed = await placeOrder(t.server, t.w, cart(t.w, { code_promo: 'FIVE' }));
    expect(fixed.body.data.total).toBe(208);
    const [row] = await sql(`select promo_code, discount_cents from orders where id = ?`, [fixed.body.data.order_id]);
    expect(row).toEqual({ promo_code: 'FIVE', discount_cents: 500 });
  });

  it.each([
    ['quantity below 1', 'items.0.quantity', (b: ReturnType<typeof cart>) => ({ ...b, items: [{ ...b.items[0], quantity: 0 }] })],
    ['empty items', 'items', (b: ReturnType<typeof cart>) => ({ ...b, items: [] })],
    ['missing store_id', 'store_id', (b: ReturnType<typeof cart>) => ({ ...b, store_id: undefined })],
    [
      'an unknown product',
      'items.1.product_id',
      (b: ReturnType<typeof cart>) => ({ ...b, items: [b.items[1], { product_id: 999999, quantity: 1 }] }),
    ],
    [
      'an option of another product',
      'items.1.options',
      (b: ReturnType<typeof cart>) => ({ ...b, items: [b.items[0], { ...b.items[1], options: [b.items[0].options![0]] }] }),
    ],
    [
      'a supplement of another product',
      'items.1.supplements',
      (b: ReturnType<typeof cart>) => ({ ...b, items: [b.items[0], { ...b.items[1], supplements: [b.items[0].supplements![0]] }] }),
    ],
    [
      'a required option left empty',
      'items.0.options',
      (b: ReturnType<typeof cart>) => ({ ...b, items: [{ ...b.items[0], options: [] }] }),
    ],
    [
      'two values of a one-choice group',
      'items.0.options',
      (b: ReturnType<typeof cart>) => ({ ...b, items: [{ ...b.items[0], options: [b.items[0].options![0], b.items[0].options![0] - 1] }] }),
    ],
    ['an unknown promo code', 'code_promo', (b: ReturnType<typeof cart>) => ({ ...b, code_promo: 'NOPE' })],
  ])('answers 422 for %s, naming %s, and writes nothing', async (_name, field, change) => {
    const res = await placeOrder(t.server, t.w, change(cart(t.w)) as never);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toContain(field);
    expect(await countOrders()).toBe(0);
  });

  it('answers 422 for a product of another store (one store per order)', async () => {
    const other = await t.make.storeWithProducts(1);
    const res = await placeOrder(t.server, t.w, cart(t.w, { items: [{ product_id: other.products[0].id, quantity: 1 }] }));
    expect(res.status).toBe(422);
    expect(res.body.errors['items.0.product_id'][0]).toMatch(/another store/);
  });

  it('answers 422 for an inactive product, a closed store, or an inactive store', async () => {
    await sql('update products set is_active = false where id = ?', [t.w.cola.id]);
    expect(Object.keys((await placeOrder(t.server, t.w)).body.errors)).toEqual(['items.1.product_id']);
    await sql('update products set is_active = true');
    await sql('delete from store_opening_hours where store_id = ?', [t.w.owner.store.id]);
    const closed = await placeOrder(t.server, t.w);
    expect(closed.status).toBe(422);
    expect(closed.body.errors.store_id).toEqual(['The store is closed at the moment.']);
    await sql('update stores set is_active = false');
    expect((await placeOrder(t.server, t.w)).body.errors.store_id).toEqual(['The selected store is not available.']);
  });

  it("answers 422 for another customer's address and for an address outside the delivery area", async () => {
    const other = await registerCustomer(t.server);
    const theirs = await t.server.http.post(
      '/api/v1/customer/addresses',
      { label: 'Theirs', line1: 'x', latitude: t.w.owner.store.latitude, longitude: t.w.owner.store.longitude },
      { token: other.token },
    );
    const res = await placeOrder(t.server, t.w, cart(t.w, { address_id: theirs.body.data.id }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['address_id']);
    const far = await t.server.http.post(
      '/api/v1/customer/addresses',
      { label: 'Far', line1: 'x', latitude: t.w.owner.store.latitude + 1, longitude: t.w.owner.store.longitude },
      { token: t.w.customer.token },
    );
    const outside = await placeOrder(t.server, t.w, cart(t.w, { address_id: far.body.data.id }));
    expect(outside.body.errors.address_id[0]).toMatch(/outside/);
  });

  it('answers 422 for an expired, not yet valid, too small or already used promo code', async () => {
    await promo(t.server, { code: 'OLD', endsAt: new Date(Date.now() - 1000) });
    await promo(t.server, { code: 'SOON', startsAt: new Date(Date.now() + 3_600_000) });
    await promo(t.server, { code: 'BIG', minSubtotalCents: 50_000 });
    await promo(t.server, { code: 'ONCE', maxUsesPerCustomer: 1 });
    const message = async (code: string) => (await placeOrder(t.server, t.w, cart(t.w, { code_promo: code }))).body.errors?.code_promo?.[0];
    expect(await message('OLD')).toMatch(/expired/);
    expect(await message('SOON')).toMatch(/not active yet/);
    expect(await message('BIG')).toMatch(/at least 500.00/);
    expect((await placeOrder(t.server, t.w, cart(t.w, { code_promo: 'ONCE' }))).status).toBe(201);
    expect(await message('ONCE')).toMatch(/already used/);
    expect(await countOrders()).toBe(1);
  });

  it('holds the total promo limit under concurrent checkouts', async () => {
    await promo(t.server, { code: 'FIRST3', maxUses: 3, maxUsesPerCustomer: null });
    const answers = await Promise.all(Array.from({ length: 8 }, () => placeOrder(t.server, t.w, cart(t.w, { code_promo: 'FIRST3' }))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 422)).toHaveLength(5);
    expect(await sql('select used_count from promo_codes')).toEqual([{ used_count: 3 }]);
    expect(await countOrders()).toBe(3);
    expect(Number((await sql('select count(*) as n from promo_redemptions'))[0].n)).toBe(3);
  });

  it('holds the per-customer promo limit under concurrent checkouts of one customer', async () => {
    await promo(t.server, { code: 'JUSTONCE', maxUsesPerCustomer: 1 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => placeOrder(t.server, t.w, cart(t.w, { code_promo: 'JUSTONCE' }))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(await countOrders()).toBe(1);
  });

  it('writes each line with its own extras in the cart order, the same product twice included, with its first event and notification', async () => {
    const body = cart(t.w, {
      items: [
        { product_id: t.w.pizza.id, quantity: 1, options: [t.w.pizza.sizes[0]], supplements: [t.w.pizza.cheese] },
        { product_id: t.w.cola.id, quantity: 2, special_instructions: 'Cold' },
        { product_id: t.w.pizza.id, quantity: 3, options: [t.w.pizza.sizes[1]] },
      ],
    });
    const res = await placeOrder(t.server, t.w, body);
    expect(res.status).toBe(201);
    // (60 + 0 + 8) + 2 × 12 + 3 × (60 + 25) = 347, + 15 delivery
    expect(res.body.data.total).toBe(362);
    const id = res.body.data.order_id;
    const detail = await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token });
    const lines = detail.body.data.items.map((i: Record<string, unknown>) => [
      i.product_name,
      i.quantity,
      i.unit_price,
      i.special_instructions,
      i.options,
      i.supplements,
    ]);
    expect(lines).toEqual([
      [
        'Margherita',
        1,
        68,
        null,
        [{ id: t.w.pizza.sizes[0], name: 'Medium', price: 0 }],
        [{ id: t.w.pizza.cheese, name: 'Extra cheese', price: 8 }],
      ],
      ['Cola', 2, 12, 'Cold', [], []],
      ['Margherita', 3, 85, null, [{ id: t.w.pizza.sizes[1], name: 'Large', price: 25 }], []],
    ]);
    expect(await sql(`select last_event_seq from orders where id = ?`, [id])).toEqual([{ last_event_seq: 1 }]);
    expect(await sql(`select seq, type, status, data from order_events where order_id = ?`, [id])).toEqual([
      { seq: 1, type: 'status', status: 'pending_acceptance', data: null },
    ]);
    const kinds = await sql(`select kind from notification_outbox where order_id = ? order by kind`, [id]);
    // The owner has no device: the new order goes by WhatsApp (the reminder only by push).
    expect(kinds.map((k) => k.kind)).toEqual(['new_order']);
  });

  it('sends three statements without a promo code: the order limits, every read, the order with its claim and all it holds; no transaction', async () => {
    await placeOrder(t.server, t.w); // the token's revocation looked up, the store's zone met
    const watch = watchStatements(t.server.db.orm);
    const res = await placeOrder(t.server, t.w, cart(t.w), { 'Idempotency-Key': 'checkout-count' });
    const texts = watch.stop();
    expect(res.status).toBe(201);
    // Each prepared, on the read pool, committed on its own.
    expect(texts.map((text) => text.trim().split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'with c0 as',
      'select case when',
      'with claim as',
    ]);
    expect(await sql(`select response from idempotency_keys where key = 'checkout-count'`)).toEqual([
      { response: { orderId: res.body.data.order_id, status: 'pending_acceptance', total: res.body.data.total } },
    ]);
  });

  it('with a promo code, a transaction: the order limits, then begin, the claim with every read, the promo code, the order with all it holds, commit', async () => {
    await promo(t.server, { code: 'COUNTED', maxUsesPerCustomer: null });
    await placeOrder(t.server, t.w);
    const watch = watchStatements(t.server.db.orm);
    const res = await placeOrder(t.server, t.w, cart(t.w, { code_promo: 'COUNTED' }), { 'Idempotency-Key': 'checkout-count-promo' });
    const texts = watch.stop();
    expect(res.status).toBe(201);
    const firsts = texts.map((text) => text.trim().split(/\s+/).slice(0, 3).join(' '));
    // (After the promo failures' check.) The promo code's own statements come between the claim and the order.
    const counted = firsts.indexOf('with c0 as');
    expect([...firsts.slice(counted, counted + 3), firsts.at(-1)]).toEqual(['with c0 as', 'BEGIN;', 'with claim as', 'COMMIT;']);
    expect(firsts).toContain('with o as');
  });

  it('writes no order from reads older than CLAIM_WAIT_MS (nothing at all: no claim, item, extra, event or notification)', async () => {
    const order = await newOrder([
      {
        productId: t.w.cola.id,
        productName: 'Cola',
        quantity: 1,
        specialInstructions: null,
        basePriceCents: 1200,
        unitPriceCents: 1200,
        totalPriceCents: 1200,
        extras: [{ kind: 'supplement', id: t.w.pizza.cheese, name: 'Extra cheese', priceCents: 0 }],
      },
    ]);
    const em = t.server.db.orm.em.fork();
    const readAt = async (msAgo: number) =>
      (await sql(`select (clock_timestamp() - make_interval(secs => ?))::text as at`, [msAgo / 1000]))[0].at as string;
    const claim = { key: 'checkout-stale', hash: 'h', total: 12 };
    expect(await insertOrderAlone(em, order, null, await readAt(CLAIM_WAIT_MS + 50))).toBeNull();
    expect(await insertOrderAlone(em, order, claim, await readAt(CLAIM_WAIT_MS + 50))).toBeNull();
    const tables = ['orders', 'order_items', 'order_item_extras', 'order_events', 'notification_outbox', 'idempotency_keys'];
    for (const table of tables)
      expect({ table, rows: await sql(`select count(*)::int as n from ${table}`) }).toEqual({ table, rows: [{ n: 0 }] });
    // Fresh reads: written, the claim answered as it is made.
    const written = await insertOrderAlone(em, order, claim, await readAt(0));
    expect(written).toMatchObject({ status: 'pending_acceptance' });
    expect(await sql(`select response from idempotency_keys where key = 'checkout-stale'`)).toEqual([
      { response: { orderId: written!.id, status: 'pending_acceptance', total: 12 } },
    ]);
    for (const table of tables)
      expect({ table, rows: await sql(`select count(*)::int as n from ${table}`) }).not.toEqual({ table, rows: [{ n: 0 }] });
    // The key taken: nothing more is written.
    expect(await insertOrderAlone(em, order, claim, await readAt(0))).toBeNull();
    expect(await countOrders()).toBe(1);
    expect(await sql(`select count(*)::int as n from order_item_extras`)).toEqual([{ n: 1 }]);
  });

  it("reads on its prepared statement's generic plan: planned once per connection, not on every checkout", async () => {
    // PostgreSQL keeps a prepared statement's generic plan only when it looks no costlier than the
    // custom plans it made first; a cart's ids seen as values made every custom plan look
    // cheaper (docs/perf/2026-11-27-checkout-2.md), so checkout's read was planned each time.
    const [{ timezone }] = await sql(`select timezone from stores where id = ?`, [t.w.owner.store.id]);
    const { sql: text, params } = checkoutPlaceStatement(
      { storeId: t.w.owner.store.id, addressId: t.w.addressId, userId: t.w.customer.user.id },
      localTimesOf([timezone as string], new Date()),
      cartColumns([
        { productId: t.w.pizza.id, quantity: 1, options: [t.w.pizza.sizes[0]], supplements: [t.w.pizza.cheese] },
        { productId: t.w.cola.id, quantity: 2 },
      ]),
      null,
    );
    let n = 0;
    const native = text.replace(/\?/g, () => `$${++n}`);
    const client = new Client({ connectionString: t.server.db.orm.config.get('clientUrl') });
    await client.connect();
    try {
      for (let run = 0; run < 8; run++) {
        const [row] = (await client.query({ name: 'checkout_place', text: native, values: params })).rows;
        expect(row.store).toMatchObject({ id: t.w.owner.store.id, open: true, zoneKnown: true });
        expect(row.products).toHaveLength(2);
      }
      const [plans] = (await client.query(`select generic_plans, custom_plans from pg_prepared_statements where name = 'checkout_place'`))
        .rows;
      expect(Number(plans.generic_plans)).toBeGreaterThan(0);
      // "Open now" inlined into that plan (store_open_at), not a function planned on each call.
      const plan = (await client.query(`explain (verbose, costs off) ${native}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('store_opening_hours');
      expect(plan).not.toMatch(/store_is_open|store_open_at/);
    } finally {
      await client.end();
    }
  });

  it('answers 401 without a token', async () => {
    const res = await t.server.http.post('/api/v1/customer/orders', cart(t.w));
    expect(res.status).toBe(401);
    expect(await countOrders()).toBe(0);
  });
});

describe('POST /api/v1/customer/orders with Idempotency-Key', () => {
  it('answers a retry with the first answer and creates one order', async () => {
    const headers = { 'Idempotency-Key': 'checkout-7f3a' };
    const first = await placeOrder(t.server, t.w, cart(t.w), headers);
    const retry = await placeOrder(t.server, t.w, cart(t.w), headers);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(await countOrders()).toBe(1);
  });

  it('answers 422 for the same key with a different body', async () => {
    const headers = { 'Idempotency-Key': 'checkout-8b1c' };
    await placeOrder(t.server, t.w, cart(t.w), headers);
    const other = await placeOrder(t.server, t.w, cart(t.w, { items: [{ product_id: t.w.cola.id, quantity: 3 }] }), headers);
    expect(other.status).toBe(422);
    expect(Object.keys(other.body.errors)).toEqual(['idempotency_key']);
    expect(await countOrders()).toBe(1);
  });

  it('makes one order for requests with one key at once: each waits for the first and answers its order', async () => {
    const headers = { 'Idempotency-Key': 'checkout-race' };
    const answers = await Promise.all(Array.from({ length: 6 }, () => placeOrder(t.server, t.w, cart(t.w), headers)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(await countOrders()).toBe(1);
  });

  it('a claim dies with its holder: after the holder is killed (-9), the waiting retry makes the one order', async () => {
    // Another instance's checkout, claim taken in its open transaction, then killed: a process of its own.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const { Client } = require('pg');
         const c = new Client({ connectionString: process.argv[1] });
         c.connect()
           .then(() => c.query('begin'))
           .then(() => c.query("insert into idempotency_keys (user_id, key, request_hash) values ($1, 'checkout-killed', 'h')", [Number(process.argv[2])]))
           .then(() => console.log('held'));
         setInterval(() => {}, 1000);`,
        t.server.db.orm.config.get('clientUrl'),
        String(t.w.customer.user.id),
      ],
      { cwd: path.resolve(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(holder.stdout, 'data');
      const retry = placeOrder(t.server, t.w, cart(t.w), { 'Idempotency-Key': 'checkout-killed' });
      // The retry waits on the holder's uncommitted claim (a lock wait), not answering 409.
      await until(async () => (await lockWaiters()) === 1, "the retry waiting on the holder's claim");
      holder.kill('SIGKILL');
      const res = await retry;
      expect(res.status).toBe(201);
      const again = await placeOrder(t.server, t.w, cart(t.w), { 'Idempotency-Key': 'checkout-killed' });
      expect(again.body).toEqual(res.body);
      expect(await countOrders()).toBe(1);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('reads the store and the prices again after waiting on a first request with the key that then failed', async () => {
    await placeOrder(t.server, t.w); // the store's zone met: the claim's statement is the only read
    const holder = new Client({ connectionString: t.server.db.orm.config.get('clientUrl') });
    await holder.connect();
    try {
      await holder.query('begin');
      // Claimed as every claim is (CLAIM_SQL: the key's lock first).
      let n = 0;
      await holder.query(
        CLAIM_SQL.replace(/\?/g, () => `$${++n}`),
        [t.w.customer.user.id, 'checkout-reread', 'h'],
      );
      const retry = placeOrder(t.server, t.w, cart(t.w), { 'Idempotency-Key': 'checkout-reread' });
      await until(async () => (await lockWaiters()) === 1, "the retry waiting on the holder's claim");
      // While it waits, the cola costs 1 more; then the first request fails.
      await sql(`update products set price_cents = price_cents + 100 where id = ?`, [t.w.cola.id]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      await holder.query('rollback');
      const res = await retry;
      expect(res.status).toBe(201);
      expect(res.body.data.total).toBe(214); // 213 at the price read before the wait
      expect(
        await sql(`select base_price_cents from order_items where order_id = ? and product_id = ?`, [res.body.data.order_id, t.w.cola.id]),
      ).toEqual([{ base_price_cents: 1300 }]);
    } finally {
      await holder.end();
    }
  });

  it("refuses an order whose key's answer finds no claim to answer (nothing is written)", async () => {
    const em = t.server.db.orm.em.fork();
    const order = await newOrder([]);
    await expect(em.transactional((tx) => insertOrder(tx, order, { key: 'never-claimed', total: 12 }))).rejects.toThrow(
      /answer updated 0 rows/,
    );
    expect(await countOrders()).toBe(0);
    // With its claim, the same order is written and answered.
    await em.transactional(async (tx) => {
      await tx.execute(`insert into idempotency_keys (user_id, key, request_hash) values (?, 'claimed', 'h')`, [order.userId]);
      await insertOrder(tx, order, { key: 'claimed', total: 12 });
    });
    expect(await sql(`select response->>'total' as total from idempotency_keys where key = 'claimed'`)).toEqual([{ total: '12' }]);
  });

  it('frees the key when the first request failed, so a corrected request goes through', async () => {
    const headers = { 'Idempotency-Key': 'checkout-fix' };
    const bad = await placeOrder(t.server, t.w, cart(t.w, { code_promo: 'NOPE' }), headers);
    expect(bad.status).toBe(422);
    const good = await placeOrder(t.server, t.w, cart(t.w), headers);
    expect(good.status).toBe(201);
  });

  it('keeps the first answer with the order: a replay reads it, even once the promo code it used is used up', async () => {
    await promo(t.server, { code: 'ONCEKEY', maxUsesPerCustomer: 1 });
    const headers = { 'Idempotency-Key': 'checkout-promo' };
    const first = await placeOrder(t.server, t.w, cart(t.w, { code_promo: 'ONCEKEY' }), headers);
    expect(first.status).toBe(201);
    expect(await sql(`select response from idempotency_keys where key = ?`, ['checkout-promo'])).toEqual([
      { response: { orderId: first.body.data.order_id, status: 'pending_acceptance', total: first.body.data.total } },
    ]);
    const retry = await placeOrder(t.server, t.w, cart(t.w, { code_promo: 'ONCEKEY' }), headers);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(await sql('select used_count from promo_codes')).toEqual([{ used_count: 1 }]);
    expect(await countOrders()).toBe(1);
  });

  it('claims nothing for a malformed body: the key then serves a good request', async () => {
    const headers = { 'Idempotency-Key': 'checkout-malformed' };
    const bodies: unknown[] = [
      { ...cart(t.w), items: 'pizza' },
      { ...cart(t.w), store_id: String(t.w.owner.store.id) },
      { ...cart(t.w), items: [null] },
      { ...cart(t.w), items: [{ product_id: t.w.cola.id, quantity: 1.5 }] },
      { ...cart(t.w), items: [{ product_id: t.w.cola.id, quantity: 1, options: [[1]] }] },
    ];
    for (const body of bodies) {
      const res = await placeOrder(t.server, t.w, body as never, headers);
      expect({ body, status: res.status }).toEqual({ body, status: 422 });
    }
    // An array where the fields go is 400, as malformed JSON is (docs/decisions.md).
    expect((await placeOrder(t.server, t.w, [cart(t.w)] as never, headers)).status).toBe(400);
    const raw = await fetch(`${t.server.url}/api/v1/customer/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.w.customer.token}`, 'content-type': 'application/json', ...headers },
      body: '{"store_id": 1, "items": [',
    });
    expect(raw.status).toBe(400);
    expect(await sql(`select count(*)::int as n from idempotency_keys`)).toEqual([{ n: 0 }]);
    expect((await placeOrder(t.server, t.w, cart(t.w), headers)).status).toBe(201);
    expect(await countOrders()).toBe(1);
  });

  it('lets each waiting request with one key try in turn when the first fails, and claims it for none', async () => {
    const headers = { 'Idempotency-Key': 'checkout-failing-race' };
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => placeOrder(t.server, t.w, cart(t.w, { code_promo: 'NOPE' }), headers)),
    );
    expect(answers.map((a) => [a.status, Object.keys(a.body.errors)])).toEqual(Array.from({ length: 4 }, () => [422, ['code_promo']]));
    expect(await sql(`select count(*)::int as n from idempotency_keys`)).toEqual([{ n: 0 }]);
    expect(await countOrders()).toBe(0);
  });

  it('answers 422 to a request with the key of another body made at once, and makes one order', async () => {
    const headers = { 'Idempotency-Key': 'checkout-two-bodies' };
    const [a, b] = await Promise.all([
      placeOrder(t.server, t.w, cart(t.w), headers),
      placeOrder(t.server, t.w, cart(t.w, { items: [{ product_id: t.w.cola.id, quantity: 1 }] }), headers),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([201, 422]);
    const refused = a.status === 422 ? a : b;
    expect(Object.keys(refused.body.errors)).toEqual(['idempotency_key']);
    expect(await countOrders()).toBe(1);
  });

  it('keys are per customer', async () => {
    const headers = { 'Idempotency-Key': 'shared-key' };
    await placeOrder(t.server, t.w, cart(t.w), headers);
    const other = await registerCustomer(t.server);
    const address = await t.server.http.post(
      '/api/v1/customer/addresses',
      { label: 'H', line1: 'x', latitude: t.w.owner.store.latitude, longitude: t.w.owner.store.longitude },
      { token: other.token },
    );
    const res = await t.server.http.post('/api/v1/customer/orders', cart(t.w, { address_id: address.body.data.id }), {
      token: other.token,
      headers,
    });
    expect(res.status).toBe(201);
    expect(await countOrders()).toBe(2);
  });
});

/** An order as checkout computes it (1,200 cents, the customer's first address), with `items` as priced. */
async function newOrder(items: unknown[]): Promise<NewOrder> {
  const [address] = await sql(`select id, label, line1, line2, city, latitude, longitude, instructions from user_addresses where id = ?`, [
    t.w.addressId,
  ]);
  return {
    userId: t.w.customer.user.id,
    storeId: t.w.owner.store.id,
    address,
    status: 'pending_acceptance',
    subtotalCents: 1200,
    deliveryFeeCents: 0,
    discountCents: 0,
    totalCents: 1200,
    promoId: null,
    promoCode: null,
    items,
  } as unknown as NewOrder;
}
