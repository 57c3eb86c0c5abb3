import { useRouteError } from 'react-router';
import { ButtonLink } from '../components/Button';

/** Last resort for a render error: say so and offer a way back, instead of a blank page. */
export function RouteErrorPage() {
  const error = useRouteError();
  const message = error instanceof Error ? error.message : 'An unexpected error occurred.';
  return (
    <main id="main" className="page">
      <div className="error-state" role="alert">
        <h1>Something went wrong</h1>
        <p>{message}</p>
        <ButtonLink to="/">Back to your servers</ButtonLink>
      </div>
    </main>
  );
}
