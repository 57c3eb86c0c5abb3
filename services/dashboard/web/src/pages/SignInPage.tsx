import { useLocation } from 'react-router';
import { loginHref } from '../paths';

/** Shown whenever the session is missing or expired (a 401 from any call); sign-in returns here. */
export function SignInPage() {
  const location = useLocation();
  const next = `${location.pathname}${location.search}${location.hash}`;
  return (
    <main id="main" className="sign-in">
      <div className="sign-in-card">
        <p className="brand brand-large">
          <span className="brand-mark" aria-hidden="true" />
          Role Link
        </p>
        <h1>Sign in to manage your role links</h1>
        <p className="muted">Connect roles on your servers to plugin servers that decide who holds them. Sign in with the platform account that manages your server.</p>
        {/* A full-page navigation: the server starts the platform's OAuth2 sign-in and comes back to `next`. */}
        <a className="btn btn-primary btn-large" href={loginHref(next)}>
          Sign in with the platform
        </a>
      </div>
    </main>
  );
}
