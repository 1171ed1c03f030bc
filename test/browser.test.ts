/**
 * The pages in a real browser (Debian's Chromium through playwright-core), against the whole
 * service on a real database: the store owner's live board and a customer's live tracking,
 * /docs and GraphiQL. Every page must run under the service's self-only CSP and request
 * nothing from another origin.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core';
import { uniquePhone } from './helpers/auth';
import { browserAvailable, launchBrowser, signInOnDashboard, skippedBecause, watchPage } from './helpers/browser';
import { Factory, northOf } from './helpers/factories';
import { onlineDriver, OrderWorld, orderWorld, placeOrder } from './helpers/orders';
import { TestServer } from './helpers/server';
import { useTestServer } from './helpers/setup';

/** Screenshots go to test-results/ (ignored); `npm run screenshots` refreshes the README's. */
const SHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.resolve(__dirname, '..', 'docs', 'screenshots')
    : path.resolve(__dirname, '..', 'test-results', 'screenshots');

let server: TestServer;
let make: Factory;
let browser: Browser;
const contexts: BrowserContext[] = [];
const watched: { name: string; problems: string[] }[] = [];

(browserAvailable ? describe : describe.skip)(`pages in Chromium${browserAvailable ? '' : ` (${skippedBecause})`}`, () => {
  useTestServer((s, f) => {
    server = s;
    make = f;
  }, {});

  beforeAll(async () => {
    browser = await launchBrowser();
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    // Checked after each test: CSP refusals appear as console errors.
    const problems = watched.splice(0).flatMap((w) => w.problems.map((p) => `${w.name}: ${p}`));
    expect(problems).toEqual([]);
  });

  async function newPage(name: string, viewport = { width: 1400, height: 820 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    watched.push({ name, ...watchPage(page, server.url) });
    return page;
  }

  const signIn = (page: Page, phone: string) => signInOnDashboard(page, server, phone);

  it('an owner sees a new order within a second and accepts it; the customer watches it accepted and the driver move, across a reconnect', async () => {
    const w: OrderWorld = await orderWorld(server, make);
    const store = { lat: w.owner.store.latitude, lng: w.owner.store.longitude };
    const driver = await onlineDriver(server, northOf(store, 0.3));

    const owner = await newPage('owner');
    const response = await owner.goto(`${server.url}/dashboard`);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await signIn(owner, w.owner.user.phone_number);
    await owner.locator('.live[data-state="live"]').waitFor();
    await owner.waitForTimeout(300); // the board's subscription is set up on the server

    // A customer places an order over REST: it is on the board within a second.
    const placedAt = Date.now();
    const placed = await placeOrder(server, w);
    expect(placed.status).toBe(201);
    const id: number = placed.body.data.order_id;
    const card = owner.locator(`article.order[data-order-id="${id}"]`);
    await card.waitFor({ timeout: 1000 });
    const latencyMs = Date.now() - placedAt;
    expect(latencyMs).toBeLessThan(1000);
    await expect(card.getAttribute('data-status')).resolves.toBe('pending_acceptance');
    expect(await card.textContent()).toContain('Margherita');

    // The customer follows the order; the websocket goes through a route the test can cut.
    const customer = await newPage('customer', { width: 1100, height: 760 });
    const sockets: WebSocketRoute[] = [];
    const subscribes: { variables?: { after?: number } }[] = [];
    await customer.routeWebSocket(/\/graphql$/, (ws) => {
      sockets.push(ws);
      const upstream = ws.connectToServer();
      ws.onMessage((message) => {
        const parsed = JSON.parse(String(message));
        if (parsed.type === 'subscribe') subscribes.push(parsed.payload);
        upstream.send(message);
      });
    });
    await signIn(customer, w.customer.user.phone_number);
    // A customer owns no store: the board says so and points to their orders, which list this one.
    await customer.getByText('You own no store').waitFor();
    await customer.getByRole('link', { name: 'My orders' }).last().click();
    await customer.getByRole('link', { name: new RegExp(`^#${id} `) }).click();
    await customer.waitForURL(`${server.url}/dashboard/orders/${id}`);
    await customer.locator('.live[data-state="live"]').waitFor();
    await customer.locator('.timeline li[data-status="pending_acceptance"].reached').waitFor();
    expect(await customer.locator('.timeline li[data-status="accepted"]').getAttribute('class')).toBe('ahead');

    // The owner accepts: the card moves on, the customer's timeline fills in.
    await card.getByRole('button', { name: 'Accept' }).click();
    await owner.locator(`article.order[data-order-id="${id}"][data-status="accepted"]`).waitFor();
    await customer.locator('.timeline li[data-status="accepted"].reached').waitFor();
    await expect(customer.locator('.current').textContent()).resolves.toBe('Accepted');
    await customer.getByText(`Driver: Omar Driver`).waitFor();

    // The driver moves: the marker follows.
    const driverMarker = customer.locator('.map [data-role="driver"]');
    // Positions on the way to the customer (1 km north), with few decimals: the API may round.
    const at = (dLat: number, dLng: number) => ({ lat: Number((store.lat + dLat).toFixed(5)), lng: Number((store.lng + dLng).toFixed(5)) });
    const first = at(0.0035, 0.0018);
    expect(
      (await server.http.post('/api/v1/driver/location', { latitude: first.lat, longitude: first.lng }, { token: driver.token })).status,
    ).toBe(200);
    await customer.locator(`.map [data-role="driver"][data-lat="${first.lat}"]`).waitFor();
    const before = await driverMarker.getAttribute('transform');

    // The connection drops; meanwhile the store starts preparing and the driver moves on.
    const seenBeforeDrop = Math.max(...subscribes.map((s) => s.variables?.after ?? 0));
    await sockets[sockets.length - 1].close({ code: 1011, reason: 'test: connection lost' });
    await customer.locator('.live[data-state="reconnecting"]').waitFor();
    await owner.locator(`article.order[data-order-id="${id}"]`).getByRole('button', { name: 'Start preparing' }).click();
    const second = at(0.0066, 0.0011);
    expect(
      (await server.http.post('/api/v1/driver/location', { latitude: second.lat, longitude: second.lng }, { token: driver.token })).status,
    ).toBe(200);

    // It resumes after the last seq it saw: the missed events arrive, each once.
    await customer.locator('.live[data-state="live"]').waitFor({ timeout: 5000 });
    await customer.locator('.timeline li[data-status="preparing"].reached').waitFor();
    await customer.locator(`.map [data-role="driver"][data-lat="${second.lat}"]`).waitFor();
    expect(await driverMarker.getAttribute('transform')).not.toBe(before);
    const resumed = subscribes[subscribes.length - 1].variables?.after ?? 0;
    expect(subscribes.length).toBeGreaterThanOrEqual(2);
    expect(resumed).toBeGreaterThan(seenBeforeDrop);
    // pending(1) accepted(2) driver_assigned(3) and a position (after seq 3: not an event of its own) were seen before the drop.
    expect(resumed).toBe(3);
    await customer.waitForTimeout(700); // the marker's move animation ends
    await customer.screenshot({ path: path.join(SHOTS, 'tracking.png') });

    // Another order arrives: the board shows both, each in its column.
    const next: number = (await placeOrder(server, w)).body.data.order_id;
    await owner.locator(`article.order[data-order-id="${next}"][data-status="pending_acceptance"]`).waitFor({ timeout: 1000 });
    await owner.locator(`article.order[data-order-id="${id}"][data-status="preparing"]`).waitFor();
    await owner.screenshot({ path: path.join(SHOTS, 'board.png') });
  }, 90_000);

  it("shows the API's error when a step is refused: an owner offline misses a cancellation and accepts", async () => {
    const w = await orderWorld(server, make);
    const owner = await newPage('owner');
    let offline = false;
    let socket: WebSocketRoute | undefined;
    await owner.routeWebSocket(/\/graphql$/, (ws) => {
      if (offline) return void ws.close({ code: 1011, reason: 'test: offline' });
      socket = ws;
      ws.connectToServer();
    });
    await signIn(owner, w.owner.user.phone_number);
    await owner.locator('.live[data-state="live"]').waitFor();
    await owner.waitForTimeout(300);
    const id: number = (await placeOrder(server, w)).body.data.order_id;
    const card = owner.locator(`article.order[data-order-id="${id}"]`);
    await card.waitFor({ timeout: 1000 });

    // The owner's socket is lost and stays lost; the customer cancels meanwhile.
    offline = true;
    await socket!.close({ code: 1011, reason: 'test: connection lost' });
    await owner.locator('.live[data-state="reconnecting"]').waitFor();
    expect((await server.http.post(`/api/v1/customer/orders/${id}/cancel`, undefined, { token: w.customer.token })).status).toBe(200);
    await card.getByRole('button', { name: 'Accept' }).click();

    // The API refuses; its message is on the card, which has moved to Closed.
    const alert = owner.locator(`article.order[data-order-id="${id}"] [role="alert"]`);
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'The order cannot be moved to accepted from its current status. The order is cancelled; this needs it to be pending_acceptance.',
    );
    expect(await owner.locator(`article.order[data-order-id="${id}"]`).getAttribute('data-status')).toBe('cancelled');
  }, 60_000);

  it('a new number signs up from the sign-in form: code, then name, then signed in', async () => {
    const phone = uniquePhone();
    const page = await newPage('sign-up');
    await page.goto(`${server.url}/dashboard`);
    await page.getByLabel('Phone number').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // A wrong code: the API's refusal is shown and the form stays.
    await page
      .getByRole('alert')
      .filter({ hasText: /invalid/i })
      .waitFor();
    await page.getByLabel('Code').fill(server.whatsapp.lastCodeFor(phone));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('First name').fill('Yasmine');
    await page.getByLabel('Last name').fill('Benali');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Yasmine Benali').waitFor();
    // The session survives a reload, and signing out ends it.
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Phone number').waitFor();
  }, 60_000);

  it('/docs renders the REST reference from /openapi.json and "Try it" calls the service with the bearer token', async () => {
    const w = await orderWorld(server, make);
    const page = await newPage('docs');
    const response = await page.goto(`${server.url}/docs`);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    await page.locator('.modal-ux input[type="text"], .modal-ux input[type="password"]').first().fill(w.customer.token);
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux .auth-btn-wrapper button.btn-done').click();

    await page.locator('.opblock-summary-path[data-path="/v1/auth/customer/me"]').click();
    const operation = page.locator('.opblock.is-open');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const body = operation.locator('.live-responses-table .response-col_description pre').first();
    await body.waitFor();
    expect(await body.textContent()).toContain(w.customer.user.phone_number);
    await expect(operation.locator('.live-responses-table tbody .response-col_status').first().textContent()).resolves.toContain('200');
  }, 60_000);

  it('GraphiQL at GET /graphql: the docs explorer from introspection, and a subscription streaming with the Authorization header', async () => {
    const w = await orderWorld(server, make);
    const id: number = (await placeOrder(server, w)).body.data.order_id;
    const page = await newPage('graphiql');
    await page.goto(`${server.url}/graphql`);
    const query = `subscription { orderUpdates(orderId: ${id}) { seq status } }`;
    await page.evaluate(
      ([q, token]) => {
        // Runs in the page (the test's types have no DOM).
        const storage = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage;
        storage.setItem('graphiql:query', q);
        storage.setItem('graphiql:headers', JSON.stringify({ Authorization: `Bearer ${token}` }));
      },
      [query, w.customer.token],
    );
    await page.reload();

    // The schema arrived by introspection (within the depth limit): the docs explorer lists it.
    await page.getByRole('button', { name: /Documentation Explorer/ }).click();
    await page.locator('.graphiql-doc-explorer').getByText('Subscription', { exact: true }).first().waitFor();

    await page.getByRole('button', { name: /Execute query/ }).click();
    const result = page.locator('.graphiql-response');
    await result.filter({ hasText: 'pending_acceptance' }).waitFor({ timeout: 10_000 });
    await server.http.post(`/api/v1/store/orders/${id}/accept`, undefined, { token: w.owner.token });
    await result.filter({ hasText: '"accepted"' }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: path.join(SHOTS, 'graphiql.png') });
  }, 60_000);
});
