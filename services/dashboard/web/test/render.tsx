// What every component test renders into: a fresh QueryClient (the app's own defaults), the toasts, and
// a memory router, as main.tsx and router.tsx provide them in the browser. The HTTP boundary is a fake
// `fetch` answering per method and path; everything above it (client.ts, the queries, the components) is real.
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { DashboardGuild, LinkCard } from '@rolelink/contracts';
import type { ReactNode } from 'react';
import { createMemoryRouter, Outlet, RouterProvider, type RouteObject } from 'react-router';
import type { LinkContext } from '../src/pages/link/link-context';
import { createQueryClient } from '../src/api/query-client';
import { ToastProvider } from '../src/components/toasts';

export type Answer = { status: number; body?: unknown } | Promise<{ status: number; body?: unknown }>;
type Route = { method: string; path: string | RegExp; answer: (body: unknown) => Answer };

/** A fake `fetch` for the dashboard API: routes are matched in order; a request nobody answers fails the test. */
export function fakeApi() {
  const routes: Route[] = [];
  const calls: { method: string; path: string; body: unknown }[] = [];
  const fetchMock = jest.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = typeof input === 'string' ? input : 'url' in input ? input.url : input.href;
    const method = init?.method ?? 'GET';
    const body: unknown = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path, body });
    const route = routes.find(
      (r) => r.method === method && (typeof r.path === 'string' ? r.path === path : r.path.test(path)),
    );
    if (!route) throw new Error(`unexpected request ${method} ${path}`);
    const { status, body: answer } = await route.answer(body);
    // What client.ts reads of a Response (jest's jsdom has no Response class).
    return {
      status,
      ok: status >= 200 && status < 300,
      statusText: '',
      text: () => Promise.resolve(answer === undefined ? '' : JSON.stringify(answer)),
    };
  });
  globalThis.fetch = fetchMock as unknown as typeof fetch;
  return {
    calls,
    on(method: string, path: string | RegExp, answer: (body: unknown) => Answer) {
      routes.unshift({ method, path, answer });
    },
  };
}

/** Renders `routes` (plus a catch-all) at `path` inside the providers main.tsx gives the app. */
function renderRoutes(routes: RouteObject[], path: string) {
  const client = createQueryClient();
  const router = createMemoryRouter([...routes, { path: '*', element: null }], { initialEntries: [path] });
  const view = render(
    <QueryClientProvider client={client}>
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>
    </QueryClientProvider>,
  );
  return { ...view, client, router };
}

/** Renders `element` at `path`, matched by the route pattern `route` (so useParams works). */
export function renderPage(element: ReactNode, { route = '/', path = '/' }: { route?: string; path?: string } = {}) {
  return renderRoutes([{ path: route, element }], path);
}

/** Renders one of the link page's tabs under an Outlet that hands it `context`, as LinkPage does. */
export function renderTab(element: ReactNode, context: LinkContext) {
  return renderRoutes(
    [
      {
        path: '/guilds/:guildId/links/:roleId',
        element: <Outlet context={context} />,
        children: [{ index: true, element }],
      },
    ],
    `/guilds/${context.guildId}/links/${context.roleId}`,
  );
}

/** The demo guild as GET /dashboard-api/guilds/:guildId answers it to its owner, the bot in it; `over` changes parts of it. */
export function guildView(over: Partial<DashboardGuild> = {}): DashboardGuild {
  return {
    bot: {
      in_guild: true,
      invite_url: 'https://platform.example/oauth2/authorize',
      members_listing_blocked: false,
      members_intent_message: null,
    },
    guild_id: '100000000000000001',
    name: 'Demo Guild',
    icon_url: null,
    owner: true,
    member_count: 300,
    plan: 'free',
    slots: { used: 0, allowed: 1 },
    links: [],
    ...over,
  };
}

/** A link card as GET …/links/:roleId answers it: an active, synced link; `over` changes parts of it. */
export function linkCard(over: Partial<LinkCard> = {}): LinkCard {
  return {
    link_id: 'link-1',
    guild_id: '100000000000000001',
    role_id: '200000000000000001',
    plugin_url: 'https://plugin.example.com',
    state: 'up_to_date',
    reason: null,
    message: null,
    warnings: [],
    enabled: true,
    trusted: false,
    member_mode: 'handover',
    plan: 'free',
    slot: { position: 1, allowance: 1 },
    counts: { listed: 2, synced: 2, to_add: 0, to_remove: 0, held: 0, not_in_server: 0, deleted: 0, over_limit: 0 },
    progress: { percent: 100, moving: false, eta_seconds: null },
    limits: { synced_limit: 1000, user_limit: 100000, per_put: 10000 },
    sync: { rate_per_sec: null, last_sync_at: null },
    held_change: null,
    removal: null,
    blocked: null,
    listing_unavailable: null,
    created_at: '2026-11-01T00:00:00.000Z',
    role: { id: '200000000000000001', name: 'Members', color: null, position: 1 },
    role_readable: true,
    health: { status: 'healthy', checked_at: null },
    privileged: [],
    ...over,
  };
}
