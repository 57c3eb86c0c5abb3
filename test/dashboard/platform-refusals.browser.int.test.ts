// What admins see when the platform refuses the bot, in a real Chromium against the real
// dashboard, API and bot worker on the emulator: the bot removed from the server (the worker's first
// refused call opens the outage; the server page and the link card say "the bot is not in this server"
// with the invite), and the Server Members intent off (the reconcile marks the application; the server
// page's banner names the developer portal's setting). Both clear when the platform allows again.
import type { Page } from 'playwright-core';
import { findLinkAt } from '@rolelink/db/links';
import { MEMBERS_INTENT_SETTING } from '@rolelink/domain';
import { enqueueLinkSync } from '@rolelink/queue';
import { DEMO } from '../../scripts/stack/config';
import { eventually, screenshot } from './browser';
import { signInAndCreateLink, useDashboardBrowser, useRoleSyncProducer } from './browser-suite';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;
const SUPPORTER = DEMO.linkedRoleId;

jest.setTimeout(120_000);

describe('the platform refuses the bot: banners in the dashboard', () => {
  const suite = useDashboardBrowser({
    system: { members: 20 },
    pageTimeoutMs: 15_000,
    screenshotName: () => 'rl-dashboard-platform-refusals',
  });
  let sys: DashboardSystem;
  let page: Page;
  const sync = useRoleSyncProducer(suite);
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  it('shows "the bot is not in this server" with the invite on the server page and the card, and clears it when the bot is back', async () => {
    await signInAndCreateLink(page, sys, SUPPORTER);
    const link = (await findLinkAt(sys.db.pool, G, SUPPORTER))!;
    sys.emulator.state.setRules(G, { botInGuild: false });
    await enqueueLinkSync(sync.producer, link.id); // the worker's next call meets 10004 / 50001
    await eventually(
      async () => (await sys.db.pool.query('SELECT 1 FROM guild_outage WHERE guild_id = $1', [G])).rowCount,
      (n) => n === 1,
    );

    await page.goto(`${sys.url}/guilds/${G}`);
    const banner = page.getByRole('alert').filter({ hasText: 'The bot is not in this server' });
    await banner.waitFor();
    const invite = await banner.getByRole('link', { name: 'Add the bot back' }).getAttribute('href');
    expect(invite).toContain(`guild_id=${G}`);
    const card = page.getByRole('article', { name: /Role link/ });
    await card.getByText('Blocked: The bot is not in this server').waitFor();
    await expect(card.getByRole('link', { name: 'Add the bot back' }).getAttribute('href')).resolves.toBe(invite);
    await screenshot(page, 'bot-not-in-server');

    // Added back (as the invite would): the page sees it, the worker's probe is made due and the link resumes.
    sys.emulator.state.setRules(G, { botInGuild: true });
    await page.reload();
    await page.getByRole('heading', { name: DEMO.guildName }).waitFor();
    await eventually(
      async () => (await sys.db.pool.query('SELECT 1 FROM guild_outage WHERE guild_id = $1', [G])).rowCount,
      (n) => n === 0,
    );
    await page.reload();
    await page.getByRole('article', { name: /Role link/ }).waitFor();
    await expect(page.getByText('The bot is not in this server').count()).resolves.toBe(0);
  });

  it('shows the Server Members intent banner, naming the portal setting, while the reconcile cannot list members', async () => {
    sys.emulator.state.setRules(G, { membersIntent: false });
    await sync.producer.add('reconcile', {});
    await eventually(
      async () =>
        (await sys.db.pool.query('SELECT 1 FROM bot_application WHERE members_blocked_at IS NOT NULL')).rowCount,
      (n) => n === 1,
    );
    await page.goto(`${sys.url}/guilds/${G}`);
    const banner = page.getByRole('alert').filter({ hasText: 'Server Members intent is off' });
    await banner.waitFor();
    await expect(banner.textContent()).resolves.toContain(MEMBERS_INTENT_SETTING);
    await screenshot(page, 'members-intent-missing');

    sys.emulator.state.setRules(G, { membersIntent: true });
    await sync.producer.add('reconcile', {});
    await eventually(
      async () =>
        (await sys.db.pool.query('SELECT 1 FROM bot_application WHERE members_blocked_at IS NOT NULL')).rowCount,
      (n) => n === 0,
    );
    await page.reload();
    await page.getByRole('heading', { name: DEMO.guildName }).waitFor();
    await expect(page.getByRole('alert').filter({ hasText: 'Server Members intent is off' }).count()).resolves.toBe(0);
  });
});
