import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { QueueName } from '@rolelink/contracts';
import { Producer, workerConnection } from '@rolelink/queue';
import { DEMO } from '../../scripts/stack/config';
import { REDIS_URL } from '../support/redis';
import { openBrowser, type TestBrowser } from './browser';
import { startDashboardSystem, type DashboardSystem } from './system';

// Kept apart from browser.ts, which tests outside the dashboard import (the API reference page, the
// quickstart plugin) without the dashboard system.

export type BrowserSuite = { sys: DashboardSystem; b: TestBrowser; page: Page };

export type BrowserSuiteOptions = {
  system?: Parameters<typeof startDashboardSystem>[0];
  /** The page's default timeout for every wait. */
  pageTimeoutMs: number;
  /** The file name (in the temp dir, without .png) of the screenshot taken after each test. */
  screenshotName: () => string;
  /** A script every page of the context runs first. */
  initScript?: string;
};

/**
 * The set-up every dashboard browser suite shares, as jest hooks of the calling describe: the system and
 * Chromium started together, the page's default timeout and its script errors collected; after each test
 * a screenshot of what the page showed (the first thing to look at when one fails), then no script error;
 * browser and system closed at the end. Returns the suite's handles, filled in once beforeAll has run.
 */
export function useDashboardBrowser(o: BrowserSuiteOptions): BrowserSuite {
  const suite = {} as BrowserSuite;
  const pageErrors: string[] = [];
  beforeAll(async () => {
    const [sys, b] = await Promise.all([startDashboardSystem(o.system), openBrowser()]);
    Object.assign(suite, { sys, b, page: b.page });
    b.page.setDefaultTimeout(o.pageTimeoutMs);
    b.page.on('pageerror', (err) => pageErrors.push(err.message));
    if (o.initScript) await b.context.addInitScript({ content: o.initScript });
  });
  afterAll(async () => {
    await suite.b?.close();
    await suite.sys?.close();
  });
  afterEach(async () => {
    await suite.page.screenshot({ path: path.join(os.tmpdir(), `${o.screenshotName()}.png`) });
    expect(pageErrors).toEqual([]);
  });
  return suite;
}

/**
 * A producer on the suite system's role-sync queue, for tests that start a link's sync or the reconcile
 * themselves (as the platform's events and the scheduler would), opened once the system runs and closed
 * at the end. Call it after useDashboardBrowser, in the same describe.
 */
export function useRoleSyncProducer(suite: BrowserSuite): { producer: Producer<typeof QueueName.roleSync> } {
  const handle = {} as { producer: Producer<typeof QueueName.roleSync> };
  const redis = workerConnection(REDIS_URL, { maxRetriesPerRequest: 3 });
  beforeAll(() => {
    handle.producer = new Producer(QueueName.roleSync, redis, suite.sys.prefix);
  });
  afterAll(async () => {
    await handle.producer?.close();
    redis.disconnect();
  });
  return handle;
}

/**
 * Signs `username` (one of DEMO.users) in through the platform's OAuth2 page, signing whoever is signed
 * in out first, and waits for the guild list. It waits for the page to say who is signed in before
 * choosing: counting the Sign out button at once raced the front end's first render, missed a session
 * still open and then waited for a sign-in link in vain.
 */
export async function signInAs(page: Page, sys: DashboardSystem, username: string): Promise<void> {
  await page.goto(sys.url);
  const signOut = page.getByRole('button', { name: 'Sign out' });
  const signIn = page.getByRole('link', { name: 'Sign in with the platform' });
  await signOut.or(signIn).first().waitFor();
  if (await signOut.count()) await signOut.click();
  await signIn.click();
  await page.getByRole('button', { name: new RegExp(username) }).click();
  await page.getByRole('link', { name: DEMO.guildName }).waitFor();
}

/** Signs the demo guild's owner in through the platform's OAuth2 page and creates a link for `roleId` to the example plugin (hand-over where offered). */
export async function signInAndCreateLink(page: Page, sys: DashboardSystem, roleId: string): Promise<void> {
  const owner = DEMO.users.find((u) => u.role === 'owner')!;
  await signInAs(page, sys, owner.username);
  await page.getByRole('link', { name: DEMO.guildName }).click();
  await page.getByRole('link', { name: 'Create link' }).click();
  await page.getByLabel('Role', { exact: true }).selectOption(roleId);
  await page.getByLabel('Plugin URL').fill(sys.pluginUrl);
  if (await page.getByLabel('Hand over').count()) await page.getByLabel('Hand over').check();
  await page.getByRole('button', { name: 'Create link' }).click();
  await page.waitForURL(`${sys.url}/guilds/${DEMO.guildId}/links/${roleId}`);
}
