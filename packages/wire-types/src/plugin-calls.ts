/** What the service sends to a plugin server and what it expects back (spec 4.2). */

/** POST /register and DELETE /config (with `Authorization: Token <API_TOKEN>`). */
export type PluginLinkBody = { guild_id: string; role_id: string };

/**
 * POST /register: the link, and what the plugin's first list will meet (fields beyond spec 4.2's two;
 * a plugin may ignore them). `current_holders`: members holding the role when the link was created.
 * On a `handover` link they count as the previous list of the first full list (PUT or commit): one
 * that leaves out a quarter of them or more (and at least 10), or is empty, is held for confirmation
 * (409 `confirm_required`). On a `keep` link they are the list already (`user_count`).
 */
export type PluginRegisterBody = PluginLinkBody & { member_mode: 'handover' | 'keep'; current_holders: number };

/** POST /config (schema mode): the admin's values, already checked against the form (spec 2.10). */
export type PluginConfigSubmitBody = PluginLinkBody & { config: Record<string, unknown> };

/** GET /health (spec 2.5). A body with only `status` is valid. */
export type PluginHealthReport = {
  status: 'healthy' | 'degraded' | 'unhealthy';
  /** ISO 8601, when the check ran. */
  timestamp?: string;
  checks?: Record<string, { status: 'up' | 'down'; latency_ms?: number; message?: string }>;
  /** Third-party connectivity. */
  services?: { name: string; status: 'up' | 'down'; latency_ms?: number }[];
  /** Event kinds the plugin wants for every link it serves (docs/api.md "Events to plugins"); absent: unchanged. */
  events?: string[];
};
