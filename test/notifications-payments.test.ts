/**
 * Issue 24, the customer hears of their money: a card declined while the order waits (an order
 * event), and a hold released after the order ended (rejected or cancelled), whose news lives
 * only in payment_events: its notification is written to the outbox in the same transaction.
 */
import { FakeStripe, FAKE_STRIPE_KEYS } from './helpers/fake-stripe';
import { eventually, signInDevice, useNotifyWorld } from './helpers/notifications';
import { cart, placeOrder } from './helpers/orders';
import { authorizeCard, intentOf, postWebhook, startPayment } from './helpers/payments';

const stripe = new FakeStripe();
let stripeUrl = '';
const t = useNotifyWorld({ PAYMENT_CURRENCY: 'MAD' }, [
  {
    start: async () => (stripeUrl = await stripe.start()),
    stop: () => stripe.stop(),
    reset: () => stripe.reset(),
    env: () => ({ ...FAKE_STRIPE_KEYS, STRIPE_API_URL: stripeUrl, STRIPE_MAX_NETWORK_RETRIES: '0', STRIPE_TIMEOUT_MS: '1500' }),
  },
]);

const sql = <T = any>(query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute<T[]>(query, params);
const kinds = (token: string) => t.fcm.to(token).map((p) => p.data.type);

async function devices() {
  await signInDevice(t.server, t.w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
  await signInDevice(t.server, t.w.customer.user.phone_number, { deviceId: 'customer-phone', pushToken: 'customer-token' });
}

async function cardOrder(): Promise<{ id: number; intent: string }> {
  const placed = await placeOrder(t.server, t.w, cart(t.w));
  expect(placed.status).toBe(201);
  const id = placed.body.data.order_id as number;
  return { id, intent: intentOf((await startPayment(t.server, t.w, id, 'card')).body) };
}

it.each(['rejected', 'cancelled'])(
  '%s after the card was authorised: the customer hears the hold was released, from the payment history',
  async (end) => {
    await devices();
    const { id, intent } = await cardOrder();
    await authorizeCard(t.server, stripe, intent);
    await eventually(() => expect(kinds('owner-token')).toEqual(['new_order', 'payment_authorized']));
    const res =
      end === 'rejected'
        ? await t.server.http.post(`/api/v1/store/orders/${id}/reject`, { rejection_reason: 'too_busy' }, { token: t.w.owner.token })
        : await t.server.http.post(`/api/v1/customer/orders/${id}/cancel`, undefined, { token: t.w.customer.token });
    expect(res.status).toBe(200);
    const expected = end === 'rejected' ? ['order_rejected', 'payment_released'] : ['payment_released'];
    await eventually(() => expect(kinds('customer-token')).toEqual(expected));
    const released = t.fcm.to('customer-token').find((p) => p.data.type === 'payment_released')!;
    expect(released.notification.title).toBe(`Payment released for order #${id}`);
    expect(released.data).toEqual({ type: 'payment_released', order_id: String(id), status: end, seq: expect.stringMatching(/^\d+$/) });

    // The order's stream had ended: the news is a payment event, and its outbox row points at it.
    const [row] = await sql(
      `select n.event_id, e.status from notification_outbox n join payment_events e on e.id = n.payment_event_id
       where n.kind = 'payment_released'`,
    );
    expect(row).toEqual({ event_id: null, status: 'released' });
    expect(await sql(`select count(*)::int as n from order_events where order_id = ? and type = 'payment'`, [id])).toEqual([{ n: 1 }]);
    expect(kinds('owner-token')).toEqual(
      end === 'rejected' ? ['new_order', 'payment_authorized'] : ['new_order', 'payment_authorized', 'order_cancelled'],
    );
    const log = await t.server.http.get(`/api/v1/store/orders/${id}/notifications`, { token: t.w.owner.token });
    expect(log.body.data.map((n: any) => n.kind)).toContain('payment_released');
  },
);

it('a declined card while the order waits: the customer hears it (an order event), once', async () => {
  await devices();
  const { id, intent } = await cardOrder();
  const declined = await postWebhook(t.server, stripe.event('payment_intent.payment_failed', stripe.confirm(intent, 'declined')));
  expect(declined.status).toBe(200);
  await eventually(() => expect(kinds('customer-token')).toEqual(['payment_declined']));
  expect(t.fcm.to('customer-token')[0].notification.title).toBe(`Payment declined for order #${id}`);
  expect(await sql(`select count(*)::int as n from notification_outbox where payment_event_id is not null`)).toEqual([{ n: 0 }]);
});
