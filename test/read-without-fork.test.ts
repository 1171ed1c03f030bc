/**
 * Store details, store products and the catalog send their one statement without forking an EntityManager
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
import { catalog } from '../src/modules/catalog/catalog.service';
import { activeProductsOfCategory, categoriesOfMenu } from '../src/modules/catalog/catalog.loaders';
import { createLogger } from '../src/common/logger';
import { makeOwner } from './helpers/owners';
import { AppEntityManager } from '../src/db/entity-manager';

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
  it('store details, products and the catalog: no fork, one statement, the same bytes and headers as through a fork', async () => {
    const category = await make.storeCategory({ name: 'Pizza' });
    const store = await make.store({
      category: category as never,
      description: 'Wood oven',
      hours: [1, 2, 3, 4, 5, 6, 0].map((d): [number, string, string] => [d, '09:00', '18:00']),
    });
    const menuCategory = await make.menuCategory(await make.menu(store));
    const margherita = await make.product(menuCategory, { name: 'Margherita' });
    await make.product(menuCategory, { name: 'Calzone' });
    await make.optionGroup(margherita);
    await make.supplement(margherita);
    await make.menu(store, { name: 'Brunch', isActive: false });
    await make.offer({ storeId: store.id, startsAt: null, endsAt: null });
    await make.offer({ title: 'Everywhere', startsAt: null, endsAt: null });
    const inactive = await make.store({ isActive: false });
    for (const path of [
      `/api/v1/store/stores/${store.slug}`,
      `/api/v1/store/stores/${store.id}`,
      `/api/v1/store/products?store_id=${store.id}`,
      `/api/v1/store/stores/${store.id}/catalog`,
      `/api/v1/store/stores/no-such-store`,
      `/api/v1/store/products?store_id=999999`,
      `/api/v1/store/stores/999999/catalog`,
      `/api/v1/store/stores/${inactive.id}/catalog`,
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

  it("the catalog: an owner's token changes nothing (inactive menus and an inactive store stay hidden), no fork without one", async () => {
    const owner = await makeOwner(server, make, { name: 'Owned' });
    const menu = await make.menu(owner.store, { name: 'Shown' });
    await make.product(await make.menuCategory(menu), { name: 'Visible' });
    await make.product(await make.menuCategory(await make.menu(owner.store, { name: 'Hidden', isActive: false })), { name: 'Unseen' });
    const path = `/api/v1/store/stores/${owner.store.id}/catalog`;
    const anonymous = await countForks(() => raw(path));
    expect(anonymous.forks).toBe(0);
    const owned = await countForks(() => raw(path, { authorization: `Bearer ${owner.token}` }));
    expect(owned.forks).toBe(1);
    expect(owned.result).toEqual(anonymous.result);
    expect(JSON.parse(anonymous.result.text).data.menus.map((m: { name: string }) => m.name)).toEqual(['Shown']);
    await server.db.orm.em.fork().execute(`update stores set is_active = false where id = ?`, [owner.store.id]);
    const closed = await raw(path);
    expect(closed.status).toBe(404);
    expect(await raw(path, { authorization: `Bearer ${owner.token}` })).toEqual(closed);
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

  it('the catalog reads on the request fork once there is one, and inside a transaction in that transaction', async () => {
    const { store } = await make.storeWithProducts(1, { name: 'Inside' }, { name: 'Before' });
    const services = server.app.services;
    const context = () => createContext({ em: server.db.orm.em, services, logger: createLogger('silent'), ip: 'test' });
    const names = async (ctx: Parameters<typeof catalog>[0]) => {
      const read = await catalog(ctx, store.id);
      // The tree's levels as its statement primed them (no statement of their own).
      const [category] = categoriesOfMenu(ctx).primed(read.menus[0].id) ?? [];
      const products = activeProductsOfCategory(ctx).primed(category.id) ?? [];
      return { store: read.store.name, products: products.map((p) => p.name) };
    };
    const plain = await context();
    const { forks } = await countForks(() => names(plain));
    expect(forks).toBe(0);
    const ctx = await context();
    const fork = ctx.em as AppEntityManager;
    const onFork = jest.spyOn(fork, 'executePrepared');
    expect(await names(ctx)).toEqual({ store: 'Inside', products: ['Before'] });
    expect(onFork).toHaveBeenCalledTimes(1);
    onFork.mockRestore();
    await fork
      .transactional(async (tx) => {
        await tx.execute(`update stores set name = 'Renamed' where id = ?`, [store.id]);
        await tx.execute(`update products set name = 'After' where store_id = ?`, [store.id]);
        // A context built by hand around the transaction reads on it.
        expect(await names({ ...ctx, em: tx, loaders: new Map() })).toEqual({ store: 'Renamed', products: ['After'] });
        // A fresh context without a fork joins it through the application's EntityManager.
        expect(await names(await context())).toEqual({ store: 'Renamed', products: ['After'] });
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).toBe('roll back'));
    expect(await names(await context())).toEqual({ store: 'Inside', products: ['Before'] });
  });
});
