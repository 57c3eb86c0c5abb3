import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, guildView, renderPage, type Answer } from '../../test/render';
import { GuildPage } from './GuildPage';

const G = '100000000000000001';
const guildPath = `/dashboard-api/guilds/${G}`;

const guild = guildView();

function later() {
  let answer!: (a: Awaited<Answer>) => void;
  const promise = new Promise<Awaited<Answer>>((resolve) => (answer = resolve));
  return { promise, answer };
}

describe('GuildPage (the guild query)', () => {
  it('says it is loading until the guild answers, then shows it', async () => {
    const api = fakeApi();
    const pending = later();
    api.on('GET', guildPath, () => pending.promise);
    renderPage(<GuildPage />, { route: '/guilds/:guildId', path: `/guilds/${G}` });
    expect(await screen.findByText('Loading…')).toHaveAttribute('role', 'status');
    pending.answer({ status: 200, body: guild });
    expect(await screen.findByRole('heading', { level: 1, name: 'Demo Guild' })).toBeInTheDocument();
    expect(screen.getByText('No role links yet')).toBeInTheDocument();
    expect(screen.queryByText('Loading…')).toBeNull();
  });

  it('explains a 403 with a way back, and loads again on "Try again"', async () => {
    const api = fakeApi();
    api.on('GET', guildPath, () => ({
      status: 403,
      body: { statusCode: 403, message: 'You cannot manage this server: it needs the bot, and you need Manage Server' },
    }));
    const user = userEvent.setup();
    renderPage(<GuildPage />, { route: '/guilds/:guildId', path: `/guilds/${G}` });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('You cannot manage this server');
    expect(screen.getByRole('link', { name: 'Back to your servers' })).toHaveAttribute('href', '/');

    api.on('GET', guildPath, () => ({ status: 200, body: guild }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Demo Guild' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(api.calls.filter((c) => c.path === guildPath)).toHaveLength(2);
  });
});
