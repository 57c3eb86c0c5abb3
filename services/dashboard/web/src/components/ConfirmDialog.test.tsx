import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { ConfirmDialog } from './ConfirmDialog';

function Harness({ onConfirm, confirmDisabled = false }: { onConfirm: () => void; confirmDisabled?: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Delete link
      </button>
      <ConfirmDialog
        open={open}
        title="Delete the link for Supporter?"
        confirmLabel="Delete permanently"
        danger
        confirmDisabled={confirmDisabled}
        onConfirm={onConfirm}
        onCancel={() => setOpen(false)}
      >
        <p>This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}

describe('ConfirmDialog', () => {
  it('opens as a named alert dialog with focus on Cancel, so Enter never confirms by accident', async () => {
    const user = userEvent.setup();
    const onConfirm = jest.fn();
    render(<Harness onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Delete link' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete the link for Supporter?' });
    expect(dialog).toHaveAttribute('open');
    expect(dialog).toHaveAccessibleDescription('This cannot be undone.');
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(onConfirm).not.toHaveBeenCalled();
    expect(dialog).not.toHaveAttribute('open');
  });

  it('confirms only through its confirm button, and not while a required second tick is missing', async () => {
    const user = userEvent.setup();
    const onConfirm = jest.fn();
    const { rerender } = render(<Harness onConfirm={onConfirm} confirmDisabled />);
    await user.click(screen.getByRole('button', { name: 'Delete link' }));
    const confirm = screen.getByRole('button', { name: 'Delete permanently' });
    expect(confirm).toBeDisabled();
    rerender(<Harness onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Delete permanently' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });

  it('cancels on Escape (the dialog’s cancel event)', async () => {
    const user = userEvent.setup();
    render(<Harness onConfirm={jest.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Delete link' }));
    const dialog = screen.getByRole('alertdialog');
    // jsdom does not turn Escape into the dialog's cancel event, as browsers do: the event itself is sent.
    fireEvent(dialog, new Event('cancel', { cancelable: true }));
    await screen.findByRole('button', { name: 'Delete link' });
    expect(dialog).not.toHaveAttribute('open');
  });
});
