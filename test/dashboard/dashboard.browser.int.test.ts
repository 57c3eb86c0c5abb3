// The dashboard as an admin uses it: a real Chromium (Debian's), signing in through the emulator's
// OAuth2 page, against the real dashboard, API, broker, bot worker and example plugin (test/dashboard/
// system.ts). The screenshots in docs/dashboard.md are taken here.
import type { Page } from 'playwright-core';
import { toStored } from '@rolelink/db/client';
import { setPlan } from '@rolelink/admin';
import { testAdminDeps } from '../../packages/admin/test/support/deps';
import { DEMO } from '../../scripts/stack/config';
import { demoMemberIds } from '../../examples/plugin-server/src/push';
import { HOSTILE } from './hostile-plugin';
import { waitFor } from '../support/until';
import { eventually, screenshot } from './browser';
import { useDashboardBrowser } from './browser-suite';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;
const SUPPORTER = DEMO.linkedRoleId;
const MODERATOR = DEMO.roles.find((r) => r.name === 'Moderator')!.id;
const OWNER = DEMO.users.find((u) => u.role === 'owner')!;
/** Holds Supporter before its link exists and is on the plugin's list: the link never gives it the role, so a strip must not take it. */
const EARLIER_HOLDER = DEMO.firstMemberId;

jest.setTimeout(120_000);

describe('the dashboard in a real browser', () => {
  const suite = useDashboardBrowser({
    system: { members: 300 },
    pageTimeoutMs: 10_000,
    screenshotName: () => `rl-dashboard-${expect.getState().currentTestName?.slice(31, 70).replace(/\W+/g, '-')}`,
    // Any script a hostile plugin managed to run would set this.
    initScript: `Object.defineProperty(window, '__pwned', { set: (v) => document.documentElement.setAttribute('data-pwned', String(v)) });`,
  });
  let sys: DashboardSystem;
  let page: Page;
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  const linkPath = (roleId: string, tab = '') => `${sys.url}/guilds/${G}/links/${roleId}${tab}`;

  it('signs the owner in through the platform’s OAuth2 page and lists only their servers', async () => {
    await page.goto(sys.url);
    await page.getByRole('link', { name: 'Sign in with the platform' }).waitFor();
    await screenshot(page, 'sign-in');
    await page.getByRole('link', { name: 'Sign in with the platform' }).click();
    await page.getByRole('button', { name: new RegExp(OWNER.username) }).waitFor();
    await screenshot(page, 'emulator-sign-in');
    await page.getByRole('button', { name: new RegExp(OWNER.username) }).click();
    await page.getByRole('link', { name: DEMO.guildName }).waitFor();
    await expect(page.getByRole('link', { name: 'Other Community' }).count()).resolves.toBe(0);
    await screenshot(page, 'guilds');
  });

  it('creates a link with the role picker’s rules and the plugin URL checked beside its field', async () => {
    sys.emulator.state.setMemberRoles(G, EARLIER_HOLDER, [
      ...sys.emulator.state.memberRoles(G, EARLIER_HOLDER)!,
      SUPPORTER,
    ]);
    await page.getByRole('link', { name: DEMO.guildName }).click();
    await page.getByRole('link', { name: 'Create link' }).click();
    const role = page.getByLabel('Role', { exact: true });
    await role.waitFor();
    const administrators = role.locator('option', { hasText: 'Administrators' });
    await expect(administrators.isDisabled()).resolves.toBe(true);
    await expect(administrators.textContent()).resolves.toMatch(/not below the bot's highest role/);
    // The searchable picker: typing narrows the roles to those whose name matches.
    await page.getByLabel('Find a role').fill('mod');
    await page.getByText(/1 of \d+ roles match/).waitFor();
    expect(
      (await role.locator('option').allTextContents()).filter((t) => t !== 'Choose a role…').map((t) => /mod/i.test(t)),
    ).toEqual([true]);
    await page.getByLabel('Find a role').fill('');
    await role.selectOption(SUPPORTER);
    await page.getByLabel('Plugin URL').fill('http://plugin.example.com');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByText(/HTTPS/i).first().waitFor();
    // Nothing is preselected for the role's current member; the form asks, with the count.
    await page.getByText('1 member holds this role now: choose Hand over or Keep current members').waitFor();
    await expect(page.getByLabel('Hand over').isChecked()).resolves.toBe(false);
    await expect(page.getByLabel('Keep current members').isChecked()).resolves.toBe(false);
    await page.getByLabel('Plugin URL').fill(sys.pluginUrl);
    await screenshot(page, 'create-link');
    await page.getByLabel('Hand over').check();
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(linkPath(SUPPORTER));
    await page.getByLabel('How many demo members hold the role').waitFor();
  });

  it('fills a form with every field type, conditions and a range pair, shows the plugin’s 4xx, then saves', async () => {
    // Conditions, live: the team picker appears only for "chosen teams".
    await expect(page.getByRole('group', { name: 'Teams' }).count()).resolves.toBe(0);
    await page.getByLabel('Members of chosen teams').check();
    await page.getByRole('group', { name: 'Teams' }).waitFor();
    await page.getByLabel('Blue').check();
    await page.getByLabel('How many demo members hold the role').fill('25');
    await page.getByLabel('A label for this link').fill('Browser test');
    // The range pair: one row, "start to end", the end's own label hidden.
    await page.getByLabel('Sync window', { exact: true }).fill('18');
    await page.getByLabel('Sync window (end)').fill('9');
    await expect(page.getByText('Sync window end', { exact: true }).isVisible()).resolves.toBe(false);
    await page.getByLabel('Refresh every').fill('60');
    await page.getByLabel('Time zone').selectOption('Europe/Berlin');
    await page.getByRole('switch', { name: 'Notify a webhook when the list changes' }).check();
    await page.getByLabel('Webhook URL').fill('ftp://not-a-web-url');
    await page.getByLabel('Signing secret', { exact: true }).fill('a-signing-secret-of-24ch');
    await page.getByLabel('Message colour (hex)').fill('#ff8800');
    await page.getByRole('button', { name: 'Advanced' }).click();
    await page.getByLabel('Source group ID').fill('group-42');
    await page.getByLabel('Notes for other admins').fill('Set up by the browser test');

    // Client-side validation, same rules as the server: nothing is sent yet.
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText(/Webhook URL must be a URL starting with http/).waitFor();
    await page.getByLabel('Webhook URL').fill('https://hooks.example.com/rolelink');

    // The plugin's own rule (a 4xx) comes back word for word.
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page
      .getByText('Failed to submit config to plugin server: The sync window must end after it starts (start 18, end 9)')
      .waitFor();
    await screenshot(page, 'config-plugin-error');

    await page.getByLabel('Sync window (end)').fill('22');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText('Saved: 25 members').first().waitFor();
    // Refetched after the save (spec 4.2 r4): the plugin's values come back.
    expect(
      await eventually(
        () => page.getByLabel('Sync window (end)').inputValue(),
        (v) => v === '22',
      ),
    ).toBe('22');
    await expect(page.getByLabel('A label for this link').inputValue()).resolves.toBe('Browser test');
    await screenshot(page, 'config-form');
  });

  it('saves the notification settings: which events, a DM to the owner and a channel from the picker', async () => {
    await page.goto(`${sys.url}/guilds/${G}`);
    await page.getByRole('link', { name: 'Notifications' }).click();
    const form = page.getByRole('form', { name: 'Notification settings' });
    await form.waitFor();
    // Defaults: every event but events_dropped, DM on, no channel.
    await expect(form.getByRole('checkbox', { name: 'Plugin healthy again' }).isChecked()).resolves.toBe(true);
    await expect(form.getByLabel('Channel').inputValue()).resolves.toBe('');
    await form.getByRole('checkbox', { name: 'Plugin healthy again' }).uncheck();
    await form.getByLabel('Channel').selectOption({ label: '#admin-alerts' });
    await form.getByRole('button', { name: 'Save notification settings' }).click();
    await page.getByText('Notification settings saved').waitFor();
    await page.reload();
    await form.waitFor();
    await expect(form.getByRole('checkbox', { name: 'Plugin healthy again' }).isChecked()).resolves.toBe(false);
    await expect(form.getByRole('checkbox', { name: 'Large removal held' }).isChecked()).resolves.toBe(true);
    await expect(form.getByRole('checkbox', { name: 'Direct message to the server owner' }).isChecked()).resolves.toBe(
      true,
    );
    await expect(form.getByLabel('Channel').inputValue()).resolves.toBe(DEMO.alertsChannelId);
  });

  it('watches the link sync to the platform', async () => {
    expect(
      await eventually(
        () => sys.emulator.state.holders(G, SUPPORTER).length,
        (n) => n === 25,
        60_000,
      ),
    ).toBe(25);
    await page.goto(`${sys.url}/guilds/${G}`);
    const card = page.getByRole('article', { name: 'Role link Supporter' });
    await card.waitFor();
    // The card refreshes itself every few seconds while the page is open.
    await card.getByText('Synced 25 of 25').waitFor({ timeout: 30_000 });
    await card.getByText('up to date', { exact: true }).waitFor();
    await card.getByText('Up to date', { exact: true }).waitFor(); // the derived state's badge
    // The broker checks a new link's plugin at once (not at the next poll).
    await card.getByText('Plugin: healthy').waitFor();
    await screenshot(page, 'guild');
  });

  it('holds a large removal, shows removals and additions, and applies it only through a dialog with the counts and who is left out', async () => {
    const token = sys.registrations.get(G, SUPPORTER)!.token;
    const put = (ids: string[]) =>
      fetch(`${sys.apiUrl}/api/role-link/${G}/${SUPPORTER}/users`, {
        method: 'PUT',
        headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(ids),
      });
    // The earlier holder stays on the list (they keep the role through the held removal); three members
    // who are not on the list yet join it, so the hold has additions as well as removals.
    const five = [
      EARLIER_HOLDER,
      ...sys.emulator.state.holders(G, SUPPORTER).filter((u) => u !== EARLIER_HOLDER),
    ].slice(0, 5);
    const joining = demoMemberIds(DEMO.firstMemberId, 28).slice(25);
    const eight = [...five, ...joining];
    const held = await put(eight);
    expect(held.status).toBe(409);
    await page.reload();
    const card = page.getByRole('article', { name: 'Role link Supporter' });
    await card.getByText('Removal held: 25 → 8 members (20 removals, 3 additions)').waitFor();
    // A card with a pending hold never says "up to date" (its list was synced, but it is not the plugin's latest).
    await card.getByText('removal held: waiting for the server owner').waitFor();
    await expect(card.getByText('up to date').count()).resolves.toBe(0);
    await screenshot(page, 'held-removal');

    // Apply removals asks first, with the counts and the first members the held list left out.
    await card.getByRole('button', { name: 'Apply removals…' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Apply the held removal for Supporter?' });
    await dialog
      .getByText('20 members lose the role and 3 members gain it: 25 → 8 members (20 removals, 3 additions).')
      .waitFor();
    const leftOut = (await dialog.getByText(/^Left out of the held list: /).textContent()) ?? '';
    expect(leftOut).toMatch(/ and 15 more\.$/);
    for (const kept of eight) expect(leftOut).not.toContain(kept);
    await screenshot(page, 'apply-removals');
    // Cancelling confirms nothing: the plugin's resent list would still be held.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(
      page.request
        .get(`${sys.url}/dashboard-api/guilds/${G}/links/${SUPPORTER}`)
        .then(
          async (r) => ((await r.json()) as { held_change: { confirmed_at: string | null } }).held_change.confirmed_at,
        ),
    ).resolves.toBeNull();

    await card.getByRole('button', { name: 'Apply removals…' }).click();
    await dialog.getByRole('button', { name: 'Apply 20 removals' }).click();
    await card
      .getByText(/resend/i)
      .first()
      .waitFor();
    // Within the hour the plugin's resent list is accepted without a further prompt.
    expect((await put(eight)).status).toBe(200);
    // While the removals run (the platform allows 10 role changes per 10 s), they count as pending: the
    // card never claims "up to date" with removals outstanding.
    await card.getByText(/ · \d+ changes? to make \(additions and removals\)/).waitFor({ timeout: 30_000 });
    await screenshot(page, 'sync-removals');
    expect(
      await eventually(
        () => sys.emulator.state.holders(G, SUPPORTER).length,
        (n) => n === 8,
        60_000,
      ),
    ).toBe(8);
    await card.getByText('up to date', { exact: true }).waitFor({ timeout: 30_000 });
  });

  it('lists the held removal as unread and sends it to the owner as a DM and to the chosen channel', async () => {
    // The bot worker's notify sweep delivers it (system.ts runs it every 300 ms).
    const sent = (m: { content: string }) => m.content.includes(`<@&${SUPPORTER}>: 25 → 8 users (20 removals)`);
    const messages = await eventually(
      () => sys.emulator.state.messages.filter(sent),
      (m) => m.length === 2,
      30_000,
    );
    expect(messages.map((m) => (m.recipientId === OWNER.id ? 'dm' : m.channelId))).toEqual([
      'dm',
      DEMO.alertsChannelId,
    ]);
    await page.goto(`${sys.url}/guilds/${G}/notifications`);
    const item = page.getByRole('listitem').filter({ hasText: 'Large removal held' });
    await item.getByText('25 → 8 members (20 removals)', { exact: false }).waitFor();
    await item.getByText('Unread').waitFor();
    // The worker marks the row in the transaction that follows the platform's answers: reload until it has.
    const marked = async () => {
      await page.reload();
      await item.first().waitFor();
      return item.getByText('Sent (DM to the owner and channel)').count();
    };
    expect(await eventually(marked, (n) => n === 1)).toBe(1);
    await screenshot(page, 'notifications');
    await page.getByRole('button', { name: /Mark all read/ }).click();
    expect(
      await eventually(
        () => item.getByText('Unread').count(),
        (n) => n === 0,
      ),
    ).toBe(0);
  });

  it('shows settings, member look-up, plugin health and the plugin status page', async () => {
    await page.goto(linkPath(SUPPORTER, '/settings'));
    // A click, not check(): the switch shows the server's state, which changes once the save is answered
    // (check() wants it changed right after the click, and a busy CI run answered later).
    await page.getByRole('switch', { name: 'Trusted integration' }).click();
    expect(await eventually(() => page.getByRole('switch', { name: 'Trusted integration' }).isChecked(), Boolean)).toBe(
      true,
    );
    await page.getByRole('button', { name: 'Resync now' }).click();
    await page.getByRole('status').getByText('Resync started').first().waitFor();
    await screenshot(page, 'settings');

    await page.getByRole('link', { name: 'Members' }).click();
    // The export is a plain download of the streamed CSV: the same URL, read by the page itself.
    const href = (await page.getByRole('link', { name: 'Export the list (CSV)' }).getAttribute('href'))!;
    const csv = await page.evaluate<string>(`fetch(${JSON.stringify(href)}).then((r) => r.text())`);
    expect(csv.split('\n')[0]).toBe('user_id,synced');
    expect(
      csv
        .trimEnd()
        .split('\n')
        .slice(1)
        .every((line) => /^\d{17,20},t$/.test(line)),
    ).toBe(true);
    const first = sys.emulator.state.holders(G, SUPPORTER).find((u) => u !== EARLIER_HOLDER)!;
    await page.getByLabel('User ID').fill(first);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByText(/On the list — synced/).waitFor();
    // The member's change history (member-lookup's `history`): the bot's add of the role, as text.
    const history = page.getByRole('table', { name: 'Recent role changes' });
    await history.getByRole('cell', { name: 'Add', exact: true }).first().waitFor();
    await history.getByRole('cell', { name: 'Role applied' }).first().waitFor();
    await expect(history.locator('tbody tr').count()).resolves.toBeGreaterThan(0);
    await screenshot(page, 'member-lookup', { dismissToasts: true });

    await page.getByRole('link', { name: 'Health' }).click();
    await page.getByRole('heading').first().waitFor();
    await screenshot(page, 'link-health');
    await page.goto(`${sys.url}/guilds/${G}/health`);
    await page.getByText(sys.pluginUrl).first().waitFor();
    await screenshot(page, 'plugin-status');
  });

  it('fits a phone, labels the health history in the app’s date format, follows a dark system theme, and offers a way back from a forbidden server', async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    try {
      await page.goto(linkPath(SUPPORTER, '/members'));
      const member = sys.emulator.state.holders(G, SUPPORTER).find((u) => u !== EARLIER_HOLDER)!;
      // A membership that expires says when; the time is far enough ahead that no sweep removes it.
      await sys.db.pool.query(
        `UPDATE link_user SET expires_at = '2034-01-02T03:04:05Z' WHERE link_id = (SELECT id FROM role_link WHERE role_id = $2) AND user_id = ${toStored('$1')}`,
        [member, SUPPORTER],
      );
      await page.getByLabel('User ID').fill(member);
      await page.getByRole('button', { name: 'Look up' }).click();
      const history = page.getByRole('table', { name: 'Recent role changes' });
      await history.waitFor();
      await expect(page.getByTestId('member-expiry').textContent()).resolves.toMatch(
        /^Membership expires .*2034.*: then the user leaves the list/,
      );
      // The table scrolls inside its box; the page itself never scrolls sideways.
      // (Page-side code as strings: the tests compile without the DOM's types.)
      const box = `document.querySelector('.member-history').parentElement`;
      expect(
        await page.evaluate<boolean>(
          `${box}.scrollWidth > ${box}.clientWidth && getComputedStyle(${box}).overflowX === 'auto'`,
        ),
      ).toBe(true);
      expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      // Where the columns do not fit, the box says so: a line above it and a shadow on the edge with more beyond.
      await page.getByText('Scroll sideways for more columns →').waitFor();
      await expect(
        page.locator('[data-more-right] > [role="region"][aria-label="Recent role changes table"]').count(),
      ).resolves.toBe(1);
      await screenshot(page, 'phone-member-lookup');

      // The plugin URL's origin is one unbreakable box: one line, whatever the width.
      const origin = `document.querySelector('[aria-label^="Role link "] [data-testid="url-origin"]')`;
      expect(
        await page.evaluate(
          `({ text: ${origin}.textContent, lines: ${origin}.getClientRects().length, wrap: getComputedStyle(${origin}).whiteSpace })`,
        ),
      ).toEqual({ text: sys.pluginUrl, lines: 1, wrap: 'nowrap' });

      await page.getByRole('link', { name: 'Health' }).click();
      const strip = page.getByRole('list', { name: 'Recent checks (newest first)' });
      await strip.waitFor();
      const newest = (await page.getByText('Newest:').locator('time').textContent())!;
      expect(await strip.locator('li').first().getAttribute('title')).toMatch(
        new RegExp(`^\\w+ at ${newest.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
      );
      await page.getByRole('list', { name: 'Legend' }).getByText('Healthy').waitFor();
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await page.goto(`${sys.url}/guilds/${G}`);
      await page.getByRole('article', { name: 'Role link Supporter' }).waitFor();
      expect(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe('rgb(17, 19, 26)');
      await screenshot(page, 'dark-theme');
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }

    await page.goto(`${sys.url}/guilds/${DEMO.otherGuild.id}`);
    await page.getByRole('heading', { name: 'You cannot manage this server' }).waitFor();
    await page.getByRole('link', { name: 'Back to your servers' }).click();
    await page.getByRole('link', { name: DEMO.guildName }).waitFor();
  });

  it('switches the example plugin to iframe mode and obeys rl:resize, rl:saved and rl:toast', async () => {
    await page.goto(linkPath(SUPPORTER));
    await page.getByRole('combobox', { name: 'Configuration page' }).selectOption({ label: 'Embedded page (iframe)' });
    await page.getByRole('button', { name: 'Save configuration' }).click();
    const iframe = page.locator('iframe[title="Demo member list configuration"]');
    await iframe.waitFor();
    expect(await iframe.getAttribute('sandbox')).toBe(
      'allow-scripts allow-forms allow-same-origin allow-popups allow-popups-to-escape-sandbox',
    );
    const src = (await iframe.getAttribute('src'))!;
    expect(new URL(src).searchParams.get('theme')).toBe('light');
    expect(new URL(src).searchParams.get('rl_token')).toMatch(/^ey/);
    const frame = page.frameLocator('iframe[title="Demo member list configuration"]');
    await frame.getByRole('button', { name: 'Expand details' }).waitFor();
    const before = (await iframe.boundingBox())!.height;
    // Clicks inside the plugin's (cross-origin) frame are dispatched: playwright-core's actionability
    // checks fail in out-of-process frames on Node 20 ("Object not disposable").
    await frame.getByRole('button', { name: 'Expand details' }).dispatchEvent('click');
    expect(
      await eventually(
        async () => (await iframe.boundingBox())!.height,
        (h) => h > before + 50,
      ),
    ).toBeGreaterThan(before + 50);
    await frame
      .getByLabel(/member/i)
      .first()
      .fill('7');
    // rl:dirty: leaving with unsaved changes in the plugin's page asks first.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('alertdialog', { name: 'Leave without saving?' }).waitFor();
    await page.getByRole('button', { name: 'Stay on page' }).click();
    expect(page.url()).toBe(linkPath(SUPPORTER));
    await frame.getByRole('button', { name: 'Save', exact: true }).dispatchEvent('click');
    await page.getByRole('status').getByText('Saved', { exact: true }).first().waitFor();
    await screenshot(page, 'config-iframe');
    // The iframe is never reloaded: its src is the one of the first render.
    expect(await iframe.getAttribute('src')).toBe(src);
    await frame.getByRole('button', { name: 'Use the form instead' }).dispatchEvent('click');
    await page
      .getByText(/Switched back to the form/)
      .first()
      .waitFor();
  });

  it('renders a hostile plugin’s markup as text and never runs it', async () => {
    await page.goto(`${sys.url}/guilds/${G}/links/new`);
    await page.getByLabel('Role', { exact: true }).selectOption(MODERATOR);
    await page.getByLabel('Plugin URL').fill(sys.hostile.url);
    await page.getByLabel('Hand over').check();
    // Moderator carries Manage Server: the owner's typed consent (link-guard.browser.int.test.ts covers it).
    await page.getByLabel(/to consent as the server owner/).fill('Moderator');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(linkPath(MODERATOR));
    await page.locator('label', { hasText: `Label ${HOSTILE.script}` }).waitFor();
    await page.getByText(`Hostile ${HOSTILE.script}`).first().waitFor();
    // The display field's javascript: link stays text; the bold marker still formats.
    await expect(page.locator('a[href^="javascript:"]').count()).resolves.toBe(0);
    await expect(page.locator('strong', { hasText: HOSTILE.script }).count()).resolves.toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText(`Failed to submit config to plugin server: Refused ${HOSTILE.script}`).waitFor();
    await screenshot(page, 'hostile-plugin');
    await expect(page.locator('html').getAttribute('data-pwned')).resolves.toBeNull();
    await expect(page.locator('#root script, #root img[src="x"]').count()).resolves.toBe(0);
  });

  it('deletes a link after a confirmation, and never names the owner as locked out (the owner keeps every permission)', async () => {
    // Moderator carries Manage Server. The link gives it to the owner, whose other roles do not. (Premium:
    // the free plan's one slot is Supporter's, so this second link would be paused.)
    // The plan change marks every link of the guild (Supporter's too) for a sync: the sync is asked for as
    // the dashboard and the CLI ask for it. A no-op here left Supporter marked with no job coming whenever
    // its last job had ended first, and the strip-roles test below waited on it in vain.
    await setPlan({ ...testAdminDeps(sys.db), requestSync: sys.requestSync }, { guildId: G, plan: 'premium' });
    const register = sys.hostile.requests.find((r) => r.method === 'POST' && r.path === '/register')!;
    // The plugin received the link's token with its registration (spec 4.2: the Authorization header).
    const put = await fetch(`${sys.apiUrl}/api/role-link/${G}/${MODERATOR}/users`, {
      method: 'PUT',
      headers: { Authorization: String(register.headers.authorization), 'Content-Type': 'application/json' },
      body: JSON.stringify([OWNER.id]),
    });
    expect(put.status).toBe(200);
    expect(await eventually(() => sys.emulator.state.holders(G, MODERATOR).includes(OWNER.id), Boolean, 60_000)).toBe(
      true,
    );

    await page.goto(linkPath(MODERATOR, '/settings'));
    await page.getByRole('button', { name: 'Delete link' }).click();
    const dialog = page.getByRole('alertdialog', { name: /Delete the link for Moderator/ });
    await dialog.waitFor();
    // Off by default, as documented: deleting a link leaves its members' roles alone.
    await expect(dialog.getByRole('checkbox', { name: /Also remove the role/ }).isChecked()).resolves.toBe(false);
    await screenshot(page, 'delete-link');

    const strip = dialog.getByRole('checkbox', { name: /Also remove the role/ });
    await strip.check();
    await dialog.getByText(/1 member loses the role/).waitFor();
    // The owner loses Moderator's Manage Server on paper only: the platform gives the owner every
    // permission, so no lock-out is named and no second confirmation is asked.
    const confirm = dialog.getByRole('button', { name: 'Delete permanently' });
    await expect(confirm.isDisabled()).resolves.toBe(false);
    await expect(dialog.getByText(/would lose Manage Server/).count()).resolves.toBe(0);
    await expect(dialog.getByRole('checkbox', { name: 'I understand: remove the role anyway' }).count()).resolves.toBe(
      0,
    );
    // This delete keeps the role.
    await strip.uncheck();
    await dialog.getByRole('button', { name: 'Delete permanently' }).click();
    await page.waitForURL(`${sys.url}/guilds/${G}`);
    await page.getByRole('article', { name: 'Role link Supporter' }).waitFor();
    await expect(page.getByRole('article', { name: 'Role link Moderator' }).count()).resolves.toBe(0);
    // DELETE /config reached the plugin (fire-and-forget, through the broker).
    const told = () => sys.hostile.requests.some((r) => r.method === 'DELETE' && r.path === '/config');
    expect(await eventually(told, Boolean)).toBe(true);
    expect(sys.emulator.state.holders(G, MODERATOR)).toContain(OWNER.id);
  });

  it('shows the audit log: who created, configured, trusted and deleted links, filtered by action', async () => {
    await page.goto(`${sys.url}/guilds/${G}`);
    await page.getByRole('link', { name: 'Audit log' }).click();
    const log = page.getByRole('table', { name: 'Admin actions, newest first' });
    await log.waitFor();
    // The Moderator link deleted just before, as the owner, through the dashboard: the newest entry.
    const newest = log.locator('tbody tr').first();
    await expect(newest.getByRole('cell').nth(2).textContent()).resolves.toBe('Link deleted');
    await expect(newest.getByRole('cell').nth(1).textContent()).resolves.toBe('demo_ownerdashboard');
    for (const action of ['Link created', 'Configuration saved', 'Marked trusted', 'Removals applied'])
      await log.getByRole('cell', { name: action, exact: true }).first().waitFor();
    // The applied removal with both kinds of change, as its card showed it.
    await log.getByText('25 → 8 members (20 removals, 3 additions)').waitFor();
    // Field names only, never the values (the form held a signing secret).
    await log
      .getByText(/Fields: .*webhook_secret.*values are not recorded/)
      .first()
      .waitFor();
    await expect(page.getByText('a-signing-secret-of-24ch').count()).resolves.toBe(0);
    await screenshot(page, 'audit-log');
    await page.getByLabel('Action').selectOption({ label: 'Link created' });
    expect(
      await eventually(
        async () => [...new Set(await log.locator('tbody tr td:nth-child(3)').allTextContents())],
        (actions) => actions.length === 1,
      ),
    ).toEqual(['Link created']);
  });

  it('deletes a link with "also remove the role" ticked: the members it gave the role to lose it, an earlier holder keeps it', async () => {
    // The iframe's save above changed the list: the holders are read once the bot has made those changes
    // (read at once, a busy machine's sync still under way counted a member it was about to remove).
    // As long as the sync moves (a loaded machine's took over two minutes once): the wait ends when it stops.
    const syncState = async () =>
      (
        await sys.db.pool.query<{ done: string; wanted: string; pending: number }>(
          'SELECT sync_done_seq::text AS done, sync_wanted_seq::text AS wanted, pending_count AS pending FROM role_link WHERE role_id = $1',
          [SUPPORTER],
        )
      ).rows[0];
    const settled = (s: Awaited<ReturnType<typeof syncState>>) =>
      s !== undefined && BigInt(s.done) >= BigInt(s.wanted) && s.pending === 0;
    const state = await waitFor(syncState, settled, { timeoutMs: 30_000, intervalMs: 100, what: 'the link to settle' });
    expect({ ...state, settled: settled(state) }).toMatchObject({ settled: true });
    const holders = sys.emulator.state.holders(G, SUPPORTER);
    expect(holders).toContain(EARLIER_HOLDER);
    const granted = holders.length - 1;
    await page.goto(linkPath(SUPPORTER, '/settings'));
    await page.getByRole('button', { name: 'Delete link' }).click();
    const dialog = page.getByRole('alertdialog', { name: /Delete the link for Supporter/ });
    await dialog.getByRole('checkbox', { name: 'Also remove the role from the members this link gave it to' }).check();
    await dialog.getByText(/follow the platform's rate limits/).waitFor();
    // The exact number, before confirming: the earlier holder is not counted.
    await dialog.getByText(`${granted} members lose the role`).waitFor();
    await screenshot(page, 'delete-link-strip-roles');
    await dialog.getByRole('button', { name: 'Delete permanently' }).click();
    await page.waitForURL(`${sys.url}/guilds/${G}`);
    // No other link is left to wait for, so wait for the guild page's fresh answer to drop the card.
    const cards = () => page.getByRole('article', { name: 'Role link Supporter' }).count();
    expect(await eventually(cards, (n) => n === 0)).toBe(0);
    expect(
      await eventually(
        () => sys.emulator.state.holders(G, SUPPORTER),
        (h) => h.length === 1,
        60_000,
      ),
    ).toEqual([EARLIER_HOLDER]);
  }, 600_000); // a cap: the waits inside follow the sync's progress

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with the platform' }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/dashboard-api/me')).status);
    expect(me).toBe(401);
    // A failed sign-in lands on the app's own sign-in page, styled like the rest, with the reason and a retry.
    await page.goto(`${sys.url}/auth/callback?code=abc&state=forged`);
    const failed = page.getByRole('alert').filter({ hasText: 'Sign-in failed' });
    await failed.getByText('The sign-in link expired or was not started in this browser. Try again.').waitFor();
    await page.getByRole('link', { name: 'Try again' }).waitFor();
    await screenshot(page, 'sign-in-failed');
  });

  it('explains an empty server list to a member and adds the bot to their own server through the platform’s page', async () => {
    const own = DEMO.botlessGuild;
    await page.goto(sys.url);
    await page.getByRole('link', { name: 'Sign in with the platform' }).click();
    await page.getByRole('button', { name: /demo_member/ }).click();
    await page.getByRole('heading', { name: 'No servers to manage' }).waitFor();
    const add = page.getByRole('link', { name: 'Add the bot to a server' });
    const invite = new URL((await add.getAttribute('href'))!);
    expect(Object.fromEntries(invite.searchParams)).toEqual({
      client_id: expect.any(String),
      scope: 'bot',
      permissions: '268438656',
    });
    await screenshot(page, 'no-servers');
    await add.click();
    const choice = page.getByRole('button', { name: `demo_member → ${own.name}` });
    await choice.waitFor();
    await screenshot(page, 'emulator-add-bot');
    await choice.click();
    await page.getByRole('heading', { name: 'Authorized' }).waitFor();
    // Back on the dashboard: the server list re-reads the bot's servers (at most 1 s old), so it is listed.
    await page.goto(sys.url);
    const listed = await eventually(
      async () => {
        await page
          .getByRole('button', { name: 'Check again' })
          .or(page.getByRole('link', { name: own.name }))
          .first()
          .waitFor();
        if ((await page.getByRole('link', { name: own.name }).count()) === 0)
          await page.getByRole('button', { name: 'Check again' }).click();
        return page.getByRole('link', { name: own.name }).count();
      },
      (n) => n === 1,
    );
    expect(listed).toBe(1);
  });
});
