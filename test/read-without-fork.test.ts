/**
 * Store details and store products send their one statement without forking an EntityManager
 * for the request (context.ts `readerOf`: the fork is made when something first reads
 * `ctx.em`), and answer the same bytes as when the request has its fork (an Authorization
 * header makes one: the token is checked on it, and the read then goes through that fork, the
 * path every read took before). A read inside a transaction stays in it.
 */
import { Factory } from './helpers/factories';
import { countStatements } from './helpers/statements';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';
import { createContext, readerOf } from '../src/context';
import { getStoreDetails } from '../src/modules/stores/store-details';
import { createLogger } from '../src/common/logger';

let server: TestServer;
let make: Factory;
useTestServer(
  (s, f) => {
    server = s;
    make = f;
  },
  { READ_CACHE: 'off' },
);

/** Forks of the application's EntityManager made while `call` runs. */
async function countForks<T>(call: () => Promise<T>): Promise<{ forks: number; result: T }> {
  const spy = jest.spyOn(server.db.orm.em, 'fork');
  try {
    const result = await call();
    return { result, forks: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

/** The answer as sent: status, the bytes of the body, every header but those that differ per request or with a token. */
async function raw(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.http.baseUrl}${path}`, { headers });
  const text = await res.text();
  const kept = [...res.headers].filter(([name]) => !['x-request-id', 'date', 'cache-control'].includes(name));
  return { status: res.status, headers: kept, text };
}

describe('one-statement reads without a fork', () => {
  it('store details and products: no fork, one statement, the same bytes and headers as through a fork', async () => {
    const category = await make.storeCategory({ name: 'Pizza' });
    const store = await make.store({
      category: category as never,
      description: 'Wood oven',
      hours: [1, 2, 3, 4, 5, 6, 0].map((d): [number, string, string] => [d, '09:00', '18:00']),
    });
    const menuCategory = await make.menuCategory(await make.menu(store));
    await make.product(menuCategory, { name: 'Margherita' });
    await make.product(menuCategory, { name: 'Calzone' });
    await make.offer({ storeId: store.id, startsAt: null, endsAt: null });
    for (const path of [
      `/api/v1/store/stores/${store.slug}`,
      `/api/v1/store/stores/${store.id}`,
      `/api/v1/store/products?store_id=${store.id}`,
      `/api/v1/store/stores/no-such-store`,
      `/api/v1/store/products?store_id=999999`,
    ]) {
      await raw(path); // meets the store's zone: "open now" in the same statement from here on
      const plain = await countForks(() => countStatements(server.db.orm, () => raw(path)));
      expect({ path, forks: plain.forks, statements: plain.result.count }).toEqual({ path, forks: 0, statements: 1 });
      // A token (refused: the read is public and answered as to anyone) makes the request's fork.
      const forked = await countForks(() => raw(path, { authorization: 'Bearer not-a-token' }));
      expect(forked.forks).toBe(1);
      expect(forked.result).toEqual(plain.result.result);
      expect(plain.result.result.text.length).toBeGreaterThan(20);
    }
  });

  it('reads on the request fork once there is one, and inside a transaction in that transaction', async () => {
    const store = await make.store({ name: 'Inside' });
    const services = server.app.services;
    const ctx = await createContext({ em: server.db.orm.em, services, logger: createLogger('silent'), ip: 'test' });
    expect(readerOf(ctx)).toBe(server.db.orm.em);
    const fork = ctx.em;
    expect(readerOf(ctx)).toBe(fork);
    expect(readerOf(ctx)).not.toBe(server.db.orm.em);
    // A context built by hand around a transaction reads on it: a store renamed in the
    // transaction is read renamed there, and as before outside.
    await fork
      .transactional(async (tx) => {
        await tx.execute(`update stores set name = 'Renamed' where id = ?`, [store.id]);
        const inTx = { ...ctx, em: tx, loaders: new Map() };
        expect(readerOf(inTx)).toBe(tx);
        expect((await getStoreDetails(inTx, store.id)).name).toBe('Renamed');
        // A fresh context of the application's EntityManager inside that transaction joins it too
        // (MikroORM's transaction context), as `orm.em` does anywhere in it.
        const fresh = await createContext({ em: server.db.orm.em, services, logger: createLogger('silent'), ip: 'test' });
        expect((await getStoreDetails(fresh, store.id)).name).toBe('Renamed');
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).toBe('roll back'));
    const after = await createContext({ em: server.db.orm.em, services, logger: createLogger('silent'), ip: 'test' });
    expect((await getStoreDetails(after, store.id)).name).toBe('Inside');
  });
});
