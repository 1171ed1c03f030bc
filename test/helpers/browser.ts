/**
 * Debian's Chromium driven by playwright-core (Playwright's own browser download cannot work
 * here). Absent Chromium skips the browser tests with the reason in their name, unless
 * REQUIRE_BROWSER=1 (CI), where its absence fails them.
 */
import fs from 'node:fs';
import { Browser, chromium, Page } from 'playwright-core';
import { passCooldown } from './auth';
import type { TestServer } from './server';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const browserAvailable = fs.existsSync(CHROMIUM_PATH) || process.env.REQUIRE_BROWSER === '1';
export const skippedBecause = `skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium)`;

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Root in a container needs --no-sandbox; the networking flags stop Chromium calling
    // home, which this closed network refuses (see ../shared/STACK.md).
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What a page did wrong: console errors (CSP refusals among them), uncaught exceptions, requests off this origin. */
export function watchPage(page: Page, origin: string): { problems: string[] } {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    const local = url.startsWith(origin) || url.startsWith(origin.replace(/^http/, 'ws')) || /^(data|blob):/.test(url);
    if (!local) problems.push(`request off this origin: ${url}`);
  });
  return { problems };
}

/** Signs in through the dashboard's form, reading the code the (fake) WhatsApp received. */
export async function signInOnDashboard(page: Page, server: TestServer, phone: string): Promise<void> {
  await passCooldown(server);
  await page.goto(`${server.url}/dashboard`);
  await page.getByLabel('Phone number').fill(phone);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code').waitFor();
  await page.getByLabel('Code').fill(server.whatsapp.lastCodeFor(phone));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}
