import { z } from 'zod';
import type { PluginHealthCheckView, PluginHealthStatus } from './health';
import { snowflake, userId } from './snowflake';

/**
 * The dashboard's JSON API (`/dashboard-api`, services/dashboard) as the web app sees it: request bodies
 * as zod schemas (the server validates with them), answers as types. Errors are `ErrorBody`
 * (error-body.ts), with `errors: [{ field, message }]` where a message belongs next to a field.
 */

export const PLAN_NAMES = ['free', 'premium'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** GET /dashboard-api/me: who is signed in, and the CSRF token every state-changing call sends as `X-CSRF-Token`. */
export type DashboardMe = {
  user: { id: string; username: string; global_name: string | null; avatar_url: string | null };
  csrf_token: string;
  /** The platform's "add the bot to a server" URL (scope bot, the bot's permissions): offered when no server is listed. */
  add_bot_url: string;
};

/** One guild the signed-in user may manage (bot present, and owner or Manage Server / Administrator). */
export type DashboardGuildSummary = {
  guild_id: string;
  name: string;
  icon_url: string | null;
  /** Owner-only actions (Apply removals, trusted flag) are offered only when true. */
  owner: boolean;
  plan: PlanName;
  slots: { used: number; allowed: number };
};

/** GET /dashboard-api/guilds */
export type DashboardGuildList = { guilds: DashboardGuildSummary[] };

/**
 * Why the bot makes no change on a link (docs/sync-engine.md "When the platform refuses"):
 * `bot_not_in_guild` (the bot was removed, or the server is gone), or why the bot may not change the role
 * (packages/domain LINK_BLOCK_MESSAGES). `message` names the fix; `invite_url` (dashboard only) adds the bot back.
 */
export type LinkBlockedView = {
  reason:
    'bot_not_in_guild' | 'no_manage_roles' | 'above_bot' | 'managed' | 'unknown_role' | 'mfa_required' | 'refused';
  message: string;
  since: string;
  invite_url?: string;
};

/**
 * A link's state, derived in one place (packages/domain `deriveLinkStatus`; docs/api.md "A link's state"),
 * the first that applies: `disabled`, `paused` (slots), `blocked` (the platform refuses the bot),
 * `held` (a large removal waits for the owner), `awaiting_first_list` (hand-over before the first list),
 * `syncing`, `up_to_date`.
 */
export type LinkStateName =
  'disabled' | 'paused' | 'blocked' | 'held' | 'awaiting_first_list' | 'syncing' | 'up_to_date';
/** Why: a blocked reason (LinkBlockedView's), `slot_allowance` (paused), `shrink` or `admin_source` (held). */
export type LinkStateReasonName = LinkBlockedView['reason'] | 'slot_allowance' | 'shrink' | 'admin_source';

/**
 * The counts, one meaning each (docs/api.md "A link's counts"): `listed` on the plugin's list; `synced`
 * hold the role now, as the bot applied it; `to_add` and `to_remove` changes still to make; `held`
 * removals held for the owner; `not_in_server` (null while the member listing is refused) and `deleted`
 * listed users no call can reach; `over_limit` listed beyond the plan's synced limit.
 */
export type LinkCountsView = {
  listed: number;
  synced: number;
  to_add: number;
  to_remove: number;
  held: number;
  not_in_server: number | null;
  deleted: number;
  over_limit: number;
};

/** A link as an owner or SRE sees it (also what `rolelink link show` prints). */
export type LinkView = {
  link_id: string;
  guild_id: string;
  role_id: string;
  plugin_url: string;
  state: LinkStateName;
  reason: LinkStateReasonName | null;
  /** The state in words with its fix ("Blocked: …"); null for `up_to_date` and `syncing`. */
  message: string | null;
  /** Problems the bot knows of that do not stop the link (the Server Members intent off). */
  warnings: { reason: 'members_intent_missing'; message: string }[];
  enabled: boolean;
  trusted: boolean;
  member_mode: 'handover' | 'keep';
  plan: string;
  slot: { position: number; allowance: number };
  counts: LinkCountsView;
  /** The bar: `moving` only while syncing; `eta_seconds` only while syncing at a known rate. */
  progress: { percent: number; moving: boolean; eta_seconds: number | null };
  /**
   * Null while every count is available. Otherwise the counts that need the guild's member listing are
   * null and this says why, with the fix: `members_intent`, the bot application lacks the Server Members
   * intent (the message names the developer portal's setting).
   */
  listing_unavailable: { reason: 'members_intent'; message: string } | null;
  limits: { synced_limit: number; user_limit: number; per_put: number };
  sync: { rate_per_sec: number | null; last_sync_at: string | null };
  /**
   * The latest large removal the service held (spec 3.3), until a write spends its confirmation.
   * `additions`: members of the held list who are not among `previous`, so previous − removals + additions = next.
   * `kind`: `shrink` (a large removal held at the API, spec 4.1) or `admin_source` (removals the bot held
   * because the role is those members' only Administrator or Manage Server: previous = removals,
   * next 0, and the dialog's sample names every one of them).
   */
  held_change: null | {
    change_id: string;
    kind: 'shrink' | 'admin_source';
    previous: number;
    next: number;
    removals: number;
    additions: number;
    created_at: string;
    confirmed_at: string | null;
  };
  /** The latest removal the owner applied, and where it stands (null when none was applied, or it finished over a day ago). */
  removal: RemovalProgressView | null;
  /** Null while the bot can sync the link; otherwise why it cannot, instead of a stream of per-user failures. */
  blocked: LinkBlockedView | null;
  created_at: string;
};

/**
 * An applied removal as it stands, read from the server, so the card never claims what it cannot know:
 * - `awaiting_list`: a `shrink` hold was applied and the window is open; the list was not stored, so nothing
 *   changes until the plugin resends it (PUT or upload) before `window_ends_at`;
 * - `window_ended`: the window closed without the list; applying again reopens it;
 * - `removing`: the list arrived (`list_resent_at`), or an `admin_source` hold was applied, and the bot is
 *   still removing the role;
 * - `applied`: the bot made every removal.
 * `resend`: "Ask the plugin to resend" (`list.resend_requested`). `listening`: the plugin asked for that
 * kind (otherwise nothing can reach it); `requested_at`: the owner's last request; `available_at`: when a
 * new request can queue an event (null: now).
 */
export type RemovalProgressView = {
  change_id: string;
  kind: 'shrink' | 'admin_source';
  removals: number;
  confirmed_at: string;
  window_ends_at: string;
  state: 'awaiting_list' | 'window_ended' | 'removing' | 'applied';
  list_resent_at: string | null;
  resend: { listening: boolean; requested_at: string | null; available_at: string | null };
};

/**
 * POST /dashboard-api/guilds/:guildId/links/:roleId/request-resend (owner only) and `rolelink removals
 * request-resend`: the plugin is asked to resend its list (`list.resend_requested`). `queued` false: an
 * earlier request less than five minutes old stands (`requested_at`), and no second event was queued.
 */
export type ResendRequestView = {
  change_id: string;
  window_ends_at: string;
  requested_at: string;
  queued: boolean;
  event_id: string | null;
  next_request_at: string;
};

/** A platform role as the dashboard shows it. `color` is `#rrggbb`, or null for the platform's default (no colour). */
export type DashboardRole = { id: string; name: string; color: string | null; position: number };

/** The latest health of a link's plugin; `unknown` before the first poll. */
export type LinkHealthSummary = { status: PluginHealthStatus | 'unknown'; checked_at: string | null };

/**
 * A role link card: the link, its role on the platform (null when the role was deleted there) and plugin
 * health. `privileged`: the privileged permissions the role carries now (empty when none), read
 * from the platform on every view, so a role given Administrator after it was linked is flagged too.
 */
export type LinkCard = LinkView & {
  role: DashboardRole | null;
  /** False while the bot is out of the server: its roles cannot be read, so a null `role` is unknown, not deleted. */
  role_readable: boolean;
  health: LinkHealthSummary;
  privileged: string[];
};

/** GET /dashboard-api/guilds/:guildId */
export type DashboardGuild = DashboardGuildSummary & {
  member_count: number | null;
  links: LinkCard[];
  /**
   * What the bot can do here: `in_guild` false shows "the bot is not in this server" with
   * `invite_url`; `members_listing_blocked` shows the banner naming the Server Members intent setting
   * (`members_intent_message`), and counts that need the member listing are not offered.
   */
  bot: {
    in_guild: boolean;
    invite_url: string;
    members_listing_blocked: boolean;
    members_intent_message: string | null;
  };
};

/**
 * A role in the create-link picker: `usable` false with the `reason` shown next to it (the bot cannot
 * manage it: `problem` says which rule, or it is @everyone or already linked). `privileged`: the
 * privileged permissions it carries; linking one needs the owner's typed consent.
 */
export type RoleChoice = DashboardRole & {
  usable: boolean;
  reason: string | null;
  problem: 'no_manage_roles' | 'above_bot' | 'managed' | null;
  privileged: string[];
  /** Members holding the role now, and whether that number is exact (only an exact count offers "Keep current members"). */
  member_count: number | null;
  member_count_exact: boolean;
  /**
   * Why the exact count is unavailable when the member listing is: the bot application lacks
   * the Server Members intent, and the message names the portal setting. `member_count` is then the
   * platform's quick count, never a smaller number counted from a listing the bot cannot read. Null otherwise.
   */
  member_count_unavailable: string | null;
  /**
   * With Hand over, the members holding the role now are the previous list of the plugin's first list (the
   * plugin is told their number, `current_holders` of POST /register): a first list that leaves out this
   * many of them or more is held for the owner's confirmation, as is an empty one. Null when only an
   * empty first list would be held (fewer than 10 holders) or the count is unknown.
   */
  first_list_holds_at: number | null;
};

/** GET /dashboard-api/guilds/:guildId/roles */
export type RoleChoices = { roles: RoleChoice[]; synced_limit: number; plan: PlanName };

/**
 * POST /dashboard-api/guilds/:guildId/links. `existing_members` has no default: when the role
 * has members it must be given (400 `existing_members_required` on the field otherwise); for a role
 * without members it does not matter.
 */
export const createLinkBody = z
  .object({
    role_id: snowflake,
    plugin_url: z.string().min(1, 'Enter the plugin server URL').max(2_000),
    existing_members: z.enum(['handover', 'keep']).optional(),
    /** A privileged role's consent: its name as the owner typed it (403 `owner_consent_required` without it, `owner_only` for anyone but the owner). */
    owner_consent: z.string().max(200).optional(),
  })
  .strict();
export type CreateLinkBody = z.input<typeof createLinkBody>;
export type CreatedLinkView = {
  link_id: string;
  guild_id: string;
  role_id: string;
  plugin_url: string;
  member_mode: 'handover' | 'keep';
  existing_members: number;
};

/** PATCH /dashboard-api/guilds/:guildId/links/:roleId (trusted: owner only). */
export const updateLinkBody = z
  .object({ enabled: z.boolean().optional(), trusted: z.boolean().optional() })
  .strict()
  .refine((b) => b.enabled !== undefined || b.trusted !== undefined, { message: 'Set enabled and/or trusted' });
export type UpdateLinkBody = z.infer<typeof updateLinkBody>;

/**
 * DELETE /dashboard-api/guilds/:guildId/links/:roleId. The body is optional: a bare DELETE keeps the
 * documented default (members keep the role). `strip_roles` asks the bot to take the role back from the
 * members this link's own add calls gave it to (admin `deleteLink`'s stripRoles); never from members who
 * held it before the link or got it by hand. `confirm_lockout` is the second, explicit confirmation a
 * strip needs when it would take the last Administrator or Manage Server from any admin
 * (otherwise 409 `strip_lockout`, its message naming who loses what, with `errors` on field `confirm_lockout`).
 */
export const deleteLinkBody = z
  .object({ strip_roles: z.boolean().default(false), confirm_lockout: z.boolean().default(false) })
  .strict()
  .default({ strip_roles: false, confirm_lockout: false });
export type DeleteLinkBody = z.input<typeof deleteLinkBody>;
/** `strip_count`: how many members the bot is taking the role from (null when roles are left alone). */
export type DeletedLinkView = { deleted: true; link_id: string; strip_roles: boolean; strip_count: number | null };

/** A member a strip would take the role from, with their display name (null where the platform could not be read). */
export type StripMember = { user_id: string; name: string | null };
/**
 * GET /dashboard-api/guilds/:guildId/links/:roleId/strip-preview: what "also remove the role" would do now.
 * `count` is the members this link granted the role to, less those found gone (`skipped`); `sample` the
 * first few present by id. `lockout`
 * lists every admin the strip takes the role from whose only source of Administrator or Manage Server it
 * is, the acting admin (`you`) first, then the others (`admin`); never the owner, who keeps every
 * permission. `lockout_checked` is false where the platform could not be asked (the CLI without
 * platform settings) or the strip takes the role from more members than are checked (admin's
 * LOCKOUT_CHECK_LIMIT), and then a strip needs the second confirmation too.
 */
export type StripPreviewView = {
  count: number;
  sample: StripMember[];
  lockout: (StripMember & { who: 'you' | 'admin'; permission: 'Administrator' | 'Manage Server' })[];
  lockout_checked: boolean;
  /**
   * Members the link granted the role to whom the preview found gone, left out of `count`, `sample` and
   * `lockout`: `not_in_server` left the server (the platform answers 404 10007), `deleted` deleted their
   * account (404 10013). Neither holds the role any more, so they have nothing to lose. Only the members
   * the preview read are known (the sample, and each one checked for a lock-out).
   */
  skipped: { not_in_server: number; deleted: number };
};

/** POST /dashboard-api/guilds/:guildId/links/:roleId/resync: `retried` members whose back-off ended at once. */
export type ResyncView = { link_id: string; retried: number };

/**
 * GET /dashboard-api/guilds/:guildId/links/:roleId/held-change: what Apply removals would confirm, loaded
 * when its dialog opens. `sample`: the first members (by id) the held list left out, recorded when it
 * was held, by name (null where the platform could not say).
 */
export type HeldChangePreview = { change: NonNullable<LinkView['held_change']>; sample: StripMember[] };

/**
 * POST /dashboard-api/guilds/:guildId/links/:roleId/apply-removals (owner only). `change_id`: the change
 * the dialog showed; when a newer one was held since, 409 `held_change_superseded` and nothing is confirmed.
 */
export const applyRemovalsBody = z.object({ change_id: z.string().uuid().optional() }).strict().default({});
export type ApplyRemovalsBody = z.input<typeof applyRemovalsBody>;
/** `kind` as the held change's: an `admin_source` hold is removed by the bot at once, a `shrink` hold waits for the plugin's resent list. */
export type AppliedRemovals = {
  change_id: string;
  kind: 'shrink' | 'admin_source';
  removals: number;
  window_ends_at: string;
};

/** POST /dashboard-api/guilds/:guildId/links/:roleId/config (schema mode only; iframe mode answers 400). */
export const submitConfigBody = z.object({ config: z.record(z.string(), z.unknown()) }).strict();
export type SubmitConfigBody = z.infer<typeof submitConfigBody>;
/** The plugin's answer, forwarded (spec 4.2 rule 5); `message` is its `message` field when it is a string. */
export type SubmittedConfig = { status: number; body: unknown; message: string | null };

/** GET /dashboard-api/guilds/:guildId/links/:roleId/health */
export type PluginHealthView = {
  plugin_url: string;
  status: PluginHealthStatus | 'unknown';
  latest: PluginHealthCheckView | null;
  /** Newest first, at most 20. */
  history: PluginHealthCheckView[];
};

/** GET /dashboard-api/guilds/:guildId/health: the plugin status page. */
export type GuildHealth = { links: { role_id: string; role: DashboardRole | null; health: PluginHealthView }[] };

/** GET /dashboard-api/guilds/:guildId/links/:roleId/members/:userId (params: `userParams` of ./api) */
export type MemberLookup = {
  user_id: string;
  /** `synced`: on the list within the synced limit; `over_limit`: on the list beyond it; `not_listed`: not on the list. */
  state: 'synced' | 'over_limit' | 'not_listed';
  /** When the membership ends on its own (docs/api.md "Memberships that expire"); null: permanent or not listed. */
  expires_at: string | null;
  /**
   * The bot's last answer from the platform for this member, if it ever acted on them: `outcome` in words
   * the admin reads (`text`), never a raw code alone.
   */
  platform: null | { outcome: string; text: string; updated_at: string };
  /** The member's recent role changes on the platform, newest first (bounded; cause: `list change` or `full sync`). */
  history: { at: string; action: 'add' | 'remove'; outcome: string; cause: string }[];
  /** The admin override on this member (docs/sync-engine.md, "Admin overrides"), or null. */
  override: OverrideKind | null;
  /** Whether the sync engine gives this member the role (or keeps it on them), overrides and holds applied. */
  should_hold: boolean;
  /**
   * Why, read from the same stored facts as the link's counts (docs/dashboard.md "Members"), the first that applies:
   * `always_keep`, `never_give` (overrides); `account_deleted` (the platform answered Unknown User: the
   * account is gone); `not_in_server` (Unknown Member: they get the role when they join);
   * `held_for_safety` (the plugin dropped them but the role is their only Administrator or Manage Server:
   * kept until the owner applies the removal); `synced` (on the list, holding the role or about to);
   * `over_limit` (on the list beyond the plan's synced limit); `not_listed`.
   */
  reason:
    | 'always_keep'
    | 'never_give'
    | 'account_deleted'
    | 'not_in_server'
    | 'held_for_safety'
    | 'synced'
    | 'over_limit'
    | 'not_listed';
  /** The reason in words, with what happens next. */
  message: string;
};

/** What the platform's last answer for a member means, in an admin's words (no raw codes). */
export const MEMBER_OUTCOME_TEXT: Record<string, string> = {
  applied: 'Role applied',
  removed: 'Role removed',
  not_in_guild: 'Not a member of the server',
  unknown_user: 'Account deleted',
  missing_permission: 'The bot may not change this role',
  failed: 'Failed (retried later)',
};

/** Admin overrides per link: `always` members keep the role whatever the list says, `never` members do not get it. */
export type OverrideKind = 'always' | 'never';
/** Entries per list and link (docs/sync-engine.md, "Admin overrides"). */
export const OVERRIDE_LIST_MAX = 1000;
export type OverrideEntryView = { user_id: string; added_at: string };
/** GET /dashboard-api/guilds/:guildId/links/:roleId/overrides (and the answer of a change). */
export type OverridesView = { always: OverrideEntryView[]; never: OverrideEntryView[]; max_per_list: number };

const overrideIds = z
  .array(userId)
  .max(OVERRIDE_LIST_MAX, `at most ${OVERRIDE_LIST_MAX} user ids per list`)
  .default([]);
/**
 * PATCH /dashboard-api/guilds/:guildId/links/:roleId/overrides: `always` and `never` add ids to those
 * lists, `remove` takes ids out of either (removals apply first, so moving a member is one change). With
 * `replace: true` the lists become exactly `always` and `never`. A user in both lists is refused (400).
 */
export const overridesChangeBody = z
  .object({
    always: overrideIds,
    never: overrideIds,
    remove: z
      .array(userId)
      .max(2 * OVERRIDE_LIST_MAX)
      .default([]),
    replace: z.boolean().default(false),
  })
  .strict()
  .refine((b) => b.replace || b.always.length + b.never.length + b.remove.length > 0, {
    message: 'Give ids to add or remove (always, never, remove), or replace: true',
  });
export type OverridesChangeBody = z.input<typeof overridesChangeBody>;

/** Path parameters of the guild routes (link routes use `linkParams` of ./api). */
export const guildParams = z.object({ guildId: snowflake });

/** What the admin audit log records (admin_audit; docs/dashboard.md "Audit log"). */
export const AUDIT_ACTIONS = [
  'link_created',
  'link_deleted',
  'config_saved',
  'removals_applied',
  'list_resend_requested',
  'link_enabled',
  'link_disabled',
  'trusted_set',
  'trusted_unset',
  'plan_changed',
  'resync_requested',
  'notify_settings_changed',
  'overrides_changed',
  'event_resent',
  'privileged_consent',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** GET /dashboard-api/guilds/:guildId/audit (and `rolelink audit`): filters and paging, all optional. */
export const auditQuery = z
  .object({
    action: z.enum(AUDIT_ACTIONS).optional(),
    role_id: snowflake.optional(),
    /** The previous page's `next_before`. */
    before: z
      .string()
      .regex(/^\d{1,19}$/, 'must be an entry id')
      .optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
export type AuditQuery = z.input<typeof auditQuery>;
export type AuditEntryView = {
  id: string;
  at: string;
  role_id: string | null;
  actor: { id: string | null; name: string; via: 'dashboard' | 'cli' };
  action: AuditAction;
  detail: Record<string, unknown> | null;
};
export type AuditLogView = { entries: AuditEntryView[]; next_before: string | null };
/** The dashboard's answer adds each entry's role as the platform has it now (null: deleted there). */
export type DashboardAuditLog = {
  entries: (AuditEntryView & { role: DashboardRole | null })[];
  next_before: string | null;
};

/**
 * Events that notify the owner (docs/dashboard.md "Notifications"). `events_dropped`
 * (a plugin's event given up after 24 h) is off unless a guild turns it on: see
 * DEFAULT_NOTIFY_EVENTS in @rolelink/db/notifications.
 */
export const NOTIFY_KINDS = [
  'removal_held',
  'plugin_unhealthy',
  'plugin_recovered',
  'link_paused',
  'events_dropped',
] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

/** PUT /dashboard-api/guilds/:guildId/notifications/settings. `channel_id` null: no channel message. */
export const notifySettingsBody = z
  .object({
    events: z.array(z.enum(NOTIFY_KINDS)).max(NOTIFY_KINDS.length),
    dm_owner: z.boolean(),
    channel_id: snowflake.nullable(),
  })
  .strict();
export type NotifySettings = z.infer<typeof notifySettingsBody>;
/** GET …/notifications/settings adds the guild's text channels, for the picker. */
export type DashboardNotifySettings = NotifySettings & { channels: { id: string; name: string }[] };

/** GET /dashboard-api/guilds/:guildId/notifications: newest first, pages by `before`. */
export const notificationsQuery = z
  .object({
    before: z
      .string()
      .regex(/^\d{1,19}$/, 'must be a notification id')
      .optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();
export type NotificationView = {
  id: string;
  kind: NotifyKind;
  role_id: string | null;
  created_at: string;
  detail: Record<string, unknown> | null;
  /** pending | sent | folded | off | failed */
  delivery: string;
  delivered_to: string[];
  read: boolean;
};
export type DashboardNotifications = { notifications: NotificationView[]; unread: number; next_before: string | null };
/** POST …/notifications/read: marks these (or, with `all`, every) notification read. */
export const notificationsReadBody = z.union([
  z
    .object({
      ids: z
        .array(z.string().regex(/^\d{1,19}$/))
        .min(1)
        .max(200),
    })
    .strict(),
  z.object({ all: z.literal(true) }).strict(),
]);
