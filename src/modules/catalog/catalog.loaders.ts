/**
 * Batch loaders of the catalog: every nested list (menus -> categories -> products -> options)
 * costs one SQL statement per level, whatever the menu size. Customers see active products only.
 */
import { batchLoader, groupBy, inKeys } from '../../common/batch-loader';
import { MenuCategory } from './menu-category.entity';
import { ProductOptionGroup, ProductOptionValue, ProductSupplement } from './product-option.entity';
import { Product } from './product.entity';

export const categoriesOfMenu = batchLoader<number, MenuCategory[]>(async (em, keys) =>
  groupBy(keys, await em.find(MenuCategory, { menu: inKeys(keys) }, { orderBy: { sortOrder: 'asc', id: 'asc' } }), (c) => c.menu!.id),
);

export const activeProductsOfCategory = batchLoader<number, Product[]>(async (em, keys) =>
  groupBy(
    keys,
    await em.find(Product, { menuCategory: inKeys(keys), isActive: true }, { orderBy: { sortOrder: 'asc', id: 'asc' } }),
    (p) => p.menuCategory!.id,
  ),
);

export const optionGroupsOfProduct = batchLoader<number, ProductOptionGroup[]>(async (em, keys) =>
  groupBy(keys, await em.find(ProductOptionGroup, { product: inKeys(keys) }, { orderBy: { sortOrder: 'asc', id: 'asc' } }), (g) => g.product.id),
);

export const valuesOfOptionGroup = batchLoader<number, ProductOptionValue[]>(async (em, keys) =>
  groupBy(keys, await em.find(ProductOptionValue, { group: inKeys(keys) }, { orderBy: { sortOrder: 'asc', id: 'asc' } }), (v) => v.group.id),
);

export const supplementsOfProduct = batchLoader<number, ProductSupplement[]>(async (em, keys) =>
  groupBy(keys, await em.find(ProductSupplement, { product: inKeys(keys) }, { orderBy: { sortOrder: 'asc', id: 'asc' } }), (s) => s.product.id),
);
