import type { ConfigStructure, ConfigView } from '@rolelink/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, linkCard, renderTab } from '../../../test/render';
import { ConfigurationTab } from './ConfigurationTab';

const G = '100000000000000001';
const R = '200000000000000001';
const configPath = `/dashboard-api/guilds/${G}/links/${R}/config`;
const context = { guildId: G, roleId: R, card: linkCard(), guild: undefined, owner: true, roleName: 'Members' };

const structure: ConfigStructure = {
  version: 1,
  name: 'Demo plugin',
  sections: [{ title: 'Basics', fields: [{ type: 'text', key: 'nickname', label: 'Nickname' }] }],
};
const fresh: ConfigView = {
  ui_mode: 'schema',
  source: 'plugin',
  fetched_at: '2026-11-27T12:00:00.000Z',
  schema: structure,
  values: { nickname: 'ana' },
};

describe('ConfigurationTab', () => {
  it("shows the plugin's form with its current values; Refresh schema asks past the cache and starts the form afresh", async () => {
    const api = fakeApi();
    api.on('GET', configPath, () => ({ status: 200, body: fresh }));
    const refreshed: ConfigView = {
      ...fresh,
      schema: {
        ...structure,
        sections: [
          {
            title: 'Basics',
            fields: [...structure.sections[0]!.fields, { type: 'number', key: 'level', label: 'Level' }],
          },
        ],
      },
      values: { nickname: 'bea', level: 3 },
    };
    api.on('GET', `${configPath}?refresh=true`, () => ({ status: 200, body: refreshed }));
    const user = userEvent.setup();
    renderTab(<ConfigurationTab />, context);
    expect(await screen.findByRole('textbox', { name: 'Nickname' })).toHaveValue('ana');
    expect(screen.getByText(/^Form fetched/)).toBeInTheDocument();
    expect(screen.queryByRole('spinbutton', { name: 'Level' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Refresh schema' }));
    expect(await screen.findByRole('spinbutton', { name: 'Level' })).toHaveValue(3);
    expect(screen.getByRole('textbox', { name: 'Nickname' })).toHaveValue('bea');
    expect(api.calls.map((c) => c.path)).toEqual([configPath, `${configPath}?refresh=true`]);
  });

  it('says when the plugin could not give a valid form: the last known form, with what was wrong', async () => {
    const api = fakeApi();
    api.on('GET', configPath, () => ({
      status: 200,
      body: {
        ...fresh,
        source: 'fallback',
        fallback_reason: 'invalid_schema',
        schema_errors: [{ field: 'sections[0].fields[1].type', message: 'unknown field type "colour"' }],
        values: {},
      },
    }));
    renderTab(<ConfigurationTab />, context);
    const notice = await screen.findByText('The plugin server returned an invalid schema.');
    const banner = notice.closest('[role="status"]') as HTMLElement;
    expect(within(banner).getByText('unknown field type "colour"', { exact: false })).toHaveTextContent(
      'sections[0].fields[1].type: unknown field type "colour"',
    );
    // The form is still there, without the plugin's values.
    expect(screen.getByRole('textbox', { name: 'Nickname' })).toHaveValue('');
  });

  it('embeds the plugin page in iframe mode', async () => {
    const api = fakeApi();
    api.on('GET', configPath, () => ({
      status: 200,
      body: {
        ui_mode: 'iframe',
        source: 'plugin',
        fetched_at: '2026-11-27T12:00:00.000Z',
        name: 'Demo plugin',
        embed_url: 'https://plugin.example.com/embed?rl_token=t1',
      },
    }));
    renderTab(<ConfigurationTab />, context);
    expect(await screen.findByTitle('Demo plugin configuration')).toHaveAttribute(
      'src',
      expect.stringContaining('https://plugin.example.com/embed'),
    );
  });

  it('shows why the configuration could not be loaded, and "Try again" loads it', async () => {
    const api = fakeApi();
    api.on('GET', configPath, () => ({
      status: 502,
      body: { statusCode: 502, message: 'The plugin server could not be reached and no form is cached' },
    }));
    const user = userEvent.setup();
    renderTab(<ConfigurationTab />, context);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The plugin server could not be reached and no form is cached',
    );
    api.on('GET', configPath, () => ({ status: 200, body: fresh }));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('textbox', { name: 'Nickname' })).toHaveValue('ana');
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
  });
});
