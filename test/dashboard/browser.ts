import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (scripts/ensure-chromium.sh installs it); a test library's browser download does not work here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Where the browser tests put their screenshots: docs/images/dashboard (what docs/dashboard.md shows) with
 * UPDATE_SCREENSHOTS=1, otherwise .data/screenshots/dashboard, so an ordinary test run leaves the checkout
 * unchanged (every run re-renders the PNGs with small pixel differences).
 */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.resolve(__dirname, '..', '..', 'docs', 'images', 'dashboard')
    : path.resolve(__dirname, '..', '..', '.data', 'screenshots', 'dashboard');

// As root in a closed network: no sandbox, and none of Chromium's own background connections.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export type TestBrowser = { browser: Browser; context: BrowserContext; page: Page; close(): Promise<void> };

/**
 * Headless Chromium with a fresh profile. The plugins' self-signed certificates are accepted (the
 * iframe loads the example plugin over https on loopback); the dashboard itself is plain http locally.
 */
export async function openBrowser(): Promise<TestBrowser> {
  // Playwright gives every launch a fresh temporary profile of its own.
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  return {
    browser,
    context,
    page,
    async close() {
      await browser.close();
    },
  };
}

/** A full-page screenshot for the docs, named for the page it shows. */
/**
 * The page as a picture for docs/dashboard.md. With a dialog open, the viewport only: the dialog's backdrop
 * covers the viewport, and a full-page picture showed the rest of the page undimmed below it.
 * `dismissToasts`: close the notifications earlier steps left, when they are not what the picture shows.
 */
export async function screenshot(page: Page, name: string, opts: { dismissToasts?: boolean } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  if (opts.dismissToasts) {
    const close = page.getByRole('button', { name: 'Dismiss notification' });
    while ((await close.count()) > 0) await close.first().click();
  }
  const dialogOpen = (await page.locator('[role="dialog"], [role="alertdialog"]').count()) > 0;
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: !dialogOpen });
}

/**
 * Asks `read` until `done` holds or the time is up, and returns the last answer (the caller's expect
 * then shows what it was). Waits on the page's state, never on a fixed sleep.
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
