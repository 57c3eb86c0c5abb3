import type { RoleChoice, RoleChoices } from '@rolelink/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, guildView, renderPage } from '../../test/render';
import { CreateLinkPage } from './CreateLinkPage';

const G = '100000000000000001';
const base = `/dashboard-api/guilds/${G}`;
const role = (over: Partial<RoleChoice>): RoleChoice => ({
  id: '200000000000000001',
  name: 'Members',
  color: null,
  position: 1,
  usable: true,
  reason: null,
  problem: null,
  privileged: [],
  member_count: 0,
  member_count_exact: true,
  member_count_unavailable: null,
  first_list_holds_at: null,
  ...over,
});
const roles: RoleChoices = {
  plan: 'free',
  synced_limit: 1000,
  roles: [
    role({}),
    role({ id: '200000000000000002', name: 'Moderator', position: 2, privileged: ['Manage Server'], member_count: 3 }),
    role({ id: '200000000000000003', name: 'Supporters', position: 3, member_count: 20, first_list_holds_at: 10 }),
  ],
};
const guild = guildView();

function setUp() {
  const api = fakeApi();
  api.on('GET', `${base}/roles`, () => ({ status: 200, body: roles }));
  api.on('GET', base, () => ({ status: 200, body: guild }));
  const view = renderPage(<CreateLinkPage />, { route: '/guilds/:guildId/links/new', path: `/guilds/${G}/links/new` });
  return { api, view, user: userEvent.setup() };
}

describe('CreateLinkPage (react-hook-form over createLinkBody)', () => {
  it('checks every field before sending anything, each message beside its field', async () => {
    const { api, user } = setUp();
    await user.click(await screen.findByRole('button', { name: 'Create link' }));
    expect(await screen.findByText('Choose a role')).toBeInTheDocument();
    expect(screen.getByText('Enter the plugin server URL')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Please correct the fields below.');
    expect(screen.getByLabelText('Role')).toHaveAttribute('aria-invalid', 'true');
    expect(api.calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it("asks a privileged role's members question and the owner's consent, then sends the contract's body", async () => {
    const { api, user, view } = setUp();
    api.on('POST', `${base}/links`, () => ({
      status: 201,
      body: {
        link_id: 'l1',
        guild_id: G,
        role_id: '200000000000000002',
        plugin_url: 'https://plugin.example.com',
        member_mode: 'handover',
        existing_members: 3,
      },
    }));
    await user.selectOptions(await screen.findByLabelText('Role'), '200000000000000002');
    await user.type(screen.getByLabelText('Plugin URL'), '  https://plugin.example.com ');
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(
      await screen.findByText('3 members hold this role now: choose Hand over or Keep current members'),
    ).toBeInTheDocument();
    expect(screen.getByText("Type the role's name, Moderator, exactly as shown to consent")).toBeInTheDocument();

    await user.click(screen.getByLabelText('Hand over'));
    await user.type(screen.getByLabelText(/to consent as the server owner/), 'Moderator');
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByText('Link created')).toBeInTheDocument();
    await waitFor(() => expect(view.router.state.location.pathname).toBe(`/guilds/${G}/links/200000000000000002`));
    const post = api.calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({
      role_id: '200000000000000002',
      plugin_url: 'https://plugin.example.com',
      existing_members: 'handover',
      owner_consent: 'Moderator',
    });
  });

  it("says how many current holders a hand-over's first list is judged against, before and after creating", async () => {
    const { api, user } = setUp();
    api.on('POST', `${base}/links`, () => ({
      status: 201,
      body: {
        link_id: 'l3',
        guild_id: G,
        role_id: '200000000000000003',
        plugin_url: 'https://plugin.example.com',
        member_mode: 'handover',
        existing_members: 20,
      },
    }));
    await user.selectOptions(await screen.findByLabelText('Role'), '200000000000000003');
    expect(screen.getByLabelText('Hand over')).toHaveAccessibleDescription(
      /The plugin is told at registration that the role has 20 current holders: its first list is judged against them as the previous list, so a first list that leaves out 10 or more of them, or is empty, is held until the server owner confirms it\./,
    );
    await user.click(screen.getByLabelText('Hand over'));
    await user.type(screen.getByLabelText('Plugin URL'), 'https://plugin.example.com');
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(
      await screen.findByText(
        "The plugin was told the role's 20 current holders: its first list is judged against them as the previous list.",
      ),
    ).toBeInTheDocument();
  });

  it('says that only an empty first list is held when the role has fewer than 10 holders', async () => {
    const { user } = setUp();
    await user.selectOptions(await screen.findByLabelText('Role'), '200000000000000002');
    expect(screen.getByLabelText('Hand over')).toHaveAccessibleDescription(
      /role has 3 current holders: its first list is judged against them as the previous list, so an empty first list is held/,
    );
  });

  it("shows a refusing plugin's status and body excerpt, and the plugin check to run", async () => {
    const { api, user } = setUp();
    api.on('POST', `${base}/links`, () => ({
      status: 502,
      body: {
        statusCode: 502,
        message: 'Failed to register with plugin server',
        detail: 'plugin answered 403: {"error":"unknown token"}',
      },
    }));
    await user.selectOptions(await screen.findByLabelText('Role'), '200000000000000001');
    await user.type(screen.getByLabelText('Plugin URL'), 'https://plugin.example.com');
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    const banner = await screen.findByRole('alert');
    expect(within(banner).getByText('plugin answered 403: {"error":"unknown token"}')).toBeInTheDocument();
    expect(within(banner).getByText('rolelink plugin check https://plugin.example.com')).toBeInTheDocument();
  });

  it("shows a 502's message and the plugin server's detail, and puts the server's field errors beside the field", async () => {
    const { api, user } = setUp();
    api.on('POST', `${base}/links`, () => ({
      status: 502,
      body: {
        statusCode: 502,
        message: 'Failed to register with plugin server',
        detail: 'connect ECONNREFUSED 203.0.113.9:443',
      },
    }));
    await user.selectOptions(await screen.findByLabelText('Role'), '200000000000000001');
    await user.type(screen.getByLabelText('Plugin URL'), 'https://plugin.example.com');
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    const banner = await screen.findByRole('alert');
    expect(banner).toHaveTextContent('Failed to register with plugin server');
    expect(within(banner).getByText('connect ECONNREFUSED 203.0.113.9:443')).toBeInTheDocument();

    api.on('POST', `${base}/links`, () => ({
      status: 400,
      body: { statusCode: 400, message: 'Validation failed', errors: [{ field: 'plugin_url', message: 'Use https' }] },
    }));
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByText('Use https')).toBeInTheDocument();
    expect(screen.getByLabelText('Plugin URL')).toHaveAttribute('aria-invalid', 'true');
  });
});
