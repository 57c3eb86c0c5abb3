/**
 * Signed events to plugins (docs/api.md "Events to plugins"): `POST {plugin_url}/events`, signed per
 * Standard Webhooks, sent only to plugins that listed the kinds in their /register or /health answer.
 */

/** Each event kind and its `data`. User and guild ids are decimal strings, as everywhere on the wire. */
export type PluginEventPayloads = {
  /** A listed user is not a member of the guild: the role cannot be given (the bot does not retry on every pass). */
  'member.not_in_guild': { user_id: string };
  /** Someone removed the role by hand and the bot put it back (drift repair or the reconcile). */
  'member.role_restored': { user_id: string; source: 'drift' | 'reconcile' };
  /** A listed user's membership expired and they left the list (memberships that expire). */
  'member.expired': { user_id: string; expired_at: string };
  /** A push was held for a mass removal (spec 3.3) and waits for the owner. */
  'removal.held': { change_id: string; previous: number; next: number; removals: number };
  /** The owner applied a held removal: resend the list (PUT or upload) before `window_ends_at` and it goes through. */
  'removal.applied': { change_id: string; removals: number; window_ends_at: string };
  /** The link was paused (slot allowance) or disabled; or resumed / enabled again; or deleted. */
  'link.paused': { reason: string };
  'link.resumed': { reason: string };
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
