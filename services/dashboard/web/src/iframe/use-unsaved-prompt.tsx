import { useEffect } from 'react';
import { useBlocker } from 'react-router';
import { ConfirmDialog } from '../components/ConfirmDialog';

/**
 * While `dirty`, leaving is confirmed first: the browser's own prompt for closing or reloading the tab
 * (beforeunload), and a dialog for in-app navigation (react-router's useBlocker). Returns the dialog.
 */
export function useUnsavedChangesPrompt(dirty: boolean, what: string) {
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname,
  );

  return (
    <ConfirmDialog
      open={blocker.state === 'blocked'}
      title="Leave without saving?"
      confirmLabel="Leave page"
      cancelLabel="Stay on page"
      danger
      onConfirm={() => blocker.proceed?.()}
      onCancel={() => blocker.reset?.()}
    >
      <p>{what} has unsaved changes. If you leave now, they are lost.</p>
    </ConfirmDialog>
  );
}
