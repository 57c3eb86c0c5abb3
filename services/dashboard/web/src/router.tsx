import { createBrowserRouter } from 'react-router';
import { AppShell } from './components/AppShell';
import { RouteErrorPage } from './pages/RouteErrorPage';
import { CreateLinkPage } from './pages/CreateLinkPage';
import { GuildPage } from './pages/GuildPage';
import { GuildsPage } from './pages/GuildsPage';
import { ConfigurationTab } from './pages/link/ConfigurationTab';
import { HealthTab } from './pages/link/HealthTab';
import { EventsTab } from './pages/link/EventsTab';
import { LinkPage } from './pages/link/LinkPage';
import { MembersTab } from './pages/link/MembersTab';
import { SettingsTab } from './pages/link/SettingsTab';
import { NotFoundPage } from './pages/NotFoundPage';

/** A data router (createBrowserRouter), so useBlocker can hold in-app navigation while an iframe is dirty. */
export const router = createBrowserRouter([
  {
    element: <AppShell />,
    errorElement: <RouteErrorPage />,
    children: [
      { path: '/', element: <GuildsPage /> },
      { path: '/guilds/:guildId', element: <GuildPage /> },
      // Occasional pages, loaded on first visit: kept out of the main bundle (Vite's 500 kB chunk warning).
      { path: '/guilds/:guildId/health', lazy: async () => ({ Component: (await import('./pages/GuildHealthPage')).GuildHealthPage }) },
      { path: '/guilds/:guildId/audit', lazy: async () => ({ Component: (await import('./pages/GuildAuditPage')).GuildAuditPage }) },
      { path: '/guilds/:guildId/notifications', lazy: async () => ({ Component: (await import('./pages/GuildNotificationsPage')).GuildNotificationsPage }) },
      { path: '/guilds/:guildId/links/new', element: <CreateLinkPage /> },
      {
        path: '/guilds/:guildId/links/:roleId',
        element: <LinkPage />,
        children: [
          { index: true, element: <ConfigurationTab /> },
          { path: 'settings', element: <SettingsTab /> },
          { path: 'members', element: <MembersTab /> },
          { path: 'health', element: <HealthTab /> },
          { path: 'events', element: <EventsTab /> },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
