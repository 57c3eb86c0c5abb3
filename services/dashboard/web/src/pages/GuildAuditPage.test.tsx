import type { DashboardAuditLog } from '@rolelink/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, guildView, linkCard, renderPage } from '../../test/render';
import { GuildAuditPage } from './GuildAuditPage';

const G = '100000000000000001';
const R = '200000000000000001';
const auditPath = `/dashboard-api/guilds/${G}/audit`;
const route = { route: '/guilds/:guildId/audit', path: `/guilds/${G}/audit` };

const guild = guildView({ slots: { used: 1, allowed: 1 }, links: [linkCard()] });

const members = { id: R, name: 'Members', color: null, position: 1 };

// The newest page, as GET …/audit answers it, with a cursor to older entries.
const newest: DashboardAuditLog = {
  entries: [
    {
      id: 'a3',
      at: '2026-11-27T12:00:00.000Z',
      role_id: R,
      role: members,
      actor: { id: '300000000000000001', name: 'ana', via: 'dashboard' },
      action: 'removals_applied',
      detail: { previous: 3003, next: 20, removals: 2983, additions: 0 },
    },
    {
      id: 'a2',
      at: '2026-11-27T11:00:00.000Z',
      role_id: R,
      role: members,
      actor: { id: null, name: 'ops', via: 'cli' },
      action: 'config_saved',
      detail: { fields: ['tier', 'region'], plugin_status: 200 },
    },
  ],
  next_before: 'cursor-a2',
};
const older: DashboardAuditLog = {
  entries: [
    {
      id: 'a1',
      at: '2026-11-01T00:00:00.000Z',
      role_id: '200000000000000009',
      role: null,
      actor: { id: '300000000000000001', name: 'ana', via: 'dashboard' },
      action: 'link_deleted',
      detail: { strip_roles: false },
    },
  ],
  next_before: null,
};

const rowTexts = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((r) =>
      within(r)
        .getAllByRole('cell')
        .slice(1)
        .map((c) => c.textContent),
    );

describe('GuildAuditPage', () => {
  it('shows who did what in words, newest first, and "Show older" adds the next page', async () => {
    const api = fakeApi();
    api.on('GET', auditPath, () => ({ status: 200, body: newest }));
    api.on('GET', `${auditPath}?before=cursor-a2`, () => ({ status: 200, body: older }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guild }));
    const user = userEvent.setup();
    renderPage(<GuildAuditPage />, route);
    expect(screen.getByRole('heading', { level: 1, name: 'Audit log' })).toBeInTheDocument();
    const table = await screen.findByRole('table');
    expect(rowTexts(table)).toEqual([
      ['anadashboard', 'Removals applied', 'Members', '3,003 → 20 members (2,983 removals, 0 additions)'],
      [
        'opscommand line',
        'Configuration saved',
        'Members',
        'Fields: tier, region (plugin answered 200; values are not recorded)',
      ],
    ]);

    await user.click(screen.getByRole('button', { name: 'Show older' }));
    await waitFor(() => expect(rowTexts(screen.getByRole('table'))).toHaveLength(3));
    expect(rowTexts(screen.getByRole('table'))[2]).toEqual([
      'anadashboard',
      'Link deleted',
      'Deleted role (200000000000000009)',
      'Members kept the role',
    ]);
    // The last page has no cursor: nothing older to offer.
    expect(screen.queryByRole('button', { name: 'Show older' })).toBeNull();
  });

  it('filters by action and role through the query string, and says when nothing matches', async () => {
    const api = fakeApi();
    api.on('GET', auditPath, () => ({ status: 200, body: newest }));
    api.on('GET', `${auditPath}?action=link_created`, () => ({
      status: 200,
      body: { entries: [], next_before: null },
    }));
    api.on('GET', `${auditPath}?action=link_created&role_id=${R}`, () => ({
      status: 200,
      body: { entries: [], next_before: null },
    }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guild }));
    const user = userEvent.setup();
    renderPage(<GuildAuditPage />, route);
    await screen.findByRole('table');
    await user.selectOptions(screen.getByLabelText('Action'), 'Link created');
    expect(await screen.findByText('No admin actions recorded for these filters.')).toBeInTheDocument();
    expect(screen.queryByRole('table')).toBeNull();
    // The role filter offers the server's linked roles, by name, once the guild has answered.
    await user.selectOptions(screen.getByLabelText('Role'), await screen.findByRole('option', { name: 'Members' }));
    await waitFor(() =>
      expect(api.calls.map((c) => c.path)).toContain(`${auditPath}?action=link_created&role_id=${R}`),
    );
  });

  it('shows the error with "Try again", which loads the log', async () => {
    const api = fakeApi();
    api.on('GET', auditPath, () => ({ status: 500, body: { statusCode: 500, message: 'Internal server error' } }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: guild }));
    const user = userEvent.setup();
    renderPage(<GuildAuditPage />, route);
    expect(await screen.findByRole('alert')).toHaveTextContent('Internal server error');
    api.on('GET', auditPath, () => ({ status: 200, body: newest }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
