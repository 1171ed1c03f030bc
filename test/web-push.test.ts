/**
 * Issue 24, Web Push: browsers' subscriptions saved per user over REST and GraphQL, new orders
 * pushed through the outbox to a local fake push service that checks the VAPID signature and
 * decrypts the payload as a browser would; a stranger's browser hears nothing; a subscription
 * the push service says is gone is removed; endpoints that would make the service a request
 * forger are refused.
 */
import dns from 'node:dns';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/common/logger';
import { vapidKeys } from '../src/modules/notifications/vapid-keys';
import { isPublicAddress, publicOnlyLookup } from '../src/common/public-address';
import { registerCustomer } from './helpers/auth';
import { eventually, useNotifyWorld } from './helpers/notifications';
import { placeOrder } from './helpers/orders';
import type { FakeSubscription } from './helpers/fake-push-service';

const t = useNotifyWorld();

const sql = <T = any>(query: string, params: unknown[] = []) => t.server.db.orm.em.fork().execute<T[]>(query, params);
const save = (token: string, subscription: unknown, role: 'store' | 'customer' = 'store') =>
  t.server.http.post(`/api/v1/${role}/web-push/subscriptions`, subscription, { token });

async function order(): Promise<number> {
  const res = await placeOrder(t.server, t.w);
  expect(res.status).toBe(201);
  return res.body.data.order_id;
}

describe('subscriptions', () => {
  it('the public key, then a browser subscription saved over REST (201) and GraphQL, removed by its endpoint', async () => {
    const key = await t.server.http.get('/api/v1/store/web-push/public-key', { token: t.w.owner.token });
    expect(key.status).toBe(200);
    expect(key.body.data).toBe(t.server.app.services.webPush!.publicKey);
    expect(Buffer.from(key.body.data, 'base64url')).toHaveLength(65);

    const browser = t.webPush.subscribe();
    const saved = await save(t.w.owner.token, { ...browser, expirationTime: null });
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({
      success: true,
      message: 'Web Push subscription saved.',
      data: { id: expect.any(Number), endpoint: browser.endpoint, created_at: expect.any(String) },
    });
    // The same browser signing in as the customer carries its endpoint over (one row per endpoint).
    const moved = await t.server.http.graphql(
      `mutation($input: WebPushSubscriptionInput!) { saveWebPushSubscription(input: $input) { subscription { id endpoint } } }`,
      { input: browser },
      { token: t.w.customer.token },
    );
    expect(moved.body.data.saveWebPushSubscription.subscription.id).toBe(saved.body.data.id);
    expect(await sql(`select user_id from web_push_subscriptions`)).toEqual([{ user_id: t.w.customer.user.id }]);

    const forget = `/api/v1/customer/web-push/subscriptions?endpoint=${encodeURIComponent(browser.endpoint)}`;
    expect((await t.server.http.delete(forget, { token: t.w.owner.token })).status).toBe(404); // not the owner's any more
    const removed = await t.server.http.delete(forget, { token: t.w.customer.token });
    expect(removed.status).toBe(200);
    expect(removed.body.message).toBe('Web Push subscription removed.');
    expect(await sql(`select id from web_push_subscriptions`)).toEqual([]);
    expect((await save('', browser)).status).toBe(401);
  });

  it('the paths are in /openapi.json, under the store and the customer', async () => {
    const { paths } = (await (await fetch(`${t.server.url}/openapi.json`)).json()) as { paths: Record<string, object> };
    for (const role of ['store', 'customer']) {
      expect(Object.keys(paths[`/api/v1/${role}/web-push/subscriptions`]).sort()).toEqual(['delete', 'post']);
      expect(Object.keys(paths[`/api/v1/${role}/web-push/public-key`])).toEqual(['get']);
    }
  });

  it("the dashboard's service worker is served at one URL, never cached, under the pages' CSP", async () => {
    const res = await fetch(`${t.server.url}/web/service-worker.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await res.text()).toContain("addEventListener('push'");
  });

  it("another user's endpoint moves only with its keys: a stranger who knows the endpoint is refused (409), its owner keeps hearing", async () => {
    const browser = t.webPush.subscribe();
    expect((await save(t.w.owner.token, browser)).status).toBe(201);
    const other = t.webPush.subscribe().keys;
    const stranger = (await registerCustomer(t.server)).token;
    for (const keys of [other, { ...browser.keys, auth: other.auth }, { ...other, auth: browser.keys.auth }]) {
      const taken = await save(stranger, { endpoint: browser.endpoint, keys }, 'customer');
      expect([taken.status, taken.body.message]).toEqual([409, expect.stringMatching(/other keys/)]);
    }
    const overGraphql = await t.server.http.graphql(
      `mutation($input: WebPushSubscriptionInput!) { saveWebPushSubscription(input: $input) { message } }`,
      { input: { endpoint: browser.endpoint, keys: other } },
      { token: stranger },
    );
    expect(overGraphql.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(await sql(`select user_id, p256dh, auth from web_push_subscriptions`)).toEqual([
      { user_id: t.w.owner.user.id, p256dh: browser.keys.p256dh, auth: browser.keys.auth },
    ]);
    const id = await order();
    await eventually(() => expect(t.webPush.to(browser.endpoint).map((p) => p.payload.data.order_id)).toEqual([String(id)]));
    // Its own user may save it with new keys (the browser's subscription renewed).
    expect((await save(t.w.owner.token, { endpoint: browser.endpoint, keys: other })).status).toBe(201);
  });

  it('keeps at most 10 browsers per user, the latest', async () => {
    const browsers = Array.from({ length: 11 }, () => t.webPush.subscribe());
    for (const browser of browsers) expect((await save(t.w.owner.token, browser)).status).toBe(201);
    const kept = await sql<{ endpoint: string }>(`select endpoint from web_push_subscriptions order by id`);
    expect(kept.map((r) => r.endpoint)).toEqual(browsers.slice(1).map((b) => b.endpoint));
  });
});

describe('sending', () => {
  it("an owner's browser hears of a new order (VAPID-signed, encrypted); a stranger's browser of nothing; the sent log names web_push", async () => {
    const owner = t.webPush.subscribe();
    const stranger = t.webPush.subscribe();
    const customer = t.webPush.subscribe();
    expect((await save(t.w.owner.token, owner)).status).toBe(201);
    expect((await save((await registerCustomer(t.server)).token, stranger, 'customer')).status).toBe(201);
    expect((await save(t.w.customer.token, customer, 'customer')).status).toBe(201);

    const id = await order();
    const push = await eventually(() => {
      expect(t.webPush.to(owner.endpoint)).toHaveLength(1);
      return t.webPush.to(owner.endpoint)[0];
    });
    expect(push.payload).toEqual({
      title: `New order #${id}`,
      body: expect.stringContaining('2× Margherita'),
      data: { type: 'new_order', order_id: String(id), status: 'pending_acceptance', seq: expect.stringMatching(/^\d+$/) },
    });
    expect(push.vapid.publicKey).toBe(t.server.app.services.webPush!.publicKey);
    expect(push.vapid.claims.aud).toBe(t.webPush.url);
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(push.headers.ttl).toBe('3600');
    expect(push.headers.urgency).toBe('high');
    expect(t.webPush.problems).toEqual([]);

    expect((await t.server.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: t.w.owner.token })).status).toBe(200);
    await eventually(() => expect(t.webPush.to(customer.endpoint).map((p) => p.payload.data.type)).toEqual(['order_accepted']));
    expect(t.webPush.to(stranger.endpoint)).toEqual([]);
    expect(t.webPush.received).toHaveLength(2);
    // A browser that hears of the order is a push: no WhatsApp fallback for this owner.
    expect(t.server.whatsapp.messages.filter((m) => m.body.template?.name === 'new_order')).toEqual([]);

    const log = await t.server.http.get(`/api/v1/store/orders/${id}/notifications`, { token: t.w.owner.token });
    expect(log.body.data.filter((n: any) => n.status === 'sent').map((n: any) => [n.kind, n.recipient, n.channel])).toEqual([
      ['new_order', 'owner', 'web_push'],
      ['order_accepted', 'customer', 'web_push'],
    ]);
  });

  it('a subscription the push service answers 410 Gone for is removed and not tried again; the owner then hears on WhatsApp', async () => {
    const owner = t.webPush.subscribe();
    expect((await save(t.w.owner.token, owner)).status).toBe(201);
    t.webPush.gone.add(owner.endpoint);
    await order();
    await eventually(async () =>
      expect(await sql(`select status, attempts, last_error from notification_outbox where kind = 'new_order'`)).toEqual([
        { status: 'failed', attempts: 1, last_error: 'push service answered 410' },
      ]),
    );
    expect(await sql(`select id from web_push_subscriptions`)).toEqual([]);
    await order();
    await eventually(() => expect(t.server.whatsapp.messages.filter((m) => m.body.template?.name === 'new_order')).toHaveLength(1));
    // The second order wrote no Web Push row: the first order's only.
    expect(await sql(`select kind from notification_outbox where channel = 'web_push' order by kind`)).toEqual([{ kind: 'new_order' }]);
  });

  it('a subscription whose host resolves to a non-public address at send time is removed, the reason in the sent log; the owner then hears on WhatsApp', async () => {
    const browser = { ...t.webPush.subscribe(), endpoint: 'https://push.rebound.example.net/send/abc' };
    expect((await save(t.w.owner.token, browser)).status).toBe(201);
    type Lookup = (host: string, options: object, callback: (error: Error | null, addresses: dns.LookupAddress[]) => void) => void;
    const lookup = dns.lookup as unknown as Lookup;
    const rebound: Lookup = (host, options, callback) =>
      host === 'push.rebound.example.net' ? callback(null, [{ address: '10.0.0.8', family: 4 }]) : lookup(host, options, callback);
    const spy = jest.spyOn(dns, 'lookup').mockImplementation(rebound as never);
    try {
      const id = await order();
      await eventually(async () =>
        expect(await sql(`select status, attempts, last_error from notification_outbox where kind = 'new_order'`)).toEqual([
          { status: 'failed', attempts: 1, last_error: expect.stringMatching(/non-public address/) },
        ]),
      );
      expect(await sql(`select id from web_push_subscriptions`)).toEqual([]);
      const log = await t.server.http.get(`/api/v1/store/orders/${id}/notifications`, { token: t.w.owner.token });
      expect(log.body.data.map((n: any) => [n.channel, n.status, n.error])).toEqual([
        ['web_push', 'failed', expect.stringMatching(/non-public address/)],
      ]);
      await order();
      await eventually(() => expect(t.server.whatsapp.messages.filter((m) => m.body.template?.name === 'new_order')).toHaveLength(1));
      expect(await sql(`select count(*)::int as n from notification_outbox where channel = 'web_push'`)).toEqual([{ n: 1 }]);
    } finally {
      spy.mockRestore();
    }
  });

  it('an owner who turned Web Push off in the preferences hears nothing in the browser (WhatsApp instead); turned on again, the browser hears', async () => {
    const owner = t.webPush.subscribe();
    expect((await save(t.w.owner.token, owner)).status).toBe(201);
    const prefs = (web_push: boolean) =>
      t.server.http.put('/api/v1/store/notification-preferences', { channels: { web_push } }, { token: t.w.owner.token });
    expect((await prefs(false)).status).toBe(200);
    await order();
    await eventually(() => expect(t.server.whatsapp.messages.filter((m) => m.body.template?.name === 'new_order')).toHaveLength(1));
    expect(await sql(`select count(*)::int as n from notification_outbox where channel = 'web_push'`)).toEqual([{ n: 0 }]);
    expect((await prefs(true)).status).toBe(200);
    const id = await order();
    await eventually(() => expect(t.webPush.to(owner.endpoint).map((p) => p.payload.data.order_id)).toEqual([String(id)]));
  });

  it('429 and 500 from the push service are retried', async () => {
    const owner = t.webPush.subscribe();
    expect((await save(t.w.owner.token, owner)).status).toBe(201);
    t.webPush.failNext(429);
    t.webPush.failNext(500);
    await order();
    await eventually(() => expect(t.webPush.to(owner.endpoint)).toHaveLength(1));
    await eventually(async () =>
      expect(await sql(`select status, attempts from notification_outbox where kind = 'new_order'`)).toEqual([
        { status: 'sent', attempts: 3 },
      ]),
    );
  });
});

describe('refusals: the service must not become a request forger', () => {
  const good = (): FakeSubscription => t.webPush.subscribe();
  const endpoints: [string, RegExp][] = [
    ['http://push.example.com/send/abc', /https/],
    ['ftp://push.example.com/send/abc', /https/],
    ['https://localhost/send/abc', /public host/],
    ['https://push.localhost/send/abc', /public host/],
    ['https://intranet/send/abc', /public host/],
    ['https://metadata.internal/computeMetadata', /public host/],
    ['https://push.localhost../send/abc', /public host/],
    ['https://127.0.0.1../send/abc', /public host/],
    ['https://push..example.com/send/abc', /public host/],
    ['https://127.0.0.1/send/abc', /IP address/],
    ['https://0x7f.1/send/abc', /IP address/],
    ['https://2130706433/send/abc', /IP address/],
    ['https://10.0.0.8/send/abc', /IP address/],
    ['https://169.254.169.254/latest/meta-data', /IP address/],
    ['https://[::1]/send/abc', /IP address/],
    ['https://[fd00::1]/send/abc', /IP address/],
    ['https://user:pass@push.example.com/send/abc', /credentials/],
    ['https://push.example.com:8443/send/abc', /port/],
    [`https://push.example.com/${'a'.repeat(1024)}`, /1024/],
    ['not a url', /URL/],
    // The fake push service's origin is allowed; another local port is not.
    ['http://127.0.0.1:1/send/abc', /https/],
  ];

  it.each(endpoints)('%s → 422 naming endpoint', async (endpoint, message) => {
    const res = await save(t.w.owner.token, { ...good(), endpoint });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['endpoint']);
    expect(res.body.errors.endpoint[0]).toMatch(message);
    expect(await sql(`select id from web_push_subscriptions`)).toEqual([]);
  });

  it('keys of the wrong shape → 422 naming keys.p256dh / keys.auth; unknown fields named too', async () => {
    const browser = good();
    const notOnCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url');
    for (const p256dh of ['short', notOnCurve, 'A'.repeat(200), 'not base64!']) {
      const res = await save(t.w.owner.token, { ...browser, keys: { ...browser.keys, p256dh } });
      expect([res.status, Object.keys(res.body.errors)]).toEqual([422, ['keys.p256dh']]);
    }
    for (const auth of ['c2hvcnQ', 'A'.repeat(100)]) {
      const res = await save(t.w.owner.token, { ...browser, keys: { ...browser.keys, auth } });
      expect([res.status, Object.keys(res.body.errors)]).toEqual([422, ['keys.auth']]);
    }
    const extra = await save(t.w.owner.token, { ...browser, owner_id: 1 });
    expect([extra.status, Object.keys(extra.body.errors)]).toEqual([422, ['owner_id']]);
    for (const key of ['__proto__', 'constructor']) {
      const raw = JSON.stringify({ ...browser, [key]: 1 });
      const named = await t.server.http.request('POST', '/api/v1/store/web-push/subscriptions', undefined, { token: t.w.owner.token, raw });
      expect([named.status, Object.keys(named.body.errors ?? {})]).toEqual([422, [key]]);
    }
    expect(await sql(`select id from web_push_subscriptions`)).toEqual([]);
  });

  it('at send time a name that resolves to a non-public address is refused (DNS rebinding)', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicOnlyLookup('localhost', {}, (e) => resolve(e)));
    expect(error?.code).toBe('ENOTPUBLIC');
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      'fe80::1',
      'fd12::1',
      '::ffff:10.0.0.1',
    ]) {
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    }
    for (const address of ['8.8.8.8', '142.250.74.110', '2a00:1450:4007:80e::200a']) expect(isPublicAddress(address)).toBe(true);
  });

  it('production refuses WEB_PUSH_ALLOWED_ORIGINS and half a key pair', () => {
    const base = {
      NODE_ENV: 'production',
      JWT_SECRET: 'a-production-secret-that-is-long-enough-0123456789',
      DATABASE_URL: 'postgresql://app:secret@db.internal:5432/delivery',
      WHATSAPP_PHONE_NUMBER_ID: '1',
      WHATSAPP_ACCESS_TOKEN: 'token',
    };
    expect(() => loadConfig({ ...base, WEB_PUSH_ALLOWED_ORIGINS: 'http://127.0.0.1:9999' })).toThrow(/WEB_PUSH_ALLOWED_ORIGINS/);
    expect(() => loadConfig({ ...base, WEB_PUSH_VAPID_PUBLIC_KEY: t.server.app.services.webPush!.publicKey })).toThrow(/go together/);
    expect(loadConfig(base).notifications.webPush.keys).toBeUndefined(); // Web Push off, not a failure
  });
});

describe('VAPID keys without configuration', () => {
  it('development generates a pair once and keeps it in DATA_DIR (private to the owner); production has none', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vapid-'));
    try {
      const logger = createLogger('silent');
      const development = loadConfig({ DATA_DIR: dir });
      const first = vapidKeys(development, logger)!;
      expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
      expect(vapidKeys(development, logger)).toEqual(first); // kept: the browsers' subscriptions stay valid across restarts
      expect(fs.statSync(path.join(dir, 'web-push-vapid.json')).mode & 0o777).toBe(0o600);
      const production = loadConfig({
        NODE_ENV: 'production',
        DATA_DIR: dir,
        JWT_SECRET: 'a-production-secret-that-is-long-enough-0123456789',
        DATABASE_URL: 'postgresql://app:secret@db.internal:5432/delivery',
        WHATSAPP_PHONE_NUMBER_ID: '1',
        WHATSAPP_ACCESS_TOKEN: 'token',
      });
      expect(vapidKeys(production, logger)).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
