// One derived link state, seen in a real Chromium against the real dashboard, API and bot worker on the
// emulator: a hold that a newer list replaced leaves the card; a listed holder who deleted their account
// is skipped by the strip preview (not a "did not answer" error) and named by the member look-up as a
// deleted account; a role dragged above the bot's blocks the link, and the card says "Blocked: …" with the
// fix, a badge that is not green, no ETA and a still bar. Screenshots for docs/dashboard.md.
import type { Locator, Page } from 'playwright-core';
import { findLinkAt } from '@rolelink/db/links';
import { appliedOutcome } from '@rolelink/db/sync';
import { demoMemberIds } from '../../examples/plugin-server/src/push';
import { DEMO } from '../../scripts/stack/config';
import { eventually, screenshot } from './browser';
import { signInAndCreateLink, useDashboardBrowser } from './browser-suite';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;
const SUPPORTER = DEMO.linkedRoleId;
/** The example plugin's 20 demo members (it pushes them on registration), then generated members it does not list. */
const DEMO_MEMBERS = demoMemberIds(DEMO.firstMemberId, 20);
const [EXTRA, LATE, DELETED_LISTED] = demoMemberIds(DEMO.firstMemberId, 23).slice(20) as [string, string, string];
/** The lowest granted id, so the strip preview's sample reads it. */
const DELETED_HOLDER = DEMO_MEMBERS[0]!;

jest.setTimeout(300_000);

/** Whether a CSS colour (`rgb(r, g, b)` or `rgba(…)`) is green: its green channel above both others. */
function isGreen(color: string): boolean {
  const [r, g, b] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number) as [number, number, number];
  return g > r && g > b;
}

describe('one link state, told the same way in the browser', () => {
  const suite = useDashboardBrowser({
    system: { members: 25 },
    pageTimeoutMs: 30_000,
    screenshotName: () => `rl-state-truth-${expect.getState().currentTestName?.slice(48, 90).replace(/\W+/g, '-')}`,
  });
  let sys: DashboardSystem;
  let page: Page;
  const card = (): Locator => page.getByRole('article', { name: 'Role link Supporter' });
  const holders = () => sys.emulator.state.holders(G, SUPPORTER);
  const token = () => sys.registrations.get(G, SUPPORTER)!.token;
  const plugin = (method: string, path: string, body?: unknown) =>
    fetch(`${sys.apiUrl}/api/role-link/${G}/${SUPPORTER}/users${path}`, {
      method,
      headers: { Authorization: `Token ${token()}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  it('drops a held removal from the card once a newer list replaced it', async () => {
    await signInAndCreateLink(page, sys, SUPPORTER);
    await eventually(holders, (h) => DEMO_MEMBERS.every((id) => h.includes(id)), 60_000);
    // A large removal: held, nothing changed.
    expect((await plugin('PUT', '', DEMO_MEMBERS.slice(0, 5))).status).toBe(409);
    await page.goto(`${sys.url}/guilds/${G}`);
    const hold = card().getByRole('group', { name: /Removal held: 20 → 5 members/ });
    await hold.getByRole('button', { name: 'Apply removals…' }).waitFor();
    await expect(card().getByText('Held', { exact: true }).locator('..').textContent()).resolves.toBe('Held15');
    // The plugin's newer whole list keeps everyone and adds one: the old hold is no decision any more.
    expect((await plugin('PUT', '', [...DEMO_MEMBERS, EXTRA])).status).toBe(200);
    await eventually(holders, (h) => h.includes(EXTRA), 60_000);
    await page.reload();
    await card().getByText('up to date', { exact: true }).waitFor({ timeout: 60_000 });
    await expect(card().getByRole('button', { name: 'Apply removals…' }).count()).resolves.toBe(0);
    await expect(
      card()
        .getByText(/Removal held/)
        .count(),
    ).resolves.toBe(0);
    await expect(card().getByText('Held', { exact: true }).locator('..').textContent()).resolves.toBe('Held0');
    expect(holders()).toEqual(expect.arrayContaining(DEMO_MEMBERS));
  });

  it('skips a deleted account in the strip preview and names it in the member look-up', async () => {
    // A listed holder deletes their account: the platform answers 10013 for them from now on.
    sys.emulator.state.deleteUser(DELETED_HOLDER);
    await page.goto(`${sys.url}/guilds/${G}/links/${SUPPORTER}/settings`);
    await page.getByRole('button', { name: 'Delete link' }).click();
    const dialog = page.getByRole('alertdialog', { name: /Delete the link for Supporter/ });
    await dialog.getByRole('checkbox', { name: /Also remove the role/ }).check();
    await dialog.getByText(/^\d+ members lose the role$/).waitFor();
    await dialog
      .getByText('1 skipped: 1 deleted their account (they no longer hold the role, so they have nothing to lose).')
      .waitFor();
    await expect(dialog.getByText(/could not be loaded|did not answer/).count()).resolves.toBe(0);
    await screenshot(page, 'delete-link-strip-deleted-account');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    // A member deletes their account and the plugin then lists them: the bot's addition answers 10013, which
    // the card counts as a deleted account and the look-up tells in words, never as the raw code.
    sys.emulator.state.deleteUser(DELETED_LISTED);
    expect((await plugin('POST', `/${DELETED_LISTED}`)).status).toBe(200);
    const link = (await findLinkAt(sys.db.pool, G, SUPPORTER))!;
    const outcome = async () => (await appliedOutcome(sys.db.pool, link.id, DELETED_LISTED))?.outcome;
    expect(await eventually(outcome, (o) => o === 'unknown_user', 60_000)).toBe('unknown_user');
    await page.goto(`${sys.url}/guilds/${G}/links/${SUPPORTER}`);
    await card().getByTestId('deleted-accounts').waitFor();
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByLabel('User ID').fill(DELETED_LISTED);
    await page.getByRole('button', { name: 'Look up' }).click();
    const result = page.getByRole('status').filter({ hasText: DELETED_LISTED });
    // The headline, then the platform's last answer in words (a paragraph and the history's cell say it too).
    await result
      .getByRole('paragraph')
      .filter({ hasText: /^Account deleted$/ })
      .waitFor();
    await expect(result.getByTestId('member-reason').textContent()).resolves.toMatch(
      /^Account deleted: the platform says this account no longer exists/,
    );
    await expect(result.textContent()).resolves.not.toMatch(/unknown_user|Holds the role|On the list — synced/);
    await screenshot(page, 'member-account-deleted', { dismissToasts: true });
  });

  it('shows a link whose role was dragged above the bot as blocked: the fix, no ETA, a still bar, not green', async () => {
    // An admin drags Supporter above the bot's role; the plugin's next addition meets the refusal.
    const position = DEMO.roles.find((r) => r.id === SUPPORTER)!.position;
    sys.emulator.state.moveRole(G, SUPPORTER, DEMO.roles.find((r) => r.id === DEMO.botRoleId)!.position + 1);
    expect((await plugin('POST', `/${LATE}`)).status).toBe(200);
    const link = (await findLinkAt(sys.db.pool, G, SUPPORTER))!;
    const blocked = async () =>
      (
        await sys.db.pool.query<{ reason: string | null }>(
          'SELECT blocked_reason AS reason FROM link_sync_state WHERE link_id = $1',
          [link.id],
        )
      ).rows[0]?.reason ?? null;
    expect(await eventually(blocked, (r) => r === 'above_bot', 60_000)).toBe('above_bot');

    await page.goto(`${sys.url}/guilds/${G}`);
    const message = card().getByText(/^Blocked: The role is not below the bot's highest role/);
    await message.waitFor();
    await expect(message.textContent()).resolves.toMatch(/drag the bot's role above it/);
    // Said once on the card, with a badge that is not green, no ETA and a bar that does not move.
    await expect(
      card()
        .getByText(/^Blocked: /)
        .count(),
    ).resolves.toBe(1);
    const badge = card().getByText('Blocked', { exact: true });
    await badge.waitFor();
    // Its colours as the browser paints them (the test's types have no DOM: the page's own global).
    const colours = await badge.evaluate((el) => {
      const s = (
        globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string; color: string } }
      ).getComputedStyle(el);
      return [s.backgroundColor, s.color];
    });
    expect(colours.map(isGreen)).toEqual([false, false]);
    await expect(card().getByText('Up to date', { exact: true }).count()).resolves.toBe(0);
    await expect(card().textContent()).resolves.not.toMatch(/ETA/);
    await expect(
      card().getByRole('progressbar', { name: 'Sync progress' }).locator('[data-moving]').getAttribute('data-moving'),
    ).resolves.toBe('false');
    // The server page names the blocked role above the cards too.
    const banner = page.getByTestId('blocked-links');
    await banner.waitFor();
    await expect(banner.textContent()).resolves.toContain('(Supporter)');
    await screenshot(page, 'blocked-card');

    // Dragged back: the dashboard's read of the roles sees the fix and the link resumes without waiting
    // for the back-off; the member the plugin added gets the role.
    sys.emulator.state.moveRole(G, SUPPORTER, position);
    await page.reload();
    expect(await eventually(holders, (h) => h.includes(LATE), 90_000)).toContain(LATE);
    await card().getByText('up to date', { exact: true }).waitFor({ timeout: 60_000 });
    await expect(
      card()
        .getByText(/^Blocked: /)
        .count(),
    ).resolves.toBe(0);
  });
});
