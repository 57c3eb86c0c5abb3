// Admin overrides on the link page in a real Chromium, against the real dashboard, API,
// broker, bot worker and example plugin (test/dashboard/system.ts): an admin adds an "Always keep" and a
// "Never give" member, sees a refusal beside the field, looks a member up, and removes an entry; the
// platform follows and the audit log records each change. The screenshot in docs/dashboard.md is taken here.
import type { Page } from 'playwright-core';
import { DEMO } from '../../scripts/stack/config';
import { eventually, screenshot } from './browser';
import { signInAndCreateLink, useDashboardBrowser } from './browser-suite';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;
const SUPPORTER = DEMO.linkedRoleId;
const OWNER = DEMO.users.find((u) => u.role === 'owner')!;

jest.setTimeout(120_000);

describe('link overrides in the dashboard', () => {
  const suite = useDashboardBrowser({
    system: { members: 60 },
    pageTimeoutMs: 15_000,
    screenshotName: () => 'rl-dashboard-overrides',
  });
  let sys: DashboardSystem;
  let page: Page;
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  const holders = () => sys.emulator.state.holders(G, SUPPORTER);

  it('adds and removes overrides on the Members tab; the bot follows and the audit log records each change', async () => {
    await signInAndCreateLink(page, sys, SUPPORTER);
    // The example plugin lists its first 20 demo members when it registers.
    await page.getByLabel('How many demo members hold the role').waitFor();
    const listed = await eventually(holders, (h) => h.length === 20);
    expect(listed).toHaveLength(20);
    const [banned] = [...listed].sort();
    // A demo member the plugin does not list (members are numbered from DEMO.firstMemberId).
    const staff = (BigInt(DEMO.firstMemberId) + 50n).toString();
    expect(listed).not.toContain(staff);

    await page.getByRole('link', { name: 'Members' }).click();
    const section = page.getByRole('region', { name: 'Overrides' });
    await section.getByText('Nobody is always kept.').waitFor();

    // Client-side check first (contracts' userIdProblem): nothing is sent.
    await section.getByLabel('Member ID').fill('0123');
    await section.getByRole('button', { name: 'Add override' }).click();
    await section
      .getByRole('alert')
      .getByText(/Enter a user ID of 17 to 20 digits/)
      .waitFor();
    await expect(section.getByLabel('Member ID').getAttribute('aria-invalid')).resolves.toBe('true');

    await section.getByLabel('Member ID').fill(staff);
    await section.getByRole('button', { name: 'Add override' }).click();
    await section
      .getByRole('list', { name: /Always keep/ })
      .getByText(staff)
      .waitFor();

    await section.getByLabel('Member ID').fill(banned!);
    await section.getByLabel('Never give').check();
    await section.getByRole('button', { name: 'Add override' }).click();
    await section
      .getByRole('list', { name: /Never give/ })
      .getByText(banned!)
      .waitFor();

    // The server's refusal (a member in both lists) is shown beside the field.
    await section.getByLabel('Member ID').fill(staff);
    await section.getByRole('button', { name: 'Add override' }).click();
    await section
      .getByRole('alert')
      .getByText(/cannot be in both/)
      .waitFor();

    // The bot applies both above the plugin's list.
    await eventually(holders, (h) => h.includes(staff) && !h.includes(banned!));
    expect(holders()).toContain(staff);
    expect(holders()).not.toContain(banned);

    // The member look-up says why.
    await page.getByLabel('User ID').fill(banned!);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page
      .getByText('Does not get the role: on the "Never give" override list, even if the plugin lists them.')
      .waitFor();
    await screenshot(page, 'link-overrides');

    await section.getByRole('button', { name: `Remove ${banned} from Never give` }).click();
    await section.getByText('Nobody is excluded.').waitFor();
    // The look-up was refreshed with the link's data: listed and synced again.
    await page.getByText("Holds the role: on the plugin's list, within the synced limit.").waitFor();
    await eventually(holders, (h) => h.includes(banned!));
    expect(holders()).toContain(banned);

    const { rows } = await sys.db.pool.query<{
      actor_name: string;
      via: string;
      detail: { added: { always: string[]; never: string[] }; removed: { always: string[]; never: string[] } };
    }>("SELECT actor_name, via, detail FROM admin_audit WHERE action = 'overrides_changed' ORDER BY id");
    expect(rows.map((r) => [r.via, r.detail.added, r.detail.removed])).toEqual([
      ['dashboard', { always: [staff], never: [] }, { always: [], never: [] }],
      ['dashboard', { always: [], never: [banned] }, { always: [], never: [] }],
      ['dashboard', { always: [], never: [] }, { always: [], never: [banned] }],
    ]);
    expect(rows[0]!.actor_name).toBe(OWNER.username);
  });
});
