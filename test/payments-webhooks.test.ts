/**
 * Stripe webhooks, the source of truth for card outcomes: signed events applied once, in any
 * order; bad signatures and wrong amounts change nothing; reconciliation covers lost webhooks;
 * payment events reach the live order stream in the order's sequence.
 */
import { placeOrder } from './helpers/orders';
import { FakeStripe } from './helpers/fake-stripe';
import { intentOf, postWebhook, startPayment, usePaymentWorld } from './helpers/payments';
import { subscribe, until, wsClient } from './helpers/ws';
import { reconcilePayments } from '../src/modules/payments/payment-reconcile.service';
import { createLogger } from '../src/common/logger';

const t = usePaymentWorld();

const sql = (query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute(query, params);
const detail = async (id: number) => (await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token })).body.data;
/** The payment's history (payment.events of the detail): the timeline holds only order statuses. */
const statuses = async (id: number) => (await detail(id)).payment.events.map((entry: { status: string }) => entry.status);
const reconcile = () => reconcilePayments(t.server.db.orm.em.fork(), { ...t.server.app.services, logger: createLogger('silent') }, 900);

/** A placed card order with its intent created (not yet confirmed). */
async function cardOrder() {
  const placed = await placeOrder(t.server, t.w);
  const id = placed.body.data.order_id as number;
  const started = await startPayment(t.server, t.w, id, 'card');
  return { id, intent: intentOf(started.body), paymentId: started.body.data.payment_id as number };
}

describe('POST /api/v1/payments/webhooks/stripe', () => {
  it('applies a validly signed authorisation once; a replay is a duplicate that changes nothing', async () => {
    const { id, intent } = await cardOrder();
    const event = t.fake.event('payment_intent.amount_capturable_updated', t.fake.confirm(intent, 'authorized'));
    const first = await postWebhook(t.server, event);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, outcome: 'applied' });
    const replay = await postWebhook(t.server, event);
    expect(replay.body).toEqual({ received: true, outcome: 'duplicate' });
    expect((await detail(id)).payment.status).toBe('authorized');
    expect(await statuses(id)).toEqual(['authorized']);
    expect(await sql(`select provider, event_id, type, outcome, payment_id from payment_webhook_events`)).toEqual([
      { provider: 'stripe', event_id: event.id, type: 'payment_intent.amount_capturable_updated', outcome: 'applied', payment_id: 1 },
    ]);
  });

  it('answers 400 to a bad signature, a wrong secret, a stale timestamp or no signature, and changes nothing', async () => {
    const { id, intent } = await cardOrder();
    const event = t.fake.event('payment_intent.amount_capturable_updated', t.fake.confirm(intent, 'authorized'));
    const tampered = await postWebhook(t.server, event, { signature: FakeStripe.sign(JSON.stringify({ ...event, id: 'evt_other' })) });
    const wrongSecret = await postWebhook(t.server, event, { secret: 'whsec_not_ours' });
    const stale = await postWebhook(t.server, event, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    const none = await t.server.http.request('POST', '/api/v1/payments/webhooks/stripe', undefined, { raw: JSON.stringify(event) });
    for (const res of [tampered, wrongSecret, stale, none]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'The webhook signature is not valid.' });
    }
    expect((await detail(id)).payment.status).toBe('pending');
    expect(await sql(`select count(*)::int as n from payment_webhook_events`)).toEqual([{ n: 0 }]);
    // The same event properly signed still applies: nothing was burnt by the refusals.
    expect((await postWebhook(t.server, event)).body.outcome).toBe('applied');
  });

  it('answers 400 to a signature dated in the future, beyond the tolerance, and changes nothing', async () => {
    const { id, intent } = await cardOrder();
    const event = t.fake.event('payment_intent.amount_capturable_updated', t.fake.confirm(intent, 'authorized'));
    const now = Math.floor(Date.now() / 1000);
    for (const ahead of [86_400, 400]) {
      const res = await postWebhook(t.server, event, { timestamp: now + ahead });
      expect([ahead, res.status, res.body]).toEqual([ahead, 400, { message: 'The webhook signature is not valid.' }]);
    }
    expect(await sql(`select count(*)::int as n from payment_webhook_events`)).toEqual([{ n: 0 }]);
    // A clock a little ahead of ours is within the tolerance.
    expect((await postWebhook(t.server, event, { timestamp: now + 60 })).body.outcome).toBe('applied');
    expect((await detail(id)).payment.status).toBe('authorized');
  });

  it('answers 400 (not 500) to a signed body that is not an event, and records nothing', async () => {
    const { intent } = await cardOrder();
    const object = t.fake.confirm(intent, 'authorized');
    const bodies: unknown[] = [
      'a JSON string',
      42,
      null,
      { id: 'evt_no_data', type: 'payment_intent.succeeded' },
      { id: 'evt_no_object', type: 'payment_intent.succeeded', data: {} },
      { id: 'evt_string_object', type: 'payment_intent.succeeded', data: { object: 'pi_1' } },
      { id: 'evt_numeric_type', type: 42, data: { object } },
      { id: 7, type: 'payment_intent.succeeded', data: { object } },
    ];
    for (const body of bodies) {
      const res = await postWebhook(t.server, body as Record<string, unknown>);
      expect([body, res.status, res.body]).toEqual([body, 400, { message: 'The webhook event is malformed.' }]);
    }
    expect(await sql(`select count(*)::int as n from payment_webhook_events`)).toEqual([{ n: 0 }]);
  });

  it('does not attach a signed event whose metadata names another order than the payment’s', async () => {
    const mine = await cardOrder();
    const other = await cardOrder();
    const authorised = t.fake.confirm(mine.intent, 'authorized');
    const event = t.fake.event('payment_intent.amount_capturable_updated', {
      ...authorised,
      metadata: { ...authorised.metadata, order_id: String(other.id) },
    });
    expect((await postWebhook(t.server, event)).body).toEqual({ received: true, outcome: 'refused' });
    const wrongPayment = t.fake.event('payment_intent.amount_capturable_updated', {
      ...authorised,
      metadata: { ...authorised.metadata, payment_id: String(other.paymentId) },
    });
    expect((await postWebhook(t.server, wrongPayment)).body).toEqual({ received: true, outcome: 'refused' });
    expect((await detail(mine.id)).payment.status).toBe('pending');
    expect((await detail(other.id)).payment.status).toBe('pending');
    expect(await sql(`select outcome, payment_id from payment_webhook_events order by event_id`)).toEqual([
      { outcome: 'refused', payment_id: null },
      { outcome: 'refused', payment_id: null },
    ]);
    // The genuine event still applies.
    expect((await postWebhook(t.server, t.fake.event('payment_intent.amount_capturable_updated', authorised))).body.outcome).toBe(
      'applied',
    );
  });

  it('answers 404 for a provider that takes no webhooks', async () => {
    expect((await t.server.http.request('POST', '/api/v1/payments/webhooks/cash', undefined, { raw: '{}' })).status).toBe(404);
    expect((await t.server.http.request('POST', '/api/v1/payments/webhooks/paypal', undefined, { raw: '{}' })).status).toBe(404);
  });

  it('refuses (and records) an event whose amount or currency is not the order’s', async () => {
    const { id, intent } = await cardOrder();
    const authorised = t.fake.confirm(intent, 'authorized');
    const amount = await postWebhook(t.server, t.fake.event('payment_intent.amount_capturable_updated', { ...authorised, amount: 100 }));
    const currency = await postWebhook(
      t.server,
      t.fake.event('payment_intent.amount_capturable_updated', { ...authorised, currency: 'eur' }),
    );
    expect(amount.body).toEqual({ received: true, outcome: 'refused' });
    expect(currency.body).toEqual({ received: true, outcome: 'refused' });
    expect((await detail(id)).payment.status).toBe('pending');
    expect(await statuses(id)).toEqual([]);
  });

  it('leaves the furthest state whatever the order of arrival', async () => {
    const { id, intent } = await cardOrder();
    const declined = t.fake.event('payment_intent.payment_failed', t.fake.confirm(intent, 'declined'));
    const action = t.fake.event('payment_intent.requires_action', t.fake.confirm(intent, 'requires_action'));
    const authorised = t.fake.event('payment_intent.amount_capturable_updated', t.fake.confirm(intent, 'authorized'));
    // Stripe sent declined, then 3-D Secure, then authorised; they arrive backwards.
    for (const event of [authorised, action, declined]) expect((await postWebhook(t.server, event)).status).toBe(200);
    expect((await detail(id)).payment.status).toBe('authorized');
    expect(await statuses(id)).toEqual(['authorized']);
  });

  it('ignores events of payments that are not ours', async () => {
    const res = await postWebhook(
      t.server,
      t.fake.event('payment_intent.amount_capturable_updated', {
        id: 'pi_unknown',
        object: 'payment_intent',
        amount: 100,
        currency: 'mad',
        status: 'requires_capture',
        metadata: {},
      }),
    );
    expect(res.body).toEqual({ received: true, outcome: 'ignored' });
    expect((await postWebhook(t.server, t.fake.event('customer.created', { id: 'cus_1', object: 'customer' }))).body.outcome).toBe(
      'ignored',
    );
  });

  it('a webhook racing the reject ends consistent: rejected, and the hold released', async () => {
    for (let round = 0; round < 4; round++) {
      const { id, intent } = await cardOrder();
      const event = t.fake.event('payment_intent.amount_capturable_updated', t.fake.confirm(intent, 'authorized'));
      const [, reject] = await Promise.all([
        postWebhook(t.server, event),
        t.server.http.post(`/api/v1/store/orders/${id}/reject`, { rejection_reason: 'too_busy' }, { token: t.w.owner.token }),
      ]);
      expect(reject.status).toBe(200);
      const order = await detail(id);
      expect(order.status).toBe('rejected');
      expect(['released', 'cancelled']).toContain(order.payment.status);
      expect(t.fake.intents.get(intent)!.status).toBe('canceled');
      // A late replay of the authorisation cannot bring it back.
      await postWebhook(
        t.server,
        t.fake.event('payment_intent.amount_capturable_updated', { ...t.fake.intents.get(intent)!, status: 'requires_capture' }),
      );
      expect(['released', 'cancelled']).toContain((await detail(id)).payment.status);
      expect(await sql(`select count(*)::int as n from payments where status in ('pending', 'requires_action', 'authorized')`)).toEqual([
        { n: 0 },
      ]);
    }
  });

  it('records a partial refund by an operator, then the rest', async () => {
    const { id, intent } = await cardOrder();
    await postWebhook(t.server, t.fake.event('payment_intent.amount_capturable_updated', t.fake.confirm(intent, 'authorized')));
    await sql(`update payments set status = 'captured', amount_captured_cents = 21300`);
    const charge = {
      id: 'ch_1',
      object: 'charge',
      payment_intent: intent,
      amount: 21300,
      amount_captured: 21300,
      currency: 'mad',
      metadata: {},
    };
    expect((await postWebhook(t.server, t.fake.event('charge.refunded', { ...charge, amount_refunded: 5000 }))).body.outcome).toBe(
      'applied',
    );
    expect((await detail(id)).payment).toMatchObject({ status: 'partially_refunded', refunded_amount: 50 });
    expect((await postWebhook(t.server, t.fake.event('charge.refunded', { ...charge, amount_refunded: 21300 }))).body.outcome).toBe(
      'applied',
    );
    expect((await detail(id)).payment).toMatchObject({ status: 'refunded', refunded_amount: 213 });
    expect((await statuses(id)).slice(-2)).toEqual(['partially_refunded', 'refunded']);
  });
});

describe('reconciliation', () => {
  it('asks Stripe about a payment whose webhook never came', async () => {
    const { id, intent } = await cardOrder();
    t.fake.confirm(intent, 'authorized'); // the customer confirmed; the webhook is lost
    expect(await reconcile()).toEqual({ settled: 0, checked: 0 }); // not stale yet
    await sql(`update payments set updated_at = now() - interval '20 minutes'`);
    expect(await reconcile()).toEqual({ settled: 0, checked: 1 });
    expect((await detail(id)).payment.status).toBe('authorized');
    expect(t.fake.calls('GET', new RegExp(`/${intent}$`))).toHaveLength(1);
  });

  it('finds the intent whose creation answer was lost, and drops it once the order ended', async () => {
    const placed = await placeOrder(t.server, t.w);
    const id = placed.body.data.order_id;
    t.fake.nextCreate('timeout');
    expect((await startPayment(t.server, t.w, id, 'card')).status).toBe(503);
    await t.server.http.post(`/api/v1/store/orders/${id}/reject`, { rejection_reason: 'too_busy' }, { token: t.w.owner.token });
    const [intent] = [...t.fake.intents.values()];
    expect(intent.status).toBe('canceled'); // the release found it with the same idempotency key
    expect(t.fake.intents.size).toBe(1);
    expect((await detail(id)).payment.status).toBe('released');
  });
});

describe('orderUpdates', () => {
  it('streams payment events in the order’s sequence and completes after the last; later payment news go to the payment', async () => {
    const { id, intent } = await cardOrder();
    const client = wsClient(t.server.wsUrl, t.w.customer.token);
    try {
      const sub = subscribe<{ seq: number; type: string; status: string; paymentStatus: string | null }>(
        client,
        `subscription($id: Int!) { orderUpdates(orderId: $id, afterSeq: 0) { seq type status paymentStatus } }`,
        { id },
      );
      await sub.waitFor(1);
      await postWebhook(t.server, t.fake.event('payment_intent.amount_capturable_updated', t.fake.confirm(intent, 'authorized')));
      await t.server.http.post(`/api/v1/store/orders/${id}/reject`, { rejection_reason: 'too_busy' }, { token: t.w.owner.token });
      await sub.completed;
      expect(sub.events).toEqual([
        { seq: 1, type: 'status', status: 'pending_acceptance', paymentStatus: null },
        { seq: 2, type: 'payment', status: 'pending_acceptance', paymentStatus: 'authorized' },
        { seq: 3, type: 'status', status: 'rejected', paymentStatus: null },
      ]);
      // The release Stripe confirmed after the end is the payment's news, not the ended order's.
      await until(async () => (await detail(id)).payment.status === 'released', 'the release');
      const order = await detail(id);
      expect(order.timeline.map((entry: { status: string }) => entry.status)).toEqual(['pending_acceptance', 'rejected']);
      expect(order.payment.events.map((entry: { status: string }) => entry.status)).toEqual(['authorized', 'released']);
      expect(order.last_event_seq).toBe(3);
      const resumed = subscribe(client, `subscription($id: Int!) { orderUpdates(orderId: $id, afterSeq: 3) { seq } }`, { id });
      await resumed.completed;
      expect([resumed.events, resumed.errors]).toEqual([[], []]);
    } finally {
      await client.dispose();
    }
  });
});
