// What every component test renders into: a fresh QueryClient (the app's own defaults), the toasts, and
// a memory router, as main.tsx and router.tsx provide them in the browser. The HTTP boundary is a fake
// `fetch` answering per method and path; everything above it (client.ts, the queries, the components) is real.
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
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
    const route = routes.find((r) => r.method === method && (typeof r.path === 'string' ? r.path === path : r.path.test(path)));
    if (!route) throw new Error(`unexpected request ${method} ${path}`);
    const { status, body: answer } = await route.answer(body);
    // What client.ts reads of a Response (jest's jsdom has no Response class).
    return { status, ok: status >= 200 && status < 300, statusText: '', text: () => Promise.resolve(answer === undefined ? '' : JSON.stringify(answer)) };
  });
  globalThis.fetch = fetchMock as unknown as typeof fetch;
  return {
    calls,
    on(method: string, path: string | RegExp, answer: (body: unknown) => Answer) {
      routes.unshift({ method, path, answer });
    },
  };
}

/** Renders `element` at `path`, matched by the route pattern `route` (so useParams works). */
export function renderPage(element: ReactNode, { route = '/', path = '/' }: { route?: string; path?: string } = {}) {
  const client = createQueryClient();
  const router = createMemoryRouter(
    [
      { path: route, element },
      { path: '*', element: null },
    ],
    { initialEntries: [path] },
  );
  const view = render(
    <QueryClientProvider client={client}>
      <ToastProvider>
        <RouterProvider router={router} />
      </ToastProvider>
    </QueryClientProvider>,
  );
  return { ...view, client, router };
}
