/**
 * GET /api/v1/stores/nearby with no statement per request (issue 9, docs/decisions.md "City
 * scale: is the share reachable without a statement?"): the `memory` server of
 * scripts/bench-servers.ts, a bench-only experiment, not a twin of the service's work. Plain
 * Express 5; the reach index (the service's own loader) counts and picks the page's
 * candidates, as the nearby twin's does, and a Map of every active store's card, read once at
 * start-up (the page statement's store columns, its `earth` coordinates and its category's
 * name), stands in for the page statement: distances in JS (earth_distance's formula), the
 * sort's exact order on the candidates, "open now" from the index, the same JSON by hand.
 *
 * Not exact where the service hands over to PostgreSQL: a store within a micrometre of its
 * boundary (the index answers null: this server answers 500, rare) and distances that tie to
 * the last bit (JS's asin against PostgreSQL's). Nothing is refreshed: the bench writes nothing.
 */
import express from 'express';
import { EntityManager } from '@mikro-orm/postgresql';
import { viewColumns } from '../../src/common/row-views';
import { openDatabase } from '../../src/db/orm';
import { EARTH_M, earthPoint, ReachAnswers, ReachSort } from '../../src/modules/stores/reach/reach-index';
import { reachIndex } from '../../src/modules/stores/reach/reach-loader';
import { Store } from '../../src/modules/stores/store.entity';
import { nearbyRequest } from './nearby';
import { kmOf, Row, storeSummary } from './twin';

/** A store's card as the page statement reads it, with its `earth` cube and category name. */
type Card = Row & { id: number; x: number; y: number; z: number; categoryName: string | null };

/** store-query.ts ORDER_BY on cards: negative when a comes first (before distance and id). */
const ORDER: Record<ReachSort, (a: Card, b: Card) => number> = {
  distance: () => 0,
  rating: (a, b) => (b.rating as number) - (a.rating as number) || (b.ratingCount as number) - (a.ratingCount as number),
  delivery_fee: (a, b) => fee(a) - fee(b),
  delivery_time: (a, b) => (a.deliveryTime as number) - (b.deliveryTime as number),
};
const fee = (c: Card) => (c.freeDelivery ? 0 : (c.deliveryPriceCents as number));

/** Every active store's card by id (one statement, at start-up). */
export async function readCards(em: EntityManager): Promise<Map<number, Card>> {
  const cards = await em.execute<Card[]>(
    `select ${viewColumns(em, Store, 's')},
            cube_ll_coord(s.earth, 1) as x, cube_ll_coord(s.earth, 2) as y, cube_ll_coord(s.earth, 3) as z,
            (select c.name from store_categories c where c.id = s.category_id) as "categoryName"
       from stores s where s.is_active and s.earth is not null`,
  );
  return new Map(cards.map((c) => [c.id, c]));
}

/** The page `{ stores, meta }` of a nearby request from the index and the cards; null when the index cannot decide it. */
export function nearbyFromMemory(index: ReachAnswers, cards: Map<number, Card>, req: express.Request): Row | null {
  const { sort, page, perPage, limit, offset, query, clocks } = nearbyRequest(index, req);
  const picked = index.page(query, sort, offset, limit);
  if (!picked) return null;
  const [px, py, pz] = earthPoint(query.lat, query.lng);
  const found = picked.candidates.map((id) => {
    const card = cards.get(id)!;
    const dx = card.x - px;
    const dy = card.y - py;
    const dz = card.z - pz;
    // earth_distance: the great circle of the cubes' chord.
    return { card, metres: 2 * EARTH_M * Math.asin(Math.min(1, Math.sqrt(dx * dx + dy * dy + dz * dz) / (2 * EARTH_M))) };
  });
  const order = ORDER[sort];
  found.sort((a, b) => order(a.card, b.card) || a.metres - b.metres || a.card.id - b.card.id);
  const shown = found.slice(picked.skip, picked.skip + limit);
  const open = index.openNow(
    shown.map((s) => s.card.id),
    clocks.weeks,
  );
  return {
    stores: shown.map((s, k) => storeSummary(s.card, s.card.categoryName, kmOf(s.metres), open[k] ?? false)),
    meta: { total: picked.total, per_page: perPage, current_page: page, last_page: Math.max(1, Math.ceil(picked.total / perPage)) },
  };
}

/** The memory server's app: the index and the cards read once, then no database at all. */
export async function memoryApp(databaseUrl: string): Promise<{ app: express.Express; cards: number }> {
  const db = await openDatabase({ databaseUrl, poolMax: 2, migrate: false });
  let index: ReachAnswers | null;
  let cards: Map<number, Card>;
  try {
    const em = db.orm.em.fork() as EntityManager;
    index = await reachIndex(em, { wait: true });
    cards = await readCards(em);
  } finally {
    await db.close();
  }
  if (!index) throw new Error('memory twin: the reach index could not be built');
  const reach = index;
  const app = express();
  app.get('/api/v1/stores/nearby', (req, res) => {
    const data = nearbyFromMemory(reach, cards, req);
    if (data === null) res.status(500).json({ success: false, message: 'memory twin: a store at the index boundary' });
    else res.json({ success: true, data });
  });
  return { app, cards: cards.size };
}
