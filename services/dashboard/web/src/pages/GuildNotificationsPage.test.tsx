import type { DashboardNotifySettings } from '@rolelink/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, renderPage } from '../../test/render';
import { GuildNotificationsPage } from './GuildNotificationsPage';

const G = '100000000000000001';
const base = `/dashboard-api/guilds/${G}`;
const settings: DashboardNotifySettings = {
  events: ['removal_held'],
  dm_owner: true,
  channel_id: null,
  channels: [{ id: '400000000000000001', name: 'alerts' }],
};

function setUp() {
  const api = fakeApi();
  api.on('GET', base, () => ({ status: 200, body: { guild_id: G, name: 'Demo Guild', links: [] } }));
  api.on('GET', `${base}/notifications`, () => ({ status: 200, body: { notifications: [], unread: 0 } }));
  api.on('GET', `${base}/notifications/settings`, () => ({ status: 200, body: settings }));
  renderPage(<GuildNotificationsPage />, {
    route: '/guilds/:guildId/notifications',
    path: `/guilds/${G}/notifications`,
  });
  return { api, user: userEvent.setup() };
}

describe('GuildNotificationsPage: the settings form (react-hook-form over notifySettingsBody)', () => {
  it('starts from the saved settings and sends the changed ones as the contract body', async () => {
    const { api, user } = setUp();
    api.on('PUT', `${base}/notifications/settings`, (body) => ({
      status: 200,
      body: { ...(body as object), channels: settings.channels },
    }));
    expect(await screen.findByLabelText('Large removal held')).toBeChecked();
    expect(screen.getByLabelText('Channel')).toHaveValue('');
    await user.click(screen.getByLabelText('Plugin healthy again'));
    await user.click(screen.getByLabelText('Direct message to the server owner'));
    await user.selectOptions(screen.getByLabelText('Channel'), '400000000000000001');
    await user.click(screen.getByRole('button', { name: 'Save notification settings' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({
        events: ['removal_held', 'plugin_recovered'],
        dm_owner: false,
        channel_id: '400000000000000001',
      }),
    );
    expect(await screen.findByText('Notification settings saved')).toBeInTheDocument();
    expect(screen.getByText('Nothing has needed you yet.')).toBeInTheDocument();
  });

  it('sends "No channel" as null, and shows a refusal with its field problems', async () => {
    const { api, user } = setUp();
    api.on('PUT', `${base}/notifications/settings`, () => ({
      status: 400,
      body: {
        statusCode: 400,
        message: 'Validation failed',
        errors: [{ field: 'channel_id', message: 'The bot cannot post there' }],
      },
    }));
    await user.click(await screen.findByRole('button', { name: 'Save notification settings' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({
        events: ['removal_held'],
        dm_owner: true,
        channel_id: null,
      }),
    );
    expect(await screen.findByText('Validation failed')).toBeInTheDocument();
    expect(screen.getByText('The bot cannot post there', { exact: false })).toHaveTextContent(
      'channel_id: The bot cannot post there',
    );
  });
});
