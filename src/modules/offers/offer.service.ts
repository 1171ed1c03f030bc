import { randomBytes } from 'node:crypto';
import { forbidden, invalidField, notFound } from '../../common/errors';
import { activeWindowSql, activeWindowWhere } from '../../common/active-window';
import { EntityManager } from '@mikro-orm/postgresql';
import { viewObject } from '../../common/row-views';
import { applyPatch, trimmed } from '../../common/patch';
import { Context } from '../../context';
import { assertOwns, ownedStoreIds, requireOwnedStore, viewerOwns } from '../stores/ownership';
import { Store } from '../stores/store.entity';
import { visibleStore } from '../stores/store.service';
import { CreateOfferInput, UpdateOfferInput } from './offer.inputs';
import { Offer } from './offer.entity';

/**
 * Global offers (no store) that are live, by id: the home screen's promotional banners, as one
 * JSON column of views (src/common/row-views.ts `viewObject`; null when none) that the home
 * screen's statement reads beside its other blocks.
 */
export const activeGlobalOffersJson = (em: EntityManager) =>
  `(select json_agg(${viewObject(em, Offer, 'o')} order by o.id asc) from offers o where o.store_id is null and ${activeWindowSql('o')})`;

/**
 * Offers applicable to the store aliased `store`: its own active offers and the global ones, as
 * a JSON array (null: none) of Offer views (src/common/row-views.ts `fromJson`); the catalog
 * reads them in its one statement.
 */
export const offersForStoreJson = (em: EntityManager, store: string) =>
  `(select json_agg(${viewObject(em, Offer, 'o')} order by o.id asc) from offers o where (o.store_id = ${store}.id or o.store_id is null) and ${activeWindowSql('o')})`;

/** At most this many offers answer an unfiltered list (newest first). */
export const OFFER_LIST_LIMIT = 100;

/** Active offers: of one (visible) store, or platform-wide (global and all active stores). */
export async function listActiveOffers(ctx: Context, storeId?: number | null): Promise<Offer[]> {
  if (storeId != null) {
    const store = await visibleStore(ctx, storeId);
    return ctx.em.find(Offer, { store, ...activeWindowWhere() }, { orderBy: { id: 'asc' } });
  }
  return ctx.em.find(
    Offer,
    { $and: [{ $or: [{ store: null }, { store: { isActive: true } }] }, ...activeWindowWhere().$and] },
    { orderBy: { id: 'desc' }, limit: OFFER_LIST_LIMIT },
  );
}

/** One offer by its public token, active or not; hidden with its store when that is inactive. */
export async function getOfferByToken(ctx: Context, token: string): Promise<Offer> {
  const offer = await ctx.em.findOne(Offer, { token }, { populate: ['store'] });
  const store = offer?.store?.getEntity();
  if (!offer || (store && !store.isActive && !viewerOwns(ctx, store))) throw notFound('Offer', token);
  return offer;
}

export async function createOffer(ctx: Context, input: CreateOfferInput): Promise<Offer> {
  const store = await storeForNewOffer(ctx, input.storeId);
  checkWindow(input.startsAt ?? null, input.endsAt ?? null);
  if (input.endsAt && input.endsAt <= new Date()) throw invalidField('endsAt', 'endsAt must be in the future');
  const offer = ctx.em.create(Offer, {
    store,
    title: input.title.trim(),
    description: input.description ?? null,
    discount: input.discount,
    token: randomBytes(12).toString('base64url'),
    image: input.image ?? null,
    startsAt: input.startsAt ?? null,
    endsAt: input.endsAt ?? null,
  });
  await ctx.em.flush();
  return offer;
}

export async function updateOffer(ctx: Context, id: number, input: UpdateOfferInput): Promise<Offer> {
  const offer = await ownedOffer(ctx, id);
  applyPatch(
    offer,
    { ...input, title: trimmed(input.title) },
    ['title', 'description', 'discount', 'startsAt', 'endsAt', 'image'],
    ['description', 'startsAt', 'endsAt', 'image'],
  );
  checkWindow(offer.startsAt ?? null, offer.endsAt ?? null);
  await ctx.em.flush();
  return offer;
}

export async function deleteOffer(ctx: Context, id: number): Promise<void> {
  await ctx.em.removeAndFlush(await ownedOffer(ctx, id));
}

/** 401, then 404 unknown, then 403 unless the caller owns its store (global offers: operators only). */
async function ownedOffer(ctx: Context, id: number): Promise<Offer> {
  const offer = await ctx.em.findOne(Offer, { id }, { populate: ['store'] });
  if (!offer) throw notFound('Offer', id);
  const store = offer.store?.getEntity();
  if (!store) throw forbidden('Global offers are managed by the platform.');
  assertOwns(ctx, store);
  return offer;
}

/** The given store if owned; without one, the caller's only store (422 when they have several). */
async function storeForNewOffer(ctx: Context, storeId?: number | null): Promise<Store> {
  if (storeId != null) return requireOwnedStore(ctx, storeId);
  const owned = await ownedStoreIds(ctx);
  if (owned.length === 0) throw forbidden('Only store owners can create offers.');
  if (owned.length > 1) throw invalidField('storeId', 'storeId is required when you own more than one store');
  return ctx.em.findOneOrFail(Store, { id: owned[0] });
}

function checkWindow(startsAt: Date | null, endsAt: Date | null): void {
  if (startsAt && endsAt && endsAt <= startsAt) throw invalidField('endsAt', 'endsAt must be after startsAt');
}
