/**
 * What an operator scrapes: Prometheus' text format from `prom-client`, served on its own
 * port (METRICS_PORT, main.ts) and never through the application's port or the balancer.
 *
 * One registry per process (a process is one instance). Counters are incremented where things
 * happen (requests in app.ts, events in pubsub.ts, refusals in errors.ts and the socket guard,
 * jobs in main.ts); gauges read their sources when scraped: each app registers its database
 * pool, websocket server and event bus with `track` and removes them when it closes, so a
 * process running several apps (the tests) reports their sum.
 */
import http from 'node:http';
import type { Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

/** The request's route label: the REST row's pattern, a fixed path, else 'unmatched' (404) or 'other'. */
export function routeLabel(req: Request, res: Response, path = req.path): string {
  const row = res.locals.route as string | undefined;
  if (row) return row;
  if (FIXED_PATHS.has(path)) return path;
  const express = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof express === 'string') return req.baseUrl + express;
  return res.statusCode === 404 ? 'unmatched' : 'other';
}
const FIXED_PATHS = new Set(['/graphql', '/healthz', '/readyz', '/openapi.json']);

export const httpRequests = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests answered by this instance, by method, route (the REST row or fixed path) and status; _count is the number of requests.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const eventsPublished = new Counter({
  name: 'live_events_published_total',
  help: 'Live events this instance published on the event bus, by topic kind (order, revoked, ...).',
  labelNames: ['topic'] as const,
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Callers refused by a limit: request (429 on HTTP or RATE_LIMITED in GraphQL), websocket_upgrade, websocket_per_ip, websocket_per_user.',
  labelNames: ['limit'] as const,
  registers: [registry],
});

export const jobRuns = new Counter({
  name: 'job_runs_total',
  help: 'Runs of the periodic jobs of this instance (reconcile_payments, expire_orders, purge_auth), by outcome.',
  labelNames: ['job', 'outcome'] as const,
  registers: [registry],
});

export const jobLastSuccess = new Gauge({
  name: 'job_last_success_timestamp_seconds',
  help: 'When each periodic job last finished without error (Unix seconds).',
  labelNames: ['job'] as const,
  registers: [registry],
});

/** What an app reports when scraped. */
export interface MetricSource {
  /** Connections of the serving pool in use and idle (db/orm.ts poolConnections). */
  pool?: () => Promise<{ used: number; free: number }>;
  websockets?: () => number;
  subscriptions?: () => number;
}
const sources = new Set<MetricSource>();

/** Adds an app's sources to the gauges; the returned function removes them (app.close). */
export function track(source: MetricSource): () => void {
  sources.add(source);
  return () => void sources.delete(source);
}

const sum = (read: (s: MetricSource) => number | undefined) => [...sources].reduce((total, s) => total + (read(s) ?? 0), 0);

new Gauge({
  name: 'db_pool_connections',
  help: 'Connections of the serving database pool by state, as PostgreSQL sees them: used (in a statement or a transaction), free (idle). Absent when the database does not answer.',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    // A pool that cannot lend a connection in time shows as no sample, not as stale figures.
    const readers = [...sources].flatMap((s) => (s.pool ? [s.pool] : []));
    const pools = await Promise.all(readers.map((read) => read().catch(() => undefined)));
    const read = pools.filter((p) => p !== undefined);
    if (read.length === 0) return;
    for (const state of ['used', 'free'] as const)
      this.set(
        { state },
        read.reduce((t, p) => t + p[state], 0),
      );
  },
});

new Gauge({
  name: 'websockets_open',
  help: 'Websockets open on this instance.',
  registers: [registry],
  collect() {
    this.set(sum((s) => s.websockets?.()));
  },
});

new Gauge({
  name: 'subscriptions_active',
  help: 'Live subscriptions (event-bus listeners) active on this instance.',
  registers: [registry],
  collect() {
    this.set(sum((s) => s.subscriptions?.()));
  },
});

let defaults = false;

/**
 * Serves GET /metrics (and nothing else) on its own port; node's default process metrics
 * (CPU, memory, event-loop lag, GC) are added on the first start.
 */
export async function startMetricsServer(port: number, host: string): Promise<http.Server> {
  if (!defaults) {
    collectDefaultMetrics({ register: registry });
    defaults = true;
  }
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => (server.off('error', reject), resolve()));
  });
  return server;
}

/** Counts a periodic job's run and, when it succeeded, its time. */
export function jobDone(job: string, ok: boolean): void {
  jobRuns.inc({ job, outcome: ok ? 'success' : 'failure' });
  if (ok) jobLastSuccess.set({ job }, Date.now() / 1000);
}

/** One answered request (app.ts observes each once, when its answer finishes). */
export function requestAnswered(method: string, route: string, status: number, seconds: number): void {
  httpRequests.observe({ method, route, status: String(status) }, seconds);
}
