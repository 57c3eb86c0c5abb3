import type {
  AppliedRemovals,
  ApplyRemovalsBody,
  DashboardAuditLog,
  DashboardNotifications,
  DashboardNotifySettings,
  DashboardSetupCheck,
  NotifySettings,
  AuditQuery,
  ConfigView,
  CreatedLinkView,
  CreateLinkBody,
  DashboardGuild,
  DashboardGuildList,
  DashboardMe,
  DeletedLinkView,
  DeleteLinkBody,
  GuildHealth,
  HeldChangePreview,
  ResendRequestView,
  LinkCard,
  LinkEventLog,
  MemberLookup,
  OverridesChangeBody,
  OverridesView,
  PluginHealthView,
  ResyncView,
  RoleChoices,
  StripPreviewView,
  SubmittedConfig,
  UpdateLinkBody,
} from '@rolelink/contracts';
import { request } from './client';

/** Typed calls of the dashboard's JSON API (contracts/src/dashboard.ts), one function per route. */

const base = '/dashboard-api';
const seg = encodeURIComponent;
type Signal = AbortSignal | undefined;

function guildPath(guildId: string): string {
  return `${base}/guilds/${seg(guildId)}`;
}

function linkPath(guildId: string, roleId: string): string {
  return `${guildPath(guildId)}/links/${seg(roleId)}`;
}

/** `?a=1&b=2` of the defined entries, or nothing. */
function queryString(query: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string' || typeof v === 'number') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const dashboardApi = {
  me: (signal?: Signal) => request<DashboardMe>('GET', `${base}/me`, { signal }),
  logout: () => request<void>('POST', '/auth/logout'),

  guilds: (signal?: Signal) => request<DashboardGuildList>('GET', `${base}/guilds`, { signal }),
  guild: (guildId: string, signal?: Signal) => request<DashboardGuild>('GET', guildPath(guildId), { signal }),
  roles: (guildId: string, signal?: Signal) => request<RoleChoices>('GET', `${guildPath(guildId)}/roles`, { signal }),
  audit: (guildId: string, query: AuditQuery = {}, signal?: Signal) =>
    request<DashboardAuditLog>('GET', `${guildPath(guildId)}/audit${queryString(query)}`, { signal }),
  notifications: (guildId: string, query: { before?: string; limit?: number } = {}, signal?: Signal) =>
    request<DashboardNotifications>('GET', `${guildPath(guildId)}/notifications${queryString(query)}`, { signal }),
  markNotificationsRead: (guildId: string, body: { ids: string[] } | { all: true }) =>
    request<{ marked: number }>('POST', `${guildPath(guildId)}/notifications/read`, { body }),
  notifySettings: (guildId: string, signal?: Signal) =>
    request<DashboardNotifySettings>('GET', `${guildPath(guildId)}/notifications/settings`, { signal }),
  saveNotifySettings: (guildId: string, body: NotifySettings) =>
    request<DashboardNotifySettings>('PUT', `${guildPath(guildId)}/notifications/settings`, { body }),
  guildHealth: (guildId: string, signal?: Signal) =>
    request<GuildHealth>('GET', `${guildPath(guildId)}/health`, { signal }),
  setupCheck: (guildId: string, signal?: Signal) =>
    request<DashboardSetupCheck>('GET', `${guildPath(guildId)}/setup-check`, { signal }),

  createLink: (guildId: string, body: CreateLinkBody) =>
    request<CreatedLinkView>('POST', `${guildPath(guildId)}/links`, { body }),
  link: (guildId: string, roleId: string, signal?: Signal) =>
    request<LinkCard>('GET', linkPath(guildId, roleId), { signal }),
  updateLink: (guildId: string, roleId: string, body: UpdateLinkBody) =>
    request<LinkCard>('PATCH', linkPath(guildId, roleId), { body }),
  deleteLink: (guildId: string, roleId: string, body: DeleteLinkBody = {}) =>
    request<DeletedLinkView>('DELETE', linkPath(guildId, roleId), { body }),
  /** A link, not a call: the browser downloads the streamed CSV itself. */
  listCsvUrl: (guildId: string, roleId: string) => `${linkPath(guildId, roleId)}/users.csv`,
  resync: (guildId: string, roleId: string) => request<ResyncView>('POST', `${linkPath(guildId, roleId)}/resync`),
  stripPreview: (guildId: string, roleId: string, signal?: Signal) =>
    request<StripPreviewView>('GET', `${linkPath(guildId, roleId)}/strip-preview`, { signal }),
  heldChange: (guildId: string, roleId: string, signal?: Signal) =>
    request<HeldChangePreview>('GET', `${linkPath(guildId, roleId)}/held-change`, { signal }),
  applyRemovals: (guildId: string, roleId: string, body: ApplyRemovalsBody) =>
    request<AppliedRemovals>('POST', `${linkPath(guildId, roleId)}/apply-removals`, { body }),
  requestResend: (guildId: string, roleId: string) =>
    request<ResendRequestView>('POST', `${linkPath(guildId, roleId)}/request-resend`),

  config: (guildId: string, roleId: string, options: { refresh?: boolean; signal?: Signal } = {}) =>
    request<ConfigView>('GET', `${linkPath(guildId, roleId)}/config${options.refresh ? '?refresh=true' : ''}`, {
      signal: options.signal,
    }),
  submitConfig: (guildId: string, roleId: string, config: Record<string, unknown>) =>
    request<SubmittedConfig>('POST', `${linkPath(guildId, roleId)}/config`, { body: { config } }),

  linkHealth: (guildId: string, roleId: string, signal?: Signal) =>
    request<PluginHealthView>('GET', `${linkPath(guildId, roleId)}/health`, { signal }),
  member: (guildId: string, roleId: string, userId: string, signal?: Signal) =>
    request<MemberLookup>('GET', `${linkPath(guildId, roleId)}/members/${seg(userId)}`, { signal }),
  overrides: (guildId: string, roleId: string, signal?: Signal) =>
    request<OverridesView>('GET', `${linkPath(guildId, roleId)}/overrides`, { signal }),
  changeOverrides: (guildId: string, roleId: string, body: OverridesChangeBody) =>
    request<OverridesView>('PATCH', `${linkPath(guildId, roleId)}/overrides`, { body }),
  events: (guildId: string, roleId: string, signal?: Signal) =>
    request<LinkEventLog>('GET', `${linkPath(guildId, roleId)}/events`, { signal }),
  resendEvent: (guildId: string, roleId: string, eventId: string) =>
    request<{ id: string; state: 'pending' }>('POST', `${linkPath(guildId, roleId)}/events/${seg(eventId)}/resend`),
};
