// In a real browser: a privileged role is linked only with the owner's typed consent (an admin is
// told why they cannot), the card and the link page flag it, and the strip lock-out dialog names every
// admin who would lose their last Manage Server, never the owner. Screenshots for docs/dashboard.md.
import type { Page } from 'playwright-core';
import { DEMO } from '../../scripts/stack/config';
import { eventually, screenshot } from './browser';
import { signInAs, useDashboardBrowser } from './browser-suite';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;
const MODERATOR = DEMO.moderatorRoleId;
const OWNER = DEMO.users.find((u) => u.role === 'owner')!;
const ADMIN = DEMO.users.find((u) => u.role === 'admin')!;
/** A generated member with no admin rights of their own: Moderator from the link makes them an admin. */
const SECOND_ADMIN = (BigInt(DEMO.firstMemberId) + 7n).toString();

jest.setTimeout(600_000);

describe('privileged roles and the lock-out guard in a real browser', () => {
  const suite = useDashboardBrowser({
    system: { members: 50 },
    pageTimeoutMs: 10_000,
    screenshotName: () => `rl-link-guard-${expect.getState().currentTestName?.slice(48, 90).replace(/\W+/g, '-')}`,
  });
  let sys: DashboardSystem;
  let page: Page;
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  async function openCreate() {
    await page.goto(`${sys.url}/guilds/${G}/links/new`);
    await page.getByLabel('Role', { exact: true }).selectOption(MODERATOR);
    await page.getByLabel('Plugin URL').fill(sys.pluginUrl);
    await page.getByLabel('Hand over').check();
  }

  it('shows a Manage Server admin why only the owner can link a privileged role', async () => {
    await signInAs(page, sys, ADMIN.username);
    await openCreate();
    await expect(
      page.getByLabel('Role', { exact: true }).locator('option', { hasText: 'Moderator' }).textContent(),
    ).resolves.toBe('Moderator — privileged (Manage Server, Manage Messages)');
    await page.getByText('Moderator carries Manage Server, Manage Messages.', { exact: false }).waitFor();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Only the server owner can link a privileged role. Ask the owner to create this link.' })
      .waitFor();
    await expect(page.getByRole('button', { name: 'Create link' }).isDisabled()).resolves.toBe(true);
    await expect(page.getByLabel(/to consent as the server owner/).count()).resolves.toBe(0);
    await screenshot(page, 'create-link-privileged-admin');
  });

  it('links a privileged role once the owner types its name, and flags it on the card and the link page', async () => {
    await signInAs(page, sys, OWNER.username);
    await openCreate();
    const consent = page.getByLabel(/to consent as the server owner/);
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByText("Type the role's name, Moderator, exactly as shown to consent").waitFor();
    await consent.fill('moderator');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByText("Type the role's name, Moderator, exactly as shown to consent").waitFor();
    await consent.fill('Moderator');
    await screenshot(page, 'create-link-privileged');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(`${sys.url}/guilds/${G}/links/${MODERATOR}`);
    const card = page.getByRole('article', { name: 'Role link Moderator' });
    await card.getByText('Privileged', { exact: true }).waitFor();
    await page
      .getByRole('note', { name: 'Privileged role' })
      .getByText(/it carries Manage Server, Manage Messages/)
      .waitFor();
    await screenshot(page, 'link-privileged');
    await page.goto(`${sys.url}/guilds/${G}`);
    await page.getByRole('article', { name: 'Role link Moderator' }).getByText('Privileged', { exact: true }).waitFor();
    // The consent is in the audit log, under the owner's name.
    await page.goto(`${sys.url}/guilds/${G}/audit`);
    const row = page
      .getByRole('table', { name: 'Admin actions, newest first' })
      .locator('tbody tr')
      .filter({ hasText: 'Owner consented to a privileged role' });
    await row.getByText('Linked "Moderator", which carries Manage Server, Manage Messages').waitFor();
    await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe(`${OWNER.username}dashboard`);
  });

  it('holds a push that would take members’ only Manage Server until the owner applies it', async () => {
    // The example plugin pushed its 20 demo members on registration: Moderator gave each Manage Server,
    // and its hand-over took it from demo_admin, whose only source it was: held, not removed.
    const register = sys.registrations.all().find((r) => r.roleId === MODERATOR)!;
    const put = (confirm?: string) =>
      fetch(`${sys.apiUrl}/api/role-link/${G}/${MODERATOR}/users`, {
        method: 'PUT',
        headers: {
          Authorization: `Token ${register.token}`,
          'Content-Type': 'application/json',
          ...(confirm ? { 'X-RoleLink-Confirm': confirm } : {}),
        },
        body: JSON.stringify([OWNER.id, SECOND_ADMIN]),
      });
    const holds = () => sys.emulator.state.holders(G, MODERATOR);
    const demo = Array.from({ length: 20 }, (_, i) => (BigInt(DEMO.firstMemberId) + BigInt(i)).toString());
    await eventually(holds, (h) => demo.every((id) => h.includes(id)), 60_000);
    // The plugin now lists the owner and one demo member: a large removal, which it confirms itself.
    const first = await put();
    expect(first.status).toBe(409);
    const hold = ((await first.json()) as { errors: { change_id: string } }).errors.change_id;
    expect((await put(hold)).status).toBe(200);
    expect(await eventually(holds, (h) => h.includes(OWNER.id) && h.includes(SECOND_ADMIN), 60_000)).toEqual(
      expect.arrayContaining([OWNER.id, SECOND_ADMIN]),
    );

    // 19 demo members and demo_admin would lose their only Manage Server: the bot keeps it on them. Each
    // removal costs the bot a member read first, so the hold grows one member at a time.
    const heldCount = async () =>
      (
        await sys.db.pool.query<{ n: number }>(
          "SELECT COALESCE(max(removals), 0)::int AS n FROM held_change WHERE kind = 'admin_source' AND used_at IS NULL",
        )
      ).rows[0]!.n;
    expect(await eventually(heldCount, (n) => n === 20, 300_000)).toBe(20);
    await page.goto(`${sys.url}/guilds/${G}/links/${MODERATOR}`);
    const panel = page.getByRole('group', {
      name: /Removal held: 20 members would lose their only Administrator or Manage Server/,
    });
    await panel.waitFor();
    expect(holds()).toEqual(expect.arrayContaining([ADMIN.id, (BigInt(DEMO.firstMemberId) + 1n).toString()]));
    await screenshot(page, 'held-admin-source');
    await panel.getByRole('button', { name: 'Apply removals…' }).click();
    const dialog = page.getByRole('alertdialog', { name: /Apply the held removal for Moderator/ });
    await dialog.getByText(/20 members lose the role/).waitFor();
    await dialog.getByText(new RegExp(ADMIN.username)).waitFor();
    await screenshot(page, 'apply-admin-source');
    await dialog.getByRole('button', { name: 'Apply 20 removals' }).click();
    await page.getByText(/the bot removes the role from those members now/).waitFor();
    expect((await eventually(holds, (h) => h.length === 2, 300_000)).sort()).toEqual([OWNER.id, SECOND_ADMIN].sort());
  });

  it('names every admin a strip would lock out, never the owner, and asks twice', async () => {
    // The link gave Moderator (Manage Server) to the owner and to SECOND_ADMIN, whose only source it is.
    const holds = () => sys.emulator.state.holders(G, MODERATOR);
    await page.goto(`${sys.url}/guilds/${G}/links/${MODERATOR}/settings`);
    await page.getByRole('button', { name: 'Delete link' }).click();
    const dialog = page.getByRole('alertdialog', { name: /Delete the link for Moderator/ });
    await dialog.getByRole('checkbox', { name: /Also remove the role/ }).check();
    await dialog.getByText(/2 members lose the role/).waitFor();
    await dialog.getByText(`user_${SECOND_ADMIN} (an admin) would lose`, { exact: false }).waitFor();
    await expect(dialog.getByText(new RegExp(`${OWNER.username} \\(`)).count()).resolves.toBe(0);
    const confirm = dialog.getByRole('button', { name: 'Delete permanently' });
    await expect(confirm.isDisabled()).resolves.toBe(true);
    await dialog.getByRole('checkbox', { name: 'I understand: remove the role anyway' }).check();
    await expect(confirm.isDisabled()).resolves.toBe(false);
    await screenshot(page, 'delete-link-lockout');
    // The server refuses the strip without the second confirmation, naming the admin and not the owner.
    const refused = await page.evaluate(async (url) => {
      const csrf = (await (await fetch('/dashboard-api/me')).json()) as { csrf_token?: string };
      const r = await fetch(url, {
        method: 'DELETE',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf.csrf_token ?? '' },
        body: JSON.stringify({ strip_roles: true }),
      });
      return { status: r.status, body: (await r.json()) as { message: string } };
    }, `/dashboard-api/guilds/${G}/links/${MODERATOR}`);
    expect(refused).toEqual({
      status: 409,
      body: expect.objectContaining({
        message: `Removing this role would lock an admin out: admin user_${SECOND_ADMIN} would lose Manage Server. Confirm the lock-out explicitly to go ahead.`,
      }),
    });
    await confirm.click();
    await page.waitForURL(`${sys.url}/guilds/${G}`);
    expect(await eventually(holds, (h) => !h.includes(SECOND_ADMIN), 60_000)).not.toContain(SECOND_ADMIN);
  });
});
