/**
 * Notifications benchmark (issue 24; figures in docs/perf/2026-11-26-notifications.md):
 *  1. latency: orders placed at a steady rate (200 a minute by default) against one instance
 *     whose outbox worker sends to the local fake FCM; for each order, the time from the
 *     checkout's answer (just after its commit) to the fake receiving the owner's push — and,
 *     as an upper bound, from the checkout's request — p50 / p99 / max;
 *  2. checkout throughput with and without notifications (the outbox rows and their sending),
 *     alternated in one run, as a ratio; beside it the CPU each checkout cost, this process's
 *     (service, worker and the load client) and its PostgreSQL backends' (read from
 *     /proc when the server runs on this machine), which the machine's other work disturbs less
 *     than the throughput. The fake FCM runs in a process of its own: its work is FCM's, not the
 *     service's (it used to be this process's, part of the 0.27–0.55 ms each send cost it, notifications-4.md).
 * With --web-push the owner's browser is subscribed too (a local fake push service that checks
 * VAPID and decrypts): every order is then two sends, and its latency is printed beside FCM's.
 * Needs DATABASE_URL (a database of its own is created and dropped).
 *   npm run bench:notifications -- [--seconds 60] [--per-minute 200] [--checkouts 150] [--rounds 3] [--concurrency 8] [--web-push]
 */
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { FakeFcm, ReceivedPush } from '../test/helpers/fake-fcm';
import { FakePushService } from '../test/helpers/fake-push-service';
import { Factory } from '../test/helpers/factories';
import { signInDevice, NOTIFY_ENV } from '../test/helpers/notifications';
import { orderWorld, placeOrder } from '../test/helpers/orders';
import { startTestServer } from '../test/helpers/server';
import { outboxSettings } from '../src/modules/notifications/outbox';
import { cpuSeconds } from './bench-process';

/**
 * The fake FCM in a process of its own (this script, forked with `--fake-fcm`): FCM's own work is
 * not the service's, so it is neither billed to this process's CPU per checkout nor competing
 * with the service for its event loop. It reports each push it accepts to this process.
 */
async function fcmProcess(): Promise<{ received: ReceivedPush[]; env: Record<string, string>; stop: () => Promise<void> }> {
  const child = fork(__filename, ['--fake-fcm'], {
    execArgv: ['-r', '@swc-node/register'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const received: ReceivedPush[] = [];
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    child.on('message', (message: { env?: Record<string, string>; push?: ReceivedPush }) => {
      if (message.env) resolve(message.env);
      if (message.push) received.push(message.push);
    });
    child.on('exit', (code) => reject(new Error(`fake FCM exited with ${code}`)));
  });
  return {
    received,
    env,
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
  fake.onReceive = (push) => process.send!({ push });
  process.send!({ env: fake.env() });
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '60' },
      'per-minute': { type: 'string', default: '200' },
      checkouts: { type: 'string', default: '150' },
      rounds: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '8' },
      'web-push': { type: 'boolean', default: false },
    },
  });
  const fcm = await fcmProcess();
  const pushService = new FakePushService();
  await pushService.start();
  // The worker as deployed (polling every second; a local commit wakes it at once).
  const env = { ...NOTIFY_ENV, NOTIFICATIONS_POLL_MS: '1000', ...fcm.env, ...pushService.env(), LOG_LEVEL: 'warn' };
  const server = await startTestServer(env);
  try {
    const w = await orderWorld(server, new Factory(server.db));
    await signInDevice(server, w.owner.user.phone_number, { deviceId: 'owner-tablet', pushToken: 'owner-token' });
    if (values['web-push']) {
      const saved = await server.http.post('/api/v1/store/web-push/subscriptions', pushService.subscribe(), { token: w.owner.token });
      if (saved.status !== 201) throw new Error(`web push subscription: ${saved.status}`);
    }

    // 1. Latency at a steady rate.
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
        placeOrder(server, w).then((res) => {
          if (res.status !== 201) throw new Error(`checkout answered ${res.status}`);
          sentAt.set(String((res.body as { data: { order_id: number } }).data.order_id), { request, answer: Date.now() });
        }),
      );
    }
    await Promise.all(placing);
    const until = Date.now() + 30_000;
    const webCount = values['web-push'] ? count : 0;
    while ((fcm.received.length < count || pushService.received.length < webCount) && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const fromAnswer: number[] = [];
    const fromRequest: number[] = [];
    for (const push of fcm.received) {
      const t = sentAt.get(push.data.order_id);
      if (!t) continue;
      fromAnswer.push(Math.max(0, push.at - t.answer));
      fromRequest.push(push.at - t.request);
    }
    fromAnswer.sort((a, b) => a - b);
    fromRequest.sort((a, b) => a - b);
    console.log(`latency: ${count} orders at ${values['per-minute']}/min, ${fcm.received.length} pushes received`);
    console.log(
      `  commit→FCM (from the checkout's answer): p50 ${ms(quantile(fromAnswer, 0.5))}, p99 ${ms(quantile(fromAnswer, 0.99))}, max ${ms(fromAnswer.at(-1)!)}`,
    );
    console.log(
      `  upper bound (from the checkout's request): p50 ${ms(quantile(fromRequest, 0.5))}, p99 ${ms(quantile(fromRequest, 0.99))}`,
    );
    if (values['web-push']) {
      const web = pushService.received
        .map((push) => push.at - (sentAt.get(push.payload.data.order_id)?.answer ?? push.at))
        .map((d) => Math.max(0, d))
        .sort((a, b) => a - b);
      console.log(
        `  commit→push service (Web Push, ${web.length} received, ${pushService.problems.length} refused): p50 ${ms(quantile(web, 0.5))}, p99 ${ms(quantile(web, 0.99))}, max ${ms(web.at(-1)!)}`,
      );
    }

    // 2. Checkout throughput, with and without notifications, alternated.
    const checkouts = Number(values.checkouts);
    const concurrency = Number(values.concurrency);
    const backends = async () =>
      (
        await server.db.orm.em
          .fork()
          .execute<{ pid: number }[]>(`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`)
      ).map((row) => row.pid);
    const cpu: { node: number; postgres: number }[][] = [[], []];
    const perClaim: number[] = [];
    const run = async (notify: boolean) => {
      outboxSettings.enabled = notify;
      if (notify) server.app.notifications.start();
      else await server.app.notifications.stop();
      let next = 0;
      const pids = await backends();
      const postgres0 = cpuSeconds(pids);
      const node0 = process.cpuUsage();
      const stats0 = { ...server.app.notifications.stats };
      const began = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next++ < checkouts) {
            const res = await placeOrder(server, w);
            if (res.status !== 201) throw new Error(`checkout answered ${res.status}`);
          }
        }),
      );
      if (notify) {
        // Every push these checkouts caused is sent within the round, its time and CPU counted.
        await server.app.notifications.stop();
        await server.app.notifications.drain();
      }
      const perSecond = checkouts / ((performance.now() - began) / 1000);
      const { claims, rows } = server.app.notifications.stats;
      if (notify) perClaim.push((rows - stats0.rows) / Math.max(1, claims - stats0.claims));
      const node = process.cpuUsage(node0);
      const added = (await backends()).filter((pid) => !pids.includes(pid));
      cpu[notify ? 1 : 0].push({
        node: (node.user + node.system) / 1000 / checkouts,
        postgres: ((cpuSeconds([...pids, ...added]) - postgres0) * 1000) / checkouts,
      });
      return perSecond;
    };
    const on: number[] = [];
    const off: number[] = [];
    for (let r = 0; r < Number(values.rounds); r++) {
      off.push(await run(false));
      on.push(await run(true));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`checkouts/s (${checkouts} per run, ${concurrency} at a time, alternated):`);
    console.log(`  without notifications: ${off.map((x) => x.toFixed(1)).join(', ')} (median ${median(off).toFixed(1)})`);
    console.log(`  with notifications:    ${on.map((x) => x.toFixed(1)).join(', ')} (median ${median(on).toFixed(1)})`);
    console.log(`  with / without: ${(median(on) / median(off)).toFixed(2)}`);
    console.log(`  rows per claim of the worker (with): ${perClaim.map((x) => x.toFixed(1)).join(', ')}`);
    const each = (xs: { node: number; postgres: number }[]) => xs.map((x) => `${x.node.toFixed(1)}+${x.postgres.toFixed(1)}`).join(', ');
    const total = (xs: { node: number; postgres: number }[]) => median(xs.map((x) => x.node + x.postgres));
    console.log(`CPU ms per checkout, this process + its PostgreSQL backends (each round):`);
    console.log(`  without notifications: ${each(cpu[0])} (median total ${total(cpu[0]).toFixed(1)})`);
    console.log(`  with notifications:    ${each(cpu[1])} (median total ${total(cpu[1]).toFixed(1)})`);
    console.log(`  without / with: ${(total(cpu[0]) / total(cpu[1])).toFixed(2)}`);
  } finally {
    outboxSettings.enabled = true;
    await server.close();
    await fcm.stop();
    await pushService.stop();
  }
}

if (process.argv.includes('--fake-fcm')) {
  fakeFcmChild().catch((error) => {
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
