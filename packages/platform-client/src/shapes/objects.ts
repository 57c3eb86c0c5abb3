import { z } from 'zod';

/**
 * The platform's objects as the product reads them: one schema per object, naming only the fields some
 * caller reads, each required only when Discord always sends it (its docs and discord-api-types agree).
 * Fields a caller tolerates missing (`nick`, `global_name`, …) stay optional, so an answer is refused only
 * when reading it would fail. Unread fields are neither required nor removed: the answer reaches the
 * caller as the platform sent it. `official-types.ts` keeps each schema in step with discord-api-types.
 */

const Snowflake = z.string();

/** GET /users/@me, a member's `user`, an application's `owner`. */
export const UserShape = z.object({
  id: Snowflake,
  username: z.string(),
  global_name: z.string().nullish(),
});

/** GET /guilds/{guild.id}/roles, and each of a guild's `roles`. */
export const RoleShape = z.object({
  id: Snowflake,
  name: z.string(),
  color: z.number().optional(),
  position: z.number(),
  permissions: z.string(),
  managed: z.boolean(),
});

/** GET /guilds/{guild.id}: its owner, its roles (doctor's checks) and whether it requires 2FA. */
export const GuildShape = z.object({
  id: Snowflake,
  name: z.string(),
  owner_id: Snowflake,
  roles: z.array(RoleShape),
  mfa_level: z.number(),
  approximate_member_count: z.number().optional(),
});

/** GET /users/@me/guilds: the bot's guilds (the reconcile, the dashboard) and a signed-in user's. */
export const PartialGuildShape = z.object({
  id: Snowflake,
  name: z.string(),
  icon: z.string().nullish(),
  owner: z.boolean().optional(),
  permissions: z.string().optional(),
});

/** A guild member: who (`user`, absent only in gateway messages, never over REST) and which roles. */
export const MemberShape = z.object({
  user: UserShape,
  nick: z.string().nullish(),
  roles: z.array(Snowflake),
});

/** GET /applications/@me: the client id for the invite and who owns it (doctor's 2FA fix). */
export const ApplicationShape = z.object({
  id: Snowflake,
  owner: UserShape.pick({ username: true }).optional(),
  team: z.object({ name: z.string() }).nullable(),
});

/** A channel: a DM opened for a notification. */
export const ChannelShape = z.object({
  id: Snowflake,
  type: z.number(),
});

/** GET /guilds/{guild.id}/channels: where notifications may be posted, in the platform's order. */
export const GuildChannelShape = ChannelShape.extend({
  name: z.string(),
  position: z.number(),
});

const RoleRefs = z.array(z.object({ id: Snowflake }));

/** One change of an entry; `$add` and `$remove` (member role updates) carry the roles concerned. */
const AuditLogChangeShape = z
  .object({ key: z.string(), new_value: z.unknown().optional() })
  .superRefine((change, ctx) => {
    if (change.key !== '$add' && change.key !== '$remove') return;
    const roles = RoleRefs.safeParse(change.new_value);
    if (!roles.success)
      for (const issue of roles.error.issues) ctx.addIssue({ ...issue, path: ['new_value', ...issue.path] });
  });

/** One audit-log entry: what was done (`action_type`), to whom, by whom, and the changes. */
export const AuditLogEntryShape = z.object({
  id: Snowflake,
  action_type: z.number(),
  target_id: Snowflake.nullable(),
  user_id: Snowflake.nullable(),
  changes: z.array(AuditLogChangeShape).optional(),
});

/** GET /guilds/{guild.id}/audit-logs (the drift poll reads only the entries). */
export const AuditLogShape = z.object({ audit_log_entries: z.array(AuditLogEntryShape) });

/** GET /guilds/{guild.id}/roles/member-counts: holders per role id. */
export const RoleMemberCountsShape = z.record(Snowflake, z.number());

/** POST /oauth2/token (the dashboard's sign-in). */
export const OAuthTokenShape = z.object({
  access_token: z.string(),
  expires_in: z.number(),
  refresh_token: z.string().optional(),
});
