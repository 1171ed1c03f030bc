/**
 * Issue 24, the crash test: the instance that committed an order is killed (SIGKILL) while its
 * push is on the way to FCM (FCM holds the request unanswered); after a restart the push is
 * sent, once. The instance is the real process (src/main.ts), on a PostgreSQL database of its
 * own (DATABASE_URL's server; without one there is no second process to share a database with).
 */
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { openDatabase, Database } from '../src/db/orm';
import { onServer } from './helpers/database';
import { FakeFcm } from './helpers/fake-fcm';
import { Factory } from './helpers/factories';
import { eventually, signInDevice } from './helpers/notifications';
import { cart, orderWorld } from './helpers/orders';
import { startTestServer, TestServer } from './helpers/server';

const ROOT = path.resolve(__dirname, '..');
const SERVER_URL = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

/** The service as `npm start` runs it; answers its port once it listens. */
function startInstance(env: Record<string, string>): { child: ChildProcess; port: Promise<number> } {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const port = new Promise<number>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /"port":(\d+),"msg":"listening/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('close', () => reject(new Error(`the instance exited before listening:\n${out}\n${err}`)));
  });
  return { child, port };
}

const stopped = (child: ChildProcess) =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('close', resolve)));

(SERVER_URL ? describe : describe.skip)('a crash between commit and send', () => {
  const fcm = new FakeFcm();
  let db: Database;
  let server: TestServer;
  let databaseUrl: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    const url = new URL(SERVER_URL!);
    const name = `${url.pathname.slice(1) || 'test'}_crash_${process.pid}`;
    await onServer(SERVER_URL!, `drop database if exists "${name}" with (force)`);
    await onServer(SERVER_URL!, `create database "${name}"`);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    db = await openDatabase({ databaseUrl });
    await fcm.start();
    // This process builds the world (its own worker is off); the instances under test send.
    server = await startTestServer({ OTP_MAX_PER_PHONE_PER_HOUR: '1000', OTP_MAX_PER_PHONE_PER_DAY: '1000' }, db);
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children.map(stopped));
    await server?.close();
    await db?.close();
    await fcm.stop();
    const name = new URL(databaseUrl).pathname.slice(1);
    await onServer(SERVER_URL!, `drop database if exists "${name}" with (force)`);
  });

  it('kill -9 while FCM holds the push → after restart it is sent once', async () => {
    const w = await orderWorld(server, new Factory(db));
    await signInDevice(server, w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      JWT_SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NOTIFICATIONS_WORKER: 'true',
      NOTIFICATIONS_POLL_MS: '100',
      NOTIFICATIONS_LEASE_SECONDS: '2',
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      ...fcm.env(),
    };
    fcm.hold();
    const first = startInstance(env);
    children.push(first.child);
    const port = await first.port;
    const placed = await fetch(`http://127.0.0.1:${port}/api/v1/customer/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.customer.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(cart(w)),
    });
    expect(placed.status).toBe(201);
    const orderId = ((await placed.json()) as { data: { order_id: number } }).data.order_id;
    await eventually(() => expect(fcm.heldCount).toBe(1), 30_000);
    first.child.kill('SIGKILL');
    await stopped(first.child);
    fcm.release(); // the held request was never answered: FCM did not deliver it
    const sql = (query: string) => db.orm.em.fork().execute(query);
    expect(await sql(`select kind, status, attempts from notification_outbox where kind = 'new_order'`)).toEqual([
      { kind: 'new_order', status: 'pending', attempts: 1 },
    ]);

    const second = startInstance(env);
    children.push(second.child);
    await second.port;
    await eventually(async () => {
      expect(await sql(`select status, attempts from notification_outbox where kind = 'new_order'`)).toEqual([
        { status: 'sent', attempts: 2 },
      ]);
    }, 30_000);
    expect(fcm.received.map((p) => [p.token, p.data.type, p.data.order_id])).toEqual([['owner-token', 'new_order', String(orderId)]]);
    second.child.kill('SIGTERM');
    await stopped(second.child);
  }, 180_000);
});
