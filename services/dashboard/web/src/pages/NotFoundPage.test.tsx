import { screen } from '@testing-library/react';
import { renderPage } from '../../test/render';
import { NotFoundPage } from './NotFoundPage';

describe('NotFoundPage', () => {
  it('says there is nothing here, with a way back', () => {
    renderPage(<NotFoundPage />, { route: '*', path: '/nowhere' });
    expect(screen.getByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to your servers' })).toHaveAttribute('href', '/');
  });
});
