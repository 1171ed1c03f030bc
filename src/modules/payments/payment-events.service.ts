/**
 * Provider events (webhooks), the source of truth for card outcomes. Each event is applied once:
 * its id is recorded in the transaction that applies it, so a replay changes nothing; what it
 * says goes through the ledger's rules, so late or out-of-order events leave the right state.
 */
import { EntityManager } from '@mikro-orm/postgresql';
import { ProviderEvent, ProviderPayment } from '../../common/payment-provider';
import { publishEvents } from '../orders/order-events';
import { applyReport, Outcome } from './payment-ledger';
import { settlePayments, SettleDeps } from './payment-lifecycle';

export type EventOutcome = Outcome | 'duplicate';

export async function applyProviderEvent(
  em: EntityManager,
  deps: SettleDeps,
  provider: string,
  event: ProviderEvent,
): Promise<EventOutcome> {
  const result = await em.transactional(async (tx) => {
    const claimed = await tx.execute(
      `insert into payment_webhook_events (provider, event_id, type, outcome) values (?, ?, ?, 'ignored') on conflict do nothing returning event_id`,
      [provider, event.id, event.type.slice(0, 100)],
    );
    if (claimed.length === 0) return { outcome: 'duplicate' as const, events: [], paymentId: null };
    const paymentId = event.payment ? await findPayment(tx, provider, event.payment) : null;
    if (!paymentId) return { outcome: 'ignored' as const, events: [], paymentId };
    const { outcome, events } = await applyReport(tx, paymentId, event.payment!, deps.logger);
    await tx.execute(`update payment_webhook_events set outcome = ?, payment_id = ? where provider = ? and event_id = ?`, [
      outcome,
      paymentId,
      provider,
      event.id,
    ]);
    return { outcome, events, paymentId };
  });
  publishEvents(deps.pubSub, result.events);
  deps.logger.info(
    { provider, eventId: event.id, type: event.type, paymentId: result.paymentId, outcome: result.outcome },
    'payment event',
  );
  // The event may have made a call due (an authorisation nobody wants any more is released).
  if (result.paymentId && result.outcome === 'applied') await settlePayments(em, deps, [result.paymentId]);
  return result.outcome;
}

/** By the provider's id; or, when the answer carrying it was lost, by our id in its metadata. */
async function findPayment(tx: EntityManager, provider: string, reported: ProviderPayment): Promise<number | null> {
  if (reported.ref) {
    const [byRef] = await tx.execute<{ id: number }[]>(`select id from payments where provider = ? and provider_ref = ?`, [
      provider,
      reported.ref,
    ]);
    if (byRef) return byRef.id;
  }
  if (!reported.paymentId) return null;
  const [byId] = await tx.execute<{ id: number }[]>(`select id from payments where id = ? and provider = ? and provider_ref is null`, [
    reported.paymentId,
    provider,
  ]);
  return byId?.id ?? null;
}
