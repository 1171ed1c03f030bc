/**
 * Issue 24, Web Push in a real browser (Debian's Chromium): an owner turns notifications on in
 * the dashboard, closes the board, a customer orders, and the dashboard's service worker shows
 * "New order #N".
 *
 * What is real: the dashboard's toggle, the permission (granted through the browser context, as
 * a person's click on "Allow" would), the service worker registered from the web build, the
 * subscription saved on the service, the outbox, the VAPID-signed and encrypted push to a push
 * service, the service worker's push handler and its notification. What stands in: headless
 * Chromium cannot reach its vendor's push service, so PushManager.subscribe answers a
 * subscription on the local fake push service (with keys the test holds), and that fake, after
 * checking VAPID and decrypting as a browser does, relays the payload to the service worker
 * through DevTools (ServiceWorker.deliverPushMessage), as the vendor's service would.
 */
import path from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { browserAvailable, launchBrowser, signInOnDashboard, skippedBecause, watchPage } from './helpers/browser';
import type { FakeSubscription } from './helpers/fake-push-service';
import { eventually, useNotifyWorld } from './helpers/notifications';
import { placeOrder } from './helpers/orders';

(browserAvailable ? describe : describe.skip)(`Web Push in Chromium${browserAvailable ? '' : ` (${skippedBecause})`}`, () => {
  const t = useNotifyWorld();
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /**
   * In the page: PushManager answers the fake push service's subscription, and keeps what it was
   * asked. Like a browser's, the subscription outlives the page (kept in localStorage here).
   */
  function fakePushManager(subscription: FakeSubscription) {
    const page = globalThis as unknown as {
      PushManager: { prototype: Record<string, unknown> };
      localStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void; removeItem(k: string): void };
      subscribedWith?: unknown;
    };
    const KEY = 'test.fake-push-subscribed';
    const made = {
      endpoint: subscription.endpoint,
      expirationTime: null,
      toJSON: () => ({ endpoint: subscription.endpoint, expirationTime: null, keys: subscription.keys }),
      unsubscribe: () => (page.localStorage.removeItem(KEY), Promise.resolve(true)),
    };
    page.PushManager.prototype.subscribe = (options: { userVisibleOnly: boolean; applicationServerKey: string }) => {
      page.subscribedWith = options;
      page.localStorage.setItem(KEY, '1');
      return Promise.resolve(made);
    };
    page.PushManager.prototype.getSubscription = () => Promise.resolve(page.localStorage.getItem(KEY) ? made : null);
  }

  it('an owner turns notifications on, closes the board; a customer orders; the service worker shows "New order #N"', async () => {
    const context = await browser.newContext();
    try {
      await context.grantPermissions(['notifications'], { origin: t.server.url });
      const subscription = t.webPush.subscribe();
      await context.addInitScript(fakePushManager, subscription);
      const board = await context.newPage();
      const watched = watchPage(board, t.server.url);
      await signInOnDashboard(board, t.server, t.w.owner.user.phone_number);

      const toggle = board.getByRole('button', { name: 'Notifications: off' });
      await toggle.click();
      await board.getByRole('button', { name: 'Notifications: on' }).waitFor();
      await board.screenshot({ path: path.resolve(__dirname, '..', 'test-results', 'screenshots', 'notifications-on.png') });
      expect(await board.evaluate(() => (globalThis as unknown as { subscribedWith: unknown }).subscribedWith)).toEqual({
        userVisibleOnly: true,
        applicationServerKey: t.server.app.services.webPush!.publicKey,
      });
      const saved = await t.server.db.orm.em.fork().execute(`select user_id, endpoint from web_push_subscriptions`);
      expect(saved).toEqual([{ user_id: t.w.owner.user.id, endpoint: subscription.endpoint }]);
      expect(watched.problems).toEqual([]);

      // A tab of the same origin that is not the dashboard: DevTools' handle and where notifications are read.
      const other = await context.newPage();
      await other.goto(`${t.server.url}/healthz`);
      const devtools = await context.newCDPSession(other);
      const registrationId = await workerRegistration(devtools, `${t.server.url}/web/`);
      t.webPush.onReceive = (push) =>
        void devtools.send('ServiceWorker.deliverPushMessage', {
          origin: t.server.url,
          registrationId,
          data: JSON.stringify(push.payload),
        });
      await board.close(); // the board is closed

      const placed = await placeOrder(t.server, t.w);
      expect(placed.status).toBe(201);
      const id: number = placed.body.data.order_id;
      const shown = await eventually(async () => {
        const notifications = await shownNotifications(other);
        expect(notifications).toHaveLength(1);
        return notifications[0];
      });
      expect(shown.title).toBe(`New order #${id}`);
      expect(shown.body).toContain('2× Margherita');
      expect(shown.data).toEqual({
        type: 'new_order',
        order_id: String(id),
        status: 'pending_acceptance',
        seq: expect.stringMatching(/^\d+$/),
      });
      expect(t.webPush.problems).toEqual([]);
      expect(t.webPush.to(subscription.endpoint)[0].vapid.publicKey).toBe(t.server.app.services.webPush!.publicKey);

      // Back on the dashboard the toggle is on, and the order's card shows what was sent for it.
      const again = await context.newPage();
      await again.goto(`${t.server.url}/dashboard`);
      await again.getByRole('button', { name: 'Notifications: on' }).waitFor();
      const card = again.locator(`article.order[data-order-id="${id}"]`);
      await card.getByText('Notifications sent').click();
      await card.locator('.sent li[data-kind="new_order"][data-channel="web_push"][data-status="sent"]').waitFor();
      expect(await card.locator('.sent li[data-kind="new_order"][data-channel="web_push"]').textContent()).toMatch(
        /^new order → owner, browser: sent \d/,
      );
      // Signing out unsubscribes and the service forgets the browser.
      await again.getByRole('button', { name: 'Sign out' }).click();
      await again.getByLabel('Phone number').waitFor();
      expect(await t.server.db.orm.em.fork().execute(`select id from web_push_subscriptions`)).toEqual([]);
      const stillSubscribed = () =>
        (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(
          'test.fake-push-subscribed',
        );
      expect(await again.evaluate(stillSubscribed)).toBeNull();
    } finally {
      t.webPush.onReceive = undefined;
      await context.close();
    }
  }, 90_000);
});

/** The registration id of the service worker of `scope`, as DevTools names it. */
async function workerRegistration(devtools: CDPSession, scope: string): Promise<string> {
  const found = new Promise<string>((resolve) => {
    devtools.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const registration = registrations.find((r) => r.scopeURL === scope && !r.isDeleted);
      if (registration) resolve(registration.registrationId);
    });
  });
  await devtools.send('ServiceWorker.enable');
  return found;
}

/** The notifications the dashboard's service worker is showing, read in a page of the origin. */
function shownNotifications(page: Page): Promise<{ title: string; body: string; data: unknown }[]> {
  return page.evaluate(async () => {
    type Shown = { title: string; body: string; data: unknown };
    const nav = (globalThis as unknown as { navigator: { serviceWorker: { getRegistration(scope: string): Promise<any> } } }).navigator;
    const registration = await nav.serviceWorker.getRegistration('/web/');
    const notifications: Shown[] = registration ? await registration.getNotifications() : [];
    return notifications.map((n) => ({ title: n.title, body: n.body, data: n.data }));
  });
}
