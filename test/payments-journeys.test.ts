/**
 * Payments along the order's life: authorise at checkout, capture on delivery, release on
 * reject, expiry or cancel; cash collected on delivery; a declined card paid again another way.
 * The order's money adds up at every step.
 */
import { northOf } from './helpers/factories';
import { cart, onlineDriver, placeOrder, promo } from './helpers/orders';
import { authorizeCard, intentOf, postWebhook, startPayment, usePaymentWorld } from './helpers/payments';
import { expireUnansweredOrders } from '../src/modules/orders/order-lifecycle.service';
import { createLogger } from '../src/common/logger';

const t = usePaymentWorld();

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const detail = async (id: number) => (await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token })).body.data;
const storeStep = (id: number, step: string, body?: unknown) =>
  t.server.http.post(`/api/v1/store/orders/${id}/${step}`, body, { token: t.w.owner.token });
const driverStep = (id: number, step: string, token: string) =>
  t.server.http.post(`/api/v1/driver/orders/${id}/${step}`, undefined, { token });
const near = () => northOf({ lat: t.w.owner.store.latitude, lng: t.w.owner.store.longitude }, 0.5);

async function newOrder(body = cart(t.w)): Promise<number> {
  const res = await placeOrder(t.server, t.w, body);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.order_id;
}

/** A card order, authorised: answers its id and PaymentIntent id. */
async function authorisedCardOrder(body = cart(t.w)) {
  const id = await newOrder(body);
  const started = await startPayment(t.server, t.w, id, 'card');
  const intent = intentOf(started.body);
  await authorizeCard(t.server, t.fake, intent);
  return { id, intent };
}

async function deliver(id: number) {
  const driver = await onlineDriver(t.server, near());
  for (const step of ['accept', 'preparing', 'ready']) expect((await storeStep(id, step)).status).toBe(200);
  expect((await driverStep(id, 'pickup', driver.token)).status).toBe(200);
  return driverStep(id, 'deliver', driver.token);
}

describe('card journeys', () => {
  it('paid -> accepted -> ... -> delivered -> captured, and the money adds up at every step', async () => {
    await promo(t.server, { code: 'SAVE20', discountType: 'fixed', amountOffCents: 2000 });
    const { id, intent } = await authorisedCardOrder(cart(t.w, { code_promo: 'SAVE20' }));
    // 2 × (60 + 25 large + 8 cheese) + 12 cola = 198; + 15 delivery - 20 promo = 193.
    const placed = await detail(id);
    const lines = placed.items.map(
      (i: any) => (i.base_price + [...i.options, ...i.supplements].reduce((s: number, e: any) => s + e.price, 0)) * i.quantity,
    );
    expect(lines).toEqual([186, 12]);
    expect(placed).toMatchObject({ subtotal: 198, delivery_fee: 15, discount: 20, total: 193 });
    expect(placed.payment).toMatchObject({ status: 'authorized', amount: 193, captured_amount: 0 });
    expect(t.fake.intents.get(intent)).toMatchObject({
      amount: 19300,
      currency: 'mad',
      capture_method: 'manual',
      status: 'requires_capture',
    });

    expect((await deliver(id)).status).toBe(200);
    const captures = t.fake.calls('POST', /\/capture$/);
    expect(captures).toHaveLength(1);
    expect(captures[0]).toMatchObject({
      path: `/v1/payment_intents/${intent}/capture`,
      idempotencyKey: 'capture-payment-1',
      params: { amount_to_capture: '19300' },
    });
    const delivered = await detail(id);
    expect(delivered).toMatchObject({
      status: 'delivered',
      total: 193,
      payment: { status: 'captured', amount: 193, captured_amount: 193 },
    });
    expect(delivered.timeline.map((entry: { status: string }) => entry.status)).toEqual([
      'pending_acceptance',
      'accepted',
      'preparing',
      'ready_for_pickup',
      'picked_up',
      'delivered',
    ]);
    expect(delivered.payment.events).toEqual([
      { status: 'authorized', amount: 193, at: ISO },
      { status: 'captured', amount: 193, at: ISO },
    ]);
    // Stripe's own news of the capture changes nothing more.
    const succeeded = await postWebhook(t.server, t.fake.event('payment_intent.succeeded', t.fake.intents.get(intent)!));
    expect(succeeded.body).toEqual({ received: true, outcome: 'ignored' });
    expect((await detail(id)).payment.events).toHaveLength(2);
  });

  it('rejected by the store -> the authorisation is released', async () => {
    const { id, intent } = await authorisedCardOrder();
    expect((await storeStep(id, 'reject', { rejection_reason: 'too_busy' })).status).toBe(200);
    expect(t.fake.calls('POST', /\/cancel$/).map((c) => c.path)).toEqual([`/v1/payment_intents/${intent}/cancel`]);
    expect(t.fake.intents.get(intent)!.status).toBe('canceled');
    const order = await detail(id);
    expect(order.payment).toMatchObject({ status: 'released', captured_amount: 0 });
    expect(order.timeline.map((entry: { status: string }) => entry.status)).toEqual(['pending_acceptance', 'rejected']);
    expect(order.payment.events.map((entry: { status: string }) => entry.status)).toEqual(['authorized', 'released']);
    expect(t.fake.calls('POST', /\/capture$/)).toHaveLength(0);
  });

  it('not answered in time (auto-reject) -> released', async () => {
    const { id, intent } = await authorisedCardOrder();
    await t.server.db.orm.em.fork().execute(`update orders set created_at = now() - interval '11 minutes' where id = ?`, [id]);
    expect(await expireUnansweredOrders(t.server.db.orm.em.fork(), t.server.app.services, createLogger('silent'), 600)).toBe(1);
    expect(t.fake.intents.get(intent)!.status).toBe('canceled');
    expect(await detail(id)).toMatchObject({
      status: 'rejected',
      rejection_reason: 'not_accepted_in_time',
      payment: { status: 'released' },
    });
  });

  it('cancelled by the customer before the store answered -> released', async () => {
    const { id, intent } = await authorisedCardOrder();
    expect((await t.server.http.post(`/api/v1/customer/orders/${id}/cancel`, undefined, { token: t.w.customer.token })).status).toBe(200);
    expect(t.fake.intents.get(intent)!.status).toBe('canceled');
    expect((await detail(id)).payment.status).toBe('released');
  });

  it('the store cannot accept a card order before its authorisation; the deadline still applies', async () => {
    const id = await newOrder();
    const started = await startPayment(t.server, t.w, id, 'card');
    const early = await storeStep(id, 'accept');
    expect(early.status).toBe(422);
    expect(early.body.errors).toEqual({
      payment: ['The card payment is pending; the order waits for its authorisation (or another method).'],
    });
    expect((await detail(id)).status).toBe('pending_acceptance');
    await authorizeCard(t.server, t.fake, intentOf(started.body));
    expect((await storeStep(id, 'accept')).status).toBe(200);
  });

  it('declined card -> the order can be paid again with another method', async () => {
    const id = await newOrder();
    const started = await startPayment(t.server, t.w, id, 'card');
    const intent = intentOf(started.body);
    const declined = await postWebhook(t.server, t.fake.event('payment_intent.payment_failed', t.fake.confirm(intent, 'declined')));
    expect(declined.body).toEqual({ received: true, outcome: 'applied' });
    const failed = await detail(id);
    expect(failed.payment).toMatchObject({ status: 'failed', method: { code: 'card' } });
    expect(failed.timeline.map((entry: { status: string }) => entry.status)).toEqual(['pending_acceptance']);
    expect(failed.payment.events.map((entry: { status: string }) => entry.status)).toEqual(['failed']);
    expect((await storeStep(id, 'accept')).status).toBe(422);

    const cash = await startPayment(t.server, t.w, id, 'cash');
    expect(cash.status).toBe(201);
    expect(t.fake.intents.get(intent)!.status).toBe('canceled'); // the declined intent cannot be confirmed later
    expect((await deliver(id)).status).toBe(200);
    expect((await detail(id)).payment).toMatchObject({ status: 'collected', method: { code: 'cash' }, captured_amount: 213 });
  });

  it('a declined card may be tried again with a new card intent', async () => {
    const id = await newOrder();
    const first = intentOf((await startPayment(t.server, t.w, id, 'card')).body);
    await postWebhook(t.server, t.fake.event('payment_intent.payment_failed', t.fake.confirm(first, 'declined')));
    const again = await startPayment(t.server, t.w, id, 'card');
    expect(again.status).toBe(201);
    const second = intentOf(again.body);
    expect(second).not.toBe(first);
    await authorizeCard(t.server, t.fake, second);
    expect((await detail(id)).payment).toMatchObject({ status: 'authorized', id: again.body.data.payment_id });
  });
});

describe('cash journey', () => {
  it('cash chosen -> accepted without authorisation -> delivered -> collected', async () => {
    const id = await newOrder();
    await startPayment(t.server, t.w, id, 'cash');
    expect((await deliver(id)).status).toBe(200);
    const order = await detail(id);
    expect(order.payment).toMatchObject({ status: 'collected', amount: 213, captured_amount: 213, method: { code: 'cash' } });
    expect(order.timeline.at(-1)).toEqual({ status: 'delivered', at: ISO });
    expect(order.payment.events).toEqual([{ status: 'collected', amount: 213, at: ISO }]);
    expect(t.fake.requests).toHaveLength(0);
  });

  it('an order delivered without a payment started is recorded as cash collected', async () => {
    const id = await newOrder();
    expect((await detail(id)).payment).toBeNull();
    expect((await deliver(id)).status).toBe(200);
    expect((await detail(id)).payment).toMatchObject({ status: 'collected', amount: 213, method: { code: 'cash' } });
  });

  it('a rejected cash order is cancelled, with no provider call', async () => {
    const id = await newOrder();
    await startPayment(t.server, t.w, id, 'cash');
    await storeStep(id, 'reject', { rejection_reason: 'too_busy' });
    expect((await detail(id)).payment.status).toBe('cancelled');
    expect(t.fake.requests).toHaveLength(0);
  });
});

describe('capture problems', () => {
  it('a capture Stripe could not answer is retried by the reconciliation job', async () => {
    const { id, intent } = await authorisedCardOrder();
    t.fake.nextCapture(500);
    expect((await deliver(id)).status).toBe(200); // the food arrived: the delivery stands
    expect((await detail(id)).payment.status).toBe('authorized');
    const { reconcilePayments } = await import('../src/modules/payments/payment-reconcile.service');
    const done = await reconcilePayments(t.server.db.orm.em.fork(), { ...t.server.app.services, logger: createLogger('silent') }, 900);
    expect(done.settled).toBe(1);
    expect(t.fake.intents.get(intent)!.status).toBe('succeeded');
    expect((await detail(id)).payment).toMatchObject({ status: 'captured', captured_amount: 213 });
  });

  it('an authorisation that ran out at the bank ends as capture_failed, for an operator', async () => {
    const { id, intent } = await authorisedCardOrder();
    t.fake.expire(intent);
    expect((await deliver(id)).status).toBe(200);
    const order = await detail(id);
    expect(order).toMatchObject({ status: 'delivered', payment: { status: 'capture_failed', captured_amount: 0 } });
    expect(order.timeline.at(-1).status).toBe('delivered');
    expect(order.payment.events.map((entry: { status: string }) => entry.status)).toEqual(['authorized', 'capture_failed']);
  });
});
