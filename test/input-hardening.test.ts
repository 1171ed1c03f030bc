/**
 * Malformed input (issue 10, finding 8): NUL and other control characters are refused with 422
 * naming the field (one rule for every string, REST and GraphQL), an Idempotency-Key that is
 * too long or not visible ASCII is 422, and token claims are checked before any query.
 */
import jwt from 'jsonwebtoken';
import { cart, placeOrder, useOrderWorld } from './helpers/orders';

const t = useOrderWorld();
const sql = (query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute(query, params);

const NUL = '\u0000';
const withInstructions = (text: string) => {
  const body = cart(t.w);
  body.items[0].special_instructions = text;
  return body;
};
const refusal = (field: string) => ({
  message: 'The given data was invalid.',
  errors: { [field]: [`The ${field} field must not contain control characters.`] },
});

describe('control characters', () => {
  it('are refused with 422 naming the field, for anonymous callers too', async () => {
    const cases: [string, () => Promise<{ status: number; body: any }>, string][] = [
      ['search q', () => t.server.http.get(`/api/v1/global/search?q=${encodeURIComponent(`pi${NUL}zza`)}`), 'q'],
      ['store slug', () => t.server.http.get(`/api/v1/store/stores/${encodeURIComponent(`roma${NUL}`)}`), 'store'],
      ['offer token', () => t.server.http.get(`/api/v1/store/offers/${encodeURIComponent(`abc${NUL}`)}`), 'token'],
      [
        'address line',
        () =>
          t.server.http.post(
            '/api/v1/customer/addresses',
            { label: 'Home', line1: `5 Rue${NUL}`, city: 'Casablanca', latitude: 33.6, longitude: -7.6 },
            { token: t.w.customer.token },
          ),
        'line1',
      ],
      ['special instructions', () => placeOrder(t.server, t.w, withInstructions(`ring${NUL}twice`)), 'items.0.special_instructions'],
      ['promo code', () => placeOrder(t.server, t.w, cart(t.w, { code_promo: `SAVE${NUL}` })), 'code_promo'],
      [
        'escape (ESC) in a name',
        () => t.server.http.post('/v1/auth/customer/send-otp', { phone_number: `+1415\u001b[2J5550101` }),
        'phone_number',
      ],
    ];
    for (const [what, send, field] of cases) {
      const res = await send();
      expect([what, res.status, res.body]).toEqual([what, 422, refusal(field)]);
    }
    expect(await t.server.db.orm.em.fork().execute(`select count(*)::int as n from orders`)).toEqual([{ n: 0 }]);
  });

  it('keep line breaks and tabs allowed (instructions have lines)', async () => {
    const res = await placeOrder(t.server, t.w, withInstructions('No onions.\r\n\tCut in 8.'));
    expect(res.status).toBe(201);
  });

  it('are refused over GraphQL with VALIDATION naming the field inside the input', async () => {
    const res = await t.server.http.graphql('query($q: String!) { search(q: $q) { stores { id } } }', { q: `a${NUL}` });
    expect(res.body.errors[0].extensions).toEqual({
      code: 'VALIDATION',
      fields: { q: ['The q field must not contain control characters.'] },
    });
    const address = await t.server.http.graphql(
      'mutation($input: AddressInput!) { createAddress(input: $input) { address { id } } }',
      { input: { label: 'Home', line1: `x${NUL}`, city: 'Casablanca', latitude: 33.6, longitude: -7.6 } },
      { token: t.w.customer.token },
    );
    expect(address.body.errors[0].extensions).toEqual({
      code: 'VALIDATION',
      fields: { line1: ['The line1 field must not contain control characters.'] },
    });
  });
});

describe('numbers and booleans sent as strings in a JSON body', () => {
  const VALIDATION = 'The given data was invalid.';
  const owner = () => ({ token: t.w.owner.token });

  it('are refused with 422 naming the field: the spec types them as integer, number, boolean', async () => {
    const body = cart(t.w, { store_id: String(t.w.owner.store.id) });
    body.items[0].quantity = '2' as never;
    const order = await placeOrder(t.server, t.w, body);
    expect(order.status).toBe(422);
    expect(order.body).toEqual({
      message: VALIDATION,
      errors: { store_id: ['The store_id must be an integer.'], 'items.0.quantity': ['The items.0.quantity must be an integer.'] },
    });

    const address = await t.server.http.post(
      '/api/v1/customer/addresses',
      { label: 'Home', line1: '5 Rue', city: 'Casablanca', latitude: '33.5', longitude: -7.6 },
      { token: t.w.customer.token },
    );
    expect(address.status).toBe(422);
    expect(address.body).toEqual({ message: VALIDATION, errors: { latitude: ['The latitude must be a number.'] } });

    const offer = await t.server.http.post('/api/v1/store/offers', { title: 'Ten', discount: '10' }, owner());
    expect(offer.status).toBe(422);
    expect(offer.body).toEqual({ message: VALIDATION, errors: { discount: ['The discount must be a number.'] } });

    const menu = await t.server.http.post(
      '/api/v1/store/menus',
      { store_id: t.w.owner.store.id, name: 'Late', is_active: 'true' },
      owner(),
    );
    expect(menu.status).toBe(422);
    expect(menu.body).toEqual({ message: VALIDATION, errors: { is_active: ['The is_active field must be true or false.'] } });

    expect(await sql('select count(*)::int as n from orders')).toEqual([{ n: 0 }]);
  });

  it('while the same values as JSON numbers and booleans are taken', async () => {
    expect((await placeOrder(t.server, t.w)).status).toBe(201);
    const menu = await t.server.http.post('/api/v1/store/menus', { store_id: t.w.owner.store.id, name: 'Late', is_active: true }, owner());
    expect(menu.status).toBe(201);
  });

  it('query-string and path numbers stay strings on the wire and are read by their types', async () => {
    const { latitude, longitude } = t.w.owner.store;
    const nearby = await t.server.http.get(`/api/v1/stores/nearby?lat=${latitude}&lng=${longitude}&radius=10&page=1&per_page=5&is_open=0`);
    expect(nearby.status).toBe(200);
    expect(nearby.body.data.stores.map((s: { id: number }) => s.id)).toContain(t.w.owner.store.id);
    expect(nearby.body.data.meta).toMatchObject({ current_page: 1, per_page: 5 });
    const orders = await t.server.http.get('/api/v1/store/orders?page=1&per_page=2', owner());
    expect(orders.status).toBe(200);
    expect(orders.body.data.meta).toMatchObject({ current_page: 1, per_page: 2 });
    const home = await t.server.http.get(`/api/v1/homepage?lat=${latitude}&lng=${longitude}`);
    expect(home.status).toBe(200);
    expect((await t.server.http.get(`/api/v1/store/stores/${t.w.owner.store.id}/catalog`)).status).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  it('over 255 characters, or with characters outside visible ASCII, is 422 and places nothing', async () => {
    for (const key of ['k'.repeat(256), 'two words', 'clé-1']) {
      const res = await placeOrder(t.server, t.w, cart(t.w), { 'idempotency-key': key });
      expect([key, res.status, Object.keys(res.body.errors ?? {})]).toEqual([key, 422, ['idempotency_key']]);
    }
    const fine = await placeOrder(t.server, t.w, cart(t.w), { 'idempotency-key': 'k'.repeat(255) });
    expect(fine.status).toBe(201);
    expect(await t.server.db.orm.em.fork().execute(`select count(*)::int as n from orders`)).toEqual([{ n: 1 }]);
  });
});

describe('token claims', () => {
  const sign = (claims: Record<string, unknown>) =>
    jwt.sign(claims, t.server.config.jwt.secret, {
      algorithm: 'HS256',
      expiresIn: 60,
      issuer: t.server.config.jwt.issuer,
      audience: t.server.config.jwt.audience,
    });

  it('a validly signed token whose jti is not a UUID, or whose sub is not an id, is 401 (not 500)', async () => {
    const user = String(t.w.customer.user.id);
    for (const claims of [
      { sub: user, jti: 'not-a-uuid' },
      { sub: user, jti: 42 },
      { sub: `${user}.5`, jti: '0b6f7c5e-4a57-4a55-9d7b-6e1f0a1b2c3d' },
      { sub: user },
    ]) {
      const res = await t.server.http.get('/v1/auth/customer/me', { token: sign(claims) });
      expect([claims, res.status, res.body]).toEqual([claims, 401, { message: 'The token is invalid.' }]);
    }
    // Public reads ignore such a token instead of failing.
    expect((await t.server.http.get('/api/v1/global/search?q=pizza', { token: sign({ sub: user, jti: 'x' }) })).status).toBe(200);
  });
});
