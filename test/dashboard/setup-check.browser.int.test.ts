// The server page's "Check setup" panel in a real Chromium, against the real dashboard, API,
// broker, bot worker and example plugin (test/dashboard/system.ts): the same checks as `rolelink doctor`,
// all passing on the demo guild (a correct installation), then, with the Server Members intent switched
// off in the emulator, the problem and the portal setting that fixes it. The screenshot in
// docs/dashboard.md is taken here.
import type { Page } from 'playwright-core';
import { DEMO } from '../../scripts/stack/config';
import { screenshot } from './browser';
import { signInAndCreateLink, useDashboardBrowser } from './browser-suite';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;

jest.setTimeout(120_000);

describe('Check setup on the server page', () => {
  const suite = useDashboardBrowser({
    system: { members: 40 },
    pageTimeoutMs: 20_000,
    screenshotName: () => 'rl-dashboard-setup-check',
  });
  let sys: DashboardSystem;
  let page: Page;
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  /** The emulator's control API: one of the platform's rules for the demo guild. */
  const setRules = async (rules: Record<string, boolean>) => {
    const res = await fetch(`${sys.emulator.url}/_emulator/guilds/${G}/rules`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(rules),
    });
    expect(res.status).toBe(200);
  };

  it('passes every check on a correct installation, then names the portal setting once the intent is off', async () => {
    await signInAndCreateLink(page, sys, DEMO.linkedRoleId);
    await page.goto(`${sys.url}/guilds/${G}`);
    const panel = page.getByRole('region', { name: 'Check setup' });
    await panel.getByRole('button', { name: 'Check setup' }).click();
    await panel.getByText('Ready: every check passes.').waitFor();
    const rows = panel.locator('li[data-check]');
    await expect(
      rows.evaluateAll((els: { getAttribute(name: string): string | null }[]) =>
        els.map((e) => [e.getAttribute('data-check'), e.getAttribute('data-status')]),
      ),
    ).resolves.toEqual([
      ['token', 'pass'],
      ['invalid_requests', 'pass'],
      ['bot_in_guild', 'pass'],
      ['members_intent', 'pass'],
      ['manage_roles', 'pass'],
      ['linked_roles', 'pass'],
      ['two_factor', 'pass'],
    ]);

    await setRules({ membersIntent: false });
    try {
      await panel.getByRole('button', { name: 'Check again' }).click();
      await panel.getByText('1 problem to fix.').waitFor();
      const intent = panel.locator('li[data-check="members_intent"]');
      await expect(intent.getAttribute('data-status')).resolves.toBe('fail');
      await intent.getByText(/Privileged Gateway Intents → switch on SERVER MEMBERS INTENT/).waitFor();
      await panel.scrollIntoViewIfNeeded();
      await screenshot(page, 'setup-check');
    } finally {
      await setRules({ membersIntent: true });
    }
  });
});
