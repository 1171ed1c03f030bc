/**
 * Spec §7 422 bodies: every key and every message names fields as the client sent them
 * (REST snake_case, GraphQL the schema's names), and every problem is reported at once.
 */
import { useOwner } from './helpers/owners';
import { cart, orderWorld, placeOrder } from './helpers/orders';

const t = useOwner();

/** A camelCase word (`menuId`, `startsAt`) anywhere in a REST 422 is an internal name leaking. */
const CAMEL = /\b[a-z]+[A-Z][A-Za-z]*\b/;
function expectRestNames(errors: Record<string, string[]>) {
  for (const [key, messages] of Object.entries(errors)) {
    expect(key).not.toMatch(CAMEL);
    for (const message of messages) expect(message).not.toMatch(CAMEL);
  }
}

const later = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

describe('422 over REST names fields in snake_case, keys and messages', () => {
  it('a menu category without menu_id or store_id', async () => {
    const res = await t.server.http.post('/api/v1/store/menu-categories', { name: 'Sides' }, { token: t.owner.token });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ store_id: ['store_id is required when menu_id is not given'] });
  });

  it('an offer ending before it starts', async () => {
    const res = await t.server.http.post(
      '/api/v1/store/offers',
      { title: 'Late', discount: 10, starts_at: later(48), ends_at: later(24) },
      { token: t.owner.token },
    );
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ ends_at: ['ends_at must be after starts_at'] });
  });

  it('rule messages of nested inputs (class-validator) at checkout', async () => {
    const w = await orderWorld(t.server, t.make);
    const body = cart(w);
    body.items[0].special_instructions = 'x'.repeat(501);
    const res = await placeOrder(t.server, w, body);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['items.0.special_instructions']);
    expect(res.body.errors['items.0.special_instructions'][0]).toMatch(/^special_instructions must be/);
    expectRestNames(res.body.errors);
  });
});

describe('422 over GraphQL names fields as the schema does', () => {
  it('an offer ending before it starts', async () => {
    const res = await t.server.http.graphql(
      `mutation($input: CreateOfferInput!) { createOffer(input: $input) { message } }`,
      { input: { title: 'Late', discount: 10, startsAt: later(48), endsAt: later(24) } },
      { token: t.owner.token },
    );
    expect(res.body.errors[0].extensions).toEqual({ code: 'VALIDATION', fields: { endsAt: ['endsAt must be after startsAt'] } });
  });
});

describe('a cart reports all its problems at once', () => {
  it('a line with quantity 0 and a line with no quantity: both', async () => {
    const w = await orderWorld(t.server, t.make);
    const body = cart(w) as Record<string, any>;
    body.items = [{ ...body.items[0], quantity: 0 }, { product_id: w.cola.id }, { product_id: w.cola.id, quantity: 100 }];
    const res = await placeOrder(t.server, w, body as never);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'items.0.quantity': ['quantity must be at least 1'],
      'items.1.quantity': ['The items.1.quantity field is required.'],
      'items.2.quantity': ['quantity must be at most 99'],
    });
  });

  it('rule problems and the problems only the database knows, together', async () => {
    const w = await orderWorld(t.server, t.make);
    await t.server.db.orm.em.fork().execute('delete from store_opening_hours where store_id = ?', [w.owner.store.id]);
    const body = cart(w) as Record<string, any>;
    body.items = [
      { ...body.items[0], quantity: 0 },
      { product_id: 999999, quantity: 1 },
    ];
    const res = await placeOrder(t.server, w, body as never);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      store_id: ['The store is closed at the moment.'],
      'items.0.quantity': ['quantity must be at least 1'],
      'items.1.product_id': ['The selected product is not available.'],
    });
    const graphql = await t.server.http.graphql(
      `mutation($input: CheckoutInput!) { placeOrder(input: $input) { message } }`,
      {
        input: {
          storeId: w.owner.store.id,
          addressId: w.addressId,
          items: [
            { productId: w.cola.id, quantity: 100 },
            { productId: 999999, quantity: 1 },
          ],
        },
      },
      { token: w.customer.token },
    );
    expect(graphql.body.errors[0].extensions).toEqual({
      code: 'VALIDATION',
      fields: {
        storeId: ['The store is closed at the moment.'],
        'items.0.quantity': ['quantity must be at most 99'],
        'items.1.productId': ['The selected product is not available.'],
      },
    });
    expect(await t.server.db.orm.em.fork().execute('select id from orders')).toEqual([]);
  });

  it('an empty cart is not priced: its rule problem alone, with the others of the body', async () => {
    const w = await orderWorld(t.server, t.make);
    const res = await placeOrder(t.server, w, cart(w, { items: [], address_id: 0 }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['address_id', 'items']);
    expectRestNames(res.body.errors);
  });

  it('a missing store_id, a malformed address_id and a rule problem together', async () => {
    const w = await orderWorld(t.server, t.make);
    const body = { ...cart(w), store_id: undefined, address_id: 'home' } as Record<string, any>;
    body.items[1].quantity = 0;
    const res = await placeOrder(t.server, w, body as never);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['address_id', 'items.1.quantity', 'store_id']);
    expectRestNames(res.body.errors);
  });
});
