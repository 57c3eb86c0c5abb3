import type { AuditQuery } from '@rolelink/contracts';
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { dashboardApi } from './dashboard-api';

/**
 * Every read of the dashboard API as TanStack Query options: the cache key and the fetch live together,
 * so a page, a mutation's invalidation and a test all name a piece of data the same way. Keys start with
 * what the data is about (`guild`, `link`), so `invalidateQueries({ queryKey: queryKeys.link(g, r) })`
 * reaches the link's card and everything under it (config, health, previews).
 */
export const queryKeys = {
  me: ['me'] as const,
  guilds: ['guilds'] as const,
  guild: (guildId: string) => ['guild', guildId] as const,
  roles: (guildId: string) => ['guild', guildId, 'roles'] as const,
  audit: (guildId: string, filters: AuditFilters) => ['guild', guildId, 'audit', filters] as const,
  notifications: (guildId: string) => ['guild', guildId, 'notifications'] as const,
  notifySettings: (guildId: string) => ['guild', guildId, 'notify-settings'] as const,
  guildHealth: (guildId: string) => ['guild', guildId, 'health'] as const,
  setupCheck: (guildId: string) => ['guild', guildId, 'setup-check'] as const,
  link: (guildId: string, roleId: string) => ['link', guildId, roleId] as const,
  config: (guildId: string, roleId: string) => ['link', guildId, roleId, 'config'] as const,
  linkHealth: (guildId: string, roleId: string) => ['link', guildId, roleId, 'health'] as const,
  stripPreview: (guildId: string, roleId: string) => ['link', guildId, roleId, 'strip-preview'] as const,
  heldChange: (guildId: string, roleId: string) => ['link', guildId, roleId, 'held-change'] as const,
  member: (guildId: string, roleId: string, userId: string) => ['link', guildId, roleId, 'member', userId] as const,
  overrides: (guildId: string, roleId: string) => ['link', guildId, roleId, 'overrides'] as const,
  events: (guildId: string, roleId: string) => ['link', guildId, roleId, 'events'] as const,
};

export type AuditFilters = Pick<AuditQuery, 'action' | 'role_id'>;

/** How long a page that did not just load the guild may show it from the cache (breadcrumb name, owner flag, linked roles). */
const GUILD_FRESH_MS = 30_000;

export const queries = {
  guilds: () => queryOptions({ queryKey: queryKeys.guilds, queryFn: ({ signal }) => dashboardApi.guilds(signal) }),
  /** One cache entry per guild, shared by the guild page (which polls it) and every page under it. */
  guild: (guildId: string) =>
    queryOptions({
      queryKey: queryKeys.guild(guildId),
      queryFn: ({ signal }) => dashboardApi.guild(guildId, signal),
      staleTime: GUILD_FRESH_MS,
    }),
  roles: (guildId: string) =>
    queryOptions({ queryKey: queryKeys.roles(guildId), queryFn: ({ signal }) => dashboardApi.roles(guildId, signal) }),
  audit: (guildId: string, filters: AuditFilters) =>
    infiniteQueryOptions({
      queryKey: queryKeys.audit(guildId, filters),
      queryFn: ({ signal, pageParam }) =>
        dashboardApi.audit(guildId, { ...filters, ...(pageParam ? { before: pageParam } : {}) }, signal),
      initialPageParam: null as string | null,
      getNextPageParam: (last) => last.next_before ?? undefined,
    }),
  notifications: (guildId: string) =>
    queryOptions({
      queryKey: queryKeys.notifications(guildId),
      queryFn: ({ signal }) => dashboardApi.notifications(guildId, {}, signal),
    }),
  notifySettings: (guildId: string) =>
    queryOptions({
      queryKey: queryKeys.notifySettings(guildId),
      queryFn: ({ signal }) => dashboardApi.notifySettings(guildId, signal),
    }),
  guildHealth: (guildId: string) =>
    queryOptions({
      queryKey: queryKeys.guildHealth(guildId),
      queryFn: ({ signal }) => dashboardApi.guildHealth(guildId, signal),
    }),
  /** Runs the setup checks on the platform: only when the admin asks (never in the background), kept while the page is open. */
  setupCheck: (guildId: string) =>
    queryOptions({
      queryKey: queryKeys.setupCheck(guildId),
      queryFn: ({ signal }) => dashboardApi.setupCheck(guildId, signal),
      staleTime: Infinity,
      retry: false,
    }),
  link: (guildId: string, roleId: string) =>
    queryOptions({
      queryKey: queryKeys.link(guildId, roleId),
      queryFn: ({ signal }) => dashboardApi.link(guildId, roleId, signal),
    }),
  /**
   * `refresh` skips the broker's 5-minute schema cache; the answer is the same data, so it lands in the same
   * entry. Not kept once the tab is left (gcTime 0): each visit loads the plugin's current form and values,
   * and a form the admin has started filling is never swapped for a late background answer.
   */
  config: (guildId: string, roleId: string, refresh = false) =>
    queryOptions({
      queryKey: queryKeys.config(guildId, roleId),
      queryFn: ({ signal }) => dashboardApi.config(guildId, roleId, { refresh, signal }),
      gcTime: 0,
    }),
  linkHealth: (guildId: string, roleId: string) =>
    queryOptions({
      queryKey: queryKeys.linkHealth(guildId, roleId),
      queryFn: ({ signal }) => dashboardApi.linkHealth(guildId, roleId, signal),
    }),
  stripPreview: (guildId: string, roleId: string) =>
    queryOptions({
      queryKey: queryKeys.stripPreview(guildId, roleId),
      queryFn: ({ signal }) => dashboardApi.stripPreview(guildId, roleId, signal),
    }),
  heldChange: (guildId: string, roleId: string) =>
    queryOptions({
      queryKey: queryKeys.heldChange(guildId, roleId),
      queryFn: ({ signal }) => dashboardApi.heldChange(guildId, roleId, signal),
    }),
  member: (guildId: string, roleId: string, userId: string) =>
    queryOptions({
      queryKey: queryKeys.member(guildId, roleId, userId),
      queryFn: ({ signal }) => dashboardApi.member(guildId, roleId, userId, signal),
    }),
  overrides: (guildId: string, roleId: string) =>
    queryOptions({
      queryKey: queryKeys.overrides(guildId, roleId),
      queryFn: ({ signal }) => dashboardApi.overrides(guildId, roleId, signal),
    }),
  events: (guildId: string, roleId: string) =>
    queryOptions({
      queryKey: queryKeys.events(guildId, roleId),
      queryFn: ({ signal }) => dashboardApi.events(guildId, roleId, signal),
    }),
};

/** Polls only once a first answer is there (a page showing an error waits for "Try again"); Query pauses it while the tab is hidden. */
export function pollEvery(ms: number) {
  return (query: { state: { data: unknown } }) => (query.state.data === undefined ? false : ms);
}
