/**
 * Issue 24: order notifications through the outbox, sent by the worker to a local fake FCM
 * (token exchange and the v1 send API) and a fake WhatsApp. Who hears what, and nobody else;
 * dead tokens removed; 429 and 500 retried; logout; bad tokens refused.
 */
import { northOf } from './helpers/factories';
import { cart, onlineDriver, placeOrder, promo } from './helpers/orders';
import { registerCustomer } from './helpers/auth';
import { eventually, NOTIFY_ENV, signInDevice, useNotifyWorld } from './helpers/notifications';
import { startTestServer } from './helpers/server';
import { expireUnansweredOrders } from '../src/modules/orders/order-lifecycle.service';
import { backoff, OutboxWorker } from '../src/modules/notifications/worker';
import { createLogger } from '../src/common/logger';

const t = useNotifyWorld();

const sql = <T = any>(query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute<T[]>(query, params);
const storeStep = (id: number, step: string, body?: unknown) =>
  t.server.http.post(`/api/v1/store/orders/${id}/${step}`, body, { token: t.w.owner.token });
const driverStep = (id: number, step: string, token: string) =>
  t.server.http.post(`/api/v1/driver/orders/${id}/${step}`, undefined, { token });
const kinds = (token: string) => t.fcm.to(token).map((p) => p.data.type);

async function order(): Promise<number> {
  const res = await placeOrder(t.server, t.w);
  expect(res.status).toBe(201);
  return res.body.data.order_id;
}

/** Owner, customer (French) and a stranger, each on a device with a push token. */
async function devices() {
  await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
  const customer = await signInDevice(t.server, t.w.customer.user.phone_number, {
    deviceId: 'customer-phone',
    pushToken: 'customer-token',
    language: 'fr-FR,fr;q=0.9,en;q=0.5',
  });
  const stranger = await registerCustomer(t.server);
  await signInDevice(t.server, stranger.user.phone_number, { deviceId: 'stranger-phone', pushToken: 'stranger-token' });
  return { customer };
}

/** Every row of the outbox has reached an end (nothing due or in flight). */
const settled = async () =>
  expect(await sql(`select id from notification_outbox where status = 'pending' and kind <> 'accept_reminder'`)).toEqual([]);

describe('who hears what', () => {
  it('a delivered order: the owner hears of it, the customer of every step (in French), the driver of the assignment; the stranger of nothing', async () => {
    await devices();
    const driver = await onlineDriver(t.server, northOf({ lat: t.w.owner.store.latitude, lng: t.w.owner.store.longitude }, 0.5));
    await signInDevice(t.server, driver.user.phone_number, { deviceId: 'driver-phone', pushToken: 'driver-token' });
    const id = await order();
    const newOrder = await eventually(() => {
      expect(kinds('owner-token')).toEqual(['new_order']);
      return t.fcm.to('owner-token')[0];
    });
    expect(newOrder.notification.title).toBe(`New order #${id}`);
    expect(newOrder.notification.body).toContain(t.w.owner.store.name);
    expect(newOrder.notification.body).toContain('2× Margherita');
    expect(newOrder.notification.body).toContain('213.00 MAD');
    expect(newOrder.data).toEqual({
      type: 'new_order',
      order_id: String(id),
      status: 'pending_acceptance',
      seq: expect.stringMatching(/^\d+$/),
    });
    expect(newOrder.project).toBe(t.fcm.project);

    expect((await storeStep(id, 'accept')).status).toBe(200);
    expect((await storeStep(id, 'preparing')).status).toBe(200);
    expect((await storeStep(id, 'ready')).status).toBe(200);
    expect((await driverStep(id, 'pickup', driver.token)).status).toBe(200);
    expect((await driverStep(id, 'deliver', driver.token)).status).toBe(200);
    await eventually(() =>
      expect(kinds('customer-token')).toEqual(['order_accepted', 'order_ready', 'order_on_the_way', 'order_delivered']),
    );
    await eventually(settled);
    const customer = t.fcm.to('customer-token');
    expect(customer[0].notification).toEqual({
      title: `Commande n°${id} acceptée`,
      body: `${t.w.owner.store.name} a accepté votre commande.`,
    });
    expect(customer[2].notification.body).toContain('Omar');
    expect(customer.map((p) => p.data.status)).toEqual(['accepted', 'ready_for_pickup', 'picked_up', 'delivered']);
    expect(kinds('driver-token')).toEqual(['driver_assigned']);
    expect(kinds('owner-token')).toEqual(['new_order']);
    expect(kinds('stranger-token')).toEqual([]);
    expect(t.fcm.received).toHaveLength(6);
    // The owner's "sent" log of the order; the customer may not read it.
    const log = await t.server.http.get(`/api/v1/store/orders/${id}/notifications`, { token: t.w.owner.token });
    expect(log.status).toBe(200);
    expect(log.body.data.filter((n: any) => n.status === 'sent').map((n: any) => [n.kind, n.recipient, n.channel])).toEqual([
      ['new_order', 'owner', 'push'],
      ['order_accepted', 'customer', 'push'],
      ['driver_assigned', 'driver', 'push'],
      ['order_ready', 'customer', 'push'],
      ['order_on_the_way', 'customer', 'push'],
      ['order_delivered', 'customer', 'push'],
    ]);
    expect((await t.server.http.get(`/api/v1/store/orders/${id}/notifications`, { token: t.w.customer.token })).status).toBe(403);

    // Past the reminder's time, an answered order gets none: no row is even written.
    await sql(`update orders set created_at = now() - interval '1 second' * ? where id = ?`, [
      t.server.config.orders.acceptTimeoutSeconds / 2,
      id,
    ]);
    expect(await t.server.app.notifications.remind()).toBe(0);
    expect(await sql(`select id from notification_outbox where kind = 'accept_reminder'`)).toEqual([]);
    expect(kinds('owner-token')).toEqual(['new_order']);
  });

  it('the owner is reminded of an unanswered order at half the deadline, hears of its cancellation; the customer of a rejection and its reason', async () => {
    await devices();
    const id = await order();
    // Written by the worker once the order is unanswered at half its deadline, not with the order.
    const placedAgo = (seconds: number) =>
      sql(`update orders set created_at = now() - interval '1 second' * ? where id = ?`, [seconds, id]);
    const half = t.server.config.orders.acceptTimeoutSeconds / 2;
    await placedAgo(half - 5);
    expect(await t.server.app.notifications.remind()).toBe(0);
    expect(await sql(`select id from notification_outbox where kind = 'accept_reminder'`)).toEqual([]);
    await placedAgo(half);
    expect(await t.server.app.notifications.remind()).toBe(1);
    expect(await t.server.app.notifications.remind()).toBe(0); // once per order
    t.server.app.notifications.kick();
    await eventually(() => expect(kinds('owner-token')).toEqual(['new_order', 'accept_reminder']));
    expect(t.fcm.to('owner-token')[1].notification.title).toBe(`Order #${id} is waiting`);

    expect((await t.server.http.post(`/api/v1/customer/orders/${id}/cancel`, undefined, { token: t.w.customer.token })).status).toBe(200);
    await eventually(() => expect(kinds('owner-token')).toEqual(['new_order', 'accept_reminder', 'order_cancelled']));

    const rejected = await order();
    expect((await storeStep(rejected, 'reject', { rejection_reason: 'items_unavailable' })).status).toBe(200);
    await eventually(() => expect(kinds('customer-token')).toEqual(['order_rejected']));
    expect(t.fcm.to('customer-token')[0].notification.body).toBe(
      `${t.w.owner.store.name} a refusé votre commande : certains articles sont indisponibles.`,
    );

    const expired = await order();
    await sql(`update orders set created_at = now() - interval '1 hour' where id = ?`, [expired]);
    const services = t.server.app.services;
    expect(await expireUnansweredOrders(t.server.db.orm.em.fork(), services, createLogger('silent'), 600)).toBe(1);
    await eventually(() => expect(kinds('customer-token')).toEqual(['order_rejected', 'order_auto_rejected']));
    expect(kinds('stranger-token')).toEqual([]);
    await eventually(settled);
  });

  it("a push carries its event's status, however late the worker sends it", async () => {
    await devices();
    await t.server.app.notifications.stop(); // the rows wait while the order moves on
    const id = await order();
    expect((await storeStep(id, 'accept')).status).toBe(200);
    expect((await storeStep(id, 'preparing')).status).toBe(200);
    expect((await storeStep(id, 'ready')).status).toBe(200);
    t.server.app.notifications.start();
    await eventually(() => expect(t.fcm.received).toHaveLength(3));
    const sent = t.fcm.received.map((p) => [p.token, p.data.type, p.data.status]).sort();
    expect(sent).toEqual([
      ['customer-token', 'order_accepted', 'accepted'],
      ['customer-token', 'order_ready', 'ready_for_pickup'],
      ['owner-token', 'new_order', 'pending_acceptance'],
    ]);
  });

  it("each device hears an order's steps in their order, with a growing seq, however long FCM takes over each send", async () => {
    await devices();
    const customerPhone = t.w.customer.user.phone_number;
    await signInDevice(t.server, customerPhone, { deviceId: 'customer-tablet', pushToken: 'customer-tablet-token' });
    await signInDevice(t.server, customerPhone, { deviceId: 'customer-watch', pushToken: 'customer-watch-token' });
    const driver = await onlineDriver(t.server, northOf({ lat: t.w.owner.store.latitude, lng: t.w.owner.store.longitude }, 0.5));
    await t.server.app.notifications.stop(); // every step's rows wait, then go in one batch
    const id = await order();
    for (const step of ['accept', 'preparing', 'ready']) expect((await storeStep(id, step)).status).toBe(200);
    expect((await driverStep(id, 'pickup', driver.token)).status).toBe(200);
    expect((await driverStep(id, 'deliver', driver.token)).status).toBe(200);
    expect(await sql(`select count(*)::int as n from notification_outbox where status = 'pending'`)).toEqual([{ n: 13 }]); // the owner's new order, 4 steps × 3 devices
    t.fcm.latency = () => Math.random() * 40; // sends in flight together would land in any order
    t.server.app.notifications.start();
    await eventually(() => expect(t.fcm.received).toHaveLength(13));
    const steps = ['order_accepted', 'order_ready', 'order_on_the_way', 'order_delivered'];
    for (const token of ['customer-token', 'customer-tablet-token', 'customer-watch-token']) {
      expect(kinds(token)).toEqual(steps);
      const seqs = t.fcm.to(token).map((p) => Number(p.data.seq));
      expect(seqs.every((seq, i) => Number.isInteger(seq) && (i === 0 || seq > seqs[i - 1]))).toBe(true);
      expect(t.fcm.to(token).every((p) => p.data.order_id === String(id))).toBe(true);
    }
    expect(Number(t.fcm.to('owner-token')[0].data.seq)).toBeLessThan(Number(t.fcm.to('customer-token')[0].data.seq));
  });

  it('an owner without a push device hears of a new order on WhatsApp, with the template from configuration', async () => {
    const id = await order();
    await eventually(() =>
      expect(t.server.whatsapp.messages.filter((m) => m.body.template.name === 'new_order').map((m) => m.body.to)).toEqual([
        t.w.owner.user.phone_number.replace('+', ''),
      ]),
    );
    const message = t.server.whatsapp.messages.find((m) => m.body.template.name === 'new_order')!;
    expect(message.body.template.components[0].parameters.map((p: { text: string }) => p.text)).toEqual([
      String(id),
      t.w.owner.store.name,
      '2× Margherita, 1× Cola',
      '213.00 MAD',
    ]);
    expect(t.fcm.received).toEqual([]);
  });
});

describe('delivery', () => {
  it('a token FCM reports unregistered is removed from the device and not tried again', async () => {
    await devices();
    t.fcm.unregistered.add('customer-token');
    const id = await order();
    expect((await storeStep(id, 'accept')).status).toBe(200);
    await eventually(async () =>
      expect(await sql(`select status, attempts, last_error from notification_outbox where kind = 'order_accepted'`)).toEqual([
        { status: 'failed', attempts: 1, last_error: 'FCM answered 404 UNREGISTERED' },
      ]),
    );
    expect(await sql(`select push_token from user_devices where device_id = 'customer-phone'`)).toEqual([{ push_token: null }]);
    expect((await storeStep(id, 'preparing')).status).toBe(200);
    expect((await storeStep(id, 'ready')).status).toBe(200);
    await eventually(settled);
    expect(await sql(`select count(*)::int as n from notification_outbox where kind = 'order_ready'`)).toEqual([{ n: 0 }]);
  });

  it('429 with Retry-After and 500 are retried with backoff until the push goes through', async () => {
    await devices();
    t.fcm.failNext(429, 1, '0');
    t.fcm.failNext(500, 1);
    await order();
    await eventually(() => expect(kinds('owner-token')).toEqual(['new_order']));
    expect(t.fcm.attempts).toBe(3);
    await eventually(async () =>
      expect(await sql(`select status, attempts, last_error from notification_outbox where kind = 'new_order'`)).toEqual([
        { status: 'sent', attempts: 3, last_error: 'FCM answered 500 INTERNAL' },
      ]),
    );
  });

  it("a 429's Retry-After postpones the row by what FCM asked, its error kept; once due again it is sent", async () => {
    await devices();
    t.fcm.failNext(429, 1, '30');
    await order();
    const [row] = await eventually(async () => {
      const rows = await sql(
        `select status, attempts, last_error, extract(epoch from due_at - now())::float8 as wait from notification_outbox where kind = 'new_order'`,
      );
      expect(rows).toEqual([
        { status: 'pending', attempts: 1, last_error: 'FCM answered 429 RESOURCE_EXHAUSTED', wait: expect.any(Number) },
      ]);
      return rows;
    });
    expect(Number(row.wait)).toBeGreaterThan(25);
    expect(Number(row.wait)).toBeLessThanOrEqual(30);
    expect(kinds('owner-token')).toEqual([]);
    await sql(`update notification_outbox set due_at = now() where kind = 'new_order'`);
    t.server.app.notifications.kick();
    await eventually(() => expect(kinds('owner-token')).toEqual(['new_order']));
  });

  it('backoff: a random wait in the upper half of a ceiling that doubles per attempt, at most an hour', () => {
    const waits = (attempt: number) => Array.from({ length: 200 }, () => backoff(attempt, 2000));
    for (const [attempt, ceiling] of [
      [1, 2000],
      [2, 4000],
      [4, 16_000],
    ]) {
      const w = waits(attempt);
      expect(Math.min(...w)).toBeGreaterThanOrEqual(ceiling / 2);
      expect(Math.max(...w)).toBeLessThanOrEqual(ceiling);
      expect(new Set(w).size).toBeGreaterThan(150); // jittered: instances retrying together spread out
    }
    expect(Math.max(...waits(40))).toBeLessThanOrEqual(3_600_000);
  });

  it('a pass woken by a commit starts NOTIFICATIONS_PASS_GAP_MS after the previous began: the wakes meanwhile share it; after a quiet while, at once', async () => {
    const config = { ...t.server.config.notifications, pollMs: 60_000, passGapMs: 600 };
    const worker = new OutboxWorker(t.server.db.orm.em, {}, config, createLogger('silent'), 'mad');
    const passes: number[] = [];
    // The passes only, not their statements: when they begin.
    worker.drain = () => Promise.resolve(passes.push(Date.now()) && 0);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    worker.start();
    await sleep(50);
    expect(passes).toHaveLength(1);
    for (let i = 0; i < 3; i++) worker.kick();
    await sleep(800);
    expect(passes).toHaveLength(2);
    expect(passes[1] - passes[0]).toBeGreaterThanOrEqual(598);
    await sleep(500); // past the gap since the second pass: a wake is not held for a gap of its own
    expect(Date.now() - passes[1]).toBeGreaterThan(600);
    const woken = Date.now();
    worker.kick();
    await sleep(300);
    await worker.stop();
    expect(passes).toHaveLength(3);
    expect(passes[2] - woken).toBeLessThan(300);
  });

  it('gives up after NOTIFICATIONS_MAX_ATTEMPTS and keeps the reason', async () => {
    await devices();
    t.fcm.failNext(500, 10);
    await order();
    await eventually(async () =>
      expect(await sql(`select status, attempts, last_error from notification_outbox where kind = 'new_order'`)).toEqual([
        { status: 'failed', attempts: 4, last_error: 'FCM answered 500 INTERNAL' },
      ]),
    );
    expect(t.fcm.attempts).toBe(4);
    expect(t.fcm.received).toEqual([]);
  });

  it('logout stops pushes to that device; signing in again with a token takes it from its former holder', async () => {
    const { customer } = await devices();
    expect((await t.server.http.post('/v1/auth/customer/logout', undefined, { token: customer })).status).toBe(200);
    expect(await sql(`select push_token from user_devices where device_id = 'customer-phone'`)).toEqual([{ push_token: null }]);
    // The phone passes to the stranger... no: the owner's tablet's token is now the stranger's.
    const stranger = await sql<{ phone_number: string }>(
      `select u.phone_number from users u join user_devices d on d.user_id = u.id where d.device_id = 'stranger-phone'`,
    );
    await signInDevice(t.server, stranger[0].phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    const id = await order();
    expect((await storeStep(id, 'accept')).status).toBe(200);
    await eventually(settled);
    expect(t.fcm.received).toEqual([]); // the owner's token went to the stranger; the customer logged out
    // The owner, without a push device now, heard on WhatsApp.
    expect(t.server.whatsapp.messages.filter((m) => m.body.template?.name === 'new_order')).toHaveLength(1);
  });

  it('a push token sent without a device id (both optional, spec §4.1) is kept, the token naming the device: it hears; the same token again is the same device; logout stops it', async () => {
    const phone = t.w.customer.user.phone_number;
    const first = await signInDevice(t.server, phone, { pushToken: 'lone-token' });
    await signInDevice(t.server, phone, { pushToken: 'lone-token' });
    expect(await sql(`select device_id, push_token from user_devices where user_id = ?`, [t.w.customer.user.id])).toEqual([
      { device_id: expect.stringMatching(/^token:[A-Za-z0-9_-]{43}$/), push_token: 'lone-token' },
    ]);
    const id = await order();
    expect((await storeStep(id, 'accept')).status).toBe(200);
    await eventually(() => expect(kinds('lone-token')).toEqual(['order_accepted']));
    const latest = await signInDevice(t.server, phone, { pushToken: 'lone-token' });
    expect((await t.server.http.post('/v1/auth/customer/logout', undefined, { token: first })).status).toBe(200);
    expect(await sql(`select push_token from user_devices where user_id = ?`, [t.w.customer.user.id])).toEqual([
      { push_token: 'lone-token' },
    ]);
    expect((await t.server.http.post('/v1/auth/customer/logout', undefined, { token: latest })).status).toBe(200);
    expect(await sql(`select push_token from user_devices where user_id = ?`, [t.w.customer.user.id])).toEqual([{ push_token: null }]);
  });
});

describe('bad input', () => {
  it('refuses malformed or oversized push tokens with 422 naming the field, and stores nothing', async () => {
    const phone = t.w.customer.user.phone_number;
    for (const pushToken of ['x'.repeat(513), 'has spaces', 'semi;colon', '<script>']) {
      await expect(signInDevice(t.server, phone, { deviceId: 'bad', pushToken })).rejects.toThrow(/verify-otp: 422 .*push_token/);
    }
    expect(await sql(`select device_id from user_devices where device_id = 'bad'`)).toEqual([]);
    const fine = `${'a'.repeat(22)}:APA91b${'B-_'.repeat(40)}`;
    await signInDevice(t.server, phone, { deviceId: 'good', pushToken: fine });
    expect(await sql(`select push_token from user_devices where device_id = 'good'`)).toEqual([{ push_token: fine }]);
  });

  it('keeps the push tokens of the 10 devices a user signed in from last: an order is not one push per device ever signed in', async () => {
    const phone = t.w.customer.user.phone_number;
    for (let i = 1; i <= 11; i++) await signInDevice(t.server, phone, { deviceId: `phone-${i}`, pushToken: `token-${i}` });
    const kept = await sql<{ device_id: string }>(
      `select device_id from user_devices where user_id = ? and push_token is not null order by id`,
      [t.w.customer.user.id],
    );
    expect(kept.map((d) => d.device_id)).toEqual(Array.from({ length: 10 }, (_, i) => `phone-${i + 2}`));
    // The first one signing in again takes its place back.
    await signInDevice(t.server, phone, { deviceId: 'phone-1', pushToken: 'token-1' });
    expect(await sql(`select device_id from user_devices where user_id = ? and push_token is null`, [t.w.customer.user.id])).toEqual([
      { device_id: 'phone-2' },
    ]);
  });

  it('an empty push token (an app without notification permission) signs in as no token: the device is kept, its token untouched', async () => {
    const phone = t.w.customer.user.phone_number;
    await signInDevice(t.server, phone, { deviceId: 'quiet-phone', pushToken: 'quiet-token' });
    await signInDevice(t.server, phone, { deviceId: 'quiet-phone', pushToken: '' });
    await signInDevice(t.server, phone, { pushToken: '' });
    expect(await sql(`select device_id, push_token from user_devices where user_id = ?`, [t.w.customer.user.id])).toEqual([
      { device_id: 'quiet-phone', push_token: 'quiet-token' },
    ]);
  });
});

describe('outbox', () => {
  it('is written with the event: a failed checkout leaves no row, a placed one its rows before any send', async () => {
    await devices();
    await t.server.app.notifications.stop();
    try {
      const bad = await placeOrder(t.server, t.w, { ...cart(t.w), items: [{ product_id: 999999, quantity: 1 }] });
      expect(bad.status).toBe(422);
      expect(await sql(`select count(*)::int as n from notification_outbox`)).toEqual([{ n: 0 }]);
      // Refused after the order's statement wrote the rows (the promo is used up at its redemption): they go with the rollback.
      await promo(t.server, { code: 'USEDUP', maxUses: 0, maxUsesPerCustomer: null });
      const late = await placeOrder(t.server, t.w, cart(t.w, { code_promo: 'USEDUP' }));
      expect(late.status).toBe(422);
      expect(Object.keys(late.body.errors)).toEqual(['code_promo']);
      expect(
        await sql(`select (select count(*)::int from orders) as orders, (select count(*)::int from notification_outbox) as rows`),
      ).toEqual([{ orders: 0, rows: 0 }]);
      const id = await order();
      expect(await sql(`select kind, channel, target, status from notification_outbox where order_id = ? order by kind`, [id])).toEqual([
        { kind: 'new_order', channel: 'push', target: expect.stringMatching(/^device:\d+$/), status: 'pending' },
      ]);
    } finally {
      t.server.app.notifications.start();
    }
    await eventually(() => expect(kinds('owner-token')).toEqual(['new_order']));
  });
});

describe('two instances on one database', () => {
  it('500 new orders → 500 pushes to each of the owner’s devices, none twice, none missing', async () => {
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-phone', pushToken: 'owner-phone-token' });
    const second = await startTestServer({ ...NOTIFY_ENV, ...t.fcm.env() }, t.server.db);
    const first = t.server.app.notifications;
    await first.stop();
    await second.app.notifications.stop();
    const N = 500;
    try {
      // Written while no worker runs, then both start at once and compete for the same rows.
      const ids: number[] = [];
      for (let i = 0; i < N; i += 10) {
        const placed = await Promise.all(
          Array.from({ length: 10 }, (_, j) => ((i + j) % 2 === 0 ? placeOrder(t.server, t.w) : placeOrder(second, t.w))),
        );
        ids.push(...placed.map((r) => r.body.data.order_id as number));
      }
      first.start();
      second.app.notifications.start();
      for (const token of ['owner-token', 'owner-phone-token']) {
        await eventually(() => expect(t.fcm.to(token)).toHaveLength(N), 60_000);
      }
      await eventually(settled);
      for (const token of ['owner-token', 'owner-phone-token']) {
        expect(
          t.fcm
            .to(token)
            .map((p) => Number(p.data.order_id))
            .sort((a, b) => a - b),
        ).toEqual([...ids].sort((a, b) => a - b));
      }
      expect(t.fcm.attempts).toBe(2 * N);
    } finally {
      await second.close();
    }
  }, 300_000);
});
