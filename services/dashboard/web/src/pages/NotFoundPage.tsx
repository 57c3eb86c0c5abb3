import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <div className="empty-state">
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
      <Link className="btn" to="/">
        Back to your servers
      </Link>
    </div>
  );
}
