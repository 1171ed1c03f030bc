/**
 * Shared rate limits (issue 10, finding 11): order placement and promo-code guessing, per
 * customer and per client IP, counted in PostgreSQL so that every instance sees one count.
 */
import { registerCustomer } from './helpers/auth';
import { cart, promo, useOrderWorld } from './helpers/orders';
import { startTestServer, TestServer } from './helpers/server';

const t = useOrderWorld({
  TRUST_PROXY: 'true',
  ORDERS_PER_CUSTOMER_PER_MINUTE: '3',
  ORDERS_PER_IP_PER_MINUTE: '5',
  PROMO_FAILURES_PER_CUSTOMER_PER_HOUR: '3',
  PROMO_FAILURES_PER_IP_PER_HOUR: '5',
});

const from = (ip: string) => ({ 'x-forwarded-for': ip });
const order = (target: TestServer, token: string, ip: string, body: Record<string, unknown> = cart(t.w)) =>
  target.http.post('/api/v1/customer/orders', body, { token, headers: from(ip) });
const count = async () => (await t.server.db.orm.em.fork().execute(`select count(*)::int as n from orders`))[0].n;

describe('order placement', () => {
  it('refuses a customer past 3 orders a minute with 429 and Retry-After; another customer is not affected', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await order(t.server, t.w.customer.token, '203.0.113.1')).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await order(t.server, t.w.customer.token, '203.0.113.1');
    expect(refused.body).toEqual({ message: 'Too many orders placed. Please wait a moment.' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await count()).toBe(3);

    const other = await registerCustomer(t.server);
    const address = await t.server.http.post(
      '/api/v1/customer/addresses',
      {
        label: 'Home',
        line1: '1 Rue',
        city: 'Casablanca',
        latitude: t.w.owner.store.latitude + 0.005,
        longitude: t.w.owner.store.longitude,
      },
      { token: other.token },
    );
    expect((await order(t.server, other.token, '203.0.113.2', cart(t.w, { address_id: address.body.data.id }))).status).toBe(201);
  });

  it('counts per client IP across customers, and across instances sharing the database', async () => {
    const second = await startTestServer(
      {
        TRUST_PROXY: 'true',
        ORDERS_PER_CUSTOMER_PER_MINUTE: '3',
        ORDERS_PER_IP_PER_MINUTE: '5',
        PROMO_FAILURES_PER_CUSTOMER_PER_HOUR: '3',
        PROMO_FAILURES_PER_IP_PER_HOUR: '5',
      },
      t.server.db,
    );
    try {
      const customers = [t.w.customer, await registerCustomer(t.server), await registerCustomer(t.server)];
      const addresses = [t.w.addressId];
      for (const c of customers.slice(1)) {
        const res = await t.server.http.post(
          '/api/v1/customer/addresses',
          {
            label: 'Home',
            line1: '1 Rue',
            city: 'Casablanca',
            latitude: t.w.owner.store.latitude + 0.005,
            longitude: t.w.owner.store.longitude,
          },
          { token: c.token },
        );
        addresses.push(res.body.data.id);
      }
      const statuses = [];
      // Two per customer (under their own limit of 3), alternating instances, one address.
      for (let i = 0; i < 6; i++) {
        const n = i % 3;
        statuses.push(
          (await order(i % 2 ? second : t.server, customers[n].token, '198.51.100.9', cart(t.w, { address_id: addresses[n] }))).status,
        );
      }
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    } finally {
      await second.close();
    }
  });
});

describe('promo-code guessing', () => {
  it('after 3 refused codes a customer gets 429 for any code, even a valid one; another customer is not affected', async () => {
    await promo(t.server, { code: 'REAL10' });
    const statuses = [];
    for (const code of ['GUESS1', 'GUESS2', 'GUESS3']) {
      const res = await order(t.server, t.w.customer.token, '203.0.113.3', cart(t.w, { code_promo: code }));
      statuses.push([res.status, Object.keys(res.body.errors ?? {})]);
    }
    expect(statuses).toEqual(Array(3).fill([422, ['code_promo']]));
    const blocked = await order(t.server, t.w.customer.token, '203.0.113.3', cart(t.w, { code_promo: 'REAL10' }));
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ message: 'Too many promo codes tried. Try again later.' });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60); // an hour's window
    const other = await registerCustomer(t.server);
    const address = await t.server.http.post(
      '/api/v1/customer/addresses',
      {
        label: 'Home',
        line1: '1 Rue',
        city: 'Casablanca',
        latitude: t.w.owner.store.latitude + 0.005,
        longitude: t.w.owner.store.longitude,
      },
      { token: other.token },
    );
    const fine = await order(t.server, other.token, '203.0.113.4', cart(t.w, { address_id: address.body.data.id, code_promo: 'REAL10' }));
    expect(fine.status).toBe(201);
  });

  it('counts refused codes per client IP across customers', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const c = i < 2 ? t.w.customer : await registerCustomer(t.server);
      const address =
        c === t.w.customer
          ? t.w.addressId
          : (
              await t.server.http.post(
                '/api/v1/customer/addresses',
                {
                  label: 'Home',
                  line1: '1 Rue',
                  city: 'Casablanca',
                  latitude: t.w.owner.store.latitude + 0.005,
                  longitude: t.w.owner.store.longitude,
                },
                { token: c.token },
              )
            ).body.data.id;
      statuses.push((await order(t.server, c.token, '192.0.2.50', cart(t.w, { address_id: address, code_promo: `GUESS${i}` }))).status);
    }
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429]);
  });
});
