/**
 * Issue 24, the worker's re-claim guard (worker.ts `record`): a claim whose lease ran out while
 * its send was in flight may be taken over by another worker; the first worker's late record
 * must then change nothing (neither shorten the new claim's lease nor undo its outcome), so the
 * row is sent by the claim that holds it and not sent again. Two workers on the service's
 * database, each with a channel whose sends the test answers by hand.
 */
import type { Channel, OutgoingMessage, Outcome } from '../src/modules/notifications/channel';
import { createChannels, FcmChannel, WhatsAppChannel } from '../src/modules/notifications/channels';
import { OutboxWorker, prune } from '../src/modules/notifications/worker';
import { orderAloneStatement } from '../src/modules/orders/checkout-query';
import { firstEventNotifications } from '../src/modules/orders/order-events';
import { createLogger } from '../src/common/logger';
import { eventually, signInDevice, useNotifyWorld } from './helpers/notifications';
import { placeOrder } from './helpers/orders';
import http from 'node:http';
import { Writable } from 'node:stream';
import jwt from 'jsonwebtoken';

const t = useNotifyWorld();

const sql = <T = any>(query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute<T[]>(query, params);

/** A channel whose sends stay in flight until the test answers them. */
class HeldChannel implements Channel {
  readonly sends: { to: string; orderId: string; answer: (outcome: Outcome) => void }[] = [];
  send(message: OutgoingMessage): Promise<Outcome> {
    return new Promise((answer) => this.sends.push({ to: message.to, orderId: message.data.order_id, answer }));
  }
}

const FAILED_500: Outcome = { ok: false, retry: true, error: 'FCM answered 500 INTERNAL' };

function worker(channel: Channel): OutboxWorker {
  // A long lease (the test ends it by hand), a tiny backoff: a retry recorded would be due at once.
  const config = { ...t.server.config.notifications, leaseSeconds: 60, backoffMs: 1 };
  return new OutboxWorker(t.server.db.orm.em, { push: channel }, config, createLogger('silent'), 'mad');
}

const row = async (orderId: number) =>
  (
    await sql(
      `select status, attempts, last_error, leased_until is not null and leased_until > now() + interval '30 seconds' as leased
         from notification_outbox where kind = 'new_order' and order_id = ?`,
      [orderId],
    )
  )[0];

async function order(): Promise<number> {
  const res = await placeOrder(t.server, t.w);
  expect(res.status).toBe(201);
  return res.body.data.order_id;
}

/** The row's lease runs out (as if its claim had taken longer than NOTIFICATIONS_LEASE_SECONDS). */
const leaseRunsOut = (orderId: number) =>
  sql(`update notification_outbox set leased_until = now() where kind = 'new_order' and order_id = ?`, [orderId]);

describe("the worker's re-claim guard", () => {
  it('a late record after the lease ran out changes nothing: the re-claimed row is sent once, by its new claim', async () => {
    await t.server.app.notifications.stop(); // only the two workers below send
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    const heldA = new HeldChannel();
    const heldB = new HeldChannel();
    const a = worker(heldA);
    const b = worker(heldB);

    // 1. A's send fails late, while B's claim of the same row is in flight.
    const first = await order();
    const passA = a.drain();
    await eventually(() => expect(heldA.sends).toHaveLength(1));
    await leaseRunsOut(first);
    const passB = b.drain();
    await eventually(() => expect(heldB.sends).toHaveLength(1));
    expect(await row(first)).toEqual({ status: 'pending', attempts: 2, last_error: null, leased: true });
    heldA.sends[0].answer(FAILED_500);
    await passA;
    // A's retry is not recorded: B's lease stands (a retry due now would let A claim and send it again).
    expect(await row(first)).toEqual({ status: 'pending', attempts: 2, last_error: null, leased: true });
    expect(await a.drain()).toBe(0);
    heldB.sends[0].answer({ ok: true });
    await passB;
    expect(await row(first)).toMatchObject({ status: 'sent', attempts: 2, last_error: null });

    // 2. A's send fails late, after B has sent the row and recorded it.
    const second = await order();
    const passA2 = a.drain();
    await eventually(() => expect(heldA.sends).toHaveLength(2));
    await leaseRunsOut(second);
    const passB2 = b.drain();
    await eventually(() => expect(heldB.sends).toHaveLength(2));
    heldB.sends[1].answer({ ok: true });
    await passB2;
    heldA.sends[1].answer(FAILED_500);
    await passA2;
    expect(await row(second)).toMatchObject({ status: 'sent', attempts: 2, last_error: null });

    // Nothing is due any more: neither worker sends either order again.
    await sql(`update notification_outbox set due_at = now() where status = 'pending' and kind = 'new_order'`);
    expect(await a.drain()).toBe(0);
    expect(await b.drain()).toBe(0);
    expect(heldA.sends.map((s) => s.orderId)).toEqual([String(first), String(second)]);
    expect(heldB.sends.map((s) => s.orderId)).toEqual([String(first), String(second)]);
    expect([...heldA.sends, ...heldB.sends].every((s) => s.to === 'owner-token')).toBe(true);
  });

  it('a send FCM never finishes answering fails at its deadline and is retried, not held past the lease', async () => {
    await t.server.app.notifications.stop(); // only the worker below sends
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    const id = await order();
    t.fcm.trickleNext(); // 200, then a byte every 50 ms, without end: no idle timeout ever fires
    const fcm = new FcmChannel(t.server.config.notifications.fcm!, 400);
    const w = worker(fcm);
    const began = Date.now();
    await w.drain();
    expect(Date.now() - began).toBeLessThan(5000);
    expect(await row(id)).toEqual({
      status: 'pending',
      attempts: 1,
      last_error: expect.stringMatching(/^FCM unreachable: no full answer within \d+ ms$/),
      leased: false,
    });
    await eventually(async () => {
      await w.drain(); // due again after its backoff
      expect(await row(id)).toMatchObject({ status: 'sent', attempts: 2 });
    });
    expect(t.fcm.to('owner-token').map((p) => p.data.order_id)).toEqual([String(id)]);
  });

  it('a send that could outlast the lease is not begun: the row is given back, due at once, its attempt not counted', async () => {
    await t.server.app.notifications.stop();
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    const held = new HeldChannel();
    const slow = Object.assign(held, { deadlineMs: 60_000 }); // as long as the lease
    const id = await order();
    expect(await worker(slow).drain()).toBe(1);
    expect(held.sends).toEqual([]);
    expect(await row(id)).toEqual({ status: 'pending', attempts: 0, last_error: null, leased: false });
  });

  it("a 429 on a device's first step holds back that device's later steps of the order, with its Retry-After", async () => {
    await t.server.app.notifications.stop();
    await signInDevice(t.server, t.w.customer.user.phone_number, { deviceId: 'customer-phone', pushToken: 'customer-token' });
    const id = await order();
    for (const step of ['accept', 'preparing', 'ready'])
      expect((await t.server.http.post(`/api/v1/store/orders/${id}/${step}`, undefined, { token: t.w.owner.token })).status).toBe(200);
    t.fcm.failNext(429, 1, '30');
    await worker(new FcmChannel(t.server.config.notifications.fcm!)).drain();
    // Nothing later reached the phone before the refused step; every one of its rows waits the 30 s,
    // and only the refused step counts an attempt (the later ones were never begun).
    expect(t.fcm.to('customer-token')).toEqual([]);
    const rows = await sql<{ status: string; attempts: number; later: boolean }>(
      `select status, attempts, due_at > now() + interval '20 seconds' as later
         from notification_outbox where order_id = ? and channel = 'push' order by id`,
      [id],
    );
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows).toEqual(rows.map((_, i) => ({ status: 'pending', attempts: i === 0 ? 1 : 0, later: true })));
  });

  it('a channel timeout longer than half the lease is cut to it, and the log says so once, at startup', () => {
    const records: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        records.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const config = { ...t.server.config, notifications: { ...t.server.config.notifications, leaseSeconds: 2 } };
    const channels = createChannels(config, createLogger('info', 'json', sink), null);
    expect((channels.push as FcmChannel).deadlineMs).toBe(1000);
    expect((channels.whatsapp as WhatsAppChannel).deadlineMs).toBe(1000);
    expect(records).toEqual(
      ['FCM_TIMEOUT_MS', 'WHATSAPP_TIMEOUT_MS'].map((setting) =>
        expect.objectContaining({
          level: 40,
          msg: `notifications: ${setting} is cut to half of NOTIFICATIONS_LEASE_SECONDS`,
          setting,
          configuredMs: 10_000,
          deadlineMs: 1000,
          leaseSeconds: 2,
        }),
      ),
    );
    // Within half the lease: nothing to say.
    records.length = 0;
    createChannels(t.server.config, createLogger('info', 'json', sink), null);
    expect(records).toEqual([]);
  });

  it('a send whose access token must be exchanged first keeps one deadline for both requests', async () => {
    const config = t.server.config.notifications.fcm!;
    // A token endpoint that answers after 300 ms (the real exchange behind it), then FCM 300 ms a send.
    const slowToken = http.createServer((_req, res) => {
      const exchange = async () => {
        const now = Math.floor(Date.now() / 1000);
        const assertion = jwt.sign(
          {
            iss: config.account.client_email,
            scope: 'https://www.googleapis.com/auth/firebase.messaging',
            aud: config.tokenUrl,
            iat: now,
            exp: now + 3600,
          },
          config.account.private_key,
          { algorithm: 'RS256' },
        );
        const answer = await fetch(config.tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      };
      setTimeout(() => void exchange(), 300);
    });
    await new Promise<void>((listening) => slowToken.listen(0, '127.0.0.1', () => listening()));
    try {
      const { port } = slowToken.address() as { port: number };
      const fcm = new FcmChannel({ ...config, tokenUrl: `http://127.0.0.1:${port}${new URL(config.tokenUrl).pathname}` }, 400);
      t.fcm.latency = () => 300;
      const began = Date.now();
      const outcome = await fcm.send({
        to: 'x',
        title: 't',
        body: 'b',
        data: { type: 'x', order_id: '1', status: 's', seq: '1' },
        parameters: [],
        locale: 'en',
      });
      expect(outcome).toMatchObject({ ok: false, retry: true });
      expect(Date.now() - began).toBeLessThan(550); // 300 + 300 without one deadline
    } finally {
      slowToken.close();
    }
  });
});

describe('the outbox table', () => {
  it('is pruned of finished rows older than NOTIFICATIONS_RETENTION_DAYS, never of pending ones, by the first pass of a worker', async () => {
    await t.server.app.notifications.stop(); // the rows below keep the statuses the test gives them
    const orders = [await order(), await order(), await order(), await order()];
    const age = async (orderId: number, status: string, days: number) =>
      sql(`update notification_outbox set status = ?, created_at = now() - make_interval(days => ?) where order_id = ?`, [
        status,
        days,
        orderId,
      ]);
    await age(orders[0], 'sent', 15);
    await age(orders[1], 'failed', 15);
    await age(orders[2], 'pending', 15); // still to send, however old (due later: no worker takes it here)
    await sql(`update notification_outbox set due_at = now() + interval '1 hour' where order_id = ?`, [orders[2]]);
    await age(orders[3], 'sent', 13); // within the retention
    const left = async () =>
      (
        await sql<{ order_id: number }>(`select order_id from notification_outbox where order_id in (?, ?, ?, ?) order by order_id`, orders)
      ).map((r) => r.order_id);
    expect(await left()).toEqual(orders);
    expect(await prune(t.server.db.orm.em, 14)).toBe(2);
    expect(await left()).toEqual([orders[2], orders[3]]);

    // A worker prunes on its first pass (then hourly): the row aged past the retention goes.
    await age(orders[3], 'sent', 15);
    const fresh = worker({ send: async () => ({ ok: true }) });
    fresh.start();
    try {
      await eventually(async () => expect(await left()).toEqual([orders[2]]));
    } finally {
      await fresh.stop();
    }
  });

  it('is vacuumed after 1 % of it is dead, not autovacuum’s 20 %: each row leaves dead entries the claim walks past', async () => {
    const [{ options }] = await sql<{ options: string[] }>(
      `select reloptions as options from pg_class where relname = 'notification_outbox'`,
    );
    expect(options).toEqual(
      expect.arrayContaining([
        'autovacuum_vacuum_scale_factor=0.01',
        'autovacuum_vacuum_threshold=1000',
        'autovacuum_analyze_scale_factor=0.02',
      ]),
    );
  });

  it('writes few index entries a row: a claim (lease, attempts) is a HOT update, an outcome leaves the claim’s index, a row has one unique key', async () => {
    const [{ options }] = await sql<{ options: string[] }>(
      `select reloptions as options from pg_class where relname = 'notification_outbox'`,
    );
    expect(options).toContain('fillfactor=50'); // room on the row's page for its claim's new version
    const indexes = await sql<{ name: string; def: string }>(
      `select indexname as name, indexdef as def from pg_indexes where tablename = 'notification_outbox' order by indexname`,
    );
    // No index holds what a claim changes.
    for (const { def } of indexes) expect(def).not.toMatch(/leased_until|attempts/);
    // One unique key for both sources, leading with the order (its reads need no index of their own).
    expect(indexes.map((i) => i.name)).toEqual([
      'notification_outbox_pending_index',
      'notification_outbox_pkey',
      'notification_outbox_unique',
    ]);
    const def = (name: string) => indexes.find((i) => i.name === name)!.def;
    expect(def('notification_outbox_pending_index')).toMatch(/\(due_at\) WHERE \(\(status\)::text = 'pending'::text\)$/);
    expect(def('notification_outbox_unique')).toMatch(
      /^CREATE UNIQUE INDEX .* \(order_id, event_id, payment_event_id, kind, channel, target\) NULLS NOT DISTINCT$/,
    );
  });

  it("adds one insert to the checkout's statement: no CTE read again, no table it does not need, few plan nodes", async () => {
    // The checkout's write statement as the service prepares it, with and without the new order's
    // notifications, planned as the service's connections plan it after their first executions
    // (generic): each plan node is set up on every execution (docs/perf/2026-11-28-notifications-pg.md).
    const order = {
      userId: t.w.customer.user.id,
      storeId: t.w.owner.store.id,
      address: {
        id: t.w.addressId,
        label: 'Home',
        line1: '5 Rue Ibnou Sina',
        line2: null,
        city: null,
        latitude: 33.5,
        longitude: -7.6,
        instructions: null,
      },
      status: 'pending_acceptance',
      subtotalCents: 19800,
      deliveryFeeCents: 1500,
      discountCents: 0,
      totalCents: 21300,
      promoId: null,
      promoCode: null,
      items: [],
    };
    type Node = { 'Node Type': string; 'Relation Name'?: string; 'CTE Name'?: string; Plans?: Node[] };
    const nodes = (plan: Node): Node[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
    const planOf = async (name: string, notifications: ReturnType<typeof firstEventNotifications>) => {
      const { sql: text, params } = orderAloneStatement(order, null, new Date().toISOString(), notifications);
      return t.server.db.orm.em.fork().transactional(async (tx) => {
        await tx.execute('set local plan_cache_mode = force_generic_plan');
        await tx.execute(`prepare ${name} as ${tx.getKnex().raw(text, params).toSQL().toNative().sql}`);
        const values = params.map((v) => (v === null ? 'null' : `'${String(v).replace(/'/g, "''")}'`)).join(', ');
        const [row] = await tx.execute(`explain (format json) execute ${name}(${values})`);
        await tx.execute(`deallocate ${name}`);
        return nodes((row['QUERY PLAN'] as { Plan: Node }[])[0].Plan);
      });
    };
    const without = await planOf('checkout_alone', null);
    const withThem = await planOf('checkout_notifying', firstEventNotifications('pending_acceptance'));
    // Five CTEs planned 23 more nodes, three scans of a materialised CTE and a join of drivers.
    // 7 now; the recipients' preferences, devices and browsers read in the statement planned 18.
    expect(withThem.length - without.length).toBeLessThanOrEqual(8);
    expect(withThem.filter((n) => n['Node Type'] === 'CTE Scan' && !['o', 'e', 'lines'].includes(n['CTE Name']!))).toEqual([]);
    const tables = (plan: Node[]) => plan.map((n) => n['Relation Name']).filter((name) => name !== undefined);
    const added = tables(withThem).filter((name) => !tables(without).includes(name));
    // The recipients' preferences, devices and browsers are read as their targets, kept by triggers (notifications-pg-2.md).
    expect([...new Set(added)].sort()).toEqual(['notification_outbox', 'notification_targets', 'stores']);
  });
});
