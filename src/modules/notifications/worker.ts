/**
 * The outbox worker, one per instance: claims due rows (FOR UPDATE SKIP LOCKED, so instances
 * never take the same row), sends each outside any transaction, and records what became of it.
 * A claim pushes the row's due time a lease ahead: if the instance dies mid-send, another
 * takes the row when the lease ends (at least once; a crash after FCM accepted a message and
 * before it was recorded may repeat it — the only window left).
 */
import { EntityManager } from '@mikro-orm/postgresql';
import type { NotificationsConfig } from '../../config';
import type { Logger } from '../../common/logger';
import type { Channels, OutgoingMessage, Outcome } from './channel';
import { render, OrderFacts } from './messages';
import type { NotificationChannel } from './notification.entity';
import { NotificationKind, outboxSignal } from './outbox';

interface Claimed {
  id: string;
  order_id: number;
  kind: NotificationKind;
  user_id: number;
  channel: NotificationChannel;
  target: string;
  attempts: number;
}

/** What the worker needs to reach a row's recipient, or why it no longer can. */
type Address = { to: string; locale: string; keys?: OutgoingMessage['keys'] } | { skip: string };

const HOUR_MS = 3_600_000;

export class OutboxWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private lastPrune = 0;
  private readonly wake = () => this.kick();

  constructor(
    private readonly em: EntityManager,
    private readonly channels: Channels,
    private readonly config: NotificationsConfig,
    private readonly logger: Logger,
    private readonly currency: string,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    outboxSignal.on('due', this.wake);
    this.schedule(0);
  }

  /** Stops claiming and waits for the batch in flight to be sent and recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    outboxSignal.off('due', this.wake);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Runs a pass now (or right after the one in flight). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.drain()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn({ err: error }, 'notification outbox pass failed'))
        .finally(() => {
          this.running = null;
          const soon = this.again;
          this.again = false;
          this.schedule(soon ? 0 : this.config.pollMs);
        });
    }, ms);
    this.timer.unref();
  }

  /** Claims and sends batches until none is due (or the worker stops); prunes now and then. */
  async drain(): Promise<number> {
    let sent = 0;
    for (;;) {
      const batch = await this.claim();
      if (batch.length === 0) break;
      await Promise.all(batch.map((row) => this.deliver(row).then(() => sent++)));
      if (this.stopped) break;
    }
    if (Date.now() - this.lastPrune > HOUR_MS) {
      this.lastPrune = Date.now();
      await prune(this.em, this.config.retentionDays);
    }
    return sent;
  }

  private claim(): Promise<Claimed[]> {
    return this.em.fork().execute<Claimed[]>(
      `update notification_outbox n set due_at = now() + make_interval(secs => ?), attempts = n.attempts + 1
       where n.id in (
         select id from notification_outbox where status = 'pending' and due_at <= now()
         order by due_at limit ? for update skip locked
       )
       returning n.id, n.order_id, n.kind, n.user_id, n.channel, n.target, n.attempts`,
      [this.config.leaseSeconds, this.config.batchSize],
    );
  }

  private async deliver(row: Claimed): Promise<void> {
    const em = this.em.fork();
    try {
      const facts = await orderFacts(em, row.order_id, this.currency);
      if (!facts) return await finish(em, row, 'skipped', 'the order no longer exists');
      if (row.kind === 'accept_reminder' && facts.status !== 'pending_acceptance') {
        return await finish(em, row, 'skipped', `the order was answered (${facts.status})`);
      }
      const channel = this.channels[row.channel];
      if (!channel) return await finish(em, row, 'skipped', `the ${row.channel} channel is not configured`);
      const address = await addressOf(em, row);
      if ('skip' in address) return await finish(em, row, 'skipped', address.skip);
      const text = render(row.kind, address.locale, facts);
      const message: OutgoingMessage = {
        to: address.to,
        ...text,
        data: { type: row.kind, order_id: String(row.order_id), status: facts.status },
        parameters: [String(row.order_id), facts.storeName, facts.items, facts.total],
        locale: address.locale,
        keys: address.keys,
      };
      const outcome = await channel.send(message);
      await this.record(em, row, outcome, address.to);
    } catch (error) {
      this.logger.warn({ err: error, notification: row.id }, 'sending a notification failed');
      await this.record(em, row, { ok: false, retry: true, error: (error as Error).message }).catch(() => undefined);
    }
  }

  private async record(em: EntityManager, row: Claimed, outcome: Outcome, to?: string): Promise<void> {
    if (outcome.ok) return finish(em, row, 'sent', null);
    if (outcome.invalidTarget && to !== undefined) await this.forget(em, row, to);
    if (!outcome.retry || row.attempts >= this.config.maxAttempts) {
      return finish(em, row, 'failed', outcome.error);
    }
    const delay = Math.max(outcome.retryAfterMs ?? 0, backoff(row.attempts, this.config.backoffMs));
    await em.execute(`update notification_outbox set due_at = now() + make_interval(secs => ?), last_error = ? where id = ?`, [
      delay / 1000,
      outcome.error.slice(0, 500),
      row.id,
    ]);
  }

  /** The address is dead: forget it (unless it changed meanwhile: a device signed in again with a new token). */
  private async forget(em: EntityManager, row: Claimed, to: string): Promise<void> {
    const id = targetId(row);
    if (row.channel === 'push') {
      await em.execute(`update user_devices set push_token = null where id = ? and push_token = ?`, [id, to]);
      this.logger.info({ device: id }, 'removed a push token the provider no longer accepts');
    } else if (row.channel === 'web_push') {
      await em.execute(`delete from web_push_subscriptions where id = ? and endpoint = ?`, [id, to]);
      this.logger.info({ subscription: id }, 'removed a Web Push subscription its push service no longer has');
    }
  }
}

/** The id in a row's target: `device:12` -> 12, `webpush:7` -> 7. */
const targetId = (row: Claimed) => Number(row.target.slice(row.target.indexOf(':') + 1));

/** Full jitter over an exponential ceiling: attempt 1 waits up to `base`, 2 up to 2×base, ..., at most an hour. */
export function backoff(attempt: number, baseMs: number): number {
  const ceiling = Math.min(HOUR_MS, baseMs * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function finish(em: EntityManager, row: Claimed, status: 'sent' | 'failed' | 'skipped', reason: string | null): Promise<void> {
  return em
    .execute(
      `update notification_outbox set status = ?, last_error = coalesce(?, last_error), sent_at = case when ? = 'sent' then now() end where id = ?`,
      [status, reason?.slice(0, 500) ?? null, status, row.id],
    )
    .then(() => undefined);
}

async function addressOf(em: EntityManager, row: Claimed): Promise<Address> {
  if (row.channel === 'push') {
    const [device] = await em.execute<{ push_token: string | null; locale: string | null }[]>(
      `select push_token, locale from user_devices where id = ? and user_id = ?`,
      [targetId(row), row.user_id],
    );
    if (!device?.push_token) return { skip: 'the device has no push token any more' };
    return { to: device.push_token, locale: device.locale ?? 'en' };
  }
  if (row.channel === 'web_push') {
    const [browser] = await em.execute<{ endpoint: string; p256dh: string; auth: string; locale: string | null }[]>(
      `select w.endpoint, w.p256dh, w.auth,
         (select locale from user_devices d where d.user_id = w.user_id order by last_seen_at desc limit 1) as locale
       from web_push_subscriptions w where w.id = ? and w.user_id = ?`,
      [targetId(row), row.user_id],
    );
    if (!browser) return { skip: 'the browser is no longer subscribed' };
    return { to: browser.endpoint, locale: browser.locale ?? 'en', keys: { p256dh: browser.p256dh, auth: browser.auth } };
  }
  const [user] = await em.execute<{ phone_number: string; locale: string | null }[]>(
    `select u.phone_number, (select locale from user_devices d where d.user_id = u.id order by last_seen_at desc limit 1) as locale
     from users u where u.id = ?`,
    [row.user_id],
  );
  if (!user) return { skip: 'the user no longer exists' };
  return { to: user.phone_number, locale: user.locale ?? 'en' };
}

async function orderFacts(em: EntityManager, orderId: number, currency: string): Promise<OrderFacts | null> {
  const [order] = await em.execute<
    {
      id: number;
      status: string;
      total_cents: number;
      rejection_reason: string | null;
      store_name: string;
      driver_name: string | null;
      items: string | null;
    }[]
  >(
    `select o.id, o.status, o.total_cents, o.rejection_reason, s.name as store_name, du.first_name as driver_name,
       (select string_agg(i.quantity || '× ' || i.product_name, ', ' order by i.id) from order_items i where i.order_id = o.id) as items
     from orders o join stores s on s.id = o.store_id
       left join drivers d on d.id = o.driver_id left join users du on du.id = d.user_id
     where o.id = ?`,
    [orderId],
  );
  if (!order) return null;
  return {
    orderId: order.id,
    status: order.status,
    storeName: order.store_name,
    total: `${(order.total_cents / 100).toFixed(2)} ${currency.toUpperCase()}`,
    items: order.items ?? '',
    driverName: order.driver_name,
    rejectionReason: order.rejection_reason,
  };
}

/** Deletes finished rows older than `days` (pending rows are never pruned). */
export async function prune(em: EntityManager, days: number): Promise<number> {
  const rows = await em.fork().execute<{ n: number }[]>(
    `with gone as (delete from notification_outbox where status <> 'pending' and created_at < now() - make_interval(days => ?) returning 1)
       select count(*)::int as n from gone`,
    [days],
  );
  return rows[0].n;
}
