/** Menus (spec §2.12, §4.2): customers see active menus of active stores; owners see theirs. */
import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import { conflict, invalidField, notFound } from '../../common/errors';
import { PageMeta, pageMeta, pageWindow } from '../../common/pagination';
import { applyPatch, trimmed } from '../../common/patch';
import { Context } from '../../context';
import { assertOwns, ownedStoreIds, requireOwnedStore, viewerOwns } from '../stores/ownership';
import { visibleStore } from '../stores/store.service';
import { CreateMenuInput, MenuListArgs, UpdateMenuInput } from './menu.inputs';
import { Menu } from './menu.entity';
import { Product } from './product.entity';

const ORDER = { sortOrder: 'asc', id: 'asc' } as const;

/**
 * A page of menus: of one store (all of them for its owner, else the active ones); without a
 * store, a signed-in owner's own, and anyone else's view the active menus of active stores,
 * newest first.
 */
export async function listMenus(ctx: Context, args: MenuListArgs): Promise<{ menus: Menu[]; meta: PageMeta }> {
  let where: FilterQuery<Menu>;
  let orderBy: QueryOrderMap<Menu> = ORDER;
  const owned = args.storeId == null && ctx.viewer ? await ownedStoreIds(ctx) : [];
  if (args.storeId != null) {
    const store = await visibleStore(ctx, args.storeId);
    where = viewerOwns(ctx, store) ? { store } : { store, isActive: true };
  } else if (owned.length > 0) {
    where = { store: { $in: owned } };
    orderBy = { store: 'asc', ...ORDER };
  } else {
    where = { isActive: true, store: { isActive: true } };
    orderBy = { id: 'desc' };
  }
  const [menus, total] = await ctx.em.findAndCount(Menu, where, { orderBy, ...pageWindow(args) });
  return { menus, meta: pageMeta(total, args.page, args.perPage) };
}

export async function getMenu(ctx: Context, id: number): Promise<Menu> {
  const menu = await ctx.em.findOne(Menu, { id }, { populate: ['store'] });
  if (!menu) throw notFound('Menu', id);
  const store = menu.store.getEntity();
  if (!viewerOwns(ctx, store) && !(menu.isActive && store.isActive)) throw notFound('Menu', id);
  return menu;
}

export async function createMenu(ctx: Context, input: CreateMenuInput): Promise<Menu> {
  const store = await requireOwnedStore(ctx, input.storeId);
  const menu = ctx.em.create(Menu, {
    store,
    name: input.name.trim(),
    description: input.description ?? null,
    isActive: input.isActive ?? true,
    sortOrder: input.sortOrder ?? 0,
  });
  await ctx.em.flush();
  return menu;
}

export async function updateMenu(ctx: Context, id: number, input: UpdateMenuInput): Promise<Menu> {
  const menu = await ownedMenu(ctx, id);
  if (input.storeId !== menu.store.id) {
    throw invalidField('storeId', 'storeId must be the store the menu belongs to; a menu cannot move to another store');
  }
  applyPatch(menu, { ...input, name: trimmed(input.name) }, ['name', 'description', 'isActive', 'sortOrder'], ['description']);
  await ctx.em.flush();
  return menu;
}

/** Refused with 409 while a category of the menu holds products; empty categories go with it. */
export async function deleteMenu(ctx: Context, id: number): Promise<void> {
  const menu = await ownedMenu(ctx, id);
  const products = await ctx.em.count(Product, { menuCategory: { menu } });
  if (products > 0) {
    throw conflict(`The menu still holds ${products} product(s) in its categories; move or remove them first.`);
  }
  await removeGuarded(ctx, menu, 'The menu still holds products; move or remove them first.');
}

/** Deletes; a product added meanwhile trips the foreign key, which is a 409 too, not a 500. */
export async function removeGuarded(ctx: Context, entity: object, message: string): Promise<void> {
  try {
    await ctx.em.removeAndFlush(entity);
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException) throw conflict(message);
    throw error;
  }
}

/** The menu, if the caller owns its store: 404 unknown, 403 not theirs. */
export async function ownedMenu(ctx: Context, id: number): Promise<Menu> {
  const menu = await ctx.em.findOne(Menu, { id }, { populate: ['store'] });
  if (!menu) throw notFound('Menu', id);
  assertOwns(ctx, menu.store.getEntity());
  return menu;
}
