/**
 * Store details, store products, the catalog and the ads send their one statement without forking an EntityManager
 * for the request (context.ts `readerOf`: the fork is made when something first reads
 * `ctx.em`), and answer the same bytes as when the request has its fork (an Authorization
 * header makes one: the token is checked on it, and the read then goes through that fork, the
 * path every read took before). A read inside a transaction stays in it.
 */
import { Factory } from './helpers/factories';
import { countStatements } from './helpers/statements';
import { useTestServer } from './helpers/setup';
import { TestServer } from './helpers/server';
import { Context, createContext, readerOf } from '../src/context';
import { EntityManager } from '@mikro-orm/postgresql';
import { getStoreDetails } from '../src/modules/stores/store-details';
import { catalog } from '../src/modules/catalog/catalog.service';
import { activeAds } from '../src/modules/ads/ad.service';
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

/** A request's context on the application's EntityManager, as the REST adapter makes one (no fork until `ctx.em` is read). */
const freshContext = () =>
  createContext({ em: server.db.orm.em, services: server.app.services, logger: createLogger('silent'), ip: 'test' });

/**
 * Where a one-statement read runs: without a fork it makes none; once the request has its fork
 * it sends its one prepared statement there; inside a transaction begun on that fork (`write`
 * changes the data) a context built around the transaction and a fresh one both read `inside`;
 * after the rollback, `before` again.
 */
async function readsWhereTheRequestIs<T>(
  read: (ctx: Context) => Promise<T>,
  write: (tx: EntityManager) => Promise<void>,
  { before, inside }: { before: T; inside: T },
): Promise<void> {
  const { forks } = await countForks(async () => read(await freshContext()));
  expect(forks).toBe(0);
  const ctx = await freshContext();
  const fork = ctx.em as AppEntityManager;
  const onFork = jest.spyOn(fork, 'executePrepared');
  expect(await read(ctx)).toEqual(before);
  expect(onFork).toHaveBeenCalledTimes(1);
  onFork.mockRestore();
  await fork
    .transactional(async (tx) => {
      await write(tx);
      expect(await read({ ...ctx, em: tx, loaders: new Map() })).toEqual(inside);
      expect(await read(await freshContext())).toEqual(inside);
      throw new Error('roll back');
    })
    .catch((error: Error) => expect(error.message).toBe('roll back'));
  expect(await read(await freshContext())).toEqual(before);
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
    const ctx = await freshContext();
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
        const fresh = await freshContext();
        expect((await getStoreDetails(fresh, store.id)).name).toBe('Renamed');
        throw new Error('roll back');
      })
      .catch((error: Error) => expect(error.message).toBe('roll back'));
    const after = await freshContext();
    expect((await getStoreDetails(after, store.id)).name).toBe('Inside');
  });

  it('the catalog reads on the request fork once there is one, and inside a transaction in that transaction', async () => {
    const { store } = await make.storeWithProducts(1, { name: 'Inside' }, { name: 'Before' });
    const names = async (ctx: Context) => {
      const read = await catalog(ctx, store.id);
      // The tree's levels as its statement primed them (no statement of their own).
      const [category] = categoriesOfMenu(ctx).primed(read.menus[0].id) ?? [];
      const products = activeProductsOfCategory(ctx).primed(category.id) ?? [];
      return { store: read.store.name, products: products.map((p) => p.name) };
    };
    await readsWhereTheRequestIs(
      names,
      async (tx) => {
        await tx.execute(`update stores set name = 'Renamed' where id = ?`, [store.id]);
        await tx.execute(`update products set name = 'After' where store_id = ?`, [store.id]);
      },
      { before: { store: 'Inside', products: ['Before'] }, inside: { store: 'Renamed', products: ['After'] } },
    );
  });

  it('the ads: no fork, one statement, the same bytes and headers as through a fork; the live ones only, in order', async () => {
    const store = await make.store();
    await make.ad({ title: 'Second', sortOrder: 2, startsAt: new Date(Date.now() - 60_000), endsAt: new Date(Date.now() + 3_600_000) });
    await make.ad({ title: 'First', sortOrder: 1, redirectType: 'store_screen', store: store as never });
    await make.ad({ title: 'Off', isActive: false });
    await make.ad({ title: 'Later', startsAt: new Date(Date.now() + 3_600_000) });
    await make.ad({ title: 'Ended', endsAt: new Date(Date.now() - 1000) });
    const path = '/api/v1/global/ads';
    const plain = await countForks(() => countStatements(server.db.orm, () => raw(path)));
    expect({ forks: plain.forks, statements: plain.result.count }).toEqual({ forks: 0, statements: 1 });
    const forked = await countForks(() => raw(path, { authorization: 'Bearer not-a-token' }));
    expect(forked.forks).toBe(1);
    expect(forked.result).toEqual(plain.result.result);
    const ads = JSON.parse(plain.result.result.text).data as { title: string; store_id: number | null }[];
    expect(ads.map((a) => [a.title, a.store_id])).toEqual([
      ['First', store.id],
      ['Second', null],
    ]);
  });

  it("the ads read on the request fork once there is one, in a transaction in it, and their window is that transaction's now()", async () => {
    const kept = await make.ad({ title: 'Kept', sortOrder: 1 });
    const ending = await make.ad({ title: 'Ending', sortOrder: 2 });
    const starting = await make.ad({ title: 'Starting', sortOrder: 3 });
    const titles = async (ctx: Context) => (await activeAds(ctx)).map((a) => a.title);
    await readsWhereTheRequestIs(
      titles,
      async (tx) => {
        await tx.execute(`update ads set title = 'Renamed' where id = ?`, [kept.id]);
        // Ends and starts after the transaction began, before the read: now() is the
        // transaction's start, so the one still runs and the other has not started (a clock
        // read at the request would say the opposite of both).
        await tx.execute(`update ads set ends_at = clock_timestamp() where id = ?`, [ending.id]);
        await tx.execute(`update ads set starts_at = clock_timestamp() where id = ?`, [starting.id]);
        await tx.execute(`select pg_sleep(0.05)`);
      },
      { before: ['Kept', 'Ending', 'Starting'], inside: ['Renamed', 'Ending'] },
    );
  });
});
