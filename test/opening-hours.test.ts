/**
 * "Open now" (is_open, the nearby is_open filter, checkout's "store is closed") follows each
 * store's hours in its own time zone with Node's ICU rules, whatever tz tables the database
 * has: run on PostgreSQL and on the embedded database (DATABASE_URL unset). The service's
 * clock is fixed per case.
 */
import { CASABLANCA, Factory } from './helpers/factories';
import { cart, orderWorld, placeOrder } from './helpers/orders';
import { useClockedTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';
import { Store } from '../src/modules/stores/store.entity';

let server: TestServer;
let make: Factory;
const clock = useClockedTestServer((s, f) => {
  server = s;
  make = f;
});

const every = (opens: string, closes: string): [number, string, string][] => [0, 1, 2, 3, 4, 5, 6].map((d) => [d, opens, closes]);

/** is_open of the store details, the GraphQL field and membership of nearby?is_open=1, which must agree. */
async function openAt(store: Store, instant: string): Promise<boolean> {
  clock.set(instant);
  const details = await server.http.get(`/api/v1/store/stores/${store.id}`);
  expect(details.status).toBe(200);
  const graphql = await server.http.graphql(`query($id: String!) { store(idOrSlug: $id) { isOpen } }`, { id: String(store.id) });
  const nearby = await server.http.get(`/api/v1/stores/nearby?lat=${CASABLANCA.lat}&lng=${CASABLANCA.lng}&is_open=1&per_page=50`);
  const listed = nearby.body.data.stores.some((s: { id: number }) => s.id === store.id);
  expect({ graphql: graphql.body.data.store.isOpen, listed }).toEqual({
    graphql: details.body.data.is_open,
    listed: details.body.data.is_open,
  });
  return details.body.data.is_open;
}

describe('Africa/Casablanca (UTC+1, UTC+0 during Ramadan)', () => {
  it('08:11 on a Monday is inside 08:00–22:00; 07:59 is not', async () => {
    const store = await make.store({ hours: every('08:00', '22:00') });
    expect(await openAt(store, '2026-11-23T07:11:00Z')).toBe(true); // 08:11 local
    expect(await openAt(store, '2026-11-23T06:59:00Z')).toBe(false); // 07:59 local
    expect(await openAt(store, '2026-11-23T20:59:00Z')).toBe(true); // 21:59 local
    expect(await openAt(store, '2026-11-23T21:00:00Z')).toBe(false); // 22:00 local
  });

  it('during Ramadan 2026 the clocks are at UTC+0', async () => {
    const store = await make.store({ hours: every('08:00', '22:00') });
    expect(await openAt(store, '2026-03-02T08:11:00Z')).toBe(true); // 08:11 local
    expect(await openAt(store, '2026-03-02T07:30:00Z')).toBe(false); // 07:30 local
  });
});

describe('Europe/Paris across its DST changes (last Sundays of March and October)', () => {
  it('09:00–18:00 follows CET and CEST', async () => {
    const store = await make.store({ timezone: 'Europe/Paris', hours: every('09:00', '18:00') });
    expect(await openAt(store, '2026-03-28T07:30:00Z')).toBe(false); // Saturday 08:30 CET
    expect(await openAt(store, '2026-03-29T07:30:00Z')).toBe(true); // Sunday 09:30 CEST
    expect(await openAt(store, '2026-03-29T15:59:00Z')).toBe(true); // 17:59 CEST
    expect(await openAt(store, '2026-03-29T16:00:00Z')).toBe(false); // 18:00 CEST
    expect(await openAt(store, '2026-10-24T07:30:00Z')).toBe(true); // Saturday 09:30 CEST
    expect(await openAt(store, '2026-10-25T07:30:00Z')).toBe(false); // Sunday 08:30 CET
    expect(await openAt(store, '2026-10-25T08:30:00Z')).toBe(true); // 09:30 CET
  });
});

describe('periods past midnight', () => {
  it("Friday 18:00–02:00 and Saturday 22:00–01:00 carry into the next day, Saturday's into Sunday", async () => {
    const store = await make.store({
      hours: [
        [5, '18:00', '02:00'],
        [6, '22:00', '01:00'],
      ],
    });
    expect(await openAt(store, '2026-11-20T16:59:00Z')).toBe(false); // Friday 17:59
    expect(await openAt(store, '2026-11-20T22:00:00Z')).toBe(true); // Friday 23:00
    expect(await openAt(store, '2026-11-21T00:30:00Z')).toBe(true); // Saturday 01:30, Friday's period
    expect(await openAt(store, '2026-11-21T01:00:00Z')).toBe(false); // Saturday 02:00
    expect(await openAt(store, '2026-11-21T20:59:00Z')).toBe(false); // Saturday 21:59
    expect(await openAt(store, '2026-11-21T23:30:00Z')).toBe(true); // Sunday 00:30, Saturday's period
    expect(await openAt(store, '2026-11-22T00:00:00Z')).toBe(false); // Sunday 01:00
  });
});

describe("checkout's closed check uses the same rule", () => {
  it('takes the order at 08:11 in Casablanca and refuses it at 07:59', async () => {
    const w = await orderWorld(server, make);
    await server.db.orm.em
      .fork()
      .execute(`update store_opening_hours set opens_at = '08:00', closes_at = '22:00' where store_id = ?`, [w.owner.store.id]);
    clock.set('2026-11-23T06:59:00Z');
    const closed = await placeOrder(server, w, cart(w));
    expect(closed.status).toBe(422);
    expect(closed.body.errors).toEqual({ store_id: ['The store is closed at the moment.'] });
    clock.set('2026-11-23T07:11:00Z');
    expect((await placeOrder(server, w, cart(w))).status).toBe(201);
  });

  it("decides a store of a zone this process meets first at checkout in that zone's time (UTC+13:45)", async () => {
    const w = await orderWorld(server, make);
    // A zone no other case uses: checkout's first read has no time for it and asks again with one.
    await server.db.orm.em.fork().execute(`update stores set timezone = 'Pacific/Chatham' where id = ?`, [w.owner.store.id]);
    await server.db.orm.em
      .fork()
      .execute(`update store_opening_hours set opens_at = '08:00', closes_at = '22:00' where store_id = ?`, [w.owner.store.id]);
    clock.set('2026-11-23T18:14:00Z'); // Tuesday 07:59 in Chatham (UTC+13:45 in its summer)
    const closed = await placeOrder(server, w, cart(w));
    expect(closed.body.errors).toEqual({ store_id: ['The store is closed at the moment.'] });
    clock.set('2026-11-23T18:26:00Z'); // 08:11
    expect((await placeOrder(server, w, cart(w))).status).toBe(201);
  });

  it('claims an Idempotency-Key once when the store is of a zone met first (its place is read twice)', async () => {
    const w = await orderWorld(server, make);
    // Another zone no case meets before: the first read claims the key, the second must not.
    await server.db.orm.em.fork().execute(`update stores set timezone = 'Pacific/Kiritimati' where id = ?`, [w.owner.store.id]);
    await server.db.orm.em
      .fork()
      .execute(`update store_opening_hours set opens_at = '08:00', closes_at = '22:00' where store_id = ?`, [w.owner.store.id]);
    clock.set('2026-11-23T18:26:00Z'); // Tuesday 08:26 in Kiritimati (UTC+14)
    const headers = { 'Idempotency-Key': 'zone-met-first' };
    const first = await placeOrder(server, w, cart(w), headers);
    expect(first.status).toBe(201);
    const retry = await placeOrder(server, w, cart(w), headers);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    const [{ n }] = await server.db.orm.em.fork().execute(`select count(*)::int as n from orders where store_id = ?`, [w.owner.store.id]);
    expect(n).toBe(1);
  });
});
