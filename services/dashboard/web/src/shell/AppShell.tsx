import { useState } from 'react';
import { Outlet, ScrollRestoration } from 'react-router';
import { useSession } from '../auth/session';
import { SignInPage } from '../pages/SignInPage';
import styles from './AppShell.module.css';
import { Brand } from '../components/Brand';
import { ErrorState, Loading } from '../components/ErrorState';
import { useToast } from '../components/toasts';
import { Button } from '../components/Button';

/** The root route: nothing but the sign-in screen until GET /me answers with a user. */
export function AppShell() {
  const { state, signOut, retry } = useSession();
  const toast = useToast();
  const [signingOut, setSigningOut] = useState(false);

  if (state.status === 'loading') {
    return (
      <main id="main" className="page">
        <Loading />
      </main>
    );
  }
  if (state.status === 'signed-out') return <SignInPage />;
  if (state.status === 'error') {
    return (
      <main id="main" className="page">
        <ErrorState error={state.error} onRetry={retry} />
      </main>
    );
  }

  const { user } = state.me;
  const displayName = user.global_name || user.username;

  async function onSignOut() {
    setSigningOut(true);
    try {
      await signOut();
    } catch (err) {
      toast.show('error', 'Sign out failed', err instanceof Error ? err.message : String(err));
      setSigningOut(false);
    }
  }

  return (
    <>
      <a className={styles.skipLink} href="#main">
        Skip to content
      </a>
      <header className={styles.header}>
        <div className={styles.inner}>
          <Brand />
          <div className={styles.user}>
            {user.avatar_url ? (
              <img className={styles.avatar} src={user.avatar_url} alt="" width={28} height={28} />
            ) : null}
            <span className={styles.userName}>{displayName}</span>
            <Button size="small" onClick={() => void onSignOut()} disabled={signingOut}>
              Sign out
            </Button>
          </div>
        </div>
      </header>
      <main id="main" className="page" tabIndex={-1}>
        <Outlet />
      </main>
      <ScrollRestoration />
    </>
  );
}
