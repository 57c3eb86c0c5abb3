/**
 * Signed events to plugins (docs/api.md "Events to plugins"): `POST {plugin_url}/events`, signed per
 * Standard Webhooks, sent only to plugins that listed the kinds in their /register or /health answer.
 */

/** Each event kind and its `data`. User and guild ids are decimal strings, as everywhere on the wire. */
export type PluginEventPayloads = {
  /**
   * A listed user cannot be given the role. `reason`: `not_a_member` (not in the guild; the bot retries a
   * day later, or when the reconcile sees them join) or `account_deleted` (the platform says the account
   * no longer exists, 10013: permanent, never retried; drop the user from the list).
   */
  'member.not_in_guild': { user_id: string; reason: 'not_a_member' | 'account_deleted' };
  /** Someone removed the role by hand and the bot put it back (drift repair or the reconcile). */
  'member.role_restored': { user_id: string; source: 'drift' | 'reconcile' };
  /** A listed user's membership expired and they left the list (memberships that expire). */
  'member.expired': { user_id: string; expired_at: string };
  /** A push was held for a mass removal (spec 3.3) and waits for the owner. */
  'removal.held': { change_id: string; previous: number; next: number; removals: number };
  /** The owner applied a held removal: resend the list (PUT or upload) before `window_ends_at` and it goes through. */
  'removal.applied': { change_id: string; removals: number; window_ends_at: string };
  /**
   * The server owner asks the plugin to resend its list (PUT or upload) for the applied removal
   * `change_id`: the list was not stored, so nothing changes until it arrives. Sent only while the
   * confirmation window is open: a list resent before `window_ends_at` goes through without a new hold.
   */
  'list.resend_requested': { change_id: string; window_ends_at: string };
  /**
   * The link stopped syncing (`link.paused`) or can sync again (`link.resumed`). The payload is the link's
   * state and reason as `rolelink link show`, the dashboard and GET /users meta show them (docs/api.md "A
   * link's state"): `link.paused` carries `state` `paused` (reason `slot_allowance`) or `blocked` (reason
   * `bot_not_in_guild`, `no_manage_roles`, `above_bot`, `managed`, `unknown_role`, `mfa_required`,
   * `refused`); `link.resumed` the state the link is in now and `resolved`, the cause that ended.
   */
  'link.paused': { state: string; reason: string | null };
  'link.resumed': { state: string; reason: string | null; resolved?: string };
  'link.disabled': Record<string, never>;
  'link.enabled': Record<string, never>;
  'link.deleted': Record<string, never>;
  /** The link's first full sync finished: the platform matches the list for the first time. */
  'sync.first_completed': { applied: number };
  /** Sent only by `rolelink plugin check` (and the dashboard's test): never recorded. */
  'test.ping': { message: string };
};

export type PluginEventKind = keyof PluginEventPayloads;

/** The JSON body of POST /events: one event. */
export type PluginEvent<K extends PluginEventKind = PluginEventKind> = {
  [P in K]: {
    /** Same as the `webhook-id` header: the event's id, stable across retries (deduplicate on it). */
    id: string;
    type: P;
    /** ISO 8601: when the event happened (not when this attempt was sent). */
    timestamp: string;
    guild_id: string;
    role_id: string;
    /** 1, 2, 3… per link: events of a link arrive in this order; a gap means an event was dropped. */
    seq: number;
    data: PluginEventPayloads[P];
  };
}[K];

/** Optional answer of POST /register (and field of the GET /health report): the kinds the plugin wants. */
export type PluginRegisterAnswer = { events?: string[] };
