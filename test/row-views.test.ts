/**
 * Row views (src/common/row-views.ts, issue 9 "per-request cost"): every entity the hot reads
 * answer as a view reads, field for field and getter for getter, what the ORM's entity holds,
 * on a seeded demo city (dates, nulls, many-to-ones, doubles, times). The REST and GraphQL
 * answers built on them are covered by the catalog, discovery and store tests.
 */
import 'reflect-metadata';
import { EntityClass, ReferenceKind, wrap } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Database } from '../src/db/orm';
import { CASABLANCA, refreshAfterBulkLoad, seedDemoCity } from '../src/db/seed/demo-city';
import { fromJson, fromJsonArrays, readViews, viewArray, viewObject } from '../src/common/row-views';
import { Ad } from '../src/modules/ads/ad.entity';
import { Menu } from '../src/modules/catalog/menu.entity';
import { MenuCategory } from '../src/modules/catalog/menu-category.entity';
import { ProductOptionGroup, ProductOptionValue, ProductSupplement } from '../src/modules/catalog/product-option.entity';
import { Product } from '../src/modules/catalog/product.entity';
import { Offer } from '../src/modules/offers/offer.entity';
import { OpeningHours } from '../src/modules/stores/opening-hours.entity';
import { MainCategory } from '../src/modules/stores/main-category.entity';
import { StoreCategory } from '../src/modules/stores/store-category.entity';
import { Store } from '../src/modules/stores/store.entity';
import { openTestDatabase } from './helpers/database';

let db: Database;
const em = (): EntityManager => db.orm.em.fork();

beforeAll(async () => {
  db = await openTestDatabase();
  await seedDemoCity(em(), { stores: 40, seed: 5, center: CASABLANCA });
  await refreshAfterBulkLoad(em());
}, 120_000);

afterAll(async () => {
  await db?.close();
});

/** The getters a GraphQL type answers from (deliveryPrice, storeId, price...), up the class chain. */
function gettersOf(entity: EntityClass<object>): string[] {
  const names: string[] = [];
  for (let proto = entity.prototype as object; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object) {
    for (const [name, d] of Object.entries(Object.getOwnPropertyDescriptors(proto))) if (d.get && !name.startsWith('__')) names.push(name);
  }
  return names;
}

const tables: [EntityClass<object>, string][] = [
  [Ad, 'ads'],
  [Store, 'stores'],
  [MainCategory, 'main_categories'],
  [StoreCategory, 'store_categories'],
  [OpeningHours, 'store_opening_hours'],
  [Offer, 'offers'],
  [Menu, 'menus'],
  [MenuCategory, 'menu_categories'],
  [Product, 'products'],
  [ProductOptionGroup, 'product_option_groups'],
  [ProductOptionValue, 'product_option_values'],
  [ProductSupplement, 'product_supplements'],
];

describe('row views', () => {
  it.each(tables)('%p: every field, relation id and getter equals the entity', async (entity, table) => {
    const views = await readViews(em(), entity, 't', `from ${table} t order by t.id limit 400`);
    const entities = (await em().find(entity, {}, { orderBy: { id: 'asc' } as never, limit: 400 })) as Record<string, unknown>[];
    expect(views.length).toBeGreaterThan(0);
    expect(views.map((v) => (v as { id: number }).id)).toEqual(entities.map((e) => e.id));
    const meta = db.orm.getMetadata().get(entity.name);
    const getters = gettersOf(entity);
    expect(getters.length + meta.props.length).toBeGreaterThan(1);
    views.forEach((view, i) => {
      const v = view as Record<string, unknown>;
      const e = entities[i];
      expect(view).toBeInstanceOf(entity);
      for (const prop of meta.props) {
        if (prop.lazy || prop.persist === false) continue;
        if (prop.kind === ReferenceKind.MANY_TO_ONE) {
          expect([prop.name, (v[prop.name] as { id: number } | null)?.id ?? null]).toEqual([
            prop.name,
            (e[prop.name] as { id: number } | null)?.id ?? null,
          ]);
        } else if (prop.kind === ReferenceKind.SCALAR) {
          expect([prop.name, v[prop.name]]).toEqual([prop.name, e[prop.name]]);
        }
      }
      for (const getter of getters) expect([getter, v[getter]]).toEqual([getter, e[getter]]);
      expect(wrap(e, true).__managed).toBe(true);
    });
  });

  it.each(tables)('%p: a view read as a JSON object or a JSON array equals the row view', async (entity, table) => {
    const m = em();
    const rows = await m.execute<{ object: object; array: unknown[] }[]>(
      `select ${viewObject(m, entity, 't')} as object, ${viewArray(m, entity, 't')} as array from ${table} t order by t.id limit 400`,
    );
    const views = await readViews(m, entity, 't', `from ${table} t order by t.id limit 400`);
    const arrays = fromJsonArrays(
      m,
      entity,
      rows.map((r) => r.array),
    );
    expect(arrays).toEqual(views);
    expect(arrays).toEqual(
      fromJson(
        m,
        entity,
        rows.map((r) => r.object),
      ),
    );
    arrays.forEach((view, i) => {
      expect(Object.getPrototypeOf(view)).toBe(entity.prototype);
      expect(Object.keys(view)).toEqual(Object.keys(views[i]));
    });
  });

  it('covers dates that are set and nulls (the seeded city has offers with windows)', async () => {
    const offers = await readViews(em(), Offer, 'o', 'from offers o where o.starts_at is not null and o.store_id is not null');
    expect(offers.length).toBeGreaterThan(0);
    expect(offers[0].startsAt).toBeInstanceOf(Date);
    expect(offers[0].storeId).toEqual(expect.any(Number));
  });
});
