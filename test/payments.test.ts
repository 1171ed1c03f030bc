/** Spec §4.4: payment methods and start payment over REST, against the real SDK and a fake Stripe. */
import { Factory } from './helpers/factories';
import { orderWorld, placeOrder } from './helpers/orders';
import { registerCustomer } from './helpers/auth';
import { startTestServer } from './helpers/server';
import { authorizeCard, intentOf, METHOD, startPayment, usePaymentWorld } from './helpers/payments';

const t = usePaymentWorld();

async function newOrder(): Promise<number> {
  const res = await placeOrder(t.server, t.w);
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data.order_id;
}

const detail = async (id: number) => (await t.server.http.get(`/api/v1/customer/orders/${id}`, { token: t.w.customer.token })).body.data;
const sql = (query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute(query, params);
const creations = () => t.fake.calls('POST', /^\/v1\/payment_intents$/);

describe('GET /api/v1/payment-methods', () => {
  it('lists the active methods in display order, card first when Stripe is configured', async () => {
    const res = await t.server.http.get('/api/v1/payment-methods');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: [
        { id: METHOD.card, code: 'card', name: 'Credit or debit card', kind: 'card', icon: 'credit-card' },
        { id: METHOD.cash, code: 'cash', name: 'Cash on delivery', kind: 'cash', icon: 'banknote' },
      ],
    });
  });

  it('leaves out an inactive method, and starting a payment with it is 422', async () => {
    await sql(`update payment_methods set is_active = false where code = 'cash'`);
    try {
      const res = await t.server.http.get('/api/v1/payment-methods');
      expect(res.body.data.map((m: { code: string }) => m.code)).toEqual(['card']);
      const start = await startPayment(t.server, t.w, await newOrder(), 'cash');
      expect(start.status).toBe(422);
      expect(start.body.errors).toEqual({ payment_method_id: ['The selected payment method is not available.'] });
    } finally {
      await sql(`update payment_methods set is_active = true where code = 'cash'`);
    }
  });

  it('offers cash only when Stripe is not configured, and refuses the card method', async () => {
    const plain = await startTestServer();
    try {
      const res = await plain.http.get('/api/v1/payment-methods');
      expect(res.body.data.map((m: { code: string }) => m.code)).toEqual(['cash']);
      const world = await orderWorld(plain, new Factory(plain.db));
      const order = await placeOrder(plain, world);
      const card = await startPayment(plain, world, order.body.data.order_id, 'card');
      expect(card.status).toBe(422);
      expect(Object.keys(card.body.errors)).toEqual(['payment_method_id']);
    } finally {
      await plain.close();
    }
  });
});

describe('POST /api/v1/payments', () => {
  it('starts a card payment: one manual-capture PaymentIntent for the server total, and what the SDK needs', async () => {
    const id = await newOrder();
    const res = await startPayment(t.server, t.w, id, 'card');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Confirm the payment with your card.',
      data: {
        payment_id: 1,
        order_id: id,
        status: 'pending',
        amount: 213,
        currency: 'MAD',
        method: { id: METHOD.card, code: 'card', name: 'Credit or debit card', kind: 'card', icon: 'credit-card' },
        next_action: 'confirm_card',
        requires_action: false,
        client_secret: expect.stringMatching(/^pi_fake\d+_secret_\d+$/),
        publishable_key: 'pk_test_fake0123456789',
      },
    });
    expect(creations()).toHaveLength(1);
    expect(creations()[0]).toMatchObject({
      idempotencyKey: 'authorize-payment-1',
      params: {
        amount: '21300',
        currency: 'mad',
        capture_method: 'manual',
        'allowed_payment_method_types[0]': 'card',
        'metadata[order_id]': String(id),
        'metadata[payment_id]': '1',
      },
    });
    const order = await detail(id);
    expect(order.payment).toEqual({
      id: 1,
      method: { id: METHOD.card, code: 'card', name: 'Credit or debit card', kind: 'card' },
      status: 'pending',
      amount: 213,
      captured_amount: 0,
      refunded_amount: 0,
      currency: 'MAD',
      events: [], // nothing happened to it yet
    });
    const list = await t.server.http.get('/api/v1/customer/orders', { token: t.w.customer.token });
    expect(list.body.data[0].payment).toMatchObject({ status: 'pending', amount: 213, method: { code: 'card' } });
  });

  it('tells the app when the card needs 3-D Secure', async () => {
    t.fake.nextCreate('requires_action');
    const res = await startPayment(t.server, t.w, await newOrder(), 'card');
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      status: 'requires_action',
      requires_action: true,
      next_action: 'confirm_card',
      client_secret: expect.any(String),
    });
  });

  it('records cash with nothing more to do', async () => {
    const id = await newOrder();
    const res = await startPayment(t.server, t.w, id, 'cash');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      message: 'Payment recorded.',
      data: { status: 'pending', next_action: 'none', requires_action: false, client_secret: null, publishable_key: null, amount: 213 },
    });
    expect(creations()).toHaveLength(0);
  });

  it("answers 404 for another customer's order or a missing one, 401 without a token, 422 for a malformed body", async () => {
    const id = await newOrder();
    const other = await registerCustomer(t.server);
    const theirs = await t.server.http.post('/api/v1/payments', { order_id: id, payment_method_id: METHOD.card }, { token: other.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ message: `No query results for model [Order] ${id}` });
    expect((await startPayment(t.server, t.w, 999999, 'card')).status).toBe(404);
    expect((await t.server.http.post('/api/v1/payments', { order_id: id, payment_method_id: 1 })).status).toBe(401);
    const empty = await t.server.http.post('/api/v1/payments', {}, { token: t.w.customer.token });
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors).sort()).toEqual(['order_id', 'payment_method_id']);
    expect((await startPayment(t.server, t.w, id, 999)).body.errors).toEqual({
      payment_method_id: ['The selected payment method is not available.'],
    });
    expect(creations()).toHaveLength(0);
  });

  it('answers 422 for an order that cannot be paid: already paid, rejected, cancelled', async () => {
    const paid = await newOrder();
    const first = await startPayment(t.server, t.w, paid, 'card');
    await authorizeCard(t.server, t.fake, intentOf(first.body));
    const again = await startPayment(t.server, t.w, paid, 'cash');
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ order_id: ['The order is already paid.'] });

    const rejected = await newOrder();
    await t.server.http.post(`/api/v1/store/orders/${rejected}/reject`, { rejection_reason: 'too_busy' }, { token: t.w.owner.token });
    expect((await startPayment(t.server, t.w, rejected, 'card')).body.errors).toEqual({
      order_id: ['The order is rejected and cannot be paid any more.'],
    });
    const cancelled = await newOrder();
    await t.server.http.post(`/api/v1/customer/orders/${cancelled}/cancel`, undefined, { token: t.w.customer.token });
    expect((await startPayment(t.server, t.w, cancelled, 'cash')).status).toBe(422);
    expect(creations()).toHaveLength(1);
  });

  it('answers the first result to a retry with the same Idempotency-Key; another body with it is 422', async () => {
    const id = await newOrder();
    const headers = { 'Idempotency-Key': 'pay-1' };
    const first = await startPayment(t.server, t.w, id, 'card', headers);
    const retry = await startPayment(t.server, t.w, id, 'card', headers);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    const other = await startPayment(t.server, t.w, id, 'cash', headers);
    expect(other.status).toBe(422);
    expect(other.body.errors).toEqual({ idempotency_key: ['This Idempotency-Key was used for a different request.'] });
    expect(creations()).toHaveLength(1);
  });

  it('answers concurrent starts with one Idempotency-Key alike: one payment, one intent', async () => {
    const id = await newOrder();
    const headers = { 'Idempotency-Key': 'pay-race' };
    const answers = await Promise.all([1, 2, 3].map(() => startPayment(t.server, t.w, id, 'card', headers)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    // The waiting starts find the first's committed payment and ask with its provider key: one intent.
    expect(new Set(creations().map((c) => c.idempotencyKey))).toEqual(new Set(['authorize-payment-1']));
    expect(t.fake.intents.size).toBe(1);
    expect(await sql(`select count(*)::int as n from payments`)).toEqual([{ n: 1 }]);
  });

  it('refuses an Idempotency-Key that cannot be a key (over 255 characters, not visible ASCII) with 422 and starts nothing', async () => {
    const id = await newOrder();
    for (const key of ['k'.repeat(256), 'two words']) {
      const res = await startPayment(t.server, t.w, id, 'card', { 'Idempotency-Key': key });
      expect([key, res.status, Object.keys(res.body.errors ?? {})]).toEqual([key, 422, ['idempotency_key']]);
    }
    expect(creations()).toHaveLength(0);
  });

  it('makes one intent for two concurrent starts of one order', async () => {
    const id = await newOrder();
    const answers = await Promise.all([1, 2, 3].map(() => startPayment(t.server, t.w, id, 'card')));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.data.payment_id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body.data.client_secret)).size).toBe(1);
    expect(t.fake.intents.size).toBe(1);
    expect(await sql(`select count(*)::int as n from payments`)).toEqual([{ n: 1 }]);
  });

  it('answers 503 with Retry-After when Stripe is down; the retry with the same Idempotency-Key finds the one intent', async () => {
    const id = await newOrder();
    const headers = { 'Idempotency-Key': 'pay-while-down' };
    t.fake.nextCreate(500);
    const failed = await startPayment(t.server, t.w, id, 'card', headers);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('5');
    expect(failed.body).toEqual({ message: 'The payment provider did not answer. Please try again.' });
    expect(t.fake.intents.size).toBe(0);

    t.fake.nextCreate('timeout');
    const timedOut = await startPayment(t.server, t.w, id, 'card', headers);
    expect(timedOut.status).toBe(503);
    expect(t.fake.intents.size).toBe(1); // Stripe made it; the answer was lost

    const retry = await startPayment(t.server, t.w, id, 'card', headers);
    expect(retry.status).toBe(201);
    expect(intentOf(retry.body)).toBe([...t.fake.intents.keys()][0]);
    expect(await startPayment(t.server, t.w, id, 'card', headers)).toMatchObject({ status: 201, body: retry.body });
    expect(t.fake.intents.size).toBe(1);
    expect(new Set(creations().map((c) => c.idempotencyKey))).toEqual(new Set(['authorize-payment-1']));
  });

  it('switching from a waiting card to cash drops the card intent', async () => {
    const id = await newOrder();
    const card = await startPayment(t.server, t.w, id, 'card');
    const cash = await startPayment(t.server, t.w, id, 'cash');
    expect(cash.status).toBe(201);
    expect(cash.body.data.payment_id).not.toBe(card.body.data.payment_id);
    expect(t.fake.intents.get(intentOf(card.body))!.status).toBe('canceled');
    expect((await detail(id)).payment).toMatchObject({ status: 'pending', method: { code: 'cash' } });
  });
});

describe('GraphQL', () => {
  it('paymentMethods, startPayment and the order payment answer the same as REST', async () => {
    const methods = await t.server.http.graphql(`{ paymentMethods { id code kind } }`);
    expect(methods.body.data.paymentMethods).toEqual([
      { id: METHOD.card, code: 'card', kind: 'card' },
      { id: METHOD.cash, code: 'cash', kind: 'cash' },
    ]);
    const id = await newOrder();
    const start = await t.server.http.graphql(
      `mutation($input: StartPaymentInput!) { startPayment(input: $input, idempotencyKey: "g-1") { message payment { paymentId status nextAction method { code } } } }`,
      { input: { orderId: id, paymentMethodId: METHOD.card } },
      { token: t.w.customer.token },
    );
    expect(start.body.data.startPayment).toEqual({
      message: 'Confirm the payment with your card.',
      payment: { paymentId: 1, status: 'pending', nextAction: 'confirm_card', method: { code: 'card' } },
    });
    await authorizeCard(t.server, t.fake, [...t.fake.intents.keys()][0]);
    const order = await t.server.http.graphql(
      `query($id: Int!) { myOrder(id: $id) { payment { status amount currency events { status amount } } timeline { type status seq } } }`,
      { id },
      { token: t.w.customer.token },
    );
    expect(order.body.data.myOrder).toEqual({
      payment: { status: 'authorized', amount: 213, currency: 'MAD', events: [{ status: 'authorized', amount: 213 }] },
      timeline: [{ type: 'status', status: 'pending_acceptance', seq: 1 }],
    });
    const anonymous = await t.server.http.graphql(`mutation { startPayment(input: { orderId: ${id}, paymentMethodId: 2 }) { message } }`);
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
