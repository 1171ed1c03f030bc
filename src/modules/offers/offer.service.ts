import { FilterQuery } from '@mikro-orm/core';
import { EntityManager } from '@mikro-orm/postgresql';
import { Offer } from './offer.entity';

/** An offer is active while now is inside [startsAt, endsAt); open ends are allowed. */
export function activeOfferWhere(now = new Date()): { $and: FilterQuery<Offer>[] } {
  return {
    $and: [{ $or: [{ startsAt: null }, { startsAt: { $lte: now } }] }, { $or: [{ endsAt: null }, { endsAt: { $gt: now } }] }],
  };
}

/** The same rule in SQL, for queries over stores (`o` is the offers alias). */
export const ACTIVE_OFFER_SQL = `(o.starts_at is null or o.starts_at <= now()) and (o.ends_at is null or o.ends_at > now())`;

/** Global offers (no store): the home screen's promotional banners. */
export async function activeGlobalOffers(em: EntityManager): Promise<Offer[]> {
  return em.find(Offer, { store: null, ...activeOfferWhere() }, { orderBy: { id: 'asc' } });
}

/** Offers applicable to one store: its own active offers and the global ones. */
export async function activeOffersForStore(em: EntityManager, storeId: number): Promise<Offer[]> {
  return em.find(
    Offer,
    { $and: [{ $or: [{ store: storeId }, { store: null }] }, activeOfferWhere()] },
    { orderBy: { id: 'asc' } },
  );
}
