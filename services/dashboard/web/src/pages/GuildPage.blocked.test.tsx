import { screen, within } from '@testing-library/react';
import { fakeApi, guildView, linkCard, renderPage } from '../../test/render';
import { GuildPage } from './GuildPage';

const G = '100000000000000001';

describe('GuildPage: a blocked link (the server derives the state; the page only says it)', () => {
  it('shows a red Blocked badge, "Blocked: …" with the fix once, no ETA, a still bar, and a banner for the server', async () => {
    const api = fakeApi();
    const card = linkCard({
      state: 'blocked',
      reason: 'above_bot',
      message:
        "Blocked: The role is not below the bot's highest role: drag the bot's role above it in Server Settings → Roles.",
      counts: {
        listed: 22,
        synced: 22,
        to_add: 19,
        to_remove: 0,
        held: 0,
        not_in_server: 0,
        deleted: 0,
        over_limit: 0,
      },
      progress: { percent: 53.6, moving: false, eta_seconds: null },
      blocked: { reason: 'above_bot', message: 'x', since: '2026-12-01T00:00:00.000Z' },
    });
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guildView({ links: [card] }) }));
    renderPage(<GuildPage />, { route: '/guilds/:guildId', path: `/guilds/${G}` });
    const article = await screen.findByRole('article', { name: 'Role link Members' });
    expect(within(article).getByText('Blocked')).toBeInTheDocument();
    expect(within(article).queryByText('Up to date')).toBeNull();
    expect(within(article).getAllByText(/^Blocked: The role is not below the bot's highest role/)).toHaveLength(1);
    expect(within(article).queryByText(/ETA/)).toBeNull();
    const bar = within(article).getByRole('progressbar', { name: 'Sync progress' });
    expect(bar.firstElementChild).toHaveAttribute('data-moving', 'false');
    expect(screen.getByTestId('blocked-links')).toHaveTextContent('The bot cannot change a linked role (Members)');
  });

  it('counts a held removal under Held, and names a role it cannot read while the bot is out as unknown, not deleted', async () => {
    const api = fakeApi();
    const held = linkCard({
      state: 'held',
      reason: 'shrink',
      message: 'A large removal is held: nothing was changed.',
      counts: {
        listed: 3000,
        synced: 3000,
        to_add: 0,
        to_remove: 0,
        held: 2980,
        not_in_server: 0,
        deleted: 0,
        over_limit: 0,
      },
    });
    const out = linkCard({
      link_id: 'link-2',
      role_id: '200000000000000002',
      role: null,
      role_readable: false,
      state: 'blocked',
      reason: 'bot_not_in_guild',
      message: 'Blocked: The bot is not in this server.',
    });
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guildView({ links: [held, out] }) }));
    renderPage(<GuildPage />, { route: '/guilds/:guildId', path: `/guilds/${G}` });
    const article = await screen.findByRole('article', { name: 'Role link Members' });
    const heldBox = within(article).getByText('Held').parentElement!;
    expect(heldBox).toHaveTextContent('2,980');
    expect(screen.getByRole('article', { name: 'Role link Role 200000000000000002' })).toBeInTheDocument();
    expect(screen.queryByText(/Deleted role/)).toBeNull();
  });
});
