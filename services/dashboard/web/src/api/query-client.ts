import { focusManager, QueryClient } from '@tanstack/react-query';
import { setCsrfToken, setUnauthorizedHandler } from './client';
import { queryKeys } from './queries';

/**
 * The app's one QueryClient. A failed read is shown with its own "Try again" (no silent retries, so an
 * error page appears as soon as the server said no); every other default is Query's own: a read is
 * cancelled when nobody shows it any more, and stale reads are fetched again when the tab comes back.
 */
export function createQueryClient(): QueryClient {
  const client = new QueryClient({
    defaultOptions: {
      queries: { retry: false },
      mutations: { retry: false },
    },
  });
  // Any 401 (the session expired meanwhile) signs the app out: the shell shows the sign-in screen.
  setUnauthorizedHandler(() => {
    setCsrfToken(null);
    client.setQueryData(queryKeys.me, null);
  });
  return client;
}

/**
 * "The tab comes back" is both a visibility change and the window regaining focus (Query 5 listens only
 * to the first; the embedded config page wants a fresh rl_token when the admin returns from another window).
 */
export function listenForFocus(): void {
  focusManager.setEventListener((setFocused) => {
    const onChange = () => setFocused(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', onChange);
    window.addEventListener('focus', onChange);
    return () => {
      document.removeEventListener('visibilitychange', onChange);
      window.removeEventListener('focus', onChange);
    };
  });
}
