import { screen } from '@testing-library/react';
import { renderPage } from '../../test/render';
import { SignInPage } from './SignInPage';

describe('SignInPage', () => {
  it('signs in through the platform and comes back to the page asked for', () => {
    renderPage(<SignInPage />, { route: '/guilds/:guildId', path: '/guilds/100000000000000001?tab=x' });
    expect(screen.getByRole('heading', { level: 1, name: 'Sign in to manage your role links' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign in with the platform' })).toHaveAttribute(
      'href',
      `/auth/login?next=${encodeURIComponent('/guilds/100000000000000001?tab=x')}`,
    );
  });

  it('says why a sign-in failed, and trying again starts from the servers list', () => {
    renderPage(<SignInPage />, { path: '/?signin=failed&reason=oauth_state' });
    expect(screen.getByRole('alert')).toHaveTextContent(
      'The sign-in link expired or was not started in this browser. Try again.',
    );
    expect(screen.getByRole('link', { name: 'Try again' })).toHaveAttribute('href', '/auth/login?next=%2F');
  });

  it('says a cancelled sign-in changed nothing', () => {
    renderPage(<SignInPage />, { path: '/?signin=cancelled' });
    expect(
      screen.getByText("Sign-in was cancelled on the platform's page. Nothing was changed.").closest('[role="status"]'),
    ).not.toBeNull();
  });
});
