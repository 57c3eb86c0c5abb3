// In a real Chromium against the real dashboard, API and bot worker on the emulator:
// a plugin lists users who are not members of the server (accounts of another server: 10007 Unknown
// Member) and accounts that no longer exist (10013 Unknown User). The card counts them apart and the link
// reaches "up to date"; the Members tab shows such a user as "listed, not in the server", never as holding
// the role. While the bot cannot list members (the Server Members intent off), the not-in-server count
// is shown as unavailable with the portal setting, never as a smaller number. Screenshots for docs/dashboard.md.
import type { Page } from 'playwright-core';
import { MEMBERS_INTENT_SETTING } from '@rolelink/domain';
import { demoMemberIds } from '../../examples/plugin-server/src/push';
import { DEMO } from '../../scripts/stack/config';
import { eventually, screenshot } from './browser';
import { signInAndCreateLink, useDashboardBrowser, useRoleSyncProducer } from './browser-suite';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;
const SUPPORTER = DEMO.linkedRoleId;
/** Accounts that are members of the other demo server only: not in this one (10007). */
const OUTSIDERS = DEMO.otherGuild.members.map((m) => m.userId).filter((id) => !DEMO.users.some((u) => u.id === id));
/** Ids no account has on the platform: deleted accounts (10013). */
const GONE = ['100000000009999998', '100000000009999999'];

jest.setTimeout(180_000);

describe('listed users who are not in the server, in a real browser', () => {
  const suite = useDashboardBrowser({
    system: { members: 20 },
    pageTimeoutMs: 30_000,
    screenshotName: () => 'rl-dashboard-listed-not-in-server',
  });
  let sys: DashboardSystem;
  let page: Page;
  const card = () => page.getByRole('article', { name: 'Role link Supporter' });
  const sync = useRoleSyncProducer(suite);
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  it('counts them apart, reaches "up to date", and never shows them as holding the role', async () => {
    expect(OUTSIDERS).toHaveLength(3);
    await signInAndCreateLink(page, sys, SUPPORTER);
    const demo = demoMemberIds(DEMO.firstMemberId, 20);
    const holders = () => sys.emulator.state.holders(G, SUPPORTER);
    // The example plugin pushes its 20 demo members on registration: synced before the list grows.
    await eventually(holders, (h) => h.length === 20, 60_000);
    const token = sys.registrations.get(G, SUPPORTER)!.token;
    const put = await fetch(`${sys.apiUrl}/api/role-link/${G}/${SUPPORTER}/users`, {
      method: 'PUT',
      headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify([...demo, ...OUTSIDERS, ...GONE]),
    });
    expect(put.status).toBe(200);

    await page.goto(`${sys.url}/guilds/${G}`);
    await card()
      .getByText('3 listed users are not in the server: they get the role when they join.')
      .waitFor({ timeout: 60_000 });
    await card().getByText('2 listed users no longer exist', { exact: false }).waitFor();
    await card().getByText('Synced 20 of 20').waitFor();
    await card().getByText('up to date', { exact: true }).waitFor();
    await expect(
      card().getByRole('progressbar', { name: 'Sync progress' }).getAttribute('aria-valuenow'),
    ).resolves.toBe('100');
    expect([...holders()].sort()).toEqual([...demo].sort());
    await screenshot(page, 'listed-not-in-server');

    // The Members tab: "Not in the server", never "Holds the role".
    await page.goto(`${sys.url}/guilds/${G}/links/${SUPPORTER}`);
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByLabel('User ID').fill(OUTSIDERS[0]!);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText('Not in the server', { exact: true }).waitFor();
    await page.getByText(/^Not in the server: the platform says this user is not a member/).waitFor();
    await expect(page.getByText(/Holds the role/).count()).resolves.toBe(0);
    await screenshot(page, 'member-not-in-server');
  });

  it('shows the not-in-server count as unavailable, naming the portal setting, while the bot cannot list members', async () => {
    sys.emulator.state.setRules(G, { membersIntent: false });
    await sync.producer.add('reconcile', {});
    await eventually(
      async () =>
        (await sys.db.pool.query('SELECT 1 FROM bot_application WHERE members_blocked_at IS NOT NULL')).rowCount,
      (n) => n === 1,
      60_000,
    );
    await page.goto(`${sys.url}/guilds/${G}`);
    const unavailable = card().getByTestId('not-in-server');
    await unavailable.getByText('Listed users not in the server: not available.', { exact: false }).waitFor();
    await expect(unavailable.textContent()).resolves.toContain(MEMBERS_INTENT_SETTING);
    // No "of N" that would need the count, and never the smaller number.
    await card().getByText('Synced 20', { exact: true }).waitFor();
    await expect(
      card()
        .getByText(/listed users are not in the server/)
        .count(),
    ).resolves.toBe(0);
    await card().getByText('2 listed users no longer exist', { exact: false }).waitFor();
    await screenshot(page, 'listed-not-in-server-unavailable');

    // The intent back on: the next reconcile's listing clears the mark and the count is back.
    sys.emulator.state.setRules(G, { membersIntent: true });
    await sync.producer.add('reconcile', {});
    await eventually(
      async () =>
        (await sys.db.pool.query('SELECT 1 FROM bot_application WHERE members_blocked_at IS NOT NULL')).rowCount,
      (n) => n === 0,
      60_000,
    );
    await page.reload();
    await card().getByText('3 listed users are not in the server: they get the role when they join.').waitFor();
  });
});
