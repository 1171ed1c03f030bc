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
    // An event whose metadata names another order than the payment's is recorded, never attached.
    const foreign = await namesAnother(tx, paymentId, event.payment!);
    const { outcome, events } = foreign
      ? { outcome: 'refused' as const, events: [] }
      : await applyReport(tx, paymentId, event.payment!, deps.logger);
    await tx.execute(`update payment_webhook_events set outcome = ?, payment_id = ? where provider = ? and event_id = ?`, [
      outcome,
      foreign ? null : paymentId,
      provider,
      event.id,
    ]);
    return { outcome, events, paymentId };
  });
  publishEvents(deps.pubSub, result.events);
  if (result.outcome === 'refused' && event.payment) {
    deps.logger.error(
      { provider, eventId: event.id, type: event.type, paymentId: result.paymentId, reported: event.payment },
      'payment event refused: it does not match our payment (order, payment, amount or currency)',
    );
  }
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

/** The event's metadata names another order (or payment) than the one its provider id points to. */
async function namesAnother(tx: EntityManager, paymentId: number, reported: ProviderPayment): Promise<boolean> {
  if (!reported.orderId && !reported.paymentId) return false;
  const [row] = await tx.execute<{ order_id: number }[]>(`select order_id from payments where id = ?`, [paymentId]);
  return (!!reported.orderId && reported.orderId !== row.order_id) || (!!reported.paymentId && reported.paymentId !== paymentId);
}
