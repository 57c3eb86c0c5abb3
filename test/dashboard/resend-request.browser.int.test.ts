// In a real Chromium against the real dashboard, API, broker (its event sweep on), bot
// worker and example plugin: after the owner applies a held removal, the card says nothing changes until
// the plugin resends its list and offers "Ask the plugin to resend"; the click sends list.resend_requested,
// the example plugin answers it by pushing its list again, and the note gives way to the removals the
// server reports. An admin who is not the owner is refused in the error shape. Screenshot for docs/dashboard.md.
import type { Page } from 'playwright-core';
import { listEventLog } from '@rolelink/db/events';
import { findLinkAt } from '@rolelink/db/links';
import { DEMO } from '../../scripts/stack/config';
import { demoMemberIds } from '../../examples/plugin-server/src/push';
import { eventually, screenshot } from './browser';
import { signInAndCreateLink, useDashboardBrowser } from './browser-suite';
import { signIn } from './sign-in';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;
const SUPPORTER = DEMO.linkedRoleId;
const ADMIN = DEMO.users.find((u) => u.role === 'admin')!;

jest.setTimeout(300_000);

describe('asking the plugin to resend its list after Apply removals', () => {
  const suite = useDashboardBrowser({
    system: { members: 40, eventSweepEveryMs: 300 },
    pageTimeoutMs: 20_000,
    screenshotName: () => 'rl-dashboard-resend-request',
  });
  let sys: DashboardSystem;
  let page: Page;
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  it('shows the button while the window is open, sends list.resend_requested, and replaces the note with the removals once the plugin resent its list', async () => {
    await signInAndCreateLink(page, sys, SUPPORTER);
    const link = (await findLinkAt(sys.db.pool, G, SUPPORTER))!;
    // The example plugin pushed its 20 demo members when it registered, and the bot gave them the role.
    await eventually(
      () => sys.emulator.state.holders(G, SUPPORTER).length,
      (n) => n === 20,
      120_000,
    );

    // Its data now says 5 members: the push is held (15 of 20 removed), and the plugin leaves it to the owner.
    const registration = sys.registrations.get(G, SUPPORTER)!;
    sys.registrations.put({ ...registration, config: { ...registration.config, member_count: 5 } });
    const five = demoMemberIds(DEMO.firstMemberId, 5);
    const held = await fetch(`${sys.apiUrl}/api/role-link/${G}/${SUPPORTER}/users`, {
      method: 'PUT',
      headers: { Authorization: `Token ${registration.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(five),
    });
    expect(held.status).toBe(409);

    await page.reload();
    const card = page.getByRole('article', { name: 'Role link Supporter' });
    const panel = card.getByRole('group', { name: /Removal held: 20 → 5 members/ });
    await panel.waitFor();
    // Before the owner applies it there is nothing to resend for.
    await expect(panel.getByRole('button', { name: 'Ask the plugin to resend' }).count()).resolves.toBe(0);
    await panel.getByRole('button', { name: 'Apply removals…' }).click();
    await page
      .getByRole('alertdialog', { name: 'Apply the held removal for Supporter?' })
      .getByRole('button', { name: 'Apply 15 removals' })
      .click();

    const note = panel.getByText(/nothing changes until the plugin resends it/);
    await note.waitFor();
    await card.getByText('removal confirmed: waiting for the plugin to resend its list').waitFor();
    const ask = panel.getByRole('button', { name: 'Ask the plugin to resend' });
    await ask.waitFor();
    await screenshot(page, 'resend-request');

    // An admin who is not the owner cannot ask (the card shows them no button): the API refuses in the error shape.
    const { agent, csrf } = await signIn(sys.url, ADMIN.id);
    const refused = await agent
      .post(`/dashboard-api/guilds/${G}/links/${SUPPORTER}/request-resend`)
      .set('X-CSRF-Token', csrf)
      .expect(403);
    expect(refused.body).toMatchObject({ statusCode: 403, message: expect.stringMatching(/owner/) });

    await ask.click();
    // The broker delivers the event; the example plugin's handler pushes its 5 members, which the open
    // window lets through; the server then reports the removals, and the note and the button go.
    await card
      .getByText(/^Removals (in progress|applied) \(15 removals confirmed\): the plugin resent its list/)
      .waitFor({ timeout: 60_000 });
    await expect(note.count()).resolves.toBe(0);
    await expect(card.getByRole('button', { name: 'Ask the plugin to resend' }).count()).resolves.toBe(0);
    await expect(card.getByText(/nothing changes until|waiting for the plugin to resend/).count()).resolves.toBe(0);
    // One event for the one click, answered 2xx (the broker records the answer as the plugin's push runs).
    const states = () =>
      listEventLog(sys.db.pool, link.id).then((l) =>
        l.filter((e) => e.kind === 'list.resend_requested').map((e) => e.state),
      );
    expect(await eventually(states, (s) => s.length === 1 && s[0] !== 'pending')).toEqual(['delivered']);
    expect(
      await eventually(
        () => sys.emulator.state.holders(G, SUPPORTER).sort(),
        (h) => h.length === 5,
        120_000,
      ),
    ).toEqual([...five].sort());
    await card.getByText(/^Removals applied \(15 removals confirmed\)/).waitFor({ timeout: 60_000 });
    await screenshot(page, 'resend-request-applied');

    // The request is in the audit log, under the owner's name.
    await page.goto(`${sys.url}/guilds/${G}/audit`);
    const row = page
      .getByRole('table', { name: 'Admin actions, newest first' })
      .locator('tbody tr')
      .filter({ hasText: 'Plugin asked to resend its list' });
    await row.getByText(/^list\.resend_requested \(evt_\d+\) for the removal applied as /).waitFor();
  });
});
