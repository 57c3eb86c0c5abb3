import { z } from 'zod';
import {
  ApplicationShape,
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

/** What a route answers, and how its path is named in messages (Discord's docs' own placeholders). */
export type RouteShape = { path: string; schema: z.ZodType };

/**
 * Every platform answer the product reads, by route key (`routeOf`'s method and template). A route not
 * here is one whose body nobody reads (a role change's 204, a posted message).
 */
export const ROUTE_SHAPES: Readonly<Record<string, RouteShape>> = {
  'GET:/users/@me': { path: '/users/@me', schema: UserShape },
  'GET:/users/@me/guilds': { path: '/users/@me/guilds', schema: z.array(PartialGuildShape) },
  'POST:/users/@me/channels': { path: '/users/@me/channels', schema: ChannelShape },
  'GET:/applications/@me': { path: '/applications/@me', schema: ApplicationShape },
  'GET:/guilds/:id': { path: '/guilds/{guild.id}', schema: GuildShape },
  'GET:/guilds/:id/roles': { path: '/guilds/{guild.id}/roles', schema: z.array(RoleShape) },
  'GET:/guilds/:id/roles/member-counts': {
    path: '/guilds/{guild.id}/roles/member-counts',
    schema: RoleMemberCountsShape,
  },
  'GET:/guilds/:id/members': { path: '/guilds/{guild.id}/members', schema: z.array(MemberShape) },
  'GET:/guilds/:id/members/:id': { path: '/guilds/{guild.id}/members/{user.id}', schema: MemberShape },
  'GET:/guilds/:id/channels': { path: '/guilds/{guild.id}/channels', schema: z.array(GuildChannelShape) },
  'GET:/guilds/:id/audit-logs': { path: '/guilds/{guild.id}/audit-logs', schema: AuditLogShape },
  'POST:/oauth2/token': { path: '/oauth2/token', schema: OAuthTokenShape },
};

/** The route key with `@me` spelled out (discord-api-types percent-encodes it in the URL). */
export function routeShape(routeKey: string): RouteShape | undefined {
  return ROUTE_SHAPES[routeKey.replace(/%40/gi, '@')];
}
