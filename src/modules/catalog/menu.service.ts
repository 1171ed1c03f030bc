/** Menus (spec §2.12, §4.2): customers see active menus of active stores; owners see theirs. */
import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { conflict, invalidField, notFound, validationFailed } from '../../common/errors';
import { applyPatch, trimmed } from '../../common/patch';
import { Context } from '../../context';
import { requireViewer } from '../auth/token.service';
import { assertOwns, ownedStoreIds, requireOwnedStore, viewerOwns } from '../stores/ownership';
import { visibleStore } from '../stores/store.service';
import { CreateMenuInput, UpdateMenuInput } from './menu.inputs';
import { Menu } from './menu.entity';
import { Product } from './product.entity';

const ORDER = { sortOrder: 'asc', id: 'asc' } as const;

/** Menus of one store, or without a store those of the caller's own stores. */
export async function listMenus(ctx: Context, storeId?: number | null): Promise<Menu[]> {
  if (storeId == null) {
    if (!ctx.viewer) throw validationFailed({ storeId: ['storeId is required unless signed in as a store owner'] });
    return ctx.em.find(Menu, { store: { $in: await ownedStoreIds(ctx) } }, { orderBy: { store: 'asc', ...ORDER } });
  }
  const store = await visibleStore(ctx, storeId);
  const owner = viewerOwns(ctx, store);
  return ctx.em.find(Menu, owner ? { store } : { store, isActive: true }, { orderBy: ORDER });
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
  requireViewer(ctx.viewer, ctx.authError);
  const menu = await ctx.em.findOne(Menu, { id }, { populate: ['store'] });
  if (!menu) throw notFound('Menu', id);
  assertOwns(ctx, menu.store.getEntity());
  return menu;
}
