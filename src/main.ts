/** Process entry: config -> database (migrated) -> app.listen; graceful shutdown on signals. */
import 'reflect-metadata';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { createLogger } from './common/logger';
import { jobDone, startMetricsServer } from './common/metrics';
import { openDatabase } from './db/orm';
import { seedDemoCityOnFirstStart } from './db/seed/startup';
import { purgeExpiredAuthRecords } from './modules/auth/auth.cleanup';
import { expireUnansweredOrders } from './modules/orders/order-lifecycle.service';
import { reconcilePayments } from './modules/payments/payment-reconcile.service';
import { startupLines } from './pages/startup-lines';

const HOUR_MS = 3_600_000;

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, config.logFormat);
  logger.info({ env: config.env, database: config.databaseUrl ? 'postgresql' : `embedded (${config.dataDir})` }, 'starting');
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger,
    poolMax: config.database.poolMax,
    limits: config.database,
    sessionName: config.database.sessionName,
  });
  await seedDemoCityOnFirstStart(db.orm, config, logger);
  const app = await createApp(config, db.orm, logger);
  await new Promise<void>((resolve) => app.httpServer.listen(config.port, config.host, resolve));
  const address = app.httpServer.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port }, `listening on http://localhost:${port} (REST, POST /graphql, ws /graphql)`);
  for (const line of startupLines(config, port)) logger.info(line);
  // Prometheus' text format on its own port: never the application's port, never the balancer's.
  const metrics = config.metrics.port === undefined ? undefined : await startMetricsServer(config.metrics.port, config.metrics.host);
  if (metrics) {
    const bound = metrics.address();
    logger.info({ metricsPort: typeof bound === 'object' && bound ? bound.port : config.metrics.port }, 'metrics on GET /metrics');
  }

  const purge = setInterval(() => {
    purgeExpiredAuthRecords(db.orm.em.fork())
      .then((removed) => (jobDone('purge_auth', true), logger.info({ removed }, 'purged expired sign-in records')))
      .catch((error) => (jobDone('purge_auth', false), logger.warn({ err: error }, 'purging expired sign-in records failed')));
  }, HOUR_MS).unref();

  // Orders a store leaves unanswered are rejected; every instance may sweep, each order moves once.
  const sweepMs = Math.min(30_000, (config.orders.acceptTimeoutSeconds * 1000) / 2);
  const sweep = setInterval(() => {
    expireUnansweredOrders(db.orm.em.fork(), app.services, logger, config.orders.acceptTimeoutSeconds)
      .then(
        (expired) => (
          jobDone('expire_orders', true),
          expired > 0 && logger.info({ expired }, 'rejected orders their store did not answer')
        ),
      )
      .catch((error) => (jobDone('expire_orders', false), logger.warn({ err: error }, 'expiring unanswered orders failed')));
  }, sweepMs).unref();

  // Payments whose webhook or provider call was lost are settled by asking the provider.
  const reconcile = setInterval(() => {
    reconcilePayments(db.orm.em.fork(), { ...app.services, logger }, config.payments.reconcileAfterSeconds)
      .then(
        (done) => (jobDone('reconcile_payments', true), (done.settled > 0 || done.checked > 0) && logger.info(done, 'reconciled payments')),
      )
      .catch((error) => (jobDone('reconcile_payments', false), logger.warn({ err: error }, 'reconciling payments failed')));
  }, config.payments.reconcileEverySeconds * 1000).unref();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining connections');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, 15_000).unref();
    clearInterval(purge);
    clearInterval(sweep);
    clearInterval(reconcile);
    try {
      metrics?.close();
      await app.close();
      await db.close();
      clearTimeout(force);
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
