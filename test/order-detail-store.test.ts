/**
 * Spec §2.9: the order detail's `store` is the complete store object, the very shape of
 * GET /api/v1/store/stores/{id}, loaded in a bounded number of statements.
 */
import { placeOrder, useOrderWorld } from './helpers/orders';
import { countStatements } from './helpers/statements';

const t = useOrderWorld();
beforeEach(async () => {
  const category = await t.make.storeCategory({ name: 'Pizza', icon: 'pizza' });
  await t.server.db.orm.em
    .fork()
    .execute(`update stores set category_id = ?, description = 'Wood-fired', rating = 4.4, rating_count = 12 where id = ?`, [
      category.id,
      t.w.owner.store.id,
    ]);
  await t.make.offer({ storeId: t.w.owner.store.id, title: 'Two for one' });
});

/** Runs `call` and counts the SQL statements it sent. */
async function statements(call: () => Promise<{ status: number }>): Promise<number> {
  const { count, result: res } = await countStatements(t.server.db.orm, call);
  expect(res.status).toBe(200);
  return count;
}

it('the order detail carries the store exactly as GET /api/v1/store/stores/{id} answers it', async () => {
  const id = (await placeOrder(t.server, t.w)).body.data.order_id;
  const details = await t.server.http.get(`/api/v1/store/stores/${t.w.owner.store.id}`);
  expect(details.status).toBe(200);
  const order = await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token });
  expect(order.status).toBe(200);
  expect(order.body.data.store).toEqual(details.body.data);
  for (const field of ['category_id', 'rating_count', 'description', 'delivery_radius_km', 'category_detail', 'opening_hours', 'offers']) {
    expect(order.body.data.store).toHaveProperty(field);
  }
  expect(order.body.data.store.category_detail).toMatchObject({ name: 'Pizza', icon: 'pizza' });
  expect(order.body.data.store.offers.map((o: { title: string }) => o.title)).toEqual(['Two for one']);
  expect(order.body.data.store.opening_hours).toHaveLength(7);

  // The owner's list and the driver's list use the same order detail.
  const list = await t.server.http.get(`/api/v1/store/orders?store_id=${t.w.owner.store.id}`, { token: t.w.owner.token });
  expect(list.body.data.orders[0].store).toEqual(details.body.data);
});

it('loads in a bounded number of statements: one order or many, few offers and hours or many', async () => {
  const first = (await placeOrder(t.server, t.w)).body.data.order_id;
  // The owner's token checked once before counting (a token found unrevoked is then trusted for a while).
  await t.server.http.get('/api/v1/store/orders', { token: t.w.owner.token });
  const one = await statements(() => t.server.http.get(`/api/v1/customer/orders/${first}`, { token: t.w.customer.token }));
  const listOfOne = await statements(() => t.server.http.get('/api/v1/store/orders', { token: t.w.owner.token }));

  for (let i = 0; i < 3; i++) await t.make.offer({ storeId: t.w.owner.store.id });
  for (let i = 0; i < 4; i++) await placeOrder(t.server, t.w);
  expect(await statements(() => t.server.http.get(`/api/v1/customer/orders/${first}`, { token: t.w.customer.token }))).toBe(one);
  expect(await statements(() => t.server.http.get('/api/v1/store/orders', { token: t.w.owner.token }))).toBe(listOfOne);
  expect(one).toBeLessThanOrEqual(14);
});
