/** Spec §2.8, §2.9, §3 and §4.2 accept/reject: order list, detail and the lifecycle over REST. */
import { northOf } from './helpers/factories';
import { onlineDriver, placeOrder, useOrderWorld } from './helpers/orders';
import { registerCustomer } from './helpers/auth';
import { until } from './helpers/ws';
import { expireUnansweredOrders } from '../src/modules/orders/order-lifecycle.service';
import { roundCoordinate } from '../src/common/coordinate-field';
import { createLogger } from '../src/common/logger';

const silent = createLogger('silent');

const t = useOrderWorld();

const sql = (query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute(query, params);
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const storeStep = (id: number, step: string, body?: unknown, token = t.w.owner.token) =>
  t.server.http.post(`/api/v1/store/orders/${id}/${step}`, body, { token });
const driverStep = (id: number, step: string, token: string) =>
  t.server.http.post(`/api/v1/driver/orders/${id}/${step}`, undefined, { token });
const near = () => northOf({ lat: t.w.owner.store.latitude, lng: t.w.owner.store.longitude }, 0.5);

/**
 * Two store steps at once on one order, both past their read of `pending_acceptance` before
 * either writes: a test transaction holds the order's row until both wait on it, then lets go.
 */
async function race(id: number, ...steps: [string, unknown?][]) {
  const waiting = async () =>
    (await sql(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))[0].n;
  const { answers } = await t.server.db.orm.em.fork().transactional(async (tx) => {
    await tx.execute(`select 1 from orders where id = ? for update`, [id]);
    const answers = Promise.all(steps.map(([step, body]) => storeStep(id, step, body)));
    const deadline = Date.now() + 2_000; // under the lock timeout (3 s)
    while ((await waiting()) < steps.length) {
      if (Date.now() > deadline) throw new Error('the steps never waited on the order');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { answers }; // wrapped: the transaction commits (letting go) before the steps answer
  });
  return answers;
}

async function newOrder(): Promise<number> {
  const res = await placeOrder(t.server, t.w);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.order_id;
}

describe('GET /api/v1/customer/orders', () => {
  it("answers the caller's orders, newest first, with the §2.8 fields", async () => {
    const first = await newOrder();
    const second = await newOrder();
    const other = await registerCustomer(t.server);
    const res = await t.server.http.get('/api/v1/customer/orders', { token: t.w.customer.token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual([second, first]);
    expect(res.body.data[0]).toEqual({
      id: second,
      status: 'pending_acceptance',
      subtotal: 198,
      total: 213,
      created_at: ISO,
      store: { id: t.w.owner.store.id, name: t.w.owner.store.name, logo: t.w.owner.store.logo },
      items: [
        { product_id: t.w.pizza.id, product_name: 'Margherita', quantity: 2, base_price: 60, total_price: 186 },
        { product_id: t.w.cola.id, product_name: 'Cola', quantity: 1, base_price: 12, total_price: 12 },
      ],
      payment: null, // none started yet (payments.test.ts covers the payment fields)
    });
    expect((await t.server.http.get('/api/v1/customer/orders', { token: other.token })).body.data).toEqual([]);
    expect((await t.server.http.get('/api/v1/customer/orders')).status).toBe(401);
  });
});

describe('GET /api/v1/customer/orders/{id}', () => {
  it('answers the detail: full store, exact address, timeline, items with options and supplements', async () => {
    const id = await newOrder();
    const res = await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token });
    expect(res.status).toBe(200);
    const order = res.body.data;
    expect(order).toMatchObject({
      id,
      status: 'pending_acceptance',
      total: 213,
      subtotal: 198,
      delivery_fee: 15,
      discount: 0,
      driver: null,
    });
    expect(order.store).toMatchObject({
      id: t.w.owner.store.id,
      name: t.w.owner.store.name,
      address: t.w.owner.store.address,
      latitude: t.w.owner.store.latitude,
    });
    expect(order.user_address).toEqual({
      label: 'Home',
      line1: '5 Rue Ibnou Sina',
      line2: null,
      city: 'Casablanca',
      latitude: expect.any(Number),
      longitude: t.w.owner.store.longitude,
      instructions: null,
    });
    expect(order.timeline).toEqual([{ status: 'pending_acceptance', at: ISO }]);
    expect(order.items[0]).toEqual({
      product_id: t.w.pizza.id,
      product_name: 'Margherita',
      quantity: 2,
      base_price: 60,
      total_price: 186,
      unit_price: 93,
      special_instructions: 'Well done',
      options: [{ id: t.w.pizza.sizes[1], name: 'Large', price: 25 }],
      supplements: [{ id: t.w.pizza.cheese, name: 'Extra cheese', price: 8 }],
    });
  });

  it("answers 404 for another customer's order, the same as for a missing one", async () => {
    const id = await newOrder();
    const other = await registerCustomer(t.server);
    const theirs = await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: other.token });
    const missing = await t.server.http.get('/api/v1/customer/orders/999999', { token: other.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ message: `No query results for model [Order] ${id}` });
    expect(missing.status).toBe(404);
  });
});

describe('POST /api/v1/store/orders/{id}/accept', () => {
  it('answers 200 and moves the order to accepted', async () => {
    const id = await newOrder();
    const res = await storeStep(id, 'accept');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Order accepted.', data: { order_id: id, status: 'accepted' } });
  });

  it('answers 403 to a caller who does not own the store, 404 for an unknown order, 422 from a wrong status', async () => {
    const id = await newOrder();
    const stranger = await registerCustomer(t.server);
    const forbidden = await storeStep(id, 'accept', undefined, stranger.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: 'You do not own the store of this order.' });
    expect((await storeStep(999999, 'accept')).status).toBe(404);
    expect((await storeStep(id, 'accept')).status).toBe(200);
    const again = await storeStep(id, 'accept');
    expect(again.status).toBe(422);
    expect(again.body.errors.status[0]).toMatch(/accepted/);
    expect((await t.server.http.post(`/api/v1/store/orders/${id}/accept`)).status).toBe(401);
  });

  it('of two accepts at once, the loser is told the order moved on meanwhile (422)', async () => {
    const id = await newOrder();
    const answers = await race(id, ['accept'], ['accept']);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422]);
    const loser = answers.find((a) => a.status === 422)!;
    expect(loser.body.errors).toEqual({
      status: ['The order moved on meanwhile: it is now accepted; this needs it to be pending_acceptance.'],
    });
  });

  it('assigns the nearest free online driver', async () => {
    const far = await onlineDriver(t.server, northOf(near(), 5));
    const close = await onlineDriver(t.server, near());
    const id = await newOrder();
    await storeStep(id, 'accept');
    const detail = await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token });
    expect(detail.body.data.driver).toEqual({
      id: close.driverId,
      name: 'Omar Driver',
      phone: close.user.phone_number,
      latitude: roundCoordinate(near().lat),
      longitude: roundCoordinate(near().lng),
    });
    expect(far.driverId).not.toBe(close.driverId);
  });
});

describe('POST /api/v1/store/orders/{id}/reject', () => {
  it('answers 200 with a reason from the list and a note', async () => {
    const id = await newOrder();
    const res = await storeStep(id, 'reject', { rejection_reason: 'too_busy', rejection_note: 'Kitchen full tonight' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ order_id: id, status: 'rejected' });
    const detail = await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token });
    expect(detail.body.data).toMatchObject({ status: 'rejected', rejection_reason: 'too_busy', rejection_note: 'Kitchen full tonight' });
  });

  it('answers 422 without a reason, for a reason off the list, or a note over 500 characters', async () => {
    const id = await newOrder();
    expect(Object.keys((await storeStep(id, 'reject', {})).body.errors)).toEqual(['rejection_reason']);
    expect(Object.keys((await storeStep(id, 'reject', { rejection_reason: 'bored' })).body.errors)).toEqual(['rejection_reason']);
    const long = await storeStep(id, 'reject', { rejection_reason: 'other', rejection_note: 'x'.repeat(501) });
    expect(long.status).toBe(422);
    expect(Object.keys(long.body.errors)).toEqual(['rejection_note']);
    expect(await sql('select status from orders')).toEqual([{ status: 'pending_acceptance' }]);
  });

  it('answers 403 for a stranger, 404 for an unknown order, 422 once accepted', async () => {
    const id = await newOrder();
    const stranger = await registerCustomer(t.server);
    expect((await storeStep(id, 'reject', { rejection_reason: 'other' }, stranger.token)).status).toBe(403);
    expect((await storeStep(999999, 'reject', { rejection_reason: 'other' })).status).toBe(404);
    await storeStep(id, 'accept');
    expect((await storeStep(id, 'reject', { rejection_reason: 'other' })).status).toBe(422);
  });

  it('racing accept and reject: the loser is told what the order became meanwhile (422)', async () => {
    const id = await newOrder();
    const [accepted, rejected] = await race(id, ['accept'], ['reject', { rejection_reason: 'too_busy' }]);
    const [order] = await sql('select status from orders where id = ?', [id]);
    const loser = order.status === 'accepted' ? rejected : accepted;
    expect(loser.status).toBe(422);
    expect(loser.body.errors).toEqual({
      status: [`The order moved on meanwhile: it is now ${order.status}; this needs it to be pending_acceptance.`],
    });
    // Asked again afterwards, the order has not moved under the caller: the plain answer.
    const late = await storeStep(id, order.status === 'accepted' ? 'reject' : 'accept', { rejection_reason: 'too_busy' });
    expect(late.body.errors.status).toEqual([`The order is ${order.status}; this needs it to be pending_acceptance.`]);
  });

  it('racing accept and reject end with exactly one', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await newOrder();
      const [accepted, rejected] = await Promise.all([storeStep(id, 'accept'), storeStep(id, 'reject', { rejection_reason: 'too_busy' })]);
      expect([accepted.status, rejected.status].sort()).toEqual([200, 422]);
      const events = await sql(`select status from order_events where order_id = ? and type = 'status' order by seq`, [id]);
      expect(events).toHaveLength(2);
      const [order] = await sql('select status from orders where id = ?', [id]);
      expect(events[1].status).toBe(order.status);
    }
  });
});

describe('the whole journey', () => {
  it('preparing, ready, picked up and delivered, each once, by the right actor, with a timeline', async () => {
    const driver = await onlineDriver(t.server, near());
    const id = await newOrder();
    expect((await storeStep(id, 'preparing')).status).toBe(422); // not accepted yet
    expect((await storeStep(id, 'accept')).status).toBe(200);
    expect((await driverStep(id, 'pickup', driver.token)).status).toBe(422); // not ready
    expect((await storeStep(id, 'preparing')).body.data.status).toBe('preparing');
    expect((await storeStep(id, 'ready')).body.data.status).toBe('ready_for_pickup');
    const stranger = await onlineDriver(t.server, northOf(near(), 20));
    expect((await driverStep(id, 'pickup', stranger.token)).status).toBe(403);
    expect((await driverStep(id, 'pickup', t.w.customer.token)).status).toBe(403);
    const mine = await t.server.http.get('/api/v1/driver/orders', { token: driver.token });
    expect(mine.body.data.map((o: { id: number }) => o.id)).toEqual([id]);
    expect((await driverStep(id, 'pickup', driver.token)).body.data.status).toBe('picked_up');
    expect((await driverStep(id, 'deliver', driver.token)).body.data.status).toBe('delivered');
    expect((await driverStep(id, 'deliver', driver.token)).status).toBe(422);

    const detail = await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token });
    expect(detail.body.data.timeline.map((entry: { status: string }) => entry.status)).toEqual([
      'pending_acceptance',
      'accepted',
      'preparing',
      'ready_for_pickup',
      'picked_up',
      'delivered',
    ]);
    // The payment's history is the payment's: no payment was started, so cash, collected by the driver.
    expect(detail.body.data.payment.events).toEqual([{ status: 'collected', amount: detail.body.data.total, at: expect.any(String) }]);
    const times = detail.body.data.timeline.map((entry: { at: string }) => Date.parse(entry.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(await sql('select order_count from stores where id = ?', [t.w.owner.store.id])).toEqual([{ order_count: 1 }]);
    expect(await sql('select order_count from products where id = ?', [t.w.pizza.id])).toEqual([{ order_count: 2 }]);
  });

  it('an order accepted with no driver free is picked up by the first driver to come online nearby; none is picked up without one', async () => {
    const id = await newOrder();
    await storeStep(id, 'accept');
    await storeStep(id, 'preparing');
    await storeStep(id, 'ready');
    const [row] = await sql('select driver_id from orders where id = ?', [id]);
    expect(row.driver_id).toBeNull();
    const driver = await onlineDriver(t.server, near());
    // Offered at the flush that wrote the driver's position (docs/decisions.md "Driver positions").
    await until(
      async () => (await sql('select driver_id from orders where id = ?', [id]))[0].driver_id === driver.driverId,
      'the assignment',
    );
    expect((await driverStep(id, 'pickup', driver.token)).status).toBe(200);
  });

  it('a customer cancels while the store has not answered, not after', async () => {
    const id = await newOrder();
    const other = await registerCustomer(t.server);
    expect((await t.server.http.post(`/api/v1/customer/orders/${id}/cancel`, undefined, { token: other.token })).status).toBe(404);
    const res = await t.server.http.post(`/api/v1/customer/orders/${id}/cancel`, undefined, { token: t.w.customer.token });
    expect(res.body.data).toEqual({ order_id: id, status: 'cancelled' });
    const later = await newOrder();
    await storeStep(later, 'accept');
    expect((await t.server.http.post(`/api/v1/customer/orders/${later}/cancel`, undefined, { token: t.w.customer.token })).status).toBe(
      422,
    );
  });
});

describe('orders the store does not answer in time', () => {
  it('are rejected with a recorded reason the customer sees', async () => {
    const stale = await newOrder();
    const fresh = await newOrder();
    await sql(`update orders set created_at = now() - interval '11 minutes' where id = ?`, [stale]);
    expect(await expireUnansweredOrders(t.server.db.orm.em.fork(), t.server.app.services, silent, 600)).toBe(1);
    const detail = await t.server.http.get(`/api/v1/customer/orders/${stale}`, { token: t.w.customer.token });
    expect(detail.body.data).toMatchObject({ status: 'rejected', rejection_reason: 'not_accepted_in_time' });
    expect(detail.body.data.timeline.map((entry: { status: string }) => entry.status)).toEqual(['pending_acceptance', 'rejected']);
    expect(await sql('select status from orders where id = ?', [fresh])).toEqual([{ status: 'pending_acceptance' }]);
    expect(await expireUnansweredOrders(t.server.db.orm.em.fork(), t.server.app.services, silent, 600)).toBe(0);
  });
});

describe('GET /api/v1/store/orders', () => {
  it("answers the orders of the owner's stores, filterable by status", async () => {
    const a = await newOrder();
    const b = await newOrder();
    await storeStep(a, 'accept');
    const all = await t.server.http.get('/api/v1/store/orders', { token: t.w.owner.token });
    expect(all.body.data.orders.map((o: { id: number }) => o.id)).toEqual([b, a]);
    const pending = await t.server.http.get('/api/v1/store/orders?status=pending_acceptance', { token: t.w.owner.token });
    expect(pending.body.data.orders.map((o: { id: number }) => o.id)).toEqual([b]);
    expect((await t.server.http.get('/api/v1/store/orders', { token: t.w.customer.token })).body.data.orders).toEqual([]);
  });

  it('pages a store with more than one page (page, per_page, meta), with the status filter, REST and GraphQL', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 17; i++) ids.push(await newOrder());
    for (const id of ids.slice(0, 4)) await storeStep(id, 'accept');
    const newest = [...ids].reverse();
    const page = (query: string) => t.server.http.get(`/api/v1/store/orders${query}`, { token: t.w.owner.token });

    const first = await page('');
    expect(first.body.data.orders.map((o: { id: number }) => o.id)).toEqual(newest.slice(0, 15));
    expect(first.body.data.meta).toEqual({ total: 17, per_page: 15, current_page: 1, last_page: 2 });
    const second = await page('?page=2');
    expect(second.body.data.orders.map((o: { id: number }) => o.id)).toEqual(newest.slice(15));
    expect(second.body.data.meta).toEqual({ total: 17, per_page: 15, current_page: 2, last_page: 2 });

    const pending = await page(`?status=pending_acceptance&per_page=5&page=3&store_id=${t.w.owner.store.id}`);
    expect(pending.body.data.orders.map((o: { id: number }) => o.id)).toEqual(newest.slice(10, 13));
    expect(pending.body.data.meta).toEqual({ total: 13, per_page: 5, current_page: 3, last_page: 3 });
    const accepted = await page('?status=accepted&per_page=3&page=2');
    expect(accepted.body.data.orders.map((o: { id: number }) => o.id)).toEqual([ids[0]]);
    expect(accepted.body.data.meta).toEqual({ total: 4, per_page: 3, current_page: 2, last_page: 2 });

    expect((await page('?per_page=51')).status).toBe(422);
    expect((await page('?status=eaten')).status).toBe(422);

    const gql = await t.server.http.graphql(
      `query { storeOrderPage(status: "accepted", perPage: 2) { orders { id status } meta { total perPage currentPage lastPage } } }`,
      {},
      { token: t.w.owner.token },
    );
    expect(gql.body.data.storeOrderPage).toEqual({
      orders: [ids[3], ids[2]].map((id) => ({ id, status: 'accepted' })),
      meta: { total: 4, perPage: 2, currentPage: 1, lastPage: 2 },
    });
  });
});

describe('GraphQL: placeOrder, myOrders, myOrder, acceptOrder', () => {
  it('answer the same as REST for the dashboard and apps', async () => {
    const placed = await t.server.http.graphql(
      `mutation($input: CheckoutInput!, $key: String) { placeOrder(input: $input, idempotencyKey: $key) { message placed { orderId status total } } }`,
      { input: { storeId: t.w.owner.store.id, addressId: t.w.addressId, items: [{ productId: t.w.cola.id, quantity: 3 }] }, key: 'gql-1' },
      { token: t.w.customer.token },
    );
    expect(placed.body.errors).toBeUndefined();
    const { orderId } = placed.body.data.placeOrder.placed;
    expect(placed.body.data.placeOrder).toEqual({
      message: 'Order placed successfully.',
      placed: { orderId, status: 'pending_acceptance', total: 51 },
    });

    const accepted = await t.server.http.graphql(
      `mutation($id: Int!) { acceptOrder(id: $id) { order { status } } }`,
      { id: orderId },
      { token: t.w.owner.token },
    );
    expect(accepted.body.data.acceptOrder.order.status).toBe('accepted');

    const read = await t.server.http.graphql(
      `query($id: Int!) { myOrders { id } myOrder(id: $id) { status total items { productName quantity totalPrice } timeline { status } } }`,
      { id: orderId },
      { token: t.w.customer.token },
    );
    expect(read.body.data).toEqual({
      myOrders: [{ id: orderId }],
      myOrder: {
        status: 'accepted',
        total: 51,
        items: [{ productName: 'Cola', quantity: 3, totalPrice: 36 }],
        timeline: [{ status: 'pending_acceptance' }, { status: 'accepted' }],
      },
    });

    const invalid = await t.server.http.graphql(
      `mutation($input: CheckoutInput!) { placeOrder(input: $input) { placed { orderId } } }`,
      { input: { storeId: t.w.owner.store.id, addressId: t.w.addressId, items: [{ productId: t.w.cola.id, quantity: 0 }] } },
      { token: t.w.customer.token },
    );
    expect(invalid.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION',
      fields: { 'items.0.quantity': ['quantity must be at least 1'] },
    });
  });
});
