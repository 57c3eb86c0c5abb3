import { createBrowserRouter } from 'react-router';
import { AppShell } from './shell/AppShell';
import { RouteErrorPage } from './pages/RouteErrorPage';

/**
 * A data router (createBrowserRouter), so useBlocker can hold in-app navigation while an iframe is dirty.
 * Every page is its own chunk, loaded by the route's `lazy` on first visit: the first load carries only
 * the shell (sign-in, session, toasts) and the shared libraries, ≤ 200 kB gzip (`pnpm bench web-bundle`,
 * docs/benchmarks.md). The shell stays in the entry because it decides between sign-in and the pages.
 */
export const router = createBrowserRouter([
  {
    element: <AppShell />,
    errorElement: <RouteErrorPage />,
    children: [
      { path: '/', lazy: async () => ({ Component: (await import('./pages/GuildsPage')).GuildsPage }) },
      { path: '/guilds/:guildId', lazy: async () => ({ Component: (await import('./pages/GuildPage')).GuildPage }) },
      {
        path: '/guilds/:guildId/health',
        lazy: async () => ({ Component: (await import('./pages/GuildHealthPage')).GuildHealthPage }),
      },
      {
        path: '/guilds/:guildId/audit',
        lazy: async () => ({ Component: (await import('./pages/GuildAuditPage')).GuildAuditPage }),
      },
      {
        path: '/guilds/:guildId/notifications',
        lazy: async () => ({ Component: (await import('./pages/GuildNotificationsPage')).GuildNotificationsPage }),
      },
      {
        path: '/guilds/:guildId/links/new',
        lazy: async () => ({ Component: (await import('./pages/CreateLinkPage')).CreateLinkPage }),
      },
      {
        path: '/guilds/:guildId/links/:roleId',
        lazy: async () => ({ Component: (await import('./pages/link/LinkPage')).LinkPage }),
        children: [
          {
            index: true,
            lazy: async () => ({ Component: (await import('./pages/link/ConfigurationTab')).ConfigurationTab }),
          },
          {
            path: 'settings',
            lazy: async () => ({ Component: (await import('./pages/link/SettingsTab')).SettingsTab }),
          },
          { path: 'members', lazy: async () => ({ Component: (await import('./pages/link/MembersTab')).MembersTab }) },
          { path: 'health', lazy: async () => ({ Component: (await import('./pages/link/HealthTab')).HealthTab }) },
          { path: 'events', lazy: async () => ({ Component: (await import('./pages/link/EventsTab')).EventsTab }) },
        ],
      },
      { path: '*', lazy: async () => ({ Component: (await import('./pages/NotFoundPage')).NotFoundPage }) },
    ],
  },
]);
