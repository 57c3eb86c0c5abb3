import type { HeldChangePreview, LinkCard } from '@rolelink/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeApi, renderPage, type Answer } from '../../test/render';
import { HeldChangePanel } from './HeldChangePanel';

const G = '100000000000000001';
const R = '200000000000000001';
const linkPath = `/dashboard-api/guilds/${G}/links/${R}`;
const CHANGE = '7d3f6c2e-1b4a-4c5d-9e8f-0a1b2c3d4e5f';

// The card's held_change, as GET …/links/:roleId answers it for a held shrink.
const held: NonNullable<LinkCard['held_change']> = {
  change_id: CHANGE,
  kind: 'shrink',
  previous: 3003,
  next: 20,
  removals: 2983,
  additions: 0,
  created_at: '2026-11-27T12:00:00.000Z',
  confirmed_at: null,
};
const preview: HeldChangePreview = {
  change: held,
  sample: [
    { user_id: '300000000000000001', name: 'ana' },
    { user_id: '300000000000000002', name: null },
  ],
};

function later() {
  let answer!: (a: Awaited<Answer>) => void;
  const promise = new Promise<Awaited<Answer>>((resolve) => (answer = resolve));
  return { promise, answer };
}

function renderPanel(owner: boolean | undefined = true) {
  return renderPage(
    <HeldChangePanel guildId={G} roleId={R} roleName="Members" held={held} removal={null} owner={owner} />,
  );
}

describe('HeldChangePanel: the Apply removals dialog', () => {
  it('shows the held change and who it leaves out, then confirms that change by its id', async () => {
    const api = fakeApi();
    const pending = later();
    api.on('GET', `${linkPath}/held-change`, () => pending.promise);
    api.on('POST', `${linkPath}/apply-removals`, () => ({
      status: 200,
      body: { change_id: CHANGE, kind: 'shrink', removals: 2983, window_ends_at: '2026-11-27T13:00:00.000Z' },
    }));
    const user = userEvent.setup();
    renderPanel();
    expect(
      screen.getByRole('group', { name: /Removal held: 3,003 → 20 members \(2,983 removals, 0 additions\)/ }),
    ).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Apply removals…' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Apply the held removal for Members?' });
    // Until the preview answers there is nothing to confirm.
    expect(within(dialog).getByRole('button', { name: 'Apply removals' })).toBeDisabled();
    expect(within(dialog).getByText('Loading the held change…')).toBeInTheDocument();
    pending.answer({ status: 200, body: preview });
    const confirm = await within(dialog).findByRole('button', { name: 'Apply 2,983 removals' });
    expect(
      within(dialog).getByText('Left out of the held list: ana, 300000000000000002 and 2,981 more.'),
    ).toBeInTheDocument();
    expect(within(dialog).getByText('2,983 members lose the role', { exact: false })).toBeInTheDocument();

    await user.click(confirm);
    await waitFor(() =>
      expect(api.calls.find((c) => c.method === 'POST')).toEqual({
        method: 'POST',
        path: `${linkPath}/apply-removals`,
        body: { change_id: CHANGE },
      }),
    );
    expect(await screen.findByText('Removals confirmed')).toBeInTheDocument();
    expect(screen.getByText('The plugin must resend its list within the hour.')).toBeInTheDocument();
    expect(dialog).not.toHaveAttribute('open');
  });

  it('says why the preview could not be loaded and offers nothing to confirm; Cancel closes without a call', async () => {
    const api = fakeApi();
    api.on('GET', `${linkPath}/held-change`, () => ({
      status: 404,
      body: { statusCode: 404, message: 'Nothing is held for this link' },
    }));
    const user = userEvent.setup();
    renderPanel();
    await user.click(screen.getByRole('button', { name: 'Apply removals…' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Apply the held removal for Members?' });
    expect(
      await within(dialog).findByText('The held change could not be loaded: Nothing is held for this link'),
    ).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Apply removals' })).toBeDisabled();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(dialog).not.toHaveAttribute('open');
    expect(api.calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  // packages/admin removals.ts: 409 when a newer change was held after the dialog was shown.
  it('shows a refusal (a newer change was held) next to the panel', async () => {
    const api = fakeApi();
    api.on('GET', `${linkPath}/held-change`, () => ({ status: 200, body: preview }));
    api.on('POST', `${linkPath}/apply-removals`, () => ({
      status: 409,
      body: {
        statusCode: 409,
        message: 'A newer large removal was held since this one was shown; review it before applying',
      },
    }));
    const user = userEvent.setup();
    renderPanel();
    await user.click(screen.getByRole('button', { name: 'Apply removals…' }));
    await user.click(await screen.findByRole('button', { name: 'Apply 2,983 removals' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'A newer large removal was held since this one was shown; review it before applying',
    );
  });

  it('offers the dialog to the owner only', () => {
    fakeApi();
    renderPanel(false);
    expect(screen.queryByRole('button', { name: 'Apply removals…' })).toBeNull();
    expect(screen.getByText('Only the server owner can apply removals.')).toBeInTheDocument();
  });
});
