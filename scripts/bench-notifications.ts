/**
 * Notifications benchmark (issue 24; figures in docs/perf/2026-11-26-notifications.md and after):
 *  1. latency: orders placed at a steady rate (200 a minute by default) against one instance
 *     whose outbox worker sends to the local fake FCM; for each order, the time from the
 *     checkout's answer (just after its commit) to the fake receiving the owner's push — and,
 *     as an upper bound, from the checkout's request — p50 / p99 / max;
 *  2. checkout throughput with and without notifications (the outbox rows and their sending),
 *     in alternated pairs (without-with, then with-without, ...), as a ratio of medians; beside it
 *     the CPU each checkout cost the service: its process (the instance with its outbox worker)
 *     and its PostgreSQL backends, read from /proc/<pid>/stat (so PostgreSQL must run on this
 *     machine), per pair and as the median of the pairs' ratios. CPU per checkout is what a
 *     machine shared with other work disturbs least: a busy neighbour slows every round but adds
 *     little CPU to the service's own.
 * Each part runs in a process of its own: the service (this script forked with `--service`,
 * told by messages when notifications are on), the fake FCM (`--fake-fcm`), and this one, the
 * load client (with the fake WhatsApp that delivers the sign-in codes, idle during the rounds,
 * and with --web-push the fake push service): none of the fakes' or the client's CPU is billed
 * to the service.
 * With --web-push the owner's browser is subscribed too (a local fake push service that checks
 * VAPID and decrypts): every order is then two sends, and its latency is printed beside FCM's.
 * Needs DATABASE_URL (a database of its own is created and dropped).
 * The orders come from several customers in turn (--customers, 16 by default), each with an address
 * near the store: one customer's growing order history (its rate limits' rows, its orders) would
 * make each round costlier than the one before, which the pairs' ratios then read as noise.
 *   npm run bench:notifications -- [--seconds 60] [--per-minute 200] [--checkouts 300] [--rounds 3] [--concurrency 8] [--customers 16] [--web-push]
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { FakeFcm, ReceivedPush } from '../test/helpers/fake-fcm';
import { FakePushService } from '../test/helpers/fake-push-service';
import { FakeWhatsApp } from '../test/helpers/fake-whatsapp';
import { registerCustomer } from '../test/helpers/auth';
import { Factory, northOf } from '../test/helpers/factories';
import { HttpClient } from '../test/helpers/http';
import { signInDevice, NOTIFY_ENV } from '../test/helpers/notifications';
import { cart, orderWorld } from '../test/helpers/orders';
import { startTestServer } from '../test/helpers/server';
import { outboxSettings } from '../src/modules/notifications/outbox';
import { cpuSeconds } from './bench-process';

/**
 * The fake FCM in a process of its own (this script, forked with `--fake-fcm`): FCM's own work is
 * not the service's, so it is neither billed to this process's CPU per checkout nor competing
 * with the service for its event loop. It keeps the pushes it accepts and hands them over only
 * when asked (`take`: the latency part asks; the throughput rounds never do), so that during the
 * rounds neither it nor this process spends CPU on the same cores reporting each push.
 */
async function fcmProcess() {
  const child = fork(__filename, ['--fake-fcm'], {
    execArgv: ['-r', '@swc-node/register'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const taking: ((pushes: ReceivedPush[]) => void)[] = [];
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    child.on('message', (message: { env?: Record<string, string>; pushes?: ReceivedPush[] }) => {
      if (message.env) resolve(message.env);
      if (message.pushes) taking.shift()?.(message.pushes);
    });
    child.on('exit', (code) => reject(new Error(`fake FCM exited with ${code}`)));
  });
  return {
    env,
    pid: child.pid!,
    /** The pushes accepted since the last call (in the order received). */
    take: () =>
      new Promise<ReceivedPush[]>((resolve) => {
        taking.push(resolve);
        child.send({ take: true });
      }),
    stop: async () => {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** The forked fake FCM (`fcmProcess`). */
async function fakeFcmChild(): Promise<void> {
  const fake = new FakeFcm();
  await fake.start();
  process.on('message', (message: { take?: boolean }) => {
    if (!message.take) return;
    process.send!({ pushes: fake.received.splice(0) });
  });
  process.send!({ env: fake.env() });
}

/** What the service process answers the load client. */
type ServiceMessage =
  | { ready: { url: string; customers: { token: string; cart: unknown }[] } }
  | { done: { claims: number; rows: number } }
  | { backends: { pids: number[]; walwriter: number | null } }
  | { failed: string };

/**
 * The service in a process of its own (`--service`): a test server (its database created and
 * dropped) with an owner whose tablet has a push token and a customer, its sign-in codes sent to
 * this process's fake WhatsApp. `ask` sends a command and waits for its answer.
 */
async function serviceProcess(env: Record<string, string>, webPush: boolean, customers: number, whatsapp: FakeWhatsApp) {
  const child = fork(__filename, ['--service'], {
    execArgv: ['-r', '@swc-node/register'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let waiting: ((message: ServiceMessage) => void) | null = null;
  const next = () => new Promise<ServiceMessage>((resolve) => (waiting = resolve));
  child.on('message', (message: ServiceMessage & { code?: { phone: string } }) => {
    if (message.code) {
      // The service asks for the code it just sent (the fake WhatsApp is this process's).
      child.send({ code: whatsapp.lastCodeFor(message.code.phone) });
      return;
    }
    if ('failed' in message) throw new Error(`service: ${message.failed}`);
    const resolve = waiting;
    waiting = null;
    resolve?.(message);
  });
  child.on('exit', (code) => {
    if (code) throw new Error(`the service exited with ${code}`);
  });
  const ready = next();
  child.send({ env, webPush, customers });
  const { ready: world } = (await ready) as { ready: { url: string; customers: { token: string; cart: unknown }[] } };
  const ask = <T extends ServiceMessage>(command: Record<string, unknown>) => {
    const answer = next();
    child.send(command);
    return answer as Promise<T>;
  };
  return {
    child,
    world,
    /** Notifications on (the outbox written, the worker running) or off. */
    round: (notify: boolean) => ask({ round: notify }),
    /** After a round's load: with notifications, the worker stops once every row is sent; answers its claims and rows so far. */
    finish: (notify: boolean) => ask<{ done: { claims: number; rows: number } }>({ finish: notify }).then((m) => m.done),
    /** The PostgreSQL backends of the service's database, and the server's WAL writer. */
    backends: () => ask<{ backends: { pids: number[]; walwriter: number | null } }>({ backends: true }).then((m) => m.backends),
    stop: async () => {
      child.send({ close: true });
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** The forked service (`serviceProcess`). */
async function serviceChild(): Promise<void> {
  const { env, webPush, customers } = await new Promise<{ env: Record<string, string>; webPush: boolean; customers: number }>((resolve) =>
    process.once('message', resolve),
  );
  const server = await startTestServer(env);
  // Sign-in codes went to the load client's fake WhatsApp: read from there.
  const codes: ((code: string) => void)[] = [];
  process.on('message', (message: { code?: string }) => {
    if (message.code !== undefined) codes.shift()?.(message.code);
  });
  const codeFor = (phone: string) =>
    new Promise<string>((resolve) => {
      codes.push(resolve);
      process.send!({ code: { phone } });
    });
  const world = await orderWorldVia(server, codeFor, customers);
  if (webPush) {
    const saved = await server.http.post('/api/v1/store/web-push/subscriptions', JSON.parse(env.BENCH_WEB_PUSH_SUBSCRIPTION), {
      token: world.owner.token,
    });
    if (saved.status !== 201) throw new Error(`web push subscription: ${saved.status}`);
  }
  const backends = async () => {
    const rows = await server.db.orm.em.fork().execute<{ pid: number; walwriter: boolean }[]>(
      `select pid, backend_type = 'walwriter' as walwriter from pg_stat_activity
         where datname = current_database() or backend_type = 'walwriter'`,
    );
    return { pids: rows.filter((r) => !r.walwriter).map((r) => r.pid), walwriter: rows.find((r) => r.walwriter)?.pid ?? null };
  };
  process.on('message', (message: { round?: boolean; finish?: boolean; backends?: boolean; close?: boolean }) => {
    const work = async () => {
      if (message.round !== undefined) {
        outboxSettings.enabled = message.round;
        if (message.round) server.app.notifications.start();
        else await server.app.notifications.stop();
        process.send!({ done: { ...server.app.notifications.stats } });
      } else if (message.finish !== undefined) {
        if (message.finish) {
          // Every push the round's checkouts caused is sent within the round, its time and CPU counted.
          await server.app.notifications.stop();
          await server.app.notifications.drain();
        }
        const { claims, rows } = server.app.notifications.stats;
        process.send!({ done: { claims, rows } });
      } else if (message.backends) process.send!({ backends: await backends() });
      else if (message.close) {
        outboxSettings.enabled = true;
        await server.close();
        process.exit(0);
      }
    };
    work().catch((error: unknown) => process.send!({ failed: String((error as Error).stack ?? error) }));
  });
  process.send!({ ready: { url: server.url, customers: world.customers } });
}

/**
 * orderWorld and the owner's tablet, the sign-in codes read through `codeFor`; `customers`
 * customers in all (orderWorld's and more, each with an address near the store) and each one's cart.
 */
async function orderWorldVia(
  server: Awaited<ReturnType<typeof startTestServer>>,
  codeFor: (phone: string) => Promise<string>,
  customers: number,
) {
  // The test helpers read the code from server.whatsapp: give them a fake that asks the load client.
  const sent = new Map<string, string>();
  const fakeLast = (phone: string) => {
    const code = sent.get(phone);
    if (code === undefined) throw new Error(`no code for ${phone}`);
    return code;
  };
  const originalPost = server.http.post;
  server.http.post = async (path, body, opts) => {
    const answer = await originalPost(path, body, opts);
    if (path.endsWith('/send-otp') && answer.status === 202) {
      const phone = (body as { phone_number: string }).phone_number;
      sent.set(phone, await codeFor(phone));
    }
    return answer;
  };
  server.whatsapp.lastCodeFor = fakeLast;
  const world = await orderWorld(server, new Factory(server.db));
  await signInDevice(server, world.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
  const all = [{ token: world.customer.token, cart: cart(world) }];
  const near = northOf({ lat: world.owner.store.latitude, lng: world.owner.store.longitude }, 1);
  while (all.length < customers) {
    const customer = await registerCustomer(server);
    const address = await server.http.post(
      '/api/v1/customer/addresses',
      { label: 'Home', line1: `${all.length} Rue Ibnou Sina`, city: 'Casablanca', latitude: near.lat, longitude: near.lng },
      { token: customer.token },
    );
    if (address.status !== 201) throw new Error(`address: ${JSON.stringify(address.body)}`);
    const addressId = (address.body as { data: { id: number } }).data.id;
    all.push({ token: customer.token, cart: cart({ ...world, addressId }) });
  }
  server.http.post = originalPost;
  return { ...world, customers: all };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const ms = (n: number) => `${n.toFixed(1)} ms`;
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '60' },
      'per-minute': { type: 'string', default: '200' },
      checkouts: { type: 'string', default: '300' },
      rounds: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '8' },
      customers: { type: 'string', default: '16' },
      'web-push': { type: 'boolean', default: false },
    },
  });
  console.log(`load average at start: ${load()}`);
  const fcm = await fcmProcess();
  const pushService = new FakePushService();
  await pushService.start();
  const whatsapp = new FakeWhatsApp();
  const whatsappUrl = await whatsapp.start();
  // The worker as deployed (polling every second; a local commit wakes it at once).
  const env: Record<string, string> = {
    ...NOTIFY_ENV,
    NOTIFICATIONS_POLL_MS: '1000',
    ...fcm.env,
    ...pushService.env(),
    WHATSAPP_API_URL: whatsappUrl,
    LOG_LEVEL: 'warn',
  };
  if (values['web-push']) env.BENCH_WEB_PUSH_SUBSCRIPTION = JSON.stringify(pushService.subscribe());
  const service = await serviceProcess(env, values['web-push'], Math.max(1, Number(values.customers)), whatsapp);
  const http = new HttpClient(service.world.url);
  // The customers in turn, one checkout each.
  let turn = 0;
  const placeOrder = () => {
    const customer = service.world.customers[turn++ % service.world.customers.length];
    return http.post('/api/v1/customer/orders', customer.cart, { token: customer.token });
  };
  try {
    // 1. Latency at a steady rate.
    await service.round(true);
    const interval = 60_000 / Number(values['per-minute']);
    const count = Math.round((Number(values.seconds) * 1000) / interval);
    const sentAt = new Map<string, { request: number; answer: number }>();
    const placing: Promise<void>[] = [];
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      const due = start + i * interval;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      const request = Date.now();
      placing.push(
        placeOrder().then((res) => {
          if (res.status !== 201) throw new Error(`checkout answered ${res.status}`);
          sentAt.set(String((res.body as { data: { order_id: number } }).data.order_id), { request, answer: Date.now() });
        }),
      );
    }
    await Promise.all(placing);
    const until = Date.now() + 30_000;
    const webCount = values['web-push'] ? count : 0;
    const received: ReceivedPush[] = [];
    for (;;) {
      received.push(...(await fcm.take()));
      if ((received.length >= count && pushService.received.length >= webCount) || Date.now() >= until) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const fromAnswer: number[] = [];
    const fromRequest: number[] = [];
    for (const push of received) {
      const t = sentAt.get(push.data.order_id);
      if (!t) continue;
      fromAnswer.push(Math.max(0, push.at - t.answer));
      fromRequest.push(push.at - t.request);
    }
    fromAnswer.sort((a, b) => a - b);
    fromRequest.sort((a, b) => a - b);
    if (count > 0) {
      console.log(`latency: ${count} orders at ${values['per-minute']}/min, ${received.length} pushes received (load average ${load()})`);
      console.log(
        `  commit→FCM (from the checkout's answer): p50 ${ms(quantile(fromAnswer, 0.5))}, p99 ${ms(quantile(fromAnswer, 0.99))}, max ${ms(fromAnswer.at(-1)!)}`,
      );
      console.log(
        `  upper bound (from the checkout's request): p50 ${ms(quantile(fromRequest, 0.5))}, p99 ${ms(quantile(fromRequest, 0.99))}`,
      );
    }
    if (values['web-push'] && count > 0) {
      const web = pushService.received
        .map((push) => push.at - (sentAt.get(push.payload.data.order_id)?.answer ?? push.at))
        .map((d) => Math.max(0, d))
        .sort((a, b) => a - b);
      console.log(
        `  commit→push service (Web Push, ${web.length} received, ${pushService.problems.length} refused): p50 ${ms(quantile(web, 0.5))}, p99 ${ms(quantile(web, 0.99))}, max ${ms(web.at(-1)!)}`,
      );
    }
    await service.finish(true);

    // 2. Checkout throughput and the service's CPU per checkout, with and without notifications, alternated.
    const checkouts = Number(values.checkouts);
    const concurrency = Number(values.concurrency);
    type Round = { perSecond: number; node: number; postgres: number; walwriter: number; bench: number; perClaim: number; load: string };
    const rounds: Round[][] = [[], []];
    const run = async (notify: boolean) => {
      const before = (await service.round(notify)) as unknown as { done: { claims: number; rows: number } };
      const { pids, walwriter } = await service.backends();
      const wal = walwriter === null ? [] : [walwriter];
      // Per backend: one opened during the round counts from 0, one closed during it counts nothing
      // more (never negative), the connection asking is counted like the others.
      const postgres0 = new Map(pids.map((pid) => [pid, cpuSeconds([pid])]));
      const wal0 = cpuSeconds(wal);
      const node0 = cpuSeconds([service.child.pid!]);
      const bench0 = cpuSeconds([fcm.pid, process.pid]);
      let next = 0;
      const began = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next++ < checkouts) {
            const res = await placeOrder();
            if (res.status !== 201) throw new Error(`checkout answered ${res.status}`);
          }
        }),
      );
      const stats = await service.finish(notify);
      const perSecond = checkouts / ((performance.now() - began) / 1000);
      const node = cpuSeconds([service.child.pid!]) - node0;
      const bench = cpuSeconds([fcm.pid, process.pid]) - bench0;
      const wal1 = cpuSeconds(wal);
      const all = new Set([...pids, ...(await service.backends()).pids]);
      const postgres = [...all].reduce((sum, pid) => sum + Math.max(0, cpuSeconds([pid]) - (postgres0.get(pid) ?? 0)), 0);
      rounds[notify ? 1 : 0].push({
        perSecond,
        node: (node * 1000) / checkouts,
        postgres: (postgres * 1000) / checkouts,
        walwriter: ((wal1 - wal0) * 1000) / checkouts,
        bench: (bench * 1000) / checkouts,
        perClaim: (stats.rows - before.done.rows) / Math.max(1, stats.claims - before.done.claims),
        load: os.loadavg()[0].toFixed(1),
      });
    };
    const pairs = Number(values.rounds);
    // A round with notifications first, not counted: the service's code is compiled and its statements planned before the pairs.
    await run(true);
    rounds[1].length = 0;
    // Pairs in alternating order (without-with, with-without, ...): a round's cost drifts over a run
    // (PostgreSQL's part grew round after round on a quiet machine), which a fixed order bills to one side.
    for (let r = 0; r < pairs; r++) {
      for (const notify of r % 2 ? [true, false] : [false, true]) await run(notify);
    }
    const [off, on] = rounds;
    const cpu = (x: Round) => x.node + x.postgres;
    console.log(
      `checkouts/s (${checkouts} per round, ${concurrency} at a time, ${service.world.customers.length} customers in turn, ${pairs} alternated pairs):`,
    );
    console.log(
      `  without notifications: ${off.map((x) => x.perSecond.toFixed(1)).join(', ')} (median ${median(off.map((x) => x.perSecond)).toFixed(1)})`,
    );
    console.log(
      `  with notifications:    ${on.map((x) => x.perSecond.toFixed(1)).join(', ')} (median ${median(on.map((x) => x.perSecond)).toFixed(1)})`,
    );
    const rates = on.map((x, i) => x.perSecond / off[i].perSecond);
    console.log(
      `  with / without: ratio of medians ${(median(on.map((x) => x.perSecond)) / median(off.map((x) => x.perSecond))).toFixed(2)}; per pair ${rates.map((x) => x.toFixed(2)).join(', ')} (median ${median(rates).toFixed(2)})`,
    );
    console.log(`  rows per claim of the worker (with): ${on.map((x) => x.perClaim.toFixed(1)).join(', ')}`);
    const each = (xs: Round[]) => xs.map((x) => `${x.node.toFixed(2)}+${x.postgres.toFixed(2)} (wal ${x.walwriter.toFixed(2)})`).join(', ');
    console.log(
      `CPU ms per checkout, the service's process + its PostgreSQL backends (each round; in brackets the server's WAL writer, shared with other databases, not in the totals; load average 1 min at the round's end):`,
    );
    console.log(
      `  without notifications: ${each(off)} (median total ${median(off.map(cpu)).toFixed(2)}; load ${off.map((x) => x.load).join(', ')})`,
    );
    console.log(
      `  with notifications:    ${each(on)} (median total ${median(on.map(cpu)).toFixed(2)}; load ${on.map((x) => x.load).join(', ')})`,
    );
    const ratios = off.map((x, i) => cpu(x) / cpu(on[i]));
    console.log(
      `  without / with: ratio of medians ${(median(off.map(cpu)) / median(on.map(cpu))).toFixed(2)}; per pair ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
    );
    console.log(
      `  the service's process alone, without / with: ${(median(off.map((x) => x.node)) / median(on.map((x) => x.node))).toFixed(2)}; PostgreSQL alone: ${(median(off.map((x) => x.postgres)) / median(on.map((x) => x.postgres))).toFixed(2)}`,
    );
    console.log(
      `  the bench's own processes (the fake FCM and this load client, on the same cores, in neither figure above): without ${median(off.map((x) => x.bench)).toFixed(2)}, with ${median(on.map((x) => x.bench)).toFixed(2)} ms per checkout (medians)`,
    );
    console.log(`load average at the end: ${load()}`);
  } finally {
    await service.stop();
    await fcm.stop();
    await pushService.stop();
    await whatsapp.stop();
  }
}

if (process.argv.includes('--fake-fcm') || process.argv.includes('--service')) {
  (process.argv.includes('--service') ? serviceChild() : fakeFcmChild()).catch((error) => {
    console.error(error);
    process.exit(1);
  });
} else
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
