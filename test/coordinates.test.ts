/** Coordinates in every answer carry 6 decimals (≈ 0.1 m), never float noise. */
import { Client } from 'graphql-ws';
import { onlineDriver, placeOrder, useOrderWorld } from './helpers/orders';
import { subscribe, wsClient } from './helpers/ws';

const t = useOrderWorld();
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

// What arithmetic on doubles leaves behind (0.1 + 0.2 style), as the issue saw on a driver.
const NOISY_LAT = 33.548553000000005;
const NOISY_LNG = -7.589800000000001;
const LAT = 33.548553;
const LNG = -7.5898;

const sql = (query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute(query, params);

it('the store, the delivery address, the driver and live positions answer 6 decimals', async () => {
  await sql('update stores set latitude = ?, longitude = ? where id = ?', [NOISY_LAT, NOISY_LNG, t.w.owner.store.id]);
  await sql('update user_addresses set latitude = ?, longitude = ?', [NOISY_LAT + 0.001, NOISY_LNG]);
  const driver = await onlineDriver(t.server, { lat: NOISY_LAT, lng: NOISY_LNG });
  const id = (await placeOrder(t.server, t.w)).body.data.order_id;
  const customer = { token: t.w.customer.token };

  const details = await t.server.http.get(`/api/v1/store/stores/${t.w.owner.store.id}`);
  expect([details.body.data.latitude, details.body.data.longitude]).toEqual([LAT, LNG]);

  const addresses = await t.server.http.get('/api/v1/customer/addresses', customer);
  expect([addresses.body.data[0].latitude, addresses.body.data[0].longitude]).toEqual([33.549553, LNG]);

  const sub = subscribe<{ seq: number; latitude: number | null; longitude: number | null }>(
    (() => {
      const c = wsClient(t.server.wsUrl, t.w.customer.token);
      clients.push(c);
      return c;
    })(),
    `subscription($id: Int!) { orderUpdates(orderId: $id) { seq latitude longitude } }`,
    { id },
  );
  await sub.waitFor(1);
  await t.server.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: t.w.owner.token });
  await t.server.http.post('/api/v1/driver/location', { latitude: NOISY_LAT, longitude: NOISY_LNG }, { token: driver.token });
  const [location] = (await sub.waitFor(4)).filter((e) => e.latitude !== null);
  expect([location.latitude, location.longitude]).toEqual([LAT, LNG]);

  const detail = (await t.server.http.get(`/api/v1/customer/orders/${id}`, customer)).body.data;
  expect([detail.store.latitude, detail.store.longitude]).toEqual([LAT, LNG]);
  expect([detail.user_address.latitude, detail.user_address.longitude]).toEqual([33.549553, LNG]);
  expect([detail.driver.latitude, detail.driver.longitude]).toEqual([LAT, LNG]);

  const me = await t.server.http.get('/api/v1/driver/me', { token: driver.token });
  expect([me.body.data.latitude, me.body.data.longitude]).toEqual([LAT, LNG]);

  const graphql = await t.server.http.graphql(
    `query($id: Int!) { myOrder(id: $id) { store { latitude longitude } driver { latitude longitude } } }`,
    { id },
    customer,
  );
  expect(graphql.body.data.myOrder).toEqual({ store: { latitude: LAT, longitude: LNG }, driver: { latitude: LAT, longitude: LNG } });
});
