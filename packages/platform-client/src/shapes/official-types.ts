import type {
  APIApplication,
  APIAuditLog,
  APIAuditLogEntry,
  APIDMChannel,
  APIGuild,
  APIGuildMember,
  APIRole,
  APITextChannel,
  APIUser,
  RESTAPIPartialCurrentUserGuild,
  RESTGetAPIGuildRoleMemberCountsResult,
  RESTPostOAuth2AccessTokenResult,
} from 'discord-api-types/v10';
import type { z } from 'zod';
import type {
  ApplicationShape,
  AuditLogEntryShape,
  AuditLogShape,
  ChannelShape,
  GuildChannelShape,
  GuildShape,
  MemberShape,
  OAuthTokenShape,
  PartialGuildShape,
  RoleMemberCountsShape,
  RoleShape,
  UserShape,
} from './objects';

/**
 * Compile-time guarantees (checked by `pnpm typecheck`) that the schemas cannot drift from
 * discord-api-types, the official objects' types:
 * - `Accepts`: every answer the official type allows passes the schema (no field required that Discord
 *   may leave out, no type narrower than Discord's);
 * - `Names`: every field the schema names is one of the official object's (no invented or misspelt field).
 * A schema that breaks either fails the build here, naming the object.
 */
type Accepts<Official, S extends z.ZodType> = [Official] extends [z.input<S>] ? true : false;
type Names<Official, S extends z.ZodType> = [Exclude<keyof z.output<S>, keyof Official>] extends [never] ? true : false;
type Both<Official, S extends z.ZodType> = Accepts<Official, S> extends true ? Names<Official, S> : false;

export const SHAPES_MATCH_DISCORD_API_TYPES: {
  user: Both<APIUser, typeof UserShape>;
  role: Both<APIRole, typeof RoleShape>;
  guild: Both<APIGuild, typeof GuildShape>;
  partialGuild: Both<RESTAPIPartialCurrentUserGuild, typeof PartialGuildShape>;
  member: Both<APIGuildMember, typeof MemberShape>;
  application: Both<APIApplication, typeof ApplicationShape>;
  dmChannel: Both<APIDMChannel, typeof ChannelShape>;
  guildChannel: Both<APITextChannel, typeof GuildChannelShape>;
  auditLogEntry: Both<APIAuditLogEntry, typeof AuditLogEntryShape>;
  auditLog: Both<APIAuditLog, typeof AuditLogShape>;
  roleMemberCounts: Accepts<RESTGetAPIGuildRoleMemberCountsResult, typeof RoleMemberCountsShape>;
  oauthToken: Both<RESTPostOAuth2AccessTokenResult, typeof OAuthTokenShape>;
} = {
  user: true,
  role: true,
  guild: true,
  partialGuild: true,
  member: true,
  application: true,
  dmChannel: true,
  guildChannel: true,
  auditLogEntry: true,
  auditLog: true,
  roleMemberCounts: true,
  oauthToken: true,
};
