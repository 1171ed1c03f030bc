/**
 * Menu categories (spec §2.13): a store's sections, optionally placed in a menu. The spec's
 * "store categories" of §4.2 are the same rows seen store by store (docs/decisions.md).
 */
import { FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import { conflict, invalidField, notFound } from '../../common/errors';
import { PageMeta, pageMeta, pageWindow } from '../../common/pagination';
import { applyPatch, trimmed } from '../../common/patch';
import { Context } from '../../context';
import { assertOwns, ownedStoreIds, requireOwnedStore, viewerOwns } from '../stores/ownership';
import { Store } from '../stores/store.entity';
import { visibleStore } from '../stores/store.service';
import { CreateMenuCategoryInput, MenuCategoryListArgs, UpdateMenuCategoryInput } from './menu-category.inputs';
import { MenuCategory } from './menu-category.entity';
import { getMenu, removeGuarded } from './menu.service';
import { Menu } from './menu.entity';
import { Product } from './product.entity';

const ORDER = { sortOrder: 'asc', id: 'asc' } as const;

/**
 * A page of categories: of a menu, or of a store (customers see those in active menus);
 * without either, a signed-in owner's own, and anyone else's view those in active menus of
 * active stores, newest first.
 */
export async function listMenuCategories(
  ctx: Context,
  args: MenuCategoryListArgs,
): Promise<{ menuCategories: MenuCategory[]; meta: PageMeta }> {
  let where: FilterQuery<MenuCategory>;
  let orderBy: QueryOrderMap<MenuCategory> = ORDER;
  const owned = args.menuId == null && args.storeId == null && ctx.viewer ? await ownedStoreIds(ctx) : [];
  if (args.menuId != null) {
    where = { menu: await getMenu(ctx, args.menuId) };
  } else if (args.storeId != null) {
    const store = await visibleStore(ctx, args.storeId);
    where = viewerOwns(ctx, store) ? { store } : { store, menu: { isActive: true } };
  } else if (owned.length > 0) {
    where = { store: { $in: owned } };
    orderBy = { store: 'asc', ...ORDER };
  } else {
    where = { menu: { isActive: true }, store: { isActive: true } };
    orderBy = { id: 'desc' };
  }
  const [menuCategories, total] = await ctx.em.findAndCount(MenuCategory, where, { orderBy, ...pageWindow(args) });
  return { menuCategories, meta: pageMeta(total, args.page, args.perPage) };
}

/** The caller's own categories: of one of their stores, or of all of them. */
export async function ownedMenuCategories(ctx: Context, storeId?: number | null): Promise<MenuCategory[]> {
  const stores = storeId != null ? [(await requireOwnedStore(ctx, storeId)).id] : await ownedStoreIds(ctx);
  return ctx.em.find(MenuCategory, { store: { $in: stores } }, { orderBy: { store: 'asc', ...ORDER } });
}

export async function getMenuCategory(ctx: Context, id: number): Promise<MenuCategory> {
  const category = await ctx.em.findOne(MenuCategory, { id }, { populate: ['store', 'menu'] });
  if (!category) throw notFound('MenuCategory', id);
  const store = category.store.getEntity();
  const menu = category.menu?.getEntity();
  if (!viewerOwns(ctx, store) && !(store.isActive && menu?.isActive)) throw notFound('MenuCategory', id);
  return category;
}

export async function createMenuCategory(ctx: Context, input: CreateMenuCategoryInput): Promise<MenuCategory> {
  let store: Store;
  let menu: Menu | null = null;
  if (input.menuId != null) {
    menu = await ctx.em.findOne(Menu, { id: input.menuId }, { populate: ['store'] });
    if (!menu) throw notFound('Menu', input.menuId);
    store = menu.store.getEntity();
    assertOwns(ctx, store);
    if (input.storeId != null && input.storeId !== store.id) throw invalidField('storeId', 'storeId must be the store of the menu');
  } else if (input.storeId != null) {
    store = await requireOwnedStore(ctx, input.storeId);
  } else {
    throw invalidField('storeId', 'storeId is required when menuId is not given');
  }
  const category = ctx.em.create(MenuCategory, { store, menu, name: input.name.trim(), sortOrder: input.sortOrder ?? 0 });
  await ctx.em.flush();
  return category;
}

export async function updateMenuCategory(ctx: Context, id: number, input: UpdateMenuCategoryInput): Promise<MenuCategory> {
  const category = await ownedMenuCategory(ctx, id);
  if (input.menuId != null && input.menuId !== category.menu?.id) {
    const menu = await ctx.em.findOne(Menu, { id: input.menuId });
    if (!menu) throw notFound('Menu', input.menuId);
    if (menu.store.id !== category.store.id) throw invalidField('menuId', 'menuId must be a menu of the same store');
    category.menu = ctx.em.getReference(Menu, menu.id) as never;
  } else if (input.menuId === null) {
    category.menu = null;
  }
  applyPatch(category, { ...input, name: trimmed(input.name) }, ['name', 'sortOrder']);
  await ctx.em.flush();
  return category;
}

/** Refused with 409 while it holds products (no orphans, nothing lost by accident). */
export async function deleteMenuCategory(ctx: Context, id: number): Promise<void> {
  const category = await ownedMenuCategory(ctx, id);
  const products = await ctx.em.count(Product, { menuCategory: category });
  if (products > 0) throw conflict(`The category still holds ${products} product(s); move or remove them first.`);
  await removeGuarded(ctx, category, 'The category still holds products; move or remove them first.');
}

/** The category, if the caller owns its store: 401, then 404 unknown, then 403 not theirs. */
export async function ownedMenuCategory(ctx: Context, id: number): Promise<MenuCategory> {
  const category = await ctx.em.findOne(MenuCategory, { id }, { populate: ['store'] });
  if (!category) throw notFound('MenuCategory', id);
  assertOwns(ctx, category.store.getEntity());
  return category;
}
