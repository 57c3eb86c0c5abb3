import type { PluginHealthView } from '@rolelink/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, linkCard, renderTab } from '../../../test/render';
import { HealthTab } from './HealthTab';

const G = '100000000000000001';
const R = '200000000000000001';
const healthPath = `/dashboard-api/guilds/${G}/links/${R}/health`;
const context = { guildId: G, roleId: R, card: linkCard(), guild: undefined, owner: true, roleName: 'Members' };

// GET …/links/:roleId/health: the latest check (a report with checks and services) and the history, newest first.
const report = {
  status: 'unhealthy',
  timestamp: '2026-11-27T12:00:00.000Z',
  checks: { db: { status: 'down', latency_ms: 1500.4, message: 'connection refused' }, cache: { status: 'up' } },
  services: [{ name: 'billing', status: 'up', latency_ms: 8 }],
};
const health: PluginHealthView = {
  plugin_url: 'https://plugin.example.com',
  status: 'unhealthy',
  latest: { status: 'unhealthy', checked_at: '2026-11-27T12:00:01.000Z', latency_ms: 230.2, detail: report },
  history: [
    { status: 'unhealthy', checked_at: '2026-11-27T12:00:01.000Z', latency_ms: 230.2, detail: report },
    { status: 'healthy', checked_at: '2026-11-27T11:59:00.000Z', latency_ms: 20, detail: { status: 'healthy' } },
  ],
};

const rows = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((r) => [...r.children].map((c) => c.textContent));

describe('HealthTab', () => {
  it("shows the latest report's status, latency, checks and services, and the recent checks newest first", async () => {
    const api = fakeApi();
    api.on('GET', healthPath, () => ({ status: 200, body: health }));
    renderTab(<HealthTab />, context);
    expect(await screen.findByRole('heading', { level: 2, name: 'Plugin health' })).toBeInTheDocument();
    expect(screen.getByText('https://plugin.example.com/health')).toBeInTheDocument();
    expect(screen.getByText('Unhealthy', { selector: 'dd *' })).toBeInTheDocument();
    expect(screen.getByText('230 ms')).toBeInTheDocument();
    expect(rows(screen.getByRole('table', { name: 'Checks' }))).toEqual([
      ['db', 'down', '1500 ms', 'connection refused'],
      ['cache', 'up', '—', ''],
    ]);
    expect(rows(screen.getByRole('table', { name: 'Services' }))).toEqual([['billing', 'up', '8 ms']]);
    const marks = within(screen.getByRole('list', { name: 'Recent checks (newest first)' })).getAllByRole('listitem');
    expect(marks.map((m) => m.textContent?.split(' at ')[0])).toEqual(['Unhealthy', 'Healthy']);
  });

  it('says why an unreachable plugin gave no report', async () => {
    const api = fakeApi();
    api.on('GET', healthPath, () => ({
      status: 200,
      body: {
        ...health,
        status: 'unreachable',
        latest: {
          status: 'unreachable',
          checked_at: '2026-11-27T12:00:01.000Z',
          latency_ms: null,
          detail: { reason: 'timeout after 5000 ms' },
        },
        history: [],
      },
    }));
    renderTab(<HealthTab />, context);
    expect(await screen.findByText('Unreachable: timeout after 5000 ms')).toBeInTheDocument();
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.queryByRole('list', { name: 'Recent checks (newest first)' })).toBeNull();
  });

  it('before the first poll, says results appear after it', async () => {
    const api = fakeApi();
    api.on('GET', healthPath, () => ({
      status: 200,
      body: { plugin_url: 'https://plugin.example.com', status: 'unknown', latest: null, history: [] },
    }));
    renderTab(<HealthTab />, context);
    expect(
      await screen.findByText(
        "The service has not polled this plugin's health endpoint yet. Results appear here after the first poll.",
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('Not polled yet')).toBeInTheDocument();
  });

  it('shows the error with "Try again", which loads the report', async () => {
    const api = fakeApi();
    api.on('GET', healthPath, () => ({ status: 404, body: { statusCode: 404, message: 'This role has no link' } }));
    const user = userEvent.setup();
    renderTab(<HealthTab />, context);
    expect(await screen.findByRole('alert')).toHaveTextContent('This role has no link');
    api.on('GET', healthPath, () => ({ status: 200, body: health }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Plugin health' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
