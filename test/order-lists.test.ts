/**
 * The order lists (customer's, store owner's, driver's) cost a fixed number of SQL
 * statements, with an upper bound, whatever the number of orders and lines they hold.
 */
import { northOf } from './helpers/factories';
import { onlineDriver, placeOrder, useOrderWorld } from './helpers/orders';
import { countStatements } from './helpers/statements';

/**
 * Upper bounds, statement by statement: the token check, the list, and one batch per nested
 * level (items, extras, timeline, driver, the store's fields, the payment joined with its
 * method). A new per-row statement breaks them.
 */
const CUSTOMER_LIST_MAX = 5;
const STORE_LIST_MAX = 12;
const DRIVER_LIST_MAX = 13;

const t = useOrderWorld();

/** Runs `call` (a list answering `rows` orders) and counts the SQL statements it sent. */
async function statements(
  call: () => Promise<{ status: number; body: { data: unknown[] | { orders: unknown[] } } }>,
  rows: number,
): Promise<number> {
  const { count, result: res } = await countStatements(t.server.db.orm, call);
  expect(res.status).toBe(200);
  const data = res.body.data;
  expect(Array.isArray(data) ? data : data.orders).toHaveLength(rows);
  return count;
}

const customerList = () => t.server.http.get('/api/v1/customer/orders', { token: t.w.customer.token });
const storeList = () => t.server.http.get('/api/v1/store/orders', { token: t.w.owner.token });

it("the customer's and the store's lists: the same statements for one order or six, at most a fixed number", async () => {
  await placeOrder(t.server, t.w);
  // Each token checked once before counting: a token found unrevoked is trusted for a while, so
  // only a token's first request counts its revocation check.
  await storeList();
  const customerOne = await statements(customerList, 1);
  const storeOne = await statements(storeList, 1);
  for (let i = 0; i < 5; i++) await placeOrder(t.server, t.w);
  expect(await statements(customerList, 6)).toBe(customerOne);
  expect(await statements(storeList, 6)).toBe(storeOne);
  expect(customerOne).toBeLessThanOrEqual(CUSTOMER_LIST_MAX);
  expect(storeOne).toBeLessThanOrEqual(STORE_LIST_MAX);
});

it("the driver's list is bounded too", async () => {
  const driver = await onlineDriver(t.server, northOf({ lat: t.w.owner.store.latitude, lng: t.w.owner.store.longitude }, 0.5));
  const id = (await placeOrder(t.server, t.w)).body.data.order_id;
  expect((await t.server.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: t.w.owner.token })).status).toBe(200);
  const count = await statements(() => t.server.http.get('/api/v1/driver/orders', { token: driver.token }), 1);
  expect(count).toBeLessThanOrEqual(DRIVER_LIST_MAX);
});
