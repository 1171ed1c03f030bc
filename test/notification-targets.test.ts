/**
 * Where a user's order notifications go (`notification_targets`, kept by triggers: migration
 * outbox_targets), which the event's statement joins instead of reading preferences, devices and
 * browsers (docs/perf/2026-11-28-notifications-pg-2.md): it follows each of them, and concurrent
 * changes to one user's devices leave what the last of them sees.
 */
import { Client } from 'pg';
import { resetCatalog } from '../src/db/seed/demo-city';
import { signInDevice, useNotifyWorld } from './helpers/notifications';
import { orderWorld, placeOrder } from './helpers/orders';

const t = useNotifyWorld();
const sql = <T = any>(query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute<T[]>(query, params);
const targetsOf = async (userId: number) =>
  (await sql<{ t: string }>(`select channel || ' ' || target as t from notification_targets where user_id = ? order by 1`, [userId])).map(
    (r) => r.t,
  );
const devices = async (userId: number) =>
  (await sql<{ id: number }>(`select id from user_devices where user_id = ? and push_token is not null order by id`, [userId])).map(
    (r) => r.id,
  );

describe('notification targets', () => {
  it('follow the devices with a push token, the browsers, the preferences and the WhatsApp fallback', async () => {
    const owner = t.w.owner.user.id;
    const put = (channels: Record<string, boolean>) =>
      t.server.http.put('/api/v1/store/notification-preferences', { channels }, { token: t.w.owner.token });
    expect(await targetsOf(owner)).toEqual(['whatsapp phone']);

    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'tablet', pushToken: 'tablet-token' });
    const [tablet] = await devices(owner);
    expect(await targetsOf(owner)).toEqual([`push device:${tablet}`]);

    const [browser] = await sql<{ id: number }>(
      `insert into web_push_subscriptions (user_id, endpoint, p256dh, auth) values (?, 'https://push.example/1', 'k', 'a') returning id`,
      [owner],
    );
    expect(await targetsOf(owner)).toEqual([`push device:${tablet}`, `web_push webpush:${browser.id}`]);

    expect((await put({ push: false, web_push: false })).status).toBe(200);
    expect(await targetsOf(owner)).toEqual(['whatsapp phone']);
    expect((await put({ whatsapp: false })).status).toBe(200);
    expect(await targetsOf(owner)).toEqual([]);
    expect((await put({ push: true, web_push: true, whatsapp: true })).status).toBe(200);
    expect(await targetsOf(owner)).toEqual([`push device:${tablet}`, `web_push webpush:${browser.id}`]);

    await sql(`delete from web_push_subscriptions where id = ?`, [browser.id]);
    await sql(`update user_devices set push_token = null where id = ?`, [tablet]);
    expect(await targetsOf(owner)).toEqual(['whatsapp phone']);

    const [{ id: someone }] = await sql<{ id: number }>(
      `insert into users (phone_number, first_name, last_name) values ('+15550009999', 'Some', 'One') returning id`,
    );
    expect(await targetsOf(someone)).toEqual(['whatsapp phone']);
  });

  it("two transactions each removing one of a user's two devices leave the WhatsApp fallback, not the other's device", async () => {
    const owner = t.w.owner.user.id;
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'tablet', pushToken: 'tablet-token' });
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'phone', pushToken: 'phone-token' });
    const [tablet, phone] = await devices(owner);
    const url = t.server.db.orm.config.get('clientUrl');
    const first = new Client({ connectionString: url });
    const second = new Client({ connectionString: url });
    await first.connect();
    await second.connect();
    try {
      await first.query('begin');
      await first.query('delete from user_devices where id = $1', [tablet]);
      await second.query('begin');
      // Waits for the first transaction's hold on the owner's targets, then reads what it committed.
      const removing = second.query('delete from user_devices where id = $1', [phone]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.query('commit');
      await removing;
      await second.query('commit');
    } finally {
      await first.end();
      await second.end();
    }
    expect(await targetsOf(owner)).toEqual(['whatsapp phone']);
  });

  it("hold a user's row while they change, never a slot of the shared lock table (a bulk load of users would fill it)", async () => {
    const client = new Client({ connectionString: t.server.db.orm.config.get('clientUrl') });
    await client.connect();
    try {
      await client.query('begin');
      const { rows } = await client.query<{ id: number }>(
        `insert into users (phone_number, first_name, last_name) select '+1555001' || lpad(i::text, 4, '0'), 'Bulk', 'User'
           from generate_series(1, 50) i returning id`,
      );
      const locks = await client.query<{ kind: string; n: number }>(
        `select locktype as kind, count(*)::int as n from pg_locks where pid = pg_backend_pid() and locktype in ('advisory', 'tuple') group by 1`,
      );
      expect(locks.rows).toEqual([]);
      const targets = await client.query<{ n: number }>(`select count(*)::int as n from notification_targets where user_id = any($1)`, [
        rows.map((r) => r.id),
      ]);
      expect(targets.rows[0].n).toBe(50);
      await client.query('rollback');
    } finally {
      await client.end();
    }
  });

  it('leave with the catalogue: after a reset, the orders that take the old ids again are written and notified', async () => {
    expect((await placeOrder(t.server, t.w)).status).toBe(201);
    await resetCatalog(t.server.db.orm.em.fork());
    expect(await sql(`select id from notification_outbox`)).toEqual([]);
    const again = await orderWorld(t.server, t.make);
    const res = await placeOrder(t.server, again);
    expect(res.status).toBe(201);
    const rows = await sql<{ order_id: number; kind: string }>(`select order_id, kind from notification_outbox`);
    expect(rows).toEqual([{ order_id: res.body.data.order_id, kind: 'new_order' }]);
  });
});
