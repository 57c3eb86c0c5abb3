import { useLocation } from 'react-router';
import { Brand } from '../components/Brand';
import { loginHref } from '../paths';
import styles from './SignInPage.module.css';
import { buttonClass } from '../components/Button';

/** What each failure code of /auth/callback means to the person signing in (auth.routes.ts signInFailedPath). */
const SIGN_IN_FAILURES: Record<string, string> = {
  oauth_state: 'The sign-in link expired or was not started in this browser. Try again.',
  oauth_code: 'The platform sent no sign-in code. Try again.',
  platform_unavailable: 'The platform did not answer or did not accept the sign-in. Try again in a moment.',
  signed_out: 'The platform did not accept the sign-in. Try again.',
  unknown: 'Something went wrong while signing in. Try again.',
};

/** Shown whenever the session is missing or expired (a 401 from any call); sign-in returns here. */
export function SignInPage() {
  const location = useLocation();
  const params = new URLSearchParams(location.search);
  const outcome = params.get('signin');
  // After a failed or cancelled attempt, signing in again returns to the start, not to this notice.
  const next = outcome ? '/' : `${location.pathname}${location.search}${location.hash}`;
  return (
    <main id="main" className={styles.page}>
      <div className={styles.card}>
        <Brand large />
        {outcome === 'failed' ? (
          <div className="banner banner-error" role="alert">
            <p className="banner-title">Sign-in failed</p>
            <p>{SIGN_IN_FAILURES[params.get('reason') ?? ''] ?? SIGN_IN_FAILURES.unknown}</p>
          </div>
        ) : null}
        {outcome === 'cancelled' ? (
          <div className="banner banner-warning" role="status">
            <p className="banner-title">Sign-in was cancelled on the platform's page. Nothing was changed.</p>
          </div>
        ) : null}
        <h1>Sign in to manage your role links</h1>
        <p className="muted">
          Connect roles on your servers to plugin servers that decide who holds them. Sign in with the platform account
          that manages your server.
        </p>
        {/* A full-page navigation: the server starts the platform's OAuth2 sign-in and comes back to `next`. */}
        <a className={buttonClass({ tone: 'primary', size: 'large' })} href={loginHref(next)}>
          {outcome === 'failed' ? 'Try again' : 'Sign in with the platform'}
        </a>
      </div>
    </main>
  );
}
