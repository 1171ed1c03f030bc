/**
 * Issue 24: notification preferences over REST (customer and store paths) and GraphQL, their
 * bad input (unknown keys → 422 naming the field, nothing written), and the outbox honouring them.
 */
import { eventually, signInDevice, useNotifyWorld } from './helpers/notifications';
import { placeOrder } from './helpers/orders';
import { OutboxWorker } from '../src/modules/notifications/worker';
import { createLogger } from '../src/common/logger';
import { outboxSettings } from '../src/modules/notifications/outbox';
import { Client } from 'pg';
import { sessionNamePrefix } from '../src/common/session-name';

const t = useNotifyWorld();
const CUSTOMER_PATH = '/api/v1/customer/notification-preferences';
const STORE_PATH = '/api/v1/store/notification-preferences';
const DEFAULTS = {
  channels: { push: true, whatsapp: true, web_push: true },
  kinds: { order_updates: true, promotions: false },
  quiet_hours: null,
};
const sql = <T = any>(query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute<T[]>(query, params);
const put = (body: unknown, path = CUSTOMER_PATH, token = t.w.customer.token) => t.server.http.put(path, body, { token });
/** How long the late order's transaction stays open before a pass runs (past the 1 s horizon's delay). */
const LATE_COMMIT_MS = 1500;

describe('GET/PUT notification preferences', () => {
  it('answers the defaults, changes only the fields sent, and is the same under the store path and GraphQL', async () => {
    const first = await t.server.http.get(CUSTOMER_PATH, { token: t.w.customer.token });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, data: DEFAULTS });

    const changed = await put({ channels: { push: false }, quiet_hours: { start: '22:00', end: '07:30', timezone: 'Africa/Casablanca' } });
    expect(changed.status).toBe(200);
    const expected = {
      channels: { push: false, whatsapp: true, web_push: true },
      kinds: { order_updates: true, promotions: false },
      quiet_hours: { start: '22:00', end: '07:30', timezone: 'Africa/Casablanca' },
    };
    expect(changed.body).toEqual({ success: true, data: expected });
    expect((await put({ kinds: { promotions: true } })).body.data).toEqual({
      ...expected,
      kinds: { order_updates: true, promotions: true },
    });
    expect((await put({ quiet_hours: null })).body.data.quiet_hours).toBeNull();

    // The owner's app uses the store path; preferences are the user's own.
    expect((await t.server.http.get(STORE_PATH, { token: t.w.owner.token })).body.data).toEqual(DEFAULTS);
    expect((await put({ channels: { whatsapp: false } }, STORE_PATH, t.w.owner.token)).body.data.channels).toEqual({
      push: true,
      whatsapp: false,
      web_push: true,
    });

    const graphql = await t.server.http.post(
      '/graphql',
      {
        query:
          'mutation { updateNotificationPreferences(input: { channels: { webPush: false } }) { channels { push whatsapp webPush } kinds { orderUpdates promotions } } }',
      },
      { token: t.w.customer.token },
    );
    expect(graphql.body.data.updateNotificationPreferences).toEqual({
      channels: { push: false, whatsapp: true, webPush: false },
      kinds: { orderUpdates: true, promotions: true },
    });
    expect((await t.server.http.get(CUSTOMER_PATH)).status).toBe(401);
  });

  it('refuses unknown keys, order messages off and malformed quiet hours with 422 naming the field, writing nothing', async () => {
    const cases: [unknown, string][] = [
      [{ colour: 'blue' }, 'colour'],
      [{ channels: { sms: true } }, 'channels.sms'],
      [{ channels: { push: true }, kinds: { marketing: true } }, 'kinds.marketing'],
      [{ kinds: { order_updates: false } }, 'kinds.order_updates'],
      [{ channels: { push: 'yes' } }, 'channels.push'],
      [{ quiet_hours: { start: '25:00', end: '07:00', timezone: 'UTC' } }, 'quiet_hours.start'],
      [{ quiet_hours: { start: '22:00', end: '07:00', timezone: 'Mars/Olympus' } }, 'quiet_hours.timezone'],
    ];
    for (const [body, field] of cases) {
      const res = await put(body);
      expect([res.status, Object.keys(res.body.errors ?? {})]).toEqual([422, [field]]);
    }
    expect(await sql(`select count(*)::int as n from notification_preferences`)).toEqual([{ n: 0 }]);
    const graphql = await t.server.http.post(
      '/graphql',
      { query: 'mutation { updateNotificationPreferences(input: { channels: { sms: true } }) { kinds { promotions } } }' },
      { token: t.w.customer.token },
    );
    expect(graphql.body.errors[0].message).toMatch(/sms/);
  });

  it('keeps every field of PUTs sent at once, the first ones included (no 500, no field lost)', async () => {
    const bodies = [{ channels: { push: false } }, { channels: { whatsapp: false } }, { kinds: { promotions: true } }];
    for (const token of [t.w.customer.token, t.w.owner.token]) {
      const answers = await Promise.all(bodies.map((body) => put(body, CUSTOMER_PATH, token)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      const now = await t.server.http.get(CUSTOMER_PATH, { token });
      expect(now.body.data).toEqual({
        ...DEFAULTS,
        channels: { push: false, whatsapp: false, web_push: true },
        kinds: { order_updates: true, promotions: true },
      });
    }
  });

  it('names unknown keys as sent, those of every object (__proto__, constructor, toString) too, with 422, writing nothing', async () => {
    const cases: [string, string][] = [
      ['{"__proto__": {"push": false}}', '__proto__'],
      ['{"constructor": 1}', 'constructor'],
      ['{"channels": {"__proto__": {}}}', 'channels.__proto__'],
      ['{"channels": {"toString": true}}', 'channels.toString'], // as sent, not snake_cased
    ];
    for (const [raw, field] of cases) {
      const res = await t.server.http.request('PUT', CUSTOMER_PATH, undefined, { token: t.w.customer.token, raw });
      expect([res.status, Object.keys(res.body.errors ?? {})]).toEqual([422, [field]]);
    }
    expect(await sql(`select count(*)::int as n from notification_preferences`)).toEqual([{ n: 0 }]);
  });

  it('are in /openapi.json', async () => {
    const { body } = await t.server.http.get('/openapi.json');
    for (const path of [CUSTOMER_PATH, STORE_PATH]) expect(Object.keys(body.paths[path]).sort()).toEqual(['get', 'put']);
  });
});

describe('the outbox honours them', () => {
  it('push off: the customer hears nothing; the owner with push off hears of new orders on WhatsApp; both off: nothing', async () => {
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    await signInDevice(t.server, t.w.customer.user.phone_number, { deviceId: 'customer-phone', pushToken: 'customer-token' });
    expect((await put({ channels: { push: false } })).status).toBe(200);
    expect((await put({ channels: { push: false } }, STORE_PATH, t.w.owner.token)).status).toBe(200);
    const first = (await placeOrder(t.server, t.w)).body.data.order_id;
    expect((await t.server.http.post(`/api/v1/store/orders/${first}/accept`, undefined, { token: t.w.owner.token })).status).toBe(200);
    const newOrders = () => t.server.whatsapp.messages.filter((m) => m.body.template?.name === 'new_order');
    await eventually(() => expect(newOrders()).toHaveLength(1));
    expect(await sql(`select kind, channel from notification_outbox where kind <> 'accept_reminder' order by id`)).toEqual([
      { kind: 'new_order', channel: 'whatsapp' },
    ]);

    expect((await put({ channels: { whatsapp: false } }, STORE_PATH, t.w.owner.token)).status).toBe(200);
    await placeOrder(t.server, t.w);
    expect(await sql(`select count(*)::int as n from notification_outbox where kind = 'new_order'`)).toEqual([{ n: 1 }]);

    // Quiet hours all day long hold marketing-type messages only: the new order still goes.
    const allDay = { start: '00:00', end: '23:59', timezone: 'Africa/Casablanca' };
    expect((await put({ channels: { push: true }, quiet_hours: allDay }, STORE_PATH, t.w.owner.token)).status).toBe(200);
    await placeOrder(t.server, t.w);
    await eventually(() => expect(t.fcm.received.map((p) => [p.token, p.data.type])).toEqual([['owner-token', 'new_order']]));
    expect(newOrders()).toHaveLength(1);
  });

  it('an unanswered order whose owner hears no reminder is looked at by one reminder pass, not by every pass until its deadline', async () => {
    const worker = t.server.app.notifications;
    await worker.stop(); // the test runs the passes
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    const off = { channels: { push: false, whatsapp: false, web_push: false } };
    expect((await put(off, STORE_PATH, t.w.owner.token)).status).toBe(200);
    const half = t.server.config.orders.acceptTimeoutSeconds / 2;
    const placedAgo = (id: number, seconds: number) =>
      sql(`update orders set created_at = now() - interval '1 second' * ? where id = ?`, [seconds, id]);
    const unheard = (await placeOrder(t.server, t.w)).body.data.order_id;
    await placedAgo(unheard, half);
    const examined = worker.stats.remindersExamined;
    expect(await worker.remind()).toBe(0);
    expect(worker.stats.remindersExamined - examined).toBe(1);
    expect(await worker.remind()).toBe(0);
    expect(await worker.remind()).toBe(0);
    expect(worker.stats.remindersExamined - examined).toBe(1);

    // An order placed after it is still reminded when its time comes.
    expect((await put({ channels: { push: true } }, STORE_PATH, t.w.owner.token)).status).toBe(200);
    const heard = (await placeOrder(t.server, t.w)).body.data.order_id;
    await placedAgo(heard, half);
    expect(await worker.remind()).toBe(1);
    expect(await worker.remind()).toBe(0);
    expect(worker.stats.remindersExamined - examined).toBe(2);
    expect(await sql(`select order_id from notification_outbox where kind = 'accept_reminder'`)).toEqual([{ order_id: heard }]);
  });

  it('an order whose transaction began before a reminder pass and committed after it, placed behind its horizon, is reminded by the next pass, once', async () => {
    await t.server.app.notifications.stop();
    // A worker of its own, whose passes the test runs: its first mark is this test's (the tables are emptied between tests, ids start again).
    const worker = new OutboxWorker(t.server.db.orm.em, {}, t.server.config.notifications, createLogger('silent'), 'mad');
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    // The late order copies this one (answered: it is due no reminder itself).
    const model = (await placeOrder(t.server, t.w)).body.data.order_id;
    expect((await t.server.http.post(`/api/v1/store/orders/${model}/accept`, undefined, { token: t.w.owner.token })).status).toBe(200);
    const settings = { ...outboxSettings };
    outboxSettings.reminderAfterSeconds = 1;
    // A checkout's transaction of its own: the order's created_at is its start (now()), however late it commits.
    // Named as the service's sessions are (orm.ts): another application's transaction does not hold the look-back (next test).
    const checkout = new Client({
      connectionString: t.server.db.orm.config.get('clientUrl'),
      application_name: `${sessionNamePrefix(t.server.config.database.sessionName)}test`,
    });
    await checkout.connect();
    try {
      await checkout.query('begin');
      await checkout.query('select now()');
      // Open longer than the horizon's delay (and, run with 62 s, than the 60 s the passes used to look back).
      await new Promise((r) => setTimeout(r, LATE_COMMIT_MS));
      expect(await worker.remind()).toBe(0); // the order is not visible yet, though placed before this pass's horizon
      const { rows } = await checkout.query<{ order_id: number }>(
        `with o as (
           insert into orders (user_id, store_id, address_id, status, subtotal_cents, delivery_fee_cents, total_cents, address_label,
             address_line1, address_latitude, address_longitude, last_event_seq)
           select user_id, store_id, address_id, 'pending_acceptance', subtotal_cents, delivery_fee_cents, total_cents, address_label,
             address_line1, address_latitude, address_longitude, 1
           from orders where id = $1 returning id)
         insert into order_events (order_id, seq, type, status) select id, 1, 'status', 'pending_acceptance' from o returning order_id`,
        [model],
      );
      await checkout.query('commit');
      const late = rows[0].order_id;
      const examined = worker.stats.remindersExamined;
      expect(await worker.remind()).toBe(1);
      expect(await worker.remind()).toBe(0);
      expect(worker.stats.remindersExamined - examined).toBe(1);
      expect(await sql(`select order_id from notification_outbox where kind = 'accept_reminder'`)).toEqual([{ order_id: late }]);
    } finally {
      Object.assign(outboxSettings, settings);
      await checkout.end();
    }
  });
  it("another application's open transaction (a pg_dump, an operator's psql) does not make every pass look again at the same orders", async () => {
    await t.server.app.notifications.stop();
    const worker = new OutboxWorker(t.server.db.orm.em, {}, t.server.config.notifications, createLogger('silent'), 'mad');
    const settings = { ...outboxSettings };
    outboxSettings.reminderAfterSeconds = 1;
    const foreign = new Client({ connectionString: t.server.db.orm.config.get('clientUrl'), application_name: 'pg_dump' });
    await foreign.connect();
    try {
      await foreign.query('begin');
      await foreign.query('select 1');
      // The owner has no device: a reminder writes no row, so only the look-back keeps a pass off these orders.
      for (let i = 0; i < 3; i++) expect((await placeOrder(t.server, t.w)).status).toBe(201);
      await new Promise((r) => setTimeout(r, 1300));
      const examined: number[] = [];
      for (let i = 0; i < 3; i++) {
        const before = worker.stats.remindersExamined;
        await worker.remind();
        examined.push(worker.stats.remindersExamined - before);
      }
      expect(examined).toEqual([3, 0, 0]);
    } finally {
      Object.assign(outboxSettings, settings);
      await foreign.end();
    }
  });
});
