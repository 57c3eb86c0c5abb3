import { ButtonLink } from '../components/Button';

export function NotFoundPage() {
  return (
    <div className="empty-state">
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
      <ButtonLink to="/">Back to your servers</ButtonLink>
    </div>
  );
}
