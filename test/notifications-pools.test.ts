/**
 * Issue 24, the worker's pool: the outbox worker's claim and record go on the ORM's pool, never
 * on the read pool, whose few connections serve the requests' hot reads and the live streams'
 * set-ups and catch-up reads (a worker retrying failing sends back to back starved them:
 * docs/perf/2026-11-27-notifications-5.md). With every read-pool connection held, the worker
 * still claims, sends and records; it never checks a read-pool connection out.
 */
import type { PoolClient } from 'pg';
import type { Channel, OutgoingMessage, Outcome } from '../src/modules/notifications/channel';
import { OutboxWorker } from '../src/modules/notifications/worker';
import { readPoolOf } from '../src/common/entity-manager';
import { createLogger } from '../src/common/logger';
import { signInDevice, useNotifyWorld } from './helpers/notifications';
import { placeOrder } from './helpers/orders';

const t = useNotifyWorld();

class RecordingChannel implements Channel {
  readonly sent: string[] = [];
  send(message: OutgoingMessage): Promise<Outcome> {
    this.sent.push(message.data.order_id);
    return Promise.resolve({ ok: true });
  }
}

describe("the worker's statements", () => {
  it('claim and record with every read-pool connection held, checking none out', async () => {
    await t.server.app.notifications.stop(); // only the worker below sends
    await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    const res = await placeOrder(t.server, t.w);
    expect(res.status).toBe(201);
    const orderId = String(res.body.data.order_id);

    const pool = readPoolOf(t.server.db.orm)!;
    expect(pool).toBeDefined();
    const held: PoolClient[] = [];
    let checkouts = 0;
    const counted = () => checkouts++;
    try {
      while (held.length < pool.options.max) held.push(await pool.connect());
      pool.on('acquire', counted);
      const channel = new RecordingChannel();
      const worker = new OutboxWorker(t.server.db.orm.em, { push: channel }, t.server.config.notifications, createLogger('silent'), 'mad');
      expect(await worker.drain()).toBe(1);
      expect(channel.sent).toEqual([orderId]);
      const [row] = await t.server.db.orm.em
        .fork()
        .execute(`select status, attempts from notification_outbox where kind = 'new_order' and order_id = ?`, [Number(orderId)]);
      expect(row).toEqual({ status: 'sent', attempts: 1 });
      expect(checkouts).toBe(0);
    } finally {
      pool.off('acquire', counted);
      held.forEach((client) => client.release());
    }
  });
});
