import type { GuildHealth } from '@rolelink/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, guildView, renderPage } from '../../test/render';
import { GuildHealthPage } from './GuildHealthPage';

const G = '100000000000000001';
const healthPath = `/dashboard-api/guilds/${G}/health`;
const route = { route: '/guilds/:guildId/health', path: `/guilds/${G}/health` };

const guild = guildView({ slots: { used: 2, allowed: 2 } });

// Two links as the server records them: one plugin answering with a report, one that stopped answering
// after it was last seen healthy, and a third whose role was deleted and whose plugin was never polled.
const health: GuildHealth = {
  links: [
    {
      role_id: '200000000000000001',
      role: { id: '200000000000000001', name: 'Members', color: null, position: 1 },
      health: {
        plugin_url: 'https://plugin.example.com/members',
        status: 'degraded',
        latest: {
          status: 'degraded',
          checked_at: '2026-11-27T23:59:00.000Z',
          latency_ms: 41.6,
          detail: {
            status: 'degraded',
            checks: { db: { status: 'up' }, cache: { status: 'down', message: 'timeout' } },
            services: [{ name: 'billing', status: 'up' }],
          },
        },
        history: [],
      },
    },
    {
      role_id: '200000000000000002',
      role: { id: '200000000000000002', name: 'Patrons', color: '#ff0000', position: 2 },
      health: {
        plugin_url: 'https://patrons.example.org',
        status: 'unreachable',
        latest: {
          status: 'unreachable',
          checked_at: '2026-11-27T23:58:00.000Z',
          latency_ms: null,
          detail: { reason: 'connect ECONNREFUSED' },
        },
        history: [
          { status: 'healthy', checked_at: '2026-11-27T23:00:00.000Z', latency_ms: 12, detail: { status: 'healthy' } },
        ],
      },
    },
    {
      role_id: '200000000000000003',
      role: null,
      health: { plugin_url: 'https://gone.example.net', status: 'unknown', latest: null, history: [] },
    },
  ],
};

function cellsOf(row: HTMLElement) {
  return within(row)
    .getAllByRole('cell')
    .map((c) => c.textContent);
}

describe('GuildHealthPage', () => {
  it('shows one row per link: its role linking to the health tab, the status, checks and services counted, latency and when last seen', async () => {
    const api = fakeApi();
    api.on('GET', healthPath, () => ({ status: 200, body: health }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guild }));
    renderPage(<GuildHealthPage />, route);
    expect(screen.getByRole('heading', { level: 1, name: 'Plugin status' })).toBeInTheDocument();
    const table = await screen.findByRole('table');
    const [, members, patrons, deleted] = within(table).getAllByRole('row');

    expect(within(members!).getByRole('link', { name: 'Members' })).toHaveAttribute(
      'href',
      `/guilds/${G}/links/200000000000000001/health`,
    );
    const m = cellsOf(members!);
    expect(m.slice(0, 5)).toEqual([
      'https://plugin.example.com/members',
      'Degraded',
      '1 of 2 up',
      '1 of 1 up',
      '42 ms',
    ]);
    expect(m[6]).not.toBe('Never');

    // Unreachable now, with its reason; "last seen" is the earlier healthy check.
    const p = cellsOf(patrons!);
    expect(p.slice(0, 5)).toEqual(['https://patrons.example.org', 'Unreachableconnect ECONNREFUSED', '—', '—', '—']);
    expect(within(patrons!).getAllByRole('time')[1]).toHaveAttribute('dateTime', '2026-11-27T23:00:00.000Z');

    expect(within(deleted!).getByRole('link', { name: 'Deleted role (200000000000000003)' })).toBeInTheDocument();
    expect(cellsOf(deleted!).slice(1)).toEqual(['Not polled yet', '—', '—', '—', 'Not polled yet', 'Never']);

    // The breadcrumb names the server once its query answers.
    expect(
      await within(screen.getByRole('navigation', { name: 'Breadcrumb' })).findByRole('link', { name: 'Demo Guild' }),
    ).toHaveAttribute('href', `/guilds/${G}`);
  });

  it('says there is nothing to watch when the server has no links', async () => {
    const api = fakeApi();
    api.on('GET', healthPath, () => ({ status: 200, body: { links: [] } }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guild }));
    renderPage(<GuildHealthPage />, route);
    expect(
      await screen.findByText('This server has no role links, so there are no plugins to watch.'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows the error with "Try again", which loads the table', async () => {
    const api = fakeApi();
    api.on('GET', healthPath, () => ({
      status: 403,
      body: { statusCode: 403, message: 'You cannot manage this server' },
    }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({
      status: 403,
      body: { statusCode: 403, message: 'You cannot manage this server' },
    }));
    const user = userEvent.setup();
    renderPage(<GuildHealthPage />, route);
    expect(await screen.findByRole('alert')).toHaveTextContent('You cannot manage this server');
    api.on('GET', healthPath, () => ({ status: 200, body: health }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('link', { name: 'Patrons' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
