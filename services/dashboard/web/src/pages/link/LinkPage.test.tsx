import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, guildView, linkCard, renderPage } from '../../../test/render';
import { LinkPage } from './LinkPage';

const G = '100000000000000001';
const R = '200000000000000001';
const linkPath = `/dashboard-api/guilds/${G}/links/${R}`;
const route = { route: '/guilds/:guildId/links/:roleId', path: `/guilds/${G}/links/${R}` };

const guild = guildView({ slots: { used: 2, allowed: 1 } });

describe('LinkPage', () => {
  it('shows the link card from GET …/links/:roleId, the breadcrumb to its server and the five tabs', async () => {
    const api = fakeApi();
    const card = linkCard({
      state: 'paused',
      reason: 'slot_allowance',
      message:
        "Integration paused: this server has more role links than its plan's integration slots (this link is number 2; 1 allowed). Upgrade the server or delete another link; the list is kept and syncing resumes on its own.",
      slot: { position: 2, allowance: 1 },
      counts: {
        listed: 1234,
        synced: 1000,
        to_add: 0,
        to_remove: 0,
        held: 0,
        not_in_server: 0,
        deleted: 0,
        over_limit: 234,
      },
      role: { id: R, name: 'Patrons', color: null, position: 3 },
    });
    api.on('GET', linkPath, () => ({ status: 200, body: card }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guild }));
    renderPage(<LinkPage />, route);

    expect(await screen.findByRole('heading', { level: 1, name: 'Patrons role link' })).toBeInTheDocument();
    const article = screen.getByRole('article', { name: 'Role link Patrons' });
    expect(within(article).getByRole('heading', { level: 2, name: 'Patrons' })).toBeInTheDocument();
    expect(within(article).getByText('Integration paused')).toBeInTheDocument();
    expect(within(article).getByText(/this link is number 2; 1 allowed/)).toBeInTheDocument();
    expect(within(article).getByText('1,234')).toBeInTheDocument();
    expect(
      within(article).getByText(
        "234 users beyond the plan's synced limit are stored and not synced; they are synced automatically after an upgrade.",
      ),
    ).toBeInTheDocument();

    const tabs = screen.getByRole('navigation', { name: 'Link sections' });
    const base = `/guilds/${G}/links/${R}`;
    expect(
      within(tabs)
        .getAllByRole('link')
        .map((a) => [a.textContent, a.getAttribute('href')]),
    ).toEqual([
      ['Configuration', base],
      ['Settings', `${base}/settings`],
      ['Members', `${base}/members`],
      ['Health', `${base}/health`],
      ['Events', `${base}/events`],
    ]);
    // On the link's own path the Configuration tab is the current one.
    expect(within(tabs).getByRole('link', { name: 'Configuration' })).toHaveAttribute('aria-current', 'page');

    const crumbs = screen.getByRole('navigation', { name: 'Breadcrumb' });
    expect(await within(crumbs).findByRole('link', { name: 'Demo Guild' })).toHaveAttribute('href', `/guilds/${G}`);
    expect(within(crumbs).getByText('Patrons')).toHaveAttribute('aria-current', 'page');
  });

  it('explains a 404 for a role with no link, and loads again on "Try again"', async () => {
    const api = fakeApi();
    api.on('GET', linkPath, () => ({ status: 404, body: { statusCode: 404, message: 'This role has no link' } }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guild }));
    const user = userEvent.setup();
    renderPage(<LinkPage />, route);
    expect(await screen.findByRole('alert')).toHaveTextContent('This role has no link');
    expect(screen.queryByRole('navigation', { name: 'Link sections' })).toBeNull();

    api.on('GET', linkPath, () => ({ status: 200, body: linkCard() }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Members role link' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
