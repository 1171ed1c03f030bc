/**
 * createApp wires one HTTP server: REST routes, Apollo at /graphql and graphql-ws on the same
 * path. It does not listen; main.ts and the tests do.
 */
import http from 'node:http';
import express, { NextFunction, Request, Response } from 'express';
import { hasBody } from 'type-is';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import { Config } from './config';
import { bodyRefusal } from './common/body-errors';
import { clientIp, compileTrust } from './common/client-ip';
import { markNotUtf8, reparseNotUtf8 } from './common/utf8-body';
import { Clock } from './common/clock';
import { routeNotFound } from './common/errors';
import { cors, noStore, securityHeaders } from './common/http-security';
import { Logger } from './common/logger';
import { requestAnswered, routeLabel, track } from './common/metrics';
import { within } from './common/within';
import type { Orm } from './common/entity-manager';
import { poolConnections } from './db/orm';
import { readPoolOf } from './common/entity-manager';
import { Context, createContext } from './context';
import { formatGraphQLError } from './graphql/errors';
import { limitRules, MAX_COERCION_ERRORS, parseOptions } from './graphql/limits';
import { graphqlSourceGuard } from './graphql/source-guard';
import { buildAppSchema } from './schema';
import { startWebSocketServer } from './graphql/websocket';
import { compileRoutes, restRouter } from './rest/adapter';
import { AnswerCache } from './rest/answer-cache';
import { sendAppError, sendError } from './rest/respond';
import { restRoutes } from './routes';
import { openApiDocument } from './rest/openapi';
import { pagesRouter } from './pages';
import { createAppPubSub } from './pubsub';
import { createRateLimits } from './rate-limits';
import { turnReachIndexOff, warmReachIndex } from './modules/stores/reach/reach';
import { createServices, Services } from './services';
import { paymentWebhookRouter } from './modules/payments/payment.webhook';
import { createChannels } from './modules/notifications/channels';
import { eventOutbox, outboxSettings } from './modules/notifications/outbox';
import { connectEventOutbox } from './common/event-outbox';
import { localeFromAcceptLanguage } from './modules/notifications/messages';
import { OutboxWorker } from './modules/notifications/worker';
import { DriverPositions } from './modules/drivers/driver-positions';
import { positionsWritten } from './modules/orders/dispatch.service';

export interface App {
  httpServer: http.Server;
  services: Services;
  /** This instance's notification outbox worker (started when NOTIFICATIONS_WORKER is on). */
  notifications: OutboxWorker;
  /** Live subscribers of a pubsub topic on this instance: a subscription is set up once counted. */
  listeners(topic: string): number;
  /** Stops accepting, drains HTTP requests and websockets. The database is the caller's. */
  close(): Promise<void>;
}

/** `clock`: "now" for rules computed in Node (tests fix it); the system clock by default. */
export async function createApp(config: Config, orm: Orm, logger: Logger, options: { clock?: Clock } = {}): Promise<App> {
  const development = config.env === 'development';
  const production = config.env === 'production';
  const formatOptions = { development, hideSuggestions: production };
  const events = createAppPubSub(config.redisUrl, logger, config.redisPrefix ?? `${orm.config.get('dbName')}:`);
  const positions = new DriverPositions(orm.em, {
    flushMs: config.tracking.positionFlushMs,
    logger,
    afterFlush: (em, written) => positionsWritten(em, events.pubSub, logger, written),
  });
  const services = createServices(config, logger, events, createRateLimits(orm, config.rateLimits), positions, undefined, options.clock);
  const schema = await buildAppSchema(events.pubSub);
  const routes = compileRoutes(schema, restRoutes);
  // Nearby's reach index is read before the first request, not during it (docs/decisions.md "Nearby: the in-process reach index").
  if (!config.reachIndex) turnReachIndexOff(orm.em);
  await warmReachIndex(orm.em.fork()).catch((error: unknown) =>
    logger.warn({ err: error }, 'reach index not built; nearby answers from SQL until it is'),
  );

  const trustProxy = compileTrust(config.trustProxy);
  /** The request's context (res.locals.ctx), its X-Request-Id and, once answered, its log line. */
  const startRequest = async (req: Request, res: Response): Promise<void> => {
    const ctx = await createContext({
      em: orm.em,
      services,
      logger,
      ip: clientIp(req, trustProxy),
      authorization: req.headers.authorization,
      requestId: req.get('x-request-id'),
      locale: localeFromAcceptLanguage(req.headers['accept-language']),
    });
    res.locals.ctx = ctx;
    res.setHeader('X-Request-Id', ctx.requestId);
  };
  /** Once answered, every request is counted (metrics) and, if it had a context, logged: one listener. */
  const observeRequest = (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    // Read now: a router mounted on a path (/graphql) strips it from req.path before 'finish'.
    const path = req.path;
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const route = routeLabel(req, res, path);
      requestAnswered(req.method, route, res.statusCode, durationMs / 1000);
      const ctx = res.locals.ctx as Context | undefined;
      // The request id first, where the context's child logger would have written it: same line.
      if (ctx) logger.info({ requestId: ctx.requestId, method: req.method, path, route, status: res.statusCode, durationMs }, 'request');
    });
    next();
  };

  const cache = config.readCache.enabled ? new AnswerCache(config.readCache, services.clock) : undefined;
  const rest = restRouter(schema, routes, { development, context: (res) => res.locals.ctx as Context, cache });
  // The REST reads again, each started by its own per-route middleware, for a GET (or HEAD)
  // without a body: mounted ahead of the webhooks, pages, body parser and /graphql, which such a
  // request never needs (Express's mount order). Any other request, a GET with a body included,
  // takes the full chain to `rest` below. "Without a body" is body-parser's own test (type-is's
  // `hasBody`), so the two ways never disagree on which requests have one.
  const reads = restRouter(
    schema,
    routes.filter((route) => route.method === 'GET'),
    {
      development,
      context: (res) => res.locals.ctx as Context,
      cache,
      start: (req, res, next) => void startRequest(req, res).then(() => next(), next),
    },
  );
  const readsFirst = (req: Request, res: Response, next: NextFunction) =>
    (req.method === 'GET' || req.method === 'HEAD') && !hasBody(req) ? reads(req, res, next) : next();

  const app = express();
  const httpServer = http.createServer(app);
  app.disable('x-powered-by');
  app.use(observeRequest);
  if (config.instanceName) app.use((_req, res, next) => (res.setHeader('X-Instance', config.instanceName!), next()));
  // Express's own reads (req.ip, req.protocol) trust the same proxies as clientIp.
  app.set('trust proxy', trustProxy ?? false);
  app.use(securityHeaders());
  app.use(cors(config.corsOrigins));
  app.use(noStore);
  app.use(readsFirst);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    // Each check has its own short deadline: a saturated pool or a held lock answers 503 at once.
    const ready = <T>(check: Promise<T>) => within(check, config.database.readyTimeoutMs, 'timed out');
    const [database, redis] = await Promise.all([
      // Both pools: the ORM's, and the read pool the hot reads use (db/orm.ts).
      ready(Promise.all([orm.em.getConnection().execute('select 1'), readPoolOf(orm)?.query('select 1')])).then(
        () => 'ok' as const,
        (error: unknown) => (logger.warn({ err: error }, 'readiness: the database did not answer'), 'unreachable' as const),
      ),
      config.redisUrl
        ? ready(events.ping()).then(
            (up) => (up ? 'ok' : 'unreachable'),
            () => 'unreachable',
          )
        : undefined,
    ]);
    if (database !== 'ok') {
      res.status(503).json({ status: 'unavailable', message: 'The database is not reachable.', ...(redis && { redis }) });
      return;
    }
    // Without Redis, live events still reach subscribers (they catch up from the database, a few
    // seconds late): the instance keeps serving and says so, rather than leaving the rotation
    // together with every other instance.
    res.json({ status: redis === 'unreachable' ? 'degraded' : 'ready', ...(redis && { redis }) });
  });

  const openApi = openApiDocument(schema, routes);
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });

  // Provider webhooks read the raw bytes (their signature covers them): before the JSON parser.
  app.use(paymentWebhookRouter(orm, services, logger, config.bodyLimit));
  // Before /graphql: a browser's GET /graphql is GraphiQL's page, not a GraphQL request.
  app.use(pagesRouter({ graphiql: config.graphiql }));

  app.use(express.json({ limit: config.bodyLimit, verify: markNotUtf8 }), reparseNotUtf8);
  app.use((req: Request, res: Response, next: NextFunction) => {
    startRequest(req, res).then(() => next(), next);
  });

  const websocket = startWebSocketServer({ httpServer, schema, config, logger, em: orm.em, services, format: formatOptions });
  const apollo = new ApolloServer<Context>({
    schema,
    validationRules: limitRules,
    executionOptions: { maxCoercionErrors: MAX_COERCION_ERRORS },
    parseOptions,
    introspection: !production,
    formatError: (formatted, error) => formatGraphQLError(formatted, error, formatOptions),
    includeStacktraceInErrorResponses: development,
    // main.ts owns SIGTERM/SIGINT and calls close(); Apollo's own handler would start a second,
    // concurrent stop() that the first never finishes waiting for (shutdown hung until forced).
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer }),
      { serverWillStart: () => Promise.resolve({ drainServer: () => websocket.dispose() }) },
      // Apollo's landing page loads from a CDN; GraphiQL (src/pages) is served from here instead.
      ApolloServerPluginLandingPageDisabled(),
    ],
  });
  await apollo.start();
  const untrack = track({
    pool: () => poolConnections(orm),
    websockets: () => websocket.open(),
    subscriptions: () => events.subscriptions(),
  });
  app.use('/graphql', graphqlSourceGuard, expressMiddleware(apollo, { context: ({ res }) => Promise.resolve(res.locals.ctx as Context) }));

  app.use(rest);

  app.use((req: Request, res: Response) => {
    sendAppError(res, routeNotFound(req.method, req.path));
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const refused = bodyRefusal(error, req, config.bodyLimit);
    if (refused) {
      // A client error: one line without a stack (the request line is not written: no context yet).
      logger.info(
        { method: req.method, path: req.path, status: refused.status, reason: (error as { type?: string }).type ?? 'body not decoded' },
        'request body refused',
      );
      return sendAppError(res, refused);
    }
    const ctx = res.locals.ctx as Context | undefined;
    sendError(res, error, { development, logger: ctx?.logger ?? logger.child({ path: req.path }) });
  });

  outboxSettings.reminderAfterSeconds = Math.floor(config.orders.acceptTimeoutSeconds / 2);
  outboxSettings.acceptTimeoutSeconds = config.orders.acceptTimeoutSeconds;
  outboxSettings.sessionName = config.database.sessionName;
  connectEventOutbox(eventOutbox);
  const notifications = new OutboxWorker(
    orm.em,
    createChannels(config, logger, services.webPush),
    config.notifications,
    logger,
    config.payments.currency,
  );
  if (config.notifications.worker) notifications.start();
  positions.start();

  return {
    httpServer,
    services,
    notifications,
    listeners: (topic) => events.listeners(topic),
    async close() {
      untrack();
      // Sends in flight finish and are recorded before the database closes (main.ts closes it after).
      await notifications.stop();
      await apollo.stop();
      // The positions heard until the last request are written (and sent) before the bus and the database close.
      await positions.stop();
      await events.close();
    },
  };
}
