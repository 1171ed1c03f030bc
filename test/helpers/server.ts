/**
 * Starts the whole service on a loopback port against a real database, with the WhatsApp
 * sender pointed at a local fake. Each test file gets one; tables are emptied between tests.
 */
import 'reflect-metadata';
import { AddressInfo } from 'node:net';
import { createApp, App } from '../../src/app';
import { Config, loadConfig } from '../../src/config';
import { Clock } from '../../src/common/clock';
import { createLogger } from '../../src/common/logger';
import { Database } from '../../src/db/orm';
import { emptyTables, openTestDatabase } from './database';
import { FakeWhatsApp } from './fake-whatsapp';
import { HttpClient } from './http';

export const TEST_PHONE = '+15550000001';
export const TEST_CODE = '123456';

export interface TestServer {
  url: string;
  wsUrl: string;
  http: HttpClient;
  db: Database;
  app: App;
  config: Config;
  whatsapp: FakeWhatsApp;
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** A clock a test sets: `clock.set('2026-11-23T07:11:00Z')`; the system clock until set. */
export class TestClock implements Clock {
  private fixed: Date | null = null;
  now(): Date {
    return this.fixed ? new Date(this.fixed) : new Date();
  }
  set(at: string | Date | null): void {
    this.fixed = at === null ? null : new Date(at);
  }
}

/**
 * `shared`: run on another server's database (two instances), which that server closes.
 * `logs`: the service's log records (JSON lines, level info) are written there.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  shared?: Database,
  options: { clock?: Clock; logs?: NodeJS.WritableStream } = {},
): Promise<TestServer> {
  const whatsapp = new FakeWhatsApp();
  const whatsappUrl = await whatsapp.start();
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-0123456789',
    OTP_SENDER: 'whatsapp',
    WHATSAPP_API_URL: whatsappUrl,
    WHATSAPP_PHONE_NUMBER_ID: '1234567890',
    WHATSAPP_ACCESS_TOKEN: 'test-access-token',
    OTP_TEST_NUMBERS: `${TEST_PHONE}=${TEST_CODE},+15550000002=222222`,
    // Every test request comes from 127.0.0.1: the IP caps are tested on their own.
    OTP_MAX_PER_IP_PER_HOUR: '100000',
    OTP_MAX_PER_IP_PER_DAY: '100000',
    WS_MAX_SOCKETS_PER_IP: '100000',
    WS_CONNECTIONS_PER_IP_PER_MINUTE: '100000',
    // Tests place many orders a minute from one customer and 127.0.0.1: the limits have their own tests.
    ORDERS_PER_CUSTOMER_PER_MINUTE: '100000',
    ORDERS_PER_IP_PER_MINUTE: '100000',
    PROMO_FAILURES_PER_CUSTOMER_PER_HOUR: '100000',
    PROMO_FAILURES_PER_IP_PER_HOUR: '100000',
    OTP_FAILURES_PER_IP_PER_15_MINUTES: '100000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // The answer cache keeps an answer for the rest of its second and nothing invalidates it, so
    // a test that writes then reads (or empties the tables and reuses ids) would read the old
    // answer. It is on in production and tested on its own (test/read-cache.test.ts).
    READ_CACHE: 'off',
    ...env,
  });
  // The serving pool as in production: its size and session limits come from the config.
  const db =
    shared ??
    (await openTestDatabase({ poolMax: config.database.poolMax, limits: config.database, sessionName: config.database.sessionName }));
  const logger = options.logs ? createLogger('info', 'json', options.logs) : createLogger(config.logLevel);
  const app = await createApp(config, db.orm, logger, { clock: options.clock });
  await new Promise<void>((resolve) => app.httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = app.httpServer.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    http: new HttpClient(url),
    db,
    app,
    config,
    whatsapp,
    async reset() {
      whatsapp.reset();
      // The outbox worker pauses while the tables are emptied (no row of the last test is sent into the next).
      await app.notifications.stop();
      // Positions of the last test are written now, and its drivers forgotten (their ids are reused).
      await app.services.positions.clear();
      await emptyTables(db);
      if (config.notifications.worker) app.notifications.start();
    },
    async close() {
      await app.close();
      if (!shared) await db.close();
      await whatsapp.stop();
    },
  };
}
