/**
 * Every way a card payment ends (declined, hold expired, hold cancelled, refunded, capture
 * failed) at every order status: the order is never delivered as paid by a method nobody chose,
 * operators can count the card holds that went after acceptance, and the money adds up.
 */
import { northOf } from './helpers/factories';
import { cart, onlineDriver, placeOrder } from './helpers/orders';
import { authorizeCard, intentOf, postWebhook, startPayment, usePaymentWorld } from './helpers/payments';
import { HOLD_LOST } from '../src/modules/payments/payment-ledger';

const t = usePaymentWorld();

const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute<T[]>(query, params);
const detail = async (id: number) => (await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token })).body.data;
const storeStep = (id: number, step: string, body?: unknown) =>
  t.server.http.post(`/api/v1/store/orders/${id}/${step}`, body, { token: t.w.owner.token });
const near = () => northOf({ lat: t.w.owner.store.latitude, lng: t.w.owner.store.longitude }, 0.5);

/** The statuses an accepted order passes before delivery, and the step that leads to each. */
const ON_ITS_WAY = ['accepted', 'preparing', 'ready_for_pickup', 'picked_up'] as const;
type OnItsWay = (typeof ON_ITS_WAY)[number];

/** A card order, authorised, with a driver online to take it. */
async function authorisedCardOrder() {
  const driver = await onlineDriver(t.server, near());
  const placed = await placeOrder(t.server, t.w, cart(t.w));
  const id = placed.body.data.order_id as number;
  const intent = intentOf((await startPayment(t.server, t.w, id, 'card')).body);
  await authorizeCard(t.server, t.fake, intent);
  return { id, intent, driver };
}

/** Moves the order along until it is `status`. */
async function advance(id: number, driverToken: string, status: OnItsWay) {
  const steps: [OnItsWay, () => ReturnType<typeof storeStep>][] = [
    ['accepted', () => storeStep(id, 'accept')],
    ['preparing', () => storeStep(id, 'preparing')],
    ['ready_for_pickup', () => storeStep(id, 'ready')],
    ['picked_up', () => t.server.http.post(`/api/v1/driver/orders/${id}/pickup`, undefined, { token: driverToken })],
  ];
  const current = (await detail(id)).status as string;
  const from = current === 'pending_acceptance' ? 0 : ON_ITS_WAY.indexOf(current as OnItsWay) + 1;
  for (const [reached, step] of steps.slice(from, ON_ITS_WAY.indexOf(status) + 1)) {
    const res = await step();
    if (res.status !== 200) throw new Error(`${reached}: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

const deliver = (id: number, token: string, body?: unknown) => t.server.http.post(`/api/v1/driver/orders/${id}/deliver`, body, { token });

/** What the order's payments hold, in cents: taken (captured or collected) minus refunded, and per row. */
async function money(id: number) {
  const rows = await sql<{ provider: string; status: string; captured: number; refunded: number; failure_code: string | null }>(
    `select provider, status, amount_captured_cents as captured, amount_refunded_cents as refunded, failure_code
     from payments where order_id = ? order by id`,
    [id],
  );
  const [order] = await sql<{ total_cents: number }>(`select total_cents from orders where id = ?`, [id]);
  return { rows, total: order.total_cents, net: rows.reduce((sum, r) => sum + r.captured - r.refunded, 0) };
}

/** How the hold goes at Stripe, as its webhook tells us. */
const HOLD_ENDINGS = {
  expired: () => ({ status: 'canceled', cancellation_reason: 'automatic', amount_capturable: 0 }),
  cancelled: () => ({ status: 'canceled', cancellation_reason: 'requested_by_customer', amount_capturable: 0 }),
};

async function endHold(intent: string, how: keyof typeof HOLD_ENDINGS) {
  const object = Object.assign(t.fake.intents.get(intent)!, HOLD_ENDINGS[how]());
  const res = await postWebhook(t.server, t.fake.event('payment_intent.canceled', { ...object }));
  expect(res.body).toEqual({ received: true, outcome: 'applied' });
}

describe.each(ON_ITS_WAY)('the card hold goes while the order is %s', (status) => {
  it.each(Object.keys(HOLD_ENDINGS) as (keyof typeof HOLD_ENDINGS)[])(
    '%s: counted for operators; delivery refused until the driver collects cash; the money adds up',
    async (how) => {
      const { id, intent, driver } = await authorisedCardOrder();
      await advance(id, driver.token, status);
      await endHold(intent, how);
      const gone = await money(id);
      expect(gone.rows).toEqual([{ provider: 'stripe', status: 'released', captured: 0, refunded: 0, failure_code: HOLD_LOST }]);
      expect(gone.net).toBe(0);

      await advance(id, driver.token, 'picked_up');
      const refused = await deliver(id, driver.token);
      expect(refused.status).toBe(422);
      expect(refused.body.errors.payment).toEqual([
        'The card payment is released: nothing is held for this order. Collect 213 MAD in cash and deliver with collect_cash: true.',
      ]);
      expect((await detail(id)).status).toBe('picked_up');
      expect((await money(id)).rows).toHaveLength(1); // no cash recorded by the refusal

      const chosen = await deliver(id, driver.token, { collect_cash: true });
      expect(chosen.status).toBe(200);
      const after = await money(id);
      expect(after.rows).toEqual([
        { provider: 'stripe', status: 'released', captured: 0, refunded: 0, failure_code: HOLD_LOST },
        { provider: 'cash', status: 'collected', captured: after.total, refunded: 0, failure_code: null },
      ]);
      expect(after.net).toBe(after.total);
      // The driver's statement is recorded with the collection.
      const [event] = await sql<{ data: Record<string, unknown> }>(
        `select e.data from payment_events e join payments p on p.id = e.payment_id where p.order_id = ? and e.status = 'collected'`,
        [id],
      );
      expect(event.data).toMatchObject({ choice: 'collect_cash', replaces: expect.any(Number) });
      expect((await detail(id)).payment).toMatchObject({ status: 'collected', method: { code: 'cash' }, captured_amount: 213 });
      expect(t.fake.calls('POST', /\/capture$/)).toHaveLength(0);
    },
  );
});

describe('card endings at the other statuses', () => {
  it('pending_acceptance: a hold cancelled before the store answers stops the acceptance; paying cash then works', async () => {
    const { id, intent, driver } = await authorisedCardOrder();
    await endHold(intent, 'cancelled');
    const early = await money(id);
    expect(early.rows).toEqual([{ provider: 'stripe', status: 'released', captured: 0, refunded: 0, failure_code: null }]);
    expect((await storeStep(id, 'accept')).status).toBe(422);
    expect((await startPayment(t.server, t.w, id, 'cash')).status).toBe(201);
    await advance(id, driver.token, 'picked_up');
    expect((await deliver(id, driver.token)).status).toBe(200);
    const after = await money(id);
    expect(after.rows.map((r) => [r.provider, r.status])).toEqual([
      ['stripe', 'released'],
      ['cash', 'collected'],
    ]);
    expect(after.net).toBe(after.total);
  });

  it('declined: the order waits; a later decline of an authorised hold changes nothing and the capture goes through', async () => {
    const driver = await onlineDriver(t.server, near());
    const id = (await placeOrder(t.server, t.w, cart(t.w))).body.data.order_id as number;
    const intent = intentOf((await startPayment(t.server, t.w, id, 'card')).body);
    await postWebhook(t.server, t.fake.event('payment_intent.payment_failed', t.fake.confirm(intent, 'declined')));
    expect((await storeStep(id, 'accept')).status).toBe(422);
    expect((await money(id)).net).toBe(0);

    const again = intentOf((await startPayment(t.server, t.w, id, 'card')).body);
    await authorizeCard(t.server, t.fake, again);
    await advance(id, driver.token, 'preparing');
    const declined = { status: 'requires_payment_method', last_payment_error: { code: 'card_declined', message: 'Declined.' } };
    const late = await postWebhook(t.server, t.fake.event('payment_intent.payment_failed', { ...t.fake.intents.get(again)!, ...declined }));
    expect(late.body.outcome).toBe('ignored');
    await advance(id, driver.token, 'picked_up');
    expect((await deliver(id, driver.token)).status).toBe(200);
    const after = await money(id);
    expect(after.rows.map((r) => [r.provider, r.status, r.captured])).toEqual([
      ['stripe', 'released', 0], // the declined intent, dropped when the customer paid again
      ['stripe', 'captured', after.total],
    ]);
    expect(after.net).toBe(after.total);
  });

  it('collect_cash is refused while the card holds the money (no double charge)', async () => {
    const { id, driver } = await authorisedCardOrder();
    await advance(id, driver.token, 'picked_up');
    const res = await deliver(id, driver.token, { collect_cash: true });
    expect(res.status).toBe(422);
    expect(res.body.errors.collect_cash).toEqual([
      'The card payment is authorised: the money is taken from the card, do not collect cash.',
    ]);
    expect((await deliver(id, driver.token)).status).toBe(200);
    expect((await money(id)).rows.map((r) => [r.provider, r.status])).toEqual([['stripe', 'captured']]);
  });

  it('capture failed at delivery (the hold ran out unnoticed): delivered, capture_failed, nothing taken, no cash invented', async () => {
    const { id, intent, driver } = await authorisedCardOrder();
    await advance(id, driver.token, 'picked_up');
    t.fake.expire(intent);
    expect((await deliver(id, driver.token)).status).toBe(200);
    const after = await money(id);
    expect(after.rows.map((r) => [r.provider, r.status, r.captured])).toEqual([['stripe', 'capture_failed', 0]]);
    expect(after.net).toBe(0);
  });

  it('delivered: a late cancel changes nothing; a refund brings the net back to what was refunded', async () => {
    const { id, intent, driver } = await authorisedCardOrder();
    await advance(id, driver.token, 'picked_up');
    expect((await deliver(id, driver.token)).status).toBe(200);
    const late = await postWebhook(
      t.server,
      t.fake.event('payment_intent.canceled', { ...t.fake.intents.get(intent)!, status: 'canceled' }),
    );
    expect(late.body.outcome).toBe('ignored');
    const charge = (refunded: number) => ({
      id: `ch_${intent.slice(3)}`,
      object: 'charge',
      payment_intent: intent,
      amount: 21300,
      amount_captured: 21300,
      amount_refunded: refunded,
      currency: 'mad',
      metadata: {},
    });
    await postWebhook(t.server, t.fake.event('charge.refunded', charge(5000)));
    expect(await money(id)).toMatchObject({ net: 21300 - 5000 });
    await postWebhook(t.server, t.fake.event('charge.refunded', charge(21300)));
    const after = await money(id);
    expect(after.rows.map((r) => [r.status, r.captured, r.refunded, r.failure_code])).toEqual([['refunded', 21300, 21300, null]]);
    expect(after.net).toBe(0);
    expect((await detail(id)).status).toBe('delivered');
  });

  it.each(['rejected', 'cancelled'])('%s: the hold is released, nothing taken, nothing flagged', async (end) => {
    const { id, intent } = await authorisedCardOrder();
    const res =
      end === 'rejected'
        ? await storeStep(id, 'reject', { rejection_reason: 'too_busy' })
        : await t.server.http.post(`/api/v1/customer/orders/${id}/cancel`, undefined, { token: t.w.customer.token });
    expect(res.status).toBe(200);
    expect(t.fake.intents.get(intent)!.status).toBe('canceled');
    // Stripe's own news of the cancel changes nothing more.
    const news = await postWebhook(t.server, t.fake.event('payment_intent.canceled', { ...t.fake.intents.get(intent)! }));
    expect(news.body.outcome).toBe('ignored');
    const after = await money(id);
    expect(after.rows).toEqual([{ provider: 'stripe', status: 'released', captured: 0, refunded: 0, failure_code: null }]);
    expect(after.net).toBe(0);
  });
});
