import type { DashboardGuildSummary, DashboardMe } from '@rolelink/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { useSession } from '../auth/session';
import { fakeApi, renderPage } from '../../test/render';
import { GuildsPage } from './GuildsPage';

const me: DashboardMe = {
  user: { id: '300000000000000001', username: 'ana', global_name: 'Ana', avatar_url: null },
  csrf_token: 'csrf-1',
  add_bot_url: 'https://platform.example/oauth2/authorize?client_id=1&scope=bot',
};

const demo: DashboardGuildSummary = {
  guild_id: '100000000000000001',
  name: 'Demo Guild',
  icon_url: null,
  owner: true,
  plan: 'free',
  slots: { used: 1, allowed: 1 },
};
const other: DashboardGuildSummary = {
  guild_id: '100000000000000002',
  name: 'other place',
  icon_url: null,
  owner: false,
  plan: 'premium',
  slots: { used: 2, allowed: 5 },
};

// GuildsPage sits behind AppShell's sign-in gate (useMe needs a signed-in session): the same gate, minus the chrome.
function SignedIn({ children }: { children: ReactNode }) {
  const { state } = useSession();
  return state.status === 'signed-in' ? children : null;
}

function serve() {
  const api = fakeApi();
  api.on('GET', '/dashboard-api/me', () => ({ status: 200, body: me }));
  return api;
}

describe('GuildsPage', () => {
  it('lists every manageable server as a link to its page, with its plan, slots and owner badge', async () => {
    const api = serve();
    api.on('GET', '/dashboard-api/guilds', () => ({ status: 200, body: { guilds: [demo, other] } }));
    renderPage(
      <SignedIn>
        <GuildsPage />
      </SignedIn>,
    );
    expect(await screen.findByRole('link', { name: 'Demo Guild' })).toHaveAttribute('href', `/guilds/${demo.guild_id}`);
    expect(screen.getByRole('heading', { level: 1, name: 'Your servers' })).toBeInTheDocument();
    const items = screen.getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(within(items[0]!).getByText('1 of 1 slots used')).toBeInTheDocument();
    expect(within(items[0]!).getByText('Owner')).toBeInTheDocument();
    expect(within(items[1]!).getByRole('link', { name: 'other place' })).toHaveAttribute(
      'href',
      `/guilds/${other.guild_id}`,
    );
    expect(within(items[1]!).getByText('2 of 5 slots used')).toBeInTheDocument();
    expect(within(items[1]!).queryByText('Owner')).toBeNull();
    // The fallback icon is the name's first letter, upper-cased.
    expect(within(items[1]!).getByText('O')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add the bot to a server' })).toHaveAttribute('href', me.add_bot_url);
  });

  it('with no server, explains why and offers the bot invite; "Check again" asks again', async () => {
    const api = serve();
    api.on('GET', '/dashboard-api/guilds', () => ({ status: 200, body: { guilds: [] } }));
    const user = userEvent.setup();
    renderPage(
      <SignedIn>
        <GuildsPage />
      </SignedIn>,
    );
    expect(await screen.findByRole('heading', { level: 2, name: 'No servers to manage' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add the bot to a server' })).toHaveAttribute('href', me.add_bot_url);
    expect(screen.queryByRole('list')).toBeNull();

    api.on('GET', '/dashboard-api/guilds', () => ({ status: 200, body: { guilds: [demo] } }));
    await user.click(screen.getByRole('button', { name: 'Check again' }));
    expect(await screen.findByRole('link', { name: 'Demo Guild' })).toBeInTheDocument();
    expect(screen.queryByText('No servers to manage')).toBeNull();
  });

  it('shows the server error with "Try again", which loads the list', async () => {
    const api = serve();
    api.on('GET', '/dashboard-api/guilds', () => ({
      status: 502,
      body: { statusCode: 502, message: 'The platform did not answer; try again in a minute' },
    }));
    const user = userEvent.setup();
    renderPage(
      <SignedIn>
        <GuildsPage />
      </SignedIn>,
    );
    expect(await screen.findByRole('alert')).toHaveTextContent('The platform did not answer; try again in a minute');
    api.on('GET', '/dashboard-api/guilds', () => ({ status: 200, body: { guilds: [demo] } }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('link', { name: 'Demo Guild' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
