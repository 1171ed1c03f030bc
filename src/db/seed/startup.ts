/**
 * `npm start` on an empty development database loads the demo city and says how to sign in.
 * Never in test or production.
 */
import { Config } from '../../config';
import { Logger } from '../../common/logger';
import type { Orm } from '../../common/entity-manager';
import { CatalogNotEmptyError, DEMO_CITY_STORES, isDatabaseEmpty, refreshAfterBulkLoad, seedDemoCity } from './demo-city';

export async function seedDemoCityOnFirstStart(orm: Orm, config: Config, logger: Logger): Promise<void> {
  if (config.env !== 'development') return;
  const em = orm.em.fork();
  if (!(await isDatabaseEmpty(em))) return;
  const started = Date.now();
  let summary;
  try {
    summary = await seedDemoCity(em, { stores: DEMO_CITY_STORES });
  } catch (error) {
    if (error instanceof CatalogNotEmptyError) return; // another instance loaded it meanwhile
    throw error;
  }
  await refreshAfterBulkLoad(em);
  const { stores, products, offers, ads } = summary;
  logger.info({ stores, products, offers, ads, ms: Date.now() - started }, 'the database was empty: loaded the demo city');
  for (const account of summary.demoAccounts) {
    const code = config.otp.testNumbers.get(account.phone);
    logger.info(
      { phone: account.phone, role: account.role, stores: account.stores.map((s) => s.name) },
      `demo ${account.role} ${account.name}: sign in with ${account.phone}, ${code ? `code ${code}` : 'the code written to the log'}`,
    );
  }
}
