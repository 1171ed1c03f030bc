/**
 * Drivers' positions (issue 26; docs/decisions.md "Driver positions"): kept in memory, written
 * in batches, sent to the followers of the order being carried; bounded claims (422).
 */
import { Client } from 'graphql-ws';
import { northOf } from './helpers/factories';
import { onlineDriver, placeOrder, useOrderWorld } from './helpers/orders';
import { registerCustomer } from './helpers/auth';
import { startTestServer } from './helpers/server';
import { subscribe, until, wsClient } from './helpers/ws';
import { roundCoordinate } from '../src/common/coordinate-field';
import type { DriverPositions } from '../src/modules/drivers/driver-positions';

const t = useOrderWorld();
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

type Update = { seq: number; type: string; latitude: number | null; longitude: number | null };
const ORDER_UPDATES = `subscription($orderId: Int!) { orderUpdates(orderId: $orderId) { seq type latitude longitude } }`;

const near = () => northOf({ lat: t.w.owner.store.latitude, lng: t.w.owner.store.longitude }, 0.5);
const sql = (query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute(query, params);
const locate = (token: string, p: { lat: number; lng: number }, server = t.server) =>
  server.http.post('/api/v1/driver/location', { latitude: p.lat, longitude: p.lng }, { token });
const follow = (orderId: number) => {
  const c = wsClient(t.server.wsUrl, t.w.customer.token);
  clients.push(c);
  return subscribe<Update>(c, ORDER_UPDATES, { orderId });
};
/** An order accepted and given to `driver`, and its customer following it (the replay and the driver's position received). */
async function carried(driver: { driverId: number }) {
  const id: number = (await placeOrder(t.server, t.w)).body.data.order_id;
  await t.server.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: t.w.owner.token });
  expect((await sql('select driver_id from orders where id = ?', [id]))[0].driver_id).toBe(driver.driverId);
  const sub = follow(id);
  await sub.waitFor(4);
  return { id, sub };
}

describe('POST /api/v1/driver/location', () => {
  it("answers the driver at once; the order's follower sees the position within 1 s, the driver's row within 2 s", async () => {
    const driver = await onlineDriver(t.server, near());
    const { sub } = await carried(driver);
    const to = northOf(near(), 0.1);
    const sent = Date.now();
    const res = await locate(driver.token, to);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { id: driver.driverId, is_online: true, latitude: roundCoordinate(to.lat), longitude: roundCoordinate(to.lng) },
    });
    const [position] = (await sub.waitFor(5, 1000)).slice(4);
    expect(Date.now() - sent).toBeLessThan(1000);
    expect(position).toEqual({ seq: 3, type: 'driver_location', latitude: roundCoordinate(to.lat), longitude: roundCoordinate(to.lng) });
    await until(
      async () => (await sql('select latitude from drivers where id = ?', [driver.driverId]))[0].latitude === to.lat,
      "the driver's row",
      2000 - (Date.now() - sent),
    );
  });

  it('refuses with 422 a position far outside the area served, or farther than a car could drive since the last one', async () => {
    const driver = await onlineDriver(t.server, near());
    const outside = await locate(driver.token, { lat: near().lat, lng: near().lng + 5 }); // ~460 km east
    expect(outside.status).toBe(422);
    expect(outside.body.errors.latitude[0]).toMatch(/outside the area/);
    const jump = await locate(driver.token, northOf(near(), 5)); // 5 km a moment after the last position
    expect(jump.status).toBe(422);
    expect(jump.body.errors.latitude[0]).toMatch(/farther from the last one than a car could drive/);
    // The refused claims changed nothing; a couple of hundred metres is a phone's fix moving, not a claim to refuse.
    expect((await locate(driver.token, northOf(near(), 0.2))).status).toBe(200);
    // Not a driver: 403, whatever the position.
    const customer = await registerCustomer(t.server);
    expect((await locate(customer.token, near())).status).toBe(403);
  });

  it('refuses a run of small jumps that together outrun a car: the slack is granted once, not once per position', async () => {
    const driver = await onlineDriver(t.server, near());
    const answers = [];
    for (let i = 1; i <= 4; i++) answers.push(await locate(driver.token, northOf(near(), 0.45 * i))); // 450 m each, at once
    expect(answers.map((a) => a.status)).toEqual([200, 422, 422, 422]);
    expect(answers[1].body.errors.latitude[0]).toMatch(/car could drive/);
    // The one kept is the first jump's, written at the next flush.
    await until(
      async () => (await sql('select latitude from drivers'))[0].latitude === northOf(near(), 0.45).lat,
      'the first jump written',
    );
  });

  it('behind the balancer the slack is granted once too: a run of jumps through two instances in turn is refused as through one', async () => {
    const driver = await onlineDriver(t.server, near()); // its row's position is fresh
    const [a, b] = [await startTestServer({}, t.server.db), await startTestServer({}, t.server.db)];
    // Flushed by hand (their timers stopped): each turn, the instance the driver reached first is written
    // last and loses to the other's later position, so it reads the driver's row again at its next report.
    const positions = (instance: typeof a) => instance.app.services.positions as DriverPositions;
    await positions(a).stop();
    await positions(b).stop();
    try {
      const flush = (instance: typeof a) => positions(instance).flush();
      const statuses: number[] = [];
      for (let i = 1; i <= 5; i++) {
        const [first, second] = i % 2 ? [a, b] : [b, a];
        const to = northOf(near(), 0.45 * i);
        statuses.push((await locate(driver.token, to, first)).status, (await locate(driver.token, to, second)).status);
        await flush(second);
        await flush(first);
      }
      expect(statuses).toEqual([200, 200, ...Array(8).fill(422)]);
      expect((await sql('select latitude from drivers where id = ?', [driver.driverId]))[0].latitude).toBe(northOf(near(), 0.45).lat);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("goes to the orders the driver carries only: another driver's positions never reach its follower", async () => {
    const driver = await onlineDriver(t.server, near());
    const { id, sub } = await carried(driver);
    const other = await onlineDriver(t.server, northOf(near(), 1)); // free: their own row only
    await locate(other.token, northOf(near(), 1.1));
    await until(
      async () => (await sql('select latitude from drivers where id = ?', [other.driverId]))[0].latitude === northOf(near(), 1.1).lat,
      "the other driver's row",
    );
    await locate(driver.token, northOf(near(), 0.05));
    const events = await sub.waitFor(5);
    expect(events.slice(4)).toEqual([expect.objectContaining({ latitude: roundCoordinate(northOf(near(), 0.05).lat) })]);
    expect(await sql(`select count(*)::int as n from order_events where order_id = ? and type = 'driver_location'`, [id])).toEqual([
      { n: 0 },
    ]);
  });

  it("reports a known driver's position without an EntityManager: the caller check and the position fork none once both are known", async () => {
    const driver = await onlineDriver(t.server, near()); // its token checked, the driver and the area read
    const services = t.server.app.services;
    const emOf = jest.fn(() => t.server.db.orm.em.fork());
    const viewer = await services.authenticate(emOf, `Bearer ${driver.token}`);
    const to = northOf(near(), 0.05);
    const state = await services.positions.report(emOf, viewer.userId, to.lat, to.lng);
    expect([state.id, state.latitude, emOf.mock.calls.length]).toEqual([driver.driverId, to.lat, 0]);
    // A driver (and a token) not known yet: the database is read, through a fork made then.
    const other = await registerCustomer(t.server);
    await expect(services.authenticate(emOf, `Bearer ${other.token}`)).resolves.toMatchObject({ userId: other.user.id });
    await expect(services.positions.report(emOf, other.user.id, to.lat, to.lng)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(emOf.mock.calls.length).toBe(2);
  });

  it('writes the positions still in memory when the instance shuts down', async () => {
    // A flush interval longer than the test: only the shutdown writes the position.
    const instance = await startTestServer({ POSITION_FLUSH_MS: '1000' }, t.server.db);
    const driver = await onlineDriver(instance, near());
    const to = northOf(near(), 0.1);
    expect((await locate(driver.token, to, instance)).status).toBe(200);
    await instance.close();
    expect((await sql('select latitude from drivers where id = ?', [driver.driverId]))[0].latitude).toBe(to.lat);
  });

  it('an order waiting for a driver goes to a free driver whose position comes near', async () => {
    const id: number = (await placeOrder(t.server, t.w)).body.data.order_id;
    await t.server.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: t.w.owner.token });
    const driver = await onlineDriver(t.server, northOf(near(), 40)); // far beyond the 15 km of dispatch
    expect((await sql('select driver_id from orders where id = ?', [id]))[0].driver_id).toBeNull();
    // An hour later (this instance has forgotten the driver; their row says when they last reported), they report from near the store.
    await t.server.app.services.positions.clear();
    await sql(`update drivers set location_updated_at = now() - interval '1 hour' where id = ?`, [driver.driverId]);
    expect((await locate(driver.token, near())).status).toBe(200);
    await until(
      async () => (await sql('select driver_id from orders where id = ?', [id]))[0].driver_id === driver.driverId,
      'the assignment',
    );
  });

  it("with Redis unreachable, positions still reach the follower, from the driver's row or memory, within the catch-up (2 s)", async () => {
    const lonely = await startTestServer({ REDIS_URL: 'redis://127.0.0.1:1' }, t.server.db);
    try {
      const driver = await onlineDriver(lonely, near());
      const id: number = (await placeOrder(lonely, t.w)).body.data.order_id;
      await lonely.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: t.w.owner.token });
      const c = wsClient(lonely.wsUrl, t.w.customer.token);
      clients.push(c);
      const sub = subscribe<Update>(c, ORDER_UPDATES, { orderId: id });
      await sub.waitFor(4); // the replay and the driver's position
      const to = northOf(near(), 0.1);
      const sent = Date.now();
      expect((await locate(driver.token, to, lonely)).status).toBe(200);
      const [position] = (await sub.waitFor(5, 4000)).slice(4);
      expect(position).toEqual({ seq: 3, type: 'driver_location', latitude: roundCoordinate(to.lat), longitude: roundCoordinate(to.lng) });
      expect(Date.now() - sent).toBeLessThan(3000);
    } finally {
      await Promise.all(clients.splice(0).map((c) => c.dispose()));
      await lonely.close();
    }
  });

  it('the GraphQL twin answers and refuses the same way', async () => {
    const driver = await onlineDriver(t.server, near());
    const report = (p: { lat: number; lng: number }) =>
      t.server.http.graphql(
        `mutation($p: PositionInput!) { reportDriverLocation(position: $p) { id isOnline latitude longitude } }`,
        { p: { latitude: p.lat, longitude: p.lng } },
        { token: driver.token },
      );
    const to = northOf(near(), 0.1);
    expect((await report(to)).body.data.reportDriverLocation).toEqual({
      id: driver.driverId,
      isOnline: true,
      latitude: roundCoordinate(to.lat),
      longitude: roundCoordinate(to.lng),
    });
    const refused = await report(northOf(near(), 8));
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION',
      fields: { latitude: [expect.stringMatching(/car could drive/)] },
    });
  });
});

describe('mutation goOnline(position)', () => {
  const goOnline = (token: string, p: { lat: number; lng: number }) =>
    t.server.http.graphql(
      `mutation($p: PositionInput) { goOnline(position: $p) { id isOnline latitude longitude } }`,
      { p: { latitude: p.lat, longitude: p.lng } },
      { token },
    );

  it('refuses a position far outside the area served, or farther than a car could drive, as a reported one; changes nothing', async () => {
    const driver = await onlineDriver(t.server, near());
    await t.server.http.post('/api/v1/driver/offline', undefined, { token: driver.token });
    const before = await sql('select is_online, latitude, longitude, location_updated_at from drivers');
    for (const [p, message] of [
      [{ lat: near().lat, lng: near().lng + 5 }, /outside the area/], // ~460 km east
      [northOf(near(), 5), /car could drive/], // 5 km a moment after the last position
    ] as const) {
      const refused = await goOnline(driver.token, p);
      expect(refused.body.data).toBeNull();
      expect(refused.body.errors[0].extensions).toMatchObject({
        code: 'VALIDATION',
        fields: { latitude: [expect.stringMatching(message)] },
      });
    }
    expect(await sql('select is_online, latitude, longitude, location_updated_at from drivers')).toEqual(before);
    const to = northOf(near(), 0.2);
    expect((await goOnline(driver.token, to)).body.data.goOnline).toEqual({
      id: driver.driverId,
      isOnline: true,
      latitude: roundCoordinate(to.lat),
      longitude: roundCoordinate(to.lng),
    });
  });
});
