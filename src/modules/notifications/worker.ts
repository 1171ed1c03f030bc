/**
 * The outbox worker, one per instance: claims due rows (FOR UPDATE SKIP LOCKED, so instances
 * never take the same row), sends each outside any transaction, and records what became of it.
 * A batch costs two statements whatever its size: the claim, which also reads what the sends
 * need (the order's facts, the recipient's address and language), and one update recording
 * every outcome (docs/perf/2026-11-26-notifications-3.md); so a pass woken by a commit waits until
 * `passGapMs` after the previous one began, and at busy times takes every row committed meanwhile
 * (docs/perf/2026-11-27-notifications-8.md). A claim sets the row's lease (`leased_until`, in no
 * index, so the claim is a HOT update: docs/perf/2026-11-27-notifications-9.md): if the instance
 * dies mid-send, another takes the row when the lease ends (at least once; a crash after FCM
 * accepted a message and before it was recorded may repeat it — the only window left).
 */
import { EntityManager } from '@mikro-orm/postgresql';
import type { NotificationsConfig } from '../../config';
import { executePrepared } from '../../common/entity-manager';
import type { Logger } from '../../common/logger';
import type { Channels, OutgoingMessage, Outcome } from './channel';
import { render, OrderFacts } from './messages';
import type { NotificationChannel } from './notification.entity';
import { NotificationKind, outboxSignal, ReminderMark, remindUnanswered } from './outbox';

/** A claimed row, with what its send needs (null where the order or the address is gone). */
interface Claimed {
  id: string;
  order_id: number;
  kind: NotificationKind;
  user_id: number;
  channel: NotificationChannel;
  target: string;
  attempts: number;
  /** The order's facts (status null: the order no longer exists). */
  status: string | null;
  /** The order's status at the event that caused the row (its current one for a payment event's): the payload's. */
  event_status: string | null;
  total_cents: number;
  rejection_reason: string | null;
  store_name: string;
  driver_name: string | null;
  items: string | null;
  /** The push token, Web Push endpoint or phone number (null: gone), its keys (Web Push) and language. */
  address: string | null;
  p256dh: string | null;
  auth: string | null;
  locale: string | null;
}

/** What became of a row, as the batch's one recording statement takes it. */
interface Result {
  id: string;
  attempts: number;
  status: 'sent' | 'failed' | 'skipped' | 'pending';
  error: string | null;
  /** Seconds until a retry (status pending). */
  delay: number;
  /**
   * False for a row given back unbegun (not enough lease left, or held back behind an earlier
   * row of its group): the claim's attempt is taken back, as attempts count sends begun.
   */
  begun: boolean;
}

/**
 * The worker's statements go on the ORM's pool, as its other writes do, never on the read pool:
 * that pool's connections (half the ORM's number) serve the requests' hot reads and the live
 * streams' set-ups and catch-up reads, which a worker retrying failing sends back to back starved
 * ("The service is busy" under the peak with WhatsApp unreachable: docs/perf/2026-11-27-notifications-5.md).
 */
const ON_ORM_POOL = { readPool: false } as const;

const HOUR_MS = 3_600_000;
/** How often a worker looks for unanswered orders to remind their owner of: a reminder is at most this late. */
const REMINDERS_EVERY_MS = 5_000;

export class OutboxWorker {
  private timer: NodeJS.Timeout | null = null;
  /** When `timer` fires (Date.now() time). */
  private timerDue = 0;
  /** When the last pass began (`kick`'s gap is counted from it). */
  private lastPassAt = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  private lastPrune = 0;
  private lastReminders = 0;
  private readonly wake = () => this.kick();
  /** Claims run and the rows they took (the notifications bench prints rows per claim); orders the reminder passes looked at. */
  readonly stats = { claims: 0, rows: 0, remindersExamined: 0 };
  /** Where the reminder passes have got to (outbox.ts `remindUnanswered`). */
  private reminderMark: ReminderMark | null = null;

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

  /**
   * Runs a pass soon: at once, or, when the previous pass began less than `passGapMs` ago, once
   * that long has passed since it began (right after it, if it is still running). The commits
   * meanwhile wait for that pass rather than each causing one of its own.
   */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(this.untilNextPass());
  }

  private untilNextPass(): number {
    return Math.max(0, this.lastPassAt + this.config.passGapMs - Date.now());
  }

  /** Runs a pass in `ms` (unless one is already due sooner). */
  private schedule(ms: number): void {
    if (this.stopped) return;
    const due = Date.now() + ms;
    if (this.timer) {
      if (this.timerDue <= due) return;
      clearTimeout(this.timer);
    }
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.lastPassAt = Date.now();
      this.running = this.drain()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn({ err: error }, 'notification outbox pass failed'))
        .finally(() => {
          this.running = null;
          const soon = this.again;
          this.again = false;
          this.schedule(soon ? this.untilNextPass() : this.config.pollMs);
        });
    }, ms);
    this.timer.unref();
  }

  /** Claims and sends batches until none is due (or the worker stops); prunes now and then. */
  async drain(): Promise<number> {
    let sent = 0;
    for (;;) {
      const claimedAt = Date.now();
      const batch = await this.claim();
      this.stats.claims++;
      this.stats.rows += batch.length;
      if (batch.length > 0) {
        const results = await this.deliverInOrder(batch, claimedAt);
        await this.record(results);
        sent += batch.length;
      }
      // A short batch took every due row: what commits meanwhile here wakes the worker again
      // (outboxSignal), what other instances commit is found by the next poll.
      if (batch.length < this.config.batchSize || this.stopped) break;
    }
    if (Date.now() - this.lastReminders >= REMINDERS_EVERY_MS) {
      this.lastReminders = Date.now();
      if ((await this.remind()) > 0) this.again = true; // sent by the next pass, now
    }
    if (Date.now() - this.lastPrune > HOUR_MS) {
      this.lastPrune = Date.now();
      await prune(this.em, this.config.retentionDays);
    }
    return sent;
  }

  /**
   * Writes the reminders now due (outbox.ts `remindUnanswered`: from where the last call got
   * to); the next pass sends them. Answers the rows written.
   */
  async remind(): Promise<number> {
    const { examined, written, mark } = await remindUnanswered(this.em.fork(), this.reminderMark);
    this.reminderMark = mark;
    this.stats.remindersExamined += examined;
    return written;
  }

  /**
   * Claims a batch of due rows and reads, in the same statement, what their sends need. Sent
   * prepared (as the record below): PostgreSQL plans this text once per connection, not per pass;
   * on the ORM's pool (`ON_ORM_POOL`).
   */
  private claim(): Promise<Claimed[]> {
    return executePrepared<Claimed>(
      this.em.fork(),
      `with claimed as (
         update notification_outbox n set leased_until = now() + make_interval(secs => ?), attempts = n.attempts + 1
         where n.id in (
           select id from notification_outbox
           where status = 'pending' and due_at <= now() and (leased_until is null or leased_until <= now())
           order by due_at limit ? for update skip locked
         )
         returning n.id, n.order_id, n.event_id, n.kind, n.user_id, n.channel, n.target, n.attempts
       )
       select c.id, c.order_id, c.kind, c.user_id, c.channel, c.target, c.attempts,
         o.status, coalesce(ev.status, o.status) as event_status, o.total_cents, o.rejection_reason, s.name as store_name, du.first_name as driver_name,
         (select string_agg(i.quantity || '× ' || i.product_name, ', ' order by i.id) from order_items i where i.order_id = o.id) as items,
         case c.channel when 'push' then dev.push_token when 'web_push' then w.endpoint else u.phone_number end as address,
         w.p256dh, w.auth,
         case when c.channel = 'push' then dev.locale
           else (select d.locale from user_devices d where d.user_id = c.user_id order by d.last_seen_at desc limit 1) end as locale
       from claimed c
         left join orders o on o.id = c.order_id
         left join order_events ev on ev.id = c.event_id
         left join stores s on s.id = o.store_id
         left join drivers dr on dr.id = o.driver_id
         left join users du on du.id = dr.user_id
         left join user_devices dev on dev.id = (case when c.channel = 'push' then split_part(c.target, ':', 2)::int end)
           and dev.user_id = c.user_id
         left join web_push_subscriptions w on w.id = (case when c.channel = 'web_push' then split_part(c.target, ':', 2)::int end)
           and w.user_id = c.user_id
         left join users u on u.id = (case when c.channel = 'whatsapp' then c.user_id end)`,
      [this.config.leaseSeconds, this.config.batchSize],
      ON_ORM_POOL,
    );
  }

  /**
   * Sends a batch: the rows of one order to one address (a device, a browser, a phone) one after
   * another in event order (the outbox id's: an order's events are written one transaction after
   * the other), so that a device never hears "accepted" after "on the way" of the same batch; the
   * groups side by side. Across batches and retries the push's `seq` lets the app drop a stale one.
   * A send that could outlast three quarters of the claim's lease (its channel's deadline) is not
   * begun: the row is given back, due at once, rather than risk another instance claiming and
   * sending it meanwhile.
   */
  private async deliverInOrder(batch: Claimed[], claimedAt: number): Promise<Result[]> {
    const leaseMs = this.config.leaseSeconds * 1000;
    const groups = new Map<string, Claimed[]>();
    for (const row of batch) {
      const key = `${row.order_id}|${row.user_id}|${row.channel}|${row.target}`;
      const group = groups.get(key);
      if (group) group.push(row);
      else groups.set(key, [row]);
    }
    const sent = await Promise.all(
      [...groups.values()].map(async (rows) => {
        rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
        const results: Result[] = [];
        // A row to retry later holds back the rest of its group with the same delay (a 429's
        // Retry-After included): a device never hears a later step before an earlier one is sent.
        let held: Result | undefined;
        for (const row of rows) {
          const deadlineMs = this.channels[row.channel]?.deadlineMs ?? 0;
          if (held) {
            results.push(givenBack(row, 'waits for an earlier notification', held.delay));
          } else if (Date.now() - claimedAt + deadlineMs >= leaseMs * 0.75) {
            // A quarter of the lease is left for recording the outcome.
            results.push(givenBack(row, null, 0));
          } else {
            const result = await this.deliver(row);
            if (result.status === 'pending') held = result;
            results.push(result);
          }
        }
        return results;
      }),
    );
    return sent.flat();
  }

  /** Sends one claimed row (no statement of its own) and answers what became of it. */
  private async deliver(row: Claimed): Promise<Result> {
    const done = (status: Result['status'], error: string | null): Result => ({
      id: row.id,
      attempts: row.attempts,
      status,
      error,
      delay: 0,
      begun: true,
    });
    try {
      if (row.status === null) return done('skipped', 'the order no longer exists');
      if (row.kind === 'accept_reminder' && row.status !== 'pending_acceptance') {
        return done('skipped', `the order was answered (${row.status})`);
      }
      const channel = this.channels[row.channel];
      if (!channel) return done('skipped', `the ${row.channel} channel is not configured`);
      if (!row.address) return done('skipped', GONE[row.channel]);
      const locale = row.locale ?? 'en';
      const facts: OrderFacts = {
        orderId: row.order_id,
        status: row.status,
        storeName: row.store_name,
        total: `${(row.total_cents / 100).toFixed(2)} ${this.currency.toUpperCase()}`,
        items: row.items ?? '',
        driverName: row.driver_name,
        rejectionReason: row.rejection_reason,
      };
      const message: OutgoingMessage = {
        to: row.address,
        ...render(row.kind, locale, facts),
        data: { type: row.kind, order_id: String(row.order_id), status: row.event_status ?? row.status, seq: String(row.id) },
        parameters: [String(row.order_id), facts.storeName, facts.items, facts.total],
        locale,
        keys: row.channel === 'web_push' && row.p256dh && row.auth ? { p256dh: row.p256dh, auth: row.auth } : undefined,
      };
      const outcome = await channel.send(message);
      if (!outcome.ok && outcome.invalidTarget) await this.forget(row, row.address);
      return this.result(row, outcome);
    } catch (error) {
      this.logger.warn({ err: error, notification: row.id }, 'sending a notification failed');
      return this.result(row, { ok: false, retry: true, error: (error as Error).message });
    }
  }

  private result(row: Claimed, outcome: Outcome): Result {
    const base = { id: row.id, attempts: row.attempts, delay: 0, begun: true };
    if (outcome.ok) return { ...base, status: 'sent', error: null };
    const error = outcome.error.slice(0, 500);
    if (!outcome.retry || row.attempts >= this.config.maxAttempts) return { ...base, status: 'failed', error };
    const delay = Math.max(outcome.retryAfterMs ?? 0, backoff(row.attempts, this.config.backoffMs));
    return { ...base, status: 'pending', error, delay: delay / 1000 };
  }

  /**
   * Records a batch's outcomes in one statement: sent, failed or skipped with the reason, or due
   * again after its backoff. A row claimed again meanwhile (its lease ran out: `attempts` moved
   * on) is the other claim's to record. A row given back unbegun has its claim's attempt taken
   * back; should an older claim whose lease ran out then find `attempts` at its own number, its
   * send is the only one begun since, so its outcome is the row's to record.
   */
  private async record(results: Result[]): Promise<void> {
    await executePrepared(
      this.em.fork(),
      `update notification_outbox n set
         status = r.status,
         leased_until = null,
         attempts = case when r.begun then n.attempts else n.attempts - 1 end,
         last_error = coalesce(r.error, n.last_error),
         sent_at = case when r.status = 'sent' then now() end,
         due_at = case when r.status = 'pending' then now() + make_interval(secs => r.delay) else n.due_at end
       from json_to_recordset(?::json) as r(id bigint, attempts int, status text, error text, delay float8, begun boolean)
       where n.id = r.id and n.attempts = r.attempts and n.status = 'pending'`,
      [JSON.stringify(results)],
      ON_ORM_POOL,
    );
  }

  /** The address is dead: forget it (unless it changed meanwhile: a device signed in again with a new token). */
  private async forget(row: Claimed, to: string): Promise<void> {
    const id = targetId(row);
    if (row.channel === 'push') {
      await this.em.fork().execute(`update user_devices set push_token = null where id = ? and push_token = ?`, [id, to]);
      this.logger.info({ device: id }, 'removed a push token the provider no longer accepts');
    } else if (row.channel === 'web_push') {
      await this.em.fork().execute(`delete from web_push_subscriptions where id = ? and endpoint = ?`, [id, to]);
      this.logger.info({ subscription: id }, 'removed a Web Push subscription its push service no longer has');
    }
  }
}

/** A claimed row given back without its send begun: due again after `delay` seconds, its attempt not counted. */
const givenBack = (row: Claimed, error: string | null, delay: number): Result => ({
  id: row.id,
  attempts: row.attempts,
  status: 'pending',
  error,
  delay,
  begun: false,
});

/** Why a row's recipient can no longer be reached on its channel. */
const GONE: Record<NotificationChannel, string> = {
  push: 'the device has no push token any more',
  web_push: 'the browser is no longer subscribed',
  whatsapp: 'the user no longer exists',
};

/** The id in a row's target: `device:12` -> 12, `webpush:7` -> 7. */
const targetId = (row: Claimed) => Number(row.target.slice(row.target.indexOf(':') + 1));

/** Jitter over an exponential ceiling: attempt 1 waits between base/2 and base, 2 between base and 2×base, ..., at most an hour. */
export function backoff(attempt: number, baseMs: number): number {
  const ceiling = Math.min(HOUR_MS, baseMs * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
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
