import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, linkCard, renderTab } from '../../../test/render';
import { SettingsTab } from './SettingsTab';

const G = '100000000000000001';
const R = '200000000000000001';
const linkPath = `/dashboard-api/guilds/${G}/links/${R}`;
const context = { guildId: G, roleId: R, card: linkCard(), guild: undefined, owner: true, roleName: 'Members' };

describe('SettingsTab: the delete dialog (its choices a form over deleteLinkBody)', () => {
  it('deletes without stripping by default, sending the contract body', async () => {
    const api = fakeApi();
    api.on('DELETE', linkPath, () => ({
      status: 200,
      body: { deleted: true, link_id: 'link-1', strip_roles: false, strip_count: null },
    }));
    api.on('GET', `/dashboard-api/guilds/${G}`, () => ({ status: 200, body: {} }));
    api.on('GET', '/dashboard-api/guilds', () => ({ status: 200, body: { guilds: [] } }));
    const user = userEvent.setup();
    renderTab(<SettingsTab />, context);
    await user.click(screen.getByRole('button', { name: 'Delete link' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete the link for Members?' });
    expect(
      within(dialog).getByLabelText('Also remove the role from the members this link gave it to'),
    ).not.toBeChecked();
    await user.click(within(dialog).getByRole('button', { name: 'Delete permanently' }));
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'DELETE')?.body).toEqual({
        strip_roles: false,
        confirm_lockout: false,
      }),
    );
    expect(await screen.findByText('Link deleted')).toBeInTheDocument();
  });

  it('with the strip ticked, waits for the preview and a lock-out tick before it deletes with both', async () => {
    const api = fakeApi();
    api.on('GET', `${linkPath}/strip-preview`, () => ({
      status: 200,
      body: {
        count: 2,
        sample: [{ user_id: '300000000000000001', name: 'ana' }],
        lockout: [{ user_id: '300000000000000001', name: 'ana', who: 'admin', permission: 'Administrator' }],
        lockout_checked: true,
        skipped: { not_in_server: 1, deleted: 1 },
      },
    }));
    api.on('DELETE', linkPath, () => ({
      status: 409,
      body: {
        statusCode: 409,
        message: 'The strip would lock an admin out',
        errors: [{ field: 'confirm_lockout', message: 'ana loses Administrator' }],
      },
    }));
    const user = userEvent.setup();
    renderTab(<SettingsTab />, context);
    await user.click(screen.getByRole('button', { name: 'Delete link' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete the link for Members?' });
    await user.click(within(dialog).getByLabelText('Also remove the role from the members this link gave it to'));
    const confirm = within(dialog).getByRole('button', { name: 'Delete permanently' });
    expect(confirm).toBeDisabled();
    const lockoutBox = await within(dialog).findByRole('checkbox', { name: 'I understand: remove the role anyway' });
    // Members who left or deleted their account are skipped, and counted: they have nothing to lose.
    expect(
      within(dialog).getByText(/^2 skipped: 1 left the server, 1 deleted their account \(they no longer hold/),
    ).toBeInTheDocument();
    expect(confirm).toBeDisabled();
    await user.click(lockoutBox);
    expect(confirm).toBeEnabled();
    await user.click(confirm);
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'DELETE')?.body).toEqual({ strip_roles: true, confirm_lockout: true }),
    );
    // The refusal is shown with its every part: the message and the field's problem.
    expect(await screen.findByText('The strip would lock an admin out')).toBeInTheDocument();
    expect(screen.getByText('ana loses Administrator', { exact: false })).toHaveTextContent(
      'confirm_lockout: ana loses Administrator',
    );
  });
});
