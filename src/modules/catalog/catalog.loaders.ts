/**
 * Batch loaders of the catalog: every nested list (menus -> categories -> products -> options)
 * costs one SQL statement per level, whatever the menu size. Customers see active products only.
 * They answer read-only views (src/common/row-views.ts): they feed answers, never writes.
 */
import { batchLoader, groupBy } from '../../common/batch-loader';
import { readViews, View } from '../../common/row-views';
import { MenuCategory } from './menu-category.entity';
import { ProductOptionGroup, ProductOptionValue, ProductSupplement } from './product-option.entity';
import { Product } from './product.entity';

export const categoriesOfMenu = batchLoader<number, View<MenuCategory>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, MenuCategory, 'c', 'from menu_categories c where c.menu_id in (?) order by c.sort_order asc, c.id asc', [[...keys]]),
    (c) => c.menu!.id,
  ),
);

export const activeProductsOfCategory = batchLoader<number, View<Product>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, Product, 'p', 'from products p where p.menu_category_id in (?) and p.is_active order by p.sort_order asc, p.id asc', [[...keys]]),
    (p) => p.menuCategory!.id,
  ),
);

export const optionGroupsOfProduct = batchLoader<number, View<ProductOptionGroup>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, ProductOptionGroup, 'g', 'from product_option_groups g where g.product_id in (?) order by g.sort_order asc, g.id asc', [[...keys]]),
    (g) => g.product.id,
  ),
);

export const valuesOfOptionGroup = batchLoader<number, View<ProductOptionValue>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, ProductOptionValue, 'v', 'from product_option_values v where v.group_id in (?) order by v.sort_order asc, v.id asc', [[...keys]]),
    (v) => v.group.id,
  ),
);

export const supplementsOfProduct = batchLoader<number, View<ProductSupplement>[]>(async (em, keys) =>
  groupBy(
    keys,
    await readViews(em, ProductSupplement, 's', 'from product_supplements s where s.product_id in (?) order by s.sort_order asc, s.id asc', [[...keys]]),
    (s) => s.product.id,
  ),
);
