import type { DashboardMe } from '@rolelink/contracts';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, isAbort, setCsrfToken, setUnauthorizedHandler } from '../api/client';
import { dashboardApi } from '../api/dashboard-api';

type SessionState = { status: 'loading' } | { status: 'signed-in'; me: DashboardMe } | { status: 'signed-out' } | { status: 'error'; error: Error };

type Session = { state: SessionState; signOut: () => Promise<void>; retry: () => void };

const SessionContext = createContext<Session | null>(null);

/** Who is signed in. Any 401 from the API (the session expired meanwhile) switches to the sign-in screen. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setCsrfToken(null);
      setState({ status: 'signed-out' });
    });
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    dashboardApi
      .me(controller.signal)
      .then((me) => {
        setCsrfToken(me.csrf_token);
        setState({ status: 'signed-in', me });
      })
      .catch((err: unknown) => {
        if (isAbort(err)) return;
        if (err instanceof ApiError && err.status === 401) setState({ status: 'signed-out' });
        else setState({ status: 'error', error: err instanceof Error ? err : new Error(String(err)) });
      });
    return () => controller.abort();
  }, [attempt]);

  const signOut = useCallback(async () => {
    await dashboardApi.logout();
    setCsrfToken(null);
    setState({ status: 'signed-out' });
  }, []);

  const retry = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);

  const value = useMemo(() => ({ state, signOut, retry }), [state, signOut, retry]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession must be used inside SessionProvider');
  return session;
}

/** The signed-in user; only for components rendered behind the sign-in gate. */
export function useMe(): DashboardMe {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('useMe needs a signed-in session');
  return state.me;
}
