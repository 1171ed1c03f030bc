/**
 * The reconciliation job: no payment stays waiting forever because a webhook or a call was
 * lost. Every run (a) retries the captures and releases that were asked and not confirmed, and
 * (b) asks the provider about payments left waiting longer than `afterSeconds`, applying its
 * answer through the same rules as webhooks. Safe on every instance at once: each change is a
 * locked, conditional step, and provider calls carry per-payment idempotency keys.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { publishEvents } from '../orders/order-events';
import { applyReport } from './payment-ledger';
import { authorizeKey, settlePayments, SettleDeps } from './payment-lifecycle';
import { LIVE_STATUSES, RELEASABLE_STATUSES } from './payment-status';

/** At most this many payments per run and kind; the next run takes the rest. */
const BATCH = 100;

export interface ReconcileReport {
  settled: number;
  checked: number;
}

export async function reconcilePayments(em: EntityManager, deps: SettleDeps, afterSeconds: number): Promise<ReconcileReport> {
  const due = await em.execute<{ id: number }[]>(
    `select id from payments
     where provider <> ?
       and ((capture_requested_at is not null and status = ?)
         or (release_requested_at is not null and status in (?)))
     order by updated_at limit ?`,
    ['cash', 'authorized', RELEASABLE_STATUSES, BATCH],
  );
  await settlePayments(
    em,
    deps,
    due.map((r) => r.id),
  );

  const stale = await em.execute<
    { id: number; provider: string; provider_ref: string | null; order_id: number; amount_cents: number; currency: string }[]
  >(
    `select id, provider, provider_ref, order_id, amount_cents, currency from payments
     where provider <> ? and status in (?)
       and updated_at < now() - make_interval(secs => ?)
     order by updated_at limit ?`,
    ['cash', LIVE_STATUSES, afterSeconds, BATCH],
  );
  let checked = 0;
  for (const p of stale) {
    const provider = deps.payments.get(p.provider);
    if (!provider) continue;
    try {
      // Without a ref the first answer was lost: the same idempotency key finds (or makes) its one intent.
      const reported = p.provider_ref
        ? await provider.retrieve(p.provider_ref)
        : await provider.authorize({
            paymentId: p.id,
            orderId: p.order_id,
            amountCents: p.amount_cents,
            currency: p.currency,
            idempotencyKey: authorizeKey(p.id),
          });
      const { events, outcome } = await em.transactional((tx) => applyReport(tx, p.id, reported, deps.logger));
      publishEvents(deps.pubSub, events);
      // Looked at now: the next run asks again only after another `afterSeconds`.
      await em.execute(`update payments set updated_at = now() where id = ?`, [p.id]);
      if (outcome === 'applied') await settlePayments(em, deps, [p.id]);
      checked++;
    } catch (error) {
      deps.logger.warn({ err: error, paymentId: p.id }, 'reconciling a payment failed');
    }
  }
  return { settled: due.length, checked };
}
