/** Live tracking: GraphQL subscriptions over graphql-ws, driven by REST, resumable, fanned out. */
import { Client } from 'graphql-ws';
import { northOf } from './helpers/factories';
import { onlineDriver, orderWorld, placeOrder, useOrderWorld } from './helpers/orders';
import { registerCustomer } from './helpers/auth';
import { startTestServer } from './helpers/server';
import Redis from 'ioredis';
import { subscribe, until, wsClient } from './helpers/ws';
import { roundCoordinate } from '../src/common/coordinate-field';

const t = useOrderWorld();
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.dispose()));
});

type Update = {
  seq: number;
  type: string;
  status: string;
  latitude: number | null;
  longitude: number | null;
  driverId: number | null;
  at: string;
};

const ORDER_UPDATES = `subscription($orderId: Int!, $afterSeq: Int) {
  orderUpdates(orderId: $orderId, afterSeq: $afterSeq) { seq type status latitude longitude driverId at }
}`;

const client = (token?: string, url = t.server.wsUrl) => {
  const c = wsClient(url, token);
  clients.push(c);
  return c;
};
const near = () => northOf({ lat: t.w.owner.store.latitude, lng: t.w.owner.store.longitude }, 0.5);
const store = (id: number, step: string, body?: unknown) =>
  t.server.http.post(`/api/v1/store/orders/${id}/${step}`, body, { token: t.w.owner.token });
const drive = (id: number, step: string, token: string) => t.server.http.post(`/api/v1/driver/orders/${id}/${step}`, undefined, { token });
const locate = (token: string, p: { lat: number; lng: number }) =>
  t.server.http.post('/api/v1/driver/location', { latitude: p.lat, longitude: p.lng }, { token });

describe('subscription orderUpdates', () => {
  it('streams every step from checkout to delivered and the driver positions, in order, then completes', async () => {
    const driver = await onlineDriver(t.server, near());
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    const sub = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id });
    await sub.waitFor(1);

    expect((await store(id, 'accept')).status).toBe(200);
    await store(id, 'preparing');
    await store(id, 'ready');
    await drive(id, 'pickup', driver.token);
    // Within a phone's slack of the start: a car does not drive 600 m in the second this takes.
    const path = [northOf(near(), 0.15), northOf(near(), 0.3), northOf(near(), 0.45)];
    // Positions are sent in batches, the latest per driver: each one is awaited before the next.
    for (const [k, p] of path.entries()) {
      await locate(driver.token, p);
      await sub.waitFor(7 + k);
    }
    await drive(id, 'deliver', driver.token);
    await sub.completed;

    expect(sub.errors).toEqual([]);
    expect(sub.events.map((e) => [e.seq, e.type, e.status])).toEqual([
      [1, 'status', 'pending_acceptance'],
      [2, 'status', 'accepted'],
      [3, 'driver_assigned', 'accepted'],
      [4, 'status', 'preparing'],
      [5, 'status', 'ready_for_pickup'],
      [6, 'status', 'picked_up'],
      // Positions are not stored events: each carries the seq of the last event before it.
      [6, 'driver_location', 'picked_up'],
      [6, 'driver_location', 'picked_up'],
      [6, 'driver_location', 'picked_up'],
      // No payment was started: cash, collected by the driver, then the final status ends the stream.
      [7, 'payment', 'delivered'],
      [8, 'status', 'delivered'],
    ]);
    expect(sub.events[2].driverId).toBe(driver.driverId);
    // The detail's last_event_seq is the last event the follower received; resuming there completes at once.
    const detail = await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token });
    expect(detail.body.data.last_event_seq).toBe(8);
    expect(detail.body.data.timeline.at(-1).status).toBe('delivered');
    const resumed = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id, afterSeq: 8 });
    await resumed.completed;
    expect([resumed.events, resumed.errors]).toEqual([[], []]);
    // Positions answer 6 decimals (docs/decisions.md "Coordinates in answers").
    expect(sub.events.slice(6, 9).map((e) => [e.latitude, e.longitude])).toEqual(
      path.map((p) => [roundCoordinate(p.lat), roundCoordinate(p.lng)]),
    );
    const stamps = sub.events.map((e) => Date.parse(e.at));
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
  });

  it('resumes after the last seq seen: the missed events first, then live ones, no duplicates', async () => {
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    await store(id, 'accept');
    await store(id, 'preparing');
    const sub = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id, afterSeq: 1 });
    const replayed = await sub.waitFor(2);
    expect(replayed.map((e) => [e.seq, e.status])).toEqual([
      [2, 'accepted'],
      [3, 'preparing'],
    ]);
    await store(id, 'ready');
    const all = await sub.waitFor(3);
    expect(all.map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(all[2].status).toBe('ready_for_pickup');
  });

  it('on an order already ended: replays what is after afterSeq, then completes, also when nothing is left', async () => {
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    expect((await store(id, 'reject', { rejection_reason: 'too_busy' })).status).toBe(200);
    const within = (sub: { completed: Promise<void> }) =>
      Promise.race([sub.completed.then(() => 'completed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 3000))]);
    const rest = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id, afterSeq: 1 });
    expect(await within(rest)).toBe('completed');
    expect(rest.events.map((e) => [e.seq, e.status])).toEqual([[2, 'rejected']]);
    const nothingLeft = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id, afterSeq: 2 });
    expect(await within(nothingLeft)).toBe('completed');
    expect(nothingLeft.events).toEqual([]);
    expect(nothingLeft.errors).toEqual([]);
    // Beyond the last seq (a client that saw more than there is) ends the same way.
    const beyond = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id, afterSeq: 99 });
    expect(await within(beyond)).toBe('completed');
  });

  it("refuses another customer's order at subscribe time", async () => {
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    const stranger = await registerCustomer(t.server);
    const sub = subscribe<Update>(client(stranger.token), ORDER_UPDATES, { orderId: id });
    await sub.completed;
    expect(sub.events).toEqual([]);
    expect(JSON.stringify(sub.errors)).toMatch(/No query results for model \[Order\]/);
  });

  it('sends a position resumed after, and no stored event for positions', async () => {
    const driver = await onlineDriver(t.server, near());
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    await store(id, 'accept');
    const live = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id });
    await live.waitFor(4); // pending, accepted, driver_assigned, then the driver's latest position
    expect(live.events[3]).toMatchObject({ seq: 3, type: 'driver_location', latitude: roundCoordinate(near().lat) });
    for (let i = 1; i <= 4; i++) await locate(driver.token, northOf(near(), i / 10));
    await until(() => live.events.at(-1)?.latitude === roundCoordinate(northOf(near(), 0.4).lat), 'the latest position');
    const rows = await t.server.db.orm.em
      .fork()
      .execute(`select count(*)::int as n from order_events where order_id = ? and type = 'driver_location'`, [id]);
    expect(rows).toEqual([{ n: 0 }]);
    // A follower resuming after the last seq gets no replay but the driver's latest position.
    const resumed = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id, afterSeq: 3 });
    const [position] = await resumed.waitFor(1);
    expect(position).toMatchObject({ seq: 3, type: 'driver_location', latitude: roundCoordinate(northOf(near(), 0.4).lat) });
  });
});

describe('followers of one order share one feed', () => {
  it('one bus listener for all of them, each with its own replay and its own shape; the feed goes with the last', async () => {
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    await store(id, 'accept');
    const full = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id });
    const resumed = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id, afterSeq: 2 });
    // Another selection (and an alias) on the same order, by its store's owner.
    const slim = subscribe<{ n: number; s: string }>(
      client(t.w.owner.token),
      `subscription($o: Int!) { u: orderUpdates(orderId: $o) { n: seq s: status } }`,
      { o: id },
    );
    await full.waitFor(2);
    await slim.waitFor(2);
    await until(() => t.server.app.listeners(`order:${id}`) === 1, 'one listener for the order');
    await store(id, 'preparing');
    await store(id, 'ready');
    expect((await full.waitFor(4)).map((e) => [e.seq, e.status])).toEqual([
      [1, 'pending_acceptance'],
      [2, 'accepted'],
      [3, 'preparing'],
      [4, 'ready_for_pickup'],
    ]);
    expect((await resumed.waitFor(2)).map((e) => e.seq)).toEqual([3, 4]);
    expect(await slim.waitFor(4)).toEqual([
      { n: 1, s: 'pending_acceptance' },
      { n: 2, s: 'accepted' },
      { n: 3, s: 'preparing' },
      { n: 4, s: 'ready_for_pickup' },
    ]);
    expect(Object.keys(full.events[2]).sort()).toEqual(['at', 'driverId', 'latitude', 'longitude', 'seq', 'status', 'type']);
    expect(t.server.app.listeners(`order:${id}`)).toBe(1);
    // A follower joining the running feed replays from it and goes on with the others.
    const late = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id, afterSeq: 3 });
    expect((await late.waitFor(1)).map((e) => e.seq)).toEqual([4]);
    for (const sub of [full, resumed, slim, late]) sub.unsubscribe();
    await until(() => t.server.app.listeners(`order:${id}`) === 0, 'the feed to stop listening');
    expect([full.errors, resumed.errors, slim.errors, late.errors]).toEqual([[], [], [], []]);
  });

  it('a caller who may not follow the order receives nothing of it, beside followers who may', async () => {
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    const stranger = await registerCustomer(t.server);
    const allowed = subscribe<Update>(client(t.w.customer.token), ORDER_UPDATES, { orderId: id });
    await allowed.waitFor(1);
    // The same text as the allowed follower's: the refusal is made when subscribing, not by the shared answers.
    const refused = subscribe<Update>(client(stranger.token), ORDER_UPDATES, { orderId: id });
    await refused.completed;
    await store(id, 'accept');
    await allowed.waitFor(2);
    expect(refused.events).toEqual([]);
    expect(JSON.stringify(refused.errors)).toMatch(/No query results for model \[Order\]/);
  });
});

describe('subscription storeOrderUpdates', () => {
  it("tells the owner about new and changed orders of their stores, and nobody else's", async () => {
    const sub = subscribe<Update & { orderId: number }>(
      client(t.w.owner.token),
      `subscription { storeOrderUpdates { orderId seq status } }`,
    );
    const other = await t.make.store();
    const strangerSub = subscribe(client(t.w.customer.token), `subscription($s: Int) { storeOrderUpdates(storeId: $s) { orderId } }`, {
      s: other.id,
    });
    await strangerSub.completed;
    expect(JSON.stringify(strangerSub.errors)).toMatch(/do not own this store/);
    await until(() => t.server.app.listeners(`store:${t.w.owner.store.id}`) > 0, "the owner's subscription");
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    await store(id, 'accept');
    const events = await sub.waitFor(2);
    expect(events.map((e) => [e.orderId, e.seq, e.status])).toEqual([
      [id, 1, 'pending_acceptance'],
      [id, 2, 'accepted'],
    ]);
  });
});

describe('storeOrderUpdates resumed with afterSeqs', () => {
  const BOARD = `subscription($after: [OrderSeqInput!]) { storeOrderUpdates(afterSeqs: $after) { orderId seq status } }`;
  type BoardUpdate = { orderId: number; seq: number; status: string };
  const boardTopic = () => `store:${t.w.owner.store.id}`;
  /** Bus listeners of the owner's store: a board counts once its subscription is set up. */
  const listening = () => t.server.app.listeners(boardTopic());

  it('a board that reconnects gets what it missed, once, in order, then live events', async () => {
    // Other tests' boards may still be on the bus: count from what is there.
    const before = listening();
    const first = subscribe<BoardUpdate>(client(t.w.owner.token), BOARD);
    await until(() => listening() > before, "the board's subscription");
    const held = (await placeOrder(t.server, t.w)).body.data.order_id;
    await store(held, 'accept');
    expect((await first.waitFor(2)).map((e) => [e.orderId, e.seq])).toEqual([
      [held, 1],
      [held, 2],
    ]);
    // The board's socket is gone (its instance killed, its network lost): what happens meanwhile
    // is the held order's next step and a new order.
    first.unsubscribe();
    await store(held, 'preparing');
    const placed = (await placeOrder(t.server, t.w)).body.data.order_id;
    await store(placed, 'accept');

    const resumedBefore = listening();
    const resumed = subscribe<BoardUpdate>(client(t.w.owner.token), BOARD, { after: [{ orderId: held, seq: 2 }] });
    expect((await resumed.waitFor(3)).map((e) => [e.orderId, e.seq, e.status])).toEqual([
      [held, 3, 'preparing'],
      [placed, 1, 'pending_acceptance'],
      [placed, 2, 'accepted'],
    ]);
    await until(() => listening() > resumedBefore, 'the resumed subscription');
    await store(held, 'ready');
    await resumed.waitFor(4);
    // Past the first catch-up read (1 s): nothing is sent twice.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(resumed.events.map((e) => [e.orderId, e.seq])).toEqual([
      [held, 3],
      [placed, 1],
      [placed, 2],
      [held, 4],
    ]);
    expect(resumed.errors).toEqual([]);

    // Resumed where it is: nothing is replayed; another owner's order named in afterSeqs is not shown.
    const stranger = await orderWorld(t.server, t.make);
    const foreign = (await placeOrder(t.server, stranger)).body.data.order_id;
    const upToDateBefore = listening();
    const upToDate = subscribe<BoardUpdate>(client(t.w.owner.token), BOARD, {
      after: [
        { orderId: held, seq: 4 },
        { orderId: placed, seq: 2 },
        { orderId: foreign, seq: 0 },
      ],
    });
    await until(() => listening() > upToDateBefore, 'the up-to-date subscription');
    await store(placed, 'preparing');
    expect((await upToDate.waitFor(1)).map((e) => [e.orderId, e.seq])).toEqual([[placed, 3]]);
  });

  it("a new order whose first event never reached the board's instance: the board gets it before the second", async () => {
    const before = listening();
    const board = subscribe<BoardUpdate>(client(t.w.owner.token), BOARD);
    await until(() => listening() > before, "the board's subscription");
    // The checkout's message to the store's topic is lost (another instance's, crossing): only the database has seq 1.
    const pubSub = t.server.app.services.pubSub;
    const publish = pubSub.publish.bind(pubSub);
    const lost = jest
      .spyOn(pubSub, 'publish')
      .mockImplementation(((name: string, payload: never) =>
        name === boardTopic() ? undefined : publish(name, payload)) as typeof pubSub.publish);
    const placed = (await placeOrder(t.server, t.w)).body.data.order_id;
    lost.mockRestore();
    await store(placed, 'accept');
    expect((await board.waitFor(2)).map((e) => [e.orderId, e.seq])).toEqual([
      [placed, 1],
      [placed, 2],
    ]);
  });

  it('a board closed by its client leaves the bus at once, with no event to wake it', async () => {
    const before = listening();
    const board = subscribe<BoardUpdate>(client(t.w.owner.token), BOARD);
    await until(() => listening() > before, "the board's subscription");
    board.unsubscribe();
    await until(() => listening() === before, 'the board off the bus', 3_000);
  });

  it('refuses a resume point of more than 1,000 orders', async () => {
    const after = Array.from({ length: 1001 }, (_, k) => ({ orderId: k + 1, seq: 1 }));
    const sub = subscribe(client(t.w.owner.token), BOARD, { after });
    await sub.completed;
    expect(JSON.stringify(sub.errors)).toMatch(/afterSeqs may hold at most 1000 orders/);
  });

  it('refuses a resume point with an order id below 1 or a seq below 0, at subscribe', async () => {
    for (const after of [[{ orderId: 0, seq: 1 }], [{ orderId: 1, seq: -5 }]]) {
      const sub = subscribe(client(t.w.owner.token), BOARD, { after });
      await sub.completed;
      expect(JSON.stringify(sub.errors)).toMatch(/each orderId must be 1 or more and each seq 0 or more/);
    }
  });
});

describe('subscription driverOrderUpdates', () => {
  it('tells a driver about the order assigned to them', async () => {
    const driver = await onlineDriver(t.server, near());
    const sub = subscribe<Update & { orderId: number }>(
      client(driver.token),
      `subscription { driverOrderUpdates { orderId type driverId } }`,
    );
    await until(() => t.server.app.listeners(`driver:${driver.driverId}`) > 0, "the driver's subscription");
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    await store(id, 'accept');
    const [assigned] = await sub.waitFor(1);
    expect(assigned).toEqual({ orderId: id, type: 'driver_assigned', driverId: driver.driverId });
    const customerSub = subscribe(client(t.w.customer.token), `subscription { driverOrderUpdates { orderId } }`);
    await customerSub.completed;
    expect(JSON.stringify(customerSub.errors)).toMatch(/not registered as a driver/);
  });
});

describe('the websocket', () => {
  it('serves only subscriptions, at most 20 per connection', async () => {
    const c = client(t.w.customer.token);
    const query = subscribe(c, `query { me { id } }`);
    await query.completed;
    expect(JSON.stringify(query.errors)).toMatch(/OPERATION_NOT_ALLOWED/);
    const id = (await placeOrder(t.server, t.w)).body.data.order_id;
    const subs = Array.from({ length: 21 }, () => subscribe(c, ORDER_UPDATES, { orderId: id }));
    await Promise.all(subs.slice(0, 20).map((s) => s.waitFor(1)));
    await subs[20].completed;
    expect(JSON.stringify(subs[20].errors)).toMatch(/At most 20 subscriptions/);
  });
});

describe('two instances sharing PostgreSQL and Redis', () => {
  const redis = process.env.REDIS_URL;
  (redis ? it : it.skip)("a driver's update on one reaches a customer subscribed on the other", async () => {
    const a = await startTestServer({ REDIS_URL: redis! }, t.server.db);
    const b = await startTestServer({ REDIS_URL: redis! }, t.server.db);
    try {
      const driver = await onlineDriver(a, near());
      const id = (await placeOrder(a, t.w)).body.data.order_id;
      await a.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: t.w.owner.token });
      const sub = subscribe<Update>(client(t.w.customer.token, b.wsUrl), ORDER_UPDATES, { orderId: id });
      await sub.waitFor(4); // replayed from the database on instance B, then the driver's position from their row
      // B's Redis subscription is live: Redis itself counts a subscriber on the order's channel.
      const probe = new Redis(redis!);
      try {
        await until(async () => {
          // Channels carry the deployment's prefix (by default the database name).
          const channel = `${String(t.server.db.orm.config.get('dbName'))}:order:${id}`;
          const [, subscribers] = (await probe.pubsub('NUMSUB', channel)) as [string, number];
          return b.app.listeners(`order:${id}`) > 0 && Number(subscribers) > 0;
        }, "B's Redis subscription");
      } finally {
        probe.disconnect();
      }
      await a.http.post('/api/v1/driver/location', { latitude: near().lat + 0.001, longitude: near().lng }, { token: driver.token });
      const events = await sub.waitFor(5);
      expect(events[4]).toMatchObject({ seq: 3, type: 'driver_location', latitude: roundCoordinate(near().lat + 0.001) });
    } finally {
      await Promise.all(clients.splice(0).map((c) => c.dispose()));
      await a.close();
      await b.close();
    }
  });
});

describe('when Redis is unreachable', () => {
  it('orders still move and the process keeps running; subscribers catch up from the database', async () => {
    const lonely = await startTestServer({ REDIS_URL: 'redis://127.0.0.1:1' }, t.server.db);
    try {
      const id = (await placeOrder(lonely, t.w)).body.data.order_id;
      expect((await lonely.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: t.w.owner.token })).status).toBe(200);
      const sub = subscribe<Update>(client(t.w.customer.token, lonely.wsUrl), ORDER_UPDATES, { orderId: id });
      const events = await sub.waitFor(2);
      expect(events.map((e) => e.status)).toEqual(['pending_acceptance', 'accepted']);
    } finally {
      await Promise.all(clients.splice(0).map((c) => c.dispose()));
      await lonely.close();
    }
  });
});
