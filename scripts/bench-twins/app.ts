/**
 * The hand-written twins of the service's read paths (and of its two write paths, driver
 * positions and checkouts) as one plain Express 5 app on a `pg`
 * pool (the `hand` server of scripts/bench-servers.ts): each route runs the statement(s) the
 * service sends for it and shapes the same JSON by hand (the bench compares the bytes), so the
 * service's cost over its twin is the gateway's own: Express routing and middleware, GraphQL
 * execution, MikroORM, the REST adapter.
 *
 * At start-up only, MikroORM is opened to build what the service derives from its metadata
 * (the view select lists of src/common/row-views.ts, as constant texts) and to build the reach
 * index nearby counts with (src/modules/stores/reach/reach-loader.ts, the service's own
 * loader), then closed: requests never touch it.
 */
import express from 'express';
import { Pool } from 'pg';
import { EntityManager } from '@mikro-orm/postgresql';
import { viewArray, viewColumns, viewObject } from '../../src/common/row-views';
import { Config, loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/orm';
import { activeAdsSql } from '../../src/modules/ads/ad-query';
import { catalogSql } from '../../src/modules/catalog/catalog.service';
import { Product } from '../../src/modules/catalog/product.entity';
import { activeOffersJson } from '../../src/modules/offers/offer.loaders';
import { activeGlobalOffersJson } from '../../src/modules/offers/offer.service';
import { ReachAnswers } from '../../src/modules/stores/reach/reach-index';
import { REACH_SNAPSHOT_SQL, REACH_VERSION_SQL, reachIndex } from '../../src/modules/stores/reach/reach-loader';
import { Store } from '../../src/modules/stores/store.entity';
import { openingHoursJson, storeCategoryJson } from '../../src/modules/stores/store.loaders';
import { mainCategoriesJson, storeCategoriesJson } from '../../src/modules/stores/store.service';
import { catalog, CatalogTexts, storeProducts } from './catalog';
import { checkoutRoute } from './checkout';
import { ads, DetailsTexts, storeDetails } from './details';
import { DiscoveryTexts, home, search } from './discovery';
import { nearby, NearbyTexts } from './nearby';
import { positionsRoute } from './positions';
import { propertiesOf, Twin } from './twin';

type Texts = DetailsTexts & NearbyTexts & DiscoveryTexts & { catalog: CatalogTexts };

/** The statements' texts that come from MikroORM's metadata (constants: they depend on code only). */
function texts(em: EntityManager): Texts {
  const storeObject = viewObject(em, Store, 's');
  const productObject = viewObject(em, Product, 'p');
  const storeColumns = viewColumns(em, Store, 's');
  return {
    adsSql: activeAdsSql(em),
    storeColumns,
    categoryJson: storeCategoryJson(em, 's'),
    hoursJson: openingHoursJson(em, 's'),
    offersJson: activeOffersJson(em, 's'),
    versionSql: REACH_VERSION_SQL,
    snapshotSql: REACH_SNAPSHOT_SQL,
    storeArray: viewArray(em, Store, 's'),
    storeProperties: propertiesOf(storeObject),
    productArray: viewArray(em, Product, 'p'),
    productProperties: propertiesOf(productObject),
    storeObject,
    productObject,
    mainCategoriesJson: mainCategoriesJson(em),
    storeCategoriesJson: storeCategoriesJson(em),
    globalOffersJson: activeGlobalOffersJson(em),
    catalog: { sql: (condition) => catalogSql(em, condition), productObject },
  };
}

/** The twins' app, and how to close their pool. */
/** `config`: the service's (its token secret, limits), by default from the environment as the service reads it. */
export async function twinApp(databaseUrl: string, config?: Config): Promise<{ app: express.Express; close: () => Promise<void> }> {
  const db = await openDatabase({ databaseUrl, poolMax: 2, migrate: false });
  let all: Texts;
  let reach: ReachAnswers | null;
  try {
    const em = db.orm.em.fork() as EntityManager;
    all = texts(em);
    reach = await reachIndex(em, { wait: true });
  } finally {
    await db.close();
  }
  if (!reach) throw new Error('twins: the reach index could not be built');
  const index = reach;

  const twin: Twin = { pool: new Pool({ connectionString: databaseUrl, max: 10 }), zonesMet: new Set() };
  const app = express();
  // Each route: its answer as the REST adapter's `{ success, data }`, or the service's 404 body.
  const route = (
    path: string,
    answer: (req: express.Request) => Promise<unknown>,
    missing = (req: express.Request) =>
      `No query results for model [Store] ${String(req.params.store ?? req.params.id ?? req.query.store_id).trim()}`,
  ) =>
    app.get(path, async (req, res, next) => {
      try {
        const data = await answer(req);
        if (data === null) res.status(404).json({ message: missing(req) });
        else res.json({ success: true, data });
      } catch (error) {
        next(error);
      }
    });
  route('/api/v1/global/ads', () => ads(twin, all));
  route('/api/v1/store/stores/:store', (req) => storeDetails(twin, all, req));
  route('/api/v1/stores/nearby', (req) => nearby(twin, index, all, req));
  route('/api/v1/homepage', (req) => home(twin, index, all, req));
  route('/api/v1/global/search', (req) => search(twin, all, req));
  route('/api/v1/store/stores/:id/catalog', (req) => catalog(twin, all.catalog, req));
  route('/api/v1/store/products', (req) => storeProducts(twin, all.catalog, req));
  positionsRoute(app, twin.pool);
  checkoutRoute(app, twin.pool, config ?? loadConfig(process.env));
  // The bench cancels the queries a warm-up leaves in flight (bench.ts quietDatabase): those
  // answer 500 to a client that has gone, without a stack trace in the bench's output.
  app.use((error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if ((error as { code?: string }).code !== '57014') {
      next(error);
      return;
    }
    res.status(500).json({ success: false, message: 'Cancelled.' });
  });
  return { app, close: () => twin.pool.end() };
}
