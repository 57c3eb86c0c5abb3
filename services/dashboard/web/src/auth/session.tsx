import type { DashboardMe } from '@rolelink/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, setCsrfToken } from '../api/client';
import { dashboardApi } from '../api/dashboard-api';
import { queryKeys } from '../api/queries';

type SessionState =
  | { status: 'loading' }
  | { status: 'signed-in'; me: DashboardMe }
  | { status: 'signed-out' }
  | { status: 'error'; error: Error };

type Session = { state: SessionState; signOut: () => Promise<void>; retry: () => void };

/** GET /me: the user and the CSRF token, or null when nobody is signed in (401). */
async function fetchMe(signal: AbortSignal): Promise<DashboardMe | null> {
  try {
    const me = await dashboardApi.me(signal);
    setCsrfToken(me.csrf_token);
    return me;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

/**
 * Who is signed in, from the `me` query. Any 401 from the API sets it to null (query-client.ts), which
 * switches the shell to the sign-in screen. It is read once per page load: the session lasts until a 401.
 */
export function useSession(): Session {
  const client = useQueryClient();
  const me = useQuery({
    queryKey: queryKeys.me,
    queryFn: ({ signal }) => fetchMe(signal),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  const logout = useMutation({
    mutationFn: () => dashboardApi.logout(),
    onSuccess: () => {
      setCsrfToken(null);
      // Nothing of the signed-out user stays in the cache for whoever signs in next.
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== queryKeys.me[0] });
      client.setQueryData(queryKeys.me, null);
    },
  });

  let state: SessionState;
  if (me.data) state = { status: 'signed-in', me: me.data };
  else if (me.data === null) state = { status: 'signed-out' };
  else if (me.isError && !me.isFetching) state = { status: 'error', error: me.error };
  else state = { status: 'loading' };

  return { state, signOut: async () => void (await logout.mutateAsync()), retry: () => void me.refetch() };
}

/** The signed-in user; only for components rendered behind the sign-in gate. */
export function useMe(): DashboardMe {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('useMe needs a signed-in session');
  return state.me;
}
