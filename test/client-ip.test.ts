/**
 * The client's address behind proxies (issue 29, item 2): per-IP limits count the address the
 * trusted proxy saw, never the left-most X-Forwarded-For entry the client writes. Requests go
 * through a real reverse proxy (test/helpers/proxy.ts appends X-Forwarded-For as nginx does),
 * from distinct loopback addresses standing for distinct client machines.
 */
import WebSocket from 'ws';
import { parseProxyTrust } from '../src/common/client-ip';
import { loadConfig } from '../src/config';
import { uniquePhone } from './helpers/auth';
import { startProxy, requestFrom, TestProxy } from './helpers/proxy';
import { useTestServer } from './helpers/setup';
import { startTestServer, TestServer } from './helpers/server';

let server: TestServer;
useTestServer((s) => (server = s));

const extra: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((s) => s.close()));
});

const behindProxy = async (env: Record<string, string>): Promise<{ app: TestServer; proxy: TestProxy }> => {
  const app = await startTestServer(env, server.db);
  extra.push(app);
  const proxy = await startProxy(app.url);
  extra.unshift(proxy);
  return { app, proxy };
};

const sendOtp = (proxy: TestProxy, from: string, spoofed?: string) =>
  requestFrom(
    from,
    `${proxy.url}/v1/auth/customer/send-otp`,
    'POST',
    { phone_number: uniquePhone() },
    spoofed ? { 'x-forwarded-for': spoofed } : {},
  );

const storedIps = async () =>
  (await server.db.orm.em.fork().execute<{ ip: string }[]>(`select ip from otp_sends order by id`)).map((r) => r.ip);

/** Opens a websocket from a chosen loopback address; resolves with the upgrade's status. */
const upgrade = (url: string, localAddress: string, spoofed: string) =>
  new Promise<number>((resolve) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', { localAddress, headers: { 'x-forwarded-for': spoofed } });
    socket.on('open', () => {
      resolve(101);
      socket.terminate();
    });
    socket.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('error', () => undefined);
  });

describe.each([
  ['one proxy (a hop count)', 'true'],
  ["the proxy's address", '127.0.0.1'],
])('TRUST_PROXY: %s', (_name, trust) => {
  it('send-otp: rotating X-Forwarded-For from one client is capped; another client is not; the stored ip is the client', async () => {
    const { proxy } = await behindProxy({ TRUST_PROXY: trust, OTP_MAX_PER_IP_PER_HOUR: '3' });
    const statuses = [];
    for (let n = 1; n <= 5; n++) statuses.push((await sendOtp(proxy, '127.0.0.2', `203.0.113.${n}`)).status);
    expect(statuses).toEqual([202, 202, 202, 429, 429]);
    expect((await sendOtp(proxy, '127.0.0.3', '203.0.113.1')).status).toBe(202);
    // A forged chain ending in a trusted-looking address is still the client's own writing.
    expect((await sendOtp(proxy, '127.0.0.4', '198.51.100.9, 127.0.0.1')).status).toBe(202);
    expect(await storedIps()).toEqual(['127.0.0.2', '127.0.0.2', '127.0.0.2', '127.0.0.3', '127.0.0.4']);
  });

  it('websocket upgrades: rotating X-Forwarded-For from one client is capped per minute; another client is not', async () => {
    const { proxy } = await behindProxy({ TRUST_PROXY: trust, WS_CONNECTIONS_PER_IP_PER_MINUTE: '3' });
    const url = `ws://127.0.0.1:${proxy.port}/graphql`;
    const statuses = [];
    for (let n = 1; n <= 5; n++) statuses.push(await upgrade(url, '127.0.0.2', `203.0.113.${n}`));
    expect(statuses).toEqual([101, 101, 101, 429, 429]);
    expect(await upgrade(url, '127.0.0.3', '203.0.113.1')).toBe(101);
  });
});

describe('TRUST_PROXY with two proxies in front (2)', () => {
  it('takes the address the outer proxy saw', async () => {
    const { proxy: inner } = await behindProxy({ TRUST_PROXY: '2', OTP_MAX_PER_IP_PER_HOUR: '100' });
    const outer = await startProxy(inner.url);
    extra.unshift(outer);
    await sendOtp(outer, '127.0.0.5', '203.0.113.50');
    expect(await storedIps()).toEqual(['127.0.0.5']);
  });
});

describe('without TRUST_PROXY', () => {
  it('X-Forwarded-For is ignored: the address is the socket peer (the proxy)', async () => {
    const { proxy } = await behindProxy({});
    await sendOtp(proxy, '127.0.0.2', '203.0.113.1');
    expect(await storedIps()).toEqual(['127.0.0.1']);
  });
});

describe('the TRUST_PROXY setting', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['true', { hops: 1 }],
    ['yes', { hops: 1 }],
    ['2', { hops: 2 }],
    ['loopback, 10.0.0.0/8, ::1', { addresses: ['loopback', '10.0.0.0/8', '::1'] }],
  ])('%s', (raw, parsed) => {
    expect(parseProxyTrust(raw)).toEqual(parsed);
  });

  it.each(['maybe', '10.0.0.0/33', '10.0.0.1/8/2'])('refuses %s, naming the variable', (raw) => {
    expect(() => loadConfig({ TRUST_PROXY: raw })).toThrow(/TRUST_PROXY must be false, true/);
  });
});
