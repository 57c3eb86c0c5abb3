import type { MemberLookup } from '@rolelink/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, linkCard, renderTab } from '../../../test/render';
import { MembersTab } from './MembersTab';

const G = '100000000000000001';
const R = '200000000000000001';
const U = '300000000000000001';
const linkPath = `/dashboard-api/guilds/${G}/links/${R}`;
const context = { guildId: G, roleId: R, card: linkCard(), guild: undefined, owner: true, roleName: 'Members' };
const member: MemberLookup = {
  user_id: U,
  state: 'synced',
  expires_at: null,
  platform: null,
  history: [],
  override: null,
  should_hold: true,
  reason: 'synced',
  message: "Holds the role: on the plugin's list, within the synced limit.",
};

function setUp() {
  const api = fakeApi();
  api.on('GET', `${linkPath}/overrides`, () => ({ status: 200, body: { always: [], never: [], max_per_list: 1000 } }));
  renderTab(<MembersTab />, context);
  return { api, user: userEvent.setup() };
}

describe('MembersTab: the member look-up (react-hook-form, the contract user-ID rule)', () => {
  it('names what is wrong with a user ID and asks nothing of the server', async () => {
    const { api, user } = setUp();
    await user.type(screen.getByLabelText('User ID'), '12ab');
    await user.click(screen.getByRole('button', { name: 'Look up' }));
    expect(await screen.findByText(/^Enter a user ID of 17 to 20 digits: /)).toBeInTheDocument();
    expect(screen.getByLabelText('User ID')).toHaveAttribute('aria-invalid', 'true');
    expect(api.calls.filter((c) => c.path.includes('/members/'))).toHaveLength(0);
  });

  it('looks a member up by the trimmed ID and shows where they stand', async () => {
    const { api, user } = setUp();
    api.on('GET', `${linkPath}/members/${U}`, () => ({ status: 200, body: member }));
    await user.type(screen.getByLabelText('User ID'), ` ${U} `);
    await user.click(screen.getByRole('button', { name: 'Look up' }));
    expect(await screen.findByText('On the list — synced')).toBeInTheDocument();
    expect(screen.getByText("Holds the role: on the plugin's list, within the synced limit.")).toBeInTheDocument();
    await waitFor(() => expect(api.calls.filter((c) => c.path === `${linkPath}/members/${U}`)).toHaveLength(1));
  });

  it('puts a deleted account first, in words: never "synced" and never the raw code', async () => {
    const { api, user } = setUp();
    api.on('GET', `${linkPath}/members/${U}`, () => ({
      status: 200,
      body: {
        ...member,
        should_hold: false,
        reason: 'account_deleted',
        message: 'Account deleted: the platform says this account no longer exists.',
        platform: { outcome: 'unknown_user', text: 'Account deleted', updated_at: '2026-12-01T00:00:00Z' },
      } satisfies MemberLookup,
    }));
    await user.type(screen.getByLabelText('User ID'), U);
    await user.click(screen.getByRole('button', { name: 'Look up' }));
    expect(
      await screen.findByText('Account deleted: the platform says this account no longer exists.'),
    ).toBeInTheDocument();
    expect(screen.queryByText('On the list — synced')).not.toBeInTheDocument();
    expect(screen.queryByText(/unknown_user/)).not.toBeInTheDocument();
  });

  it("shows a failed look-up's message", async () => {
    const { api, user } = setUp();
    api.on('GET', `${linkPath}/members/${U}`, () => ({
      status: 502,
      body: { statusCode: 502, message: 'The platform did not answer', detail: 'timeout after 5000 ms' },
    }));
    await user.type(screen.getByLabelText('User ID'), U);
    await user.click(screen.getByRole('button', { name: 'Look up' }));
    expect(await screen.findByText('The platform did not answer')).toBeInTheDocument();
    expect(screen.getByText('timeout after 5000 ms')).toBeInTheDocument();
  });
});
