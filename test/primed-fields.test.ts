/**
 * The nested lists of the catalog and of store details answer what their statement primed
 * without a promise (batch-loader.ts PrimedLoader.primed): the executor then completes the
 * answer synchronously instead of waiting on one promise per menu, category, product and option
 * group (docs/decisions.md "City scale: the small reads' cost over their twins"). A key nothing
 * primed still goes to its loader (a promise). Which rows are primed, and that the answers are
 * the same bytes, is test/store-reads.test.ts's.
 */
import 'reflect-metadata';
import { Context } from '../src/context';
import {
  activeProductsOfCategory,
  categoriesOfMenu,
  optionGroupsOfProduct,
  supplementsOfProduct,
  valuesOfOptionGroup,
} from '../src/modules/catalog/catalog.loaders';
import {
  MenuCategoryFieldsResolver,
  MenuFieldsResolver,
  OptionGroupFieldsResolver,
  ProductFieldsResolver,
} from '../src/modules/catalog/catalog.resolver';
import { activeOffersOfStore } from '../src/modules/offers/offer.loaders';
import { StoreOffersFieldResolver } from '../src/modules/offers/offer.resolver';
import { openingHoursOfStore } from '../src/modules/stores/store.loaders';
import { StoreResolver } from '../src/modules/stores/store.resolver';

type Field = (root: { id: number }, ctx: Context) => unknown;
type Loader = (ctx: Context) => { prime(key: number, value: never): unknown };

const fields: [string, Field, Loader][] = [
  ['Menu.categories', (r, c) => new MenuFieldsResolver().categories(r as never, c), categoriesOfMenu],
  ['MenuCategory.products', (r, c) => new MenuCategoryFieldsResolver().products(r as never, c), activeProductsOfCategory],
  ['Product.optionGroups', (r, c) => new ProductFieldsResolver().optionGroups(r as never, c), optionGroupsOfProduct],
  ['Product.supplements', (r, c) => new ProductFieldsResolver().supplements(r as never, c), supplementsOfProduct],
  ['ProductOptionGroup.values', (r, c) => new OptionGroupFieldsResolver().values(r as never, c), valuesOfOptionGroup],
  ['Store.openingHours', (r, c) => new StoreResolver().openingHours(r as never, c), openingHoursOfStore],
  ['Store.offers', (r, c) => new StoreOffersFieldResolver().offers(r as never, c), activeOffersOfStore],
];

// No database: a key that is not primed reaches the loader's batch, which fails on this em.
const context = () => ({ em: {}, loaders: new Map() }) as unknown as Context;

describe.each(fields)('%s', (_name, field, loader) => {
  it('answers primed rows as they are, without a promise', () => {
    const ctx = context();
    const rows = [{ id: 7 }];
    const empty: object[] = [];
    loader(ctx).prime(1, rows as never);
    loader(ctx).prime(2, empty as never);
    expect(field({ id: 1 }, ctx)).toBe(rows);
    expect(field({ id: 2 }, ctx)).toBe(empty);
  });

  it('loads a key nothing primed', async () => {
    const answer = field({ id: 3 }, context()) as Promise<unknown>;
    expect(typeof answer.then).toBe('function');
    await answer.catch(() => undefined);
  });
});
