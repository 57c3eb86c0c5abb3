import type { ConfigStructure } from '@rolelink/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, renderPage } from '../../test/render';
import { ConfigForm } from './ConfigForm';

const G = '100000000000000001';
const R = '200000000000000002';
const configPath = `/dashboard-api/guilds/${G}/links/${R}/config`;

const structure: ConfigStructure = {
  version: 1,
  name: 'Demo plugin',
  sections: [
    {
      title: 'Basics',
      fields: [
        {
          type: 'text',
          key: 'nickname',
          label: 'Nickname',
          validation: { required: true, min: 2, pattern: '^[a-z]+$', pattern_message: 'lowercase letters only' },
        },
        { type: 'number', key: 'level', label: 'Level', validation: { min: 0, max: 100 } },
      ],
    },
    {
      title: 'Advanced',
      collapsible: true,
      default_collapsed: true,
      fields: [{ type: 'url', key: 'site', label: 'Site', validation: { required: true } }],
    },
  ],
};

function renderForm(values: Record<string, unknown> = {}) {
  const onSaved = jest.fn();
  const view = renderPage(
    <ConfigForm guildId={G} roleId={R} structure={structure} values={values} onSaved={onSaved} />,
  );
  return { ...view, onSaved };
}

describe('ConfigForm', () => {
  it('refuses a submit with the shared rules: messages beside the fields, the collapsed section opened, focus on the first', async () => {
    const api = fakeApi();
    const user = userEvent.setup();
    renderForm();
    expect(screen.getByLabelText('Site')).not.toBeVisible();

    await user.click(screen.getByRole('button', { name: 'Save configuration' }));

    const nickname = screen.getByRole('textbox', { name: 'Nickname' });
    expect(nickname).toHaveAttribute('aria-invalid', 'true');
    expect(nickname).toHaveAccessibleDescription('Nickname is required');
    await waitFor(() => expect(nickname).toHaveFocus());
    // The error in the collapsed section opened it.
    expect(screen.getByLabelText('Site')).toBeVisible();
    expect(screen.getByLabelText('Site')).toHaveAccessibleDescription('Site is required');
    expect(api.calls).toEqual([]);
  });

  it('checks a field when it loses focus, and re-checks a marked field as it changes', async () => {
    fakeApi();
    const user = userEvent.setup();
    renderForm();
    const nickname = screen.getByRole('textbox', { name: 'Nickname' });
    await user.type(nickname, 'AB');
    expect(nickname).not.toHaveAttribute('aria-invalid');
    await user.tab();
    expect(nickname).toHaveAccessibleDescription('lowercase letters only');
    await user.clear(nickname);
    await user.type(nickname, 'ab');
    await waitFor(() => expect(nickname).not.toHaveAttribute('aria-invalid'));
    expect(screen.queryByText('lowercase letters only')).toBeNull();
  });

  it('sends only the fields with a value, says so in a toast and asks the page to refetch', async () => {
    const api = fakeApi();
    api.on('POST', configPath, () => ({ status: 200, body: { ok: true, message: 'Stored' } }));
    const user = userEvent.setup();
    const { onSaved } = renderForm({ nickname: 'ana', site: 'https://example.com' });
    await user.click(screen.getByRole('button', { name: 'Save configuration' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    expect(api.calls).toEqual([
      { method: 'POST', path: configPath, body: { config: { nickname: 'ana', site: 'https://example.com' } } },
    ]);
    const toasts = screen.getByRole('status', { name: 'Notifications' });
    expect(within(toasts).getByText('Configuration saved')).toBeInTheDocument();
    expect(within(toasts).getByText('Stored')).toBeInTheDocument();
  });

  it('marks the field the server names in errors[].field, and shows its message word for word', async () => {
    const api = fakeApi();
    api.on('POST', configPath, () => ({
      status: 400,
      body: {
        statusCode: 400,
        message: 'The plugin refused the configuration',
        errors: [{ field: 'level', message: 'Level 7 is reserved' }],
      },
    }));
    const user = userEvent.setup();
    const { onSaved } = renderForm({ nickname: 'ana', level: 7, site: 'https://example.com' });
    await user.click(screen.getByRole('button', { name: 'Save configuration' }));
    const level = screen.getByRole('spinbutton', { name: 'Level' });
    await waitFor(() => expect(level).toHaveAttribute('aria-invalid', 'true'));
    expect(level).toHaveAccessibleDescription('Level 7 is reserved');
    expect(screen.getByRole('alert')).toHaveTextContent('The plugin refused the configuration');
    await waitFor(() => expect(level).toHaveFocus());
    expect(onSaved).not.toHaveBeenCalled();
  });

  it('discards changes back to the values it was given', async () => {
    fakeApi();
    const user = userEvent.setup();
    renderForm({ nickname: 'ana', site: 'https://example.com' });
    const discard = screen.getByRole('button', { name: 'Discard changes' });
    expect(discard).toBeDisabled();
    await user.type(screen.getByRole('textbox', { name: 'Nickname' }), 'x');
    expect(screen.getByText('Unsaved changes')).toBeInTheDocument();
    await user.click(discard);
    expect(screen.getByRole('textbox', { name: 'Nickname' })).toHaveValue('ana');
    expect(screen.queryByText('Unsaved changes')).toBeNull();
  });
});
