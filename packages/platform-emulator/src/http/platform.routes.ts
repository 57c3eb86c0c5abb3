import { Router, type RequestHandler } from 'express';
import type {
  RESTGetAPICurrentUserResult,
  RESTGetAPIGuildMemberResult,
  RESTGetAPIGuildMembersQuery,
  RESTGetAPIGuildMembersResult,
  RESTGetAPIGuildResult,
  RESTGetAPIGuildRoleMemberCountsResult,
  RESTGetAPIGuildRolesResult,
} from 'discord-api-types/v10';
import { decodeReason } from '../audit-log';
import type { EmulatorState } from '../emulator-state';
import type { BucketKind } from '../rate-limits';
import { countInvalid, gate } from './gate';
import { boolQuery, guildOf, intQuery, pathSnowflake, snowflake } from './params';
import { missingPermissions, routeNotFound, unknownMember, unknownRole } from './platform-errors';
import { renderGuild, renderMember, renderRole, renderUser } from './render';

type Method = 'get' | 'put' | 'delete';

/** The platform REST subset under /api/v10, each route behind the limiter. */
export function platformRouter(state: EmulatorState): Router {
  const router = Router();
  const route = (method: Method, path: string, kind: BucketKind, handler: RequestHandler, aliases: string[] = []) => {
    const major = path.startsWith('/guilds/:guildId') ? 'guildId' : undefined;
    router[method]([path, ...aliases], gate(state, { name: `${method.toUpperCase()} ${path}`, kind, major }), handler);
  };

  // discord.js sends `@me` percent-encoded; the platform takes both spellings.
  route('get', '/users/@me', 'route', (_req, res) => {
    res.json(renderUser(state.botUserId, true) satisfies RESTGetAPICurrentUserResult);
  }, ['/users/%40me']);

  route('get', '/guilds/:guildId', 'route', (req, res) => {
    res.json(renderGuild(guildOf(state, req), boolQuery(req.query.with_counts)) satisfies RESTGetAPIGuildResult);
  });

  route('get', '/guilds/:guildId/roles', 'route', (req, res) => {
    const guild = guildOf(state, req);
    res.json(guild.roles.map((r) => renderRole(guild, r)) satisfies RESTGetAPIGuildRolesResult);
  });

  route('get', '/guilds/:guildId/roles/member-counts', 'route', (req, res) => {
    const guild = guildOf(state, req);
    const counts: RESTGetAPIGuildRoleMemberCountsResult = {};
    for (const role of guild.roles) if (!guild.isEveryone(role)) counts[role.id] = guild.members.count(role.index);
    res.json(counts);
  });

  // Ordered by user id ascending; `after` is exclusive, as on the platform.
  route('get', '/guilds/:guildId/members', 'route', (req, res) => {
    const guild = guildOf(state, req);
    const query: RESTGetAPIGuildMembersQuery = {
      limit: intQuery(req.query.limit, 'limit', 1, 1000, 1),
      after: req.query.after === undefined ? '0' : snowflake(req.query.after, 'after'),
    };
    const page = guild.members.page(BigInt(query.after ?? '0'), query.limit ?? 1);
    res.json(page.map((m) => renderMember(guild, m, state.botUserId)) satisfies RESTGetAPIGuildMembersResult);
  });

  route('get', '/guilds/:guildId/members/:userId', 'route', (req, res) => {
    const guild = guildOf(state, req);
    const id = BigInt(pathSnowflake(req, 'userId', 'user_id'));
    const roles = guild.members.roles(id);
    if (!roles) throw unknownMember();
    res.json(renderMember(guild, { id, roles }, state.botUserId) satisfies RESTGetAPIGuildMemberResult);
  });

  const roleChange = (op: 'add' | 'remove'): RequestHandler => (req, res) => {
    const guild = guildOf(state, req);
    const userId = pathSnowflake(req, 'userId', 'user_id');
    const roleId = pathSnowflake(req, 'roleId', 'role_id');
    if (!guild.members.has(BigInt(userId))) throw unknownMember();
    const role = guild.role(roleId);
    if (!role) throw unknownRole();
    if (!guild.canManage(role)) throw missingPermissions();
    state.changeRole(guild, userId, role, op, decodeReason(req.get('x-audit-log-reason')));
    res.status(204).end();
  };
  route('put', '/guilds/:guildId/members/:userId/roles/:roleId', 'roles', roleChange('add'));
  route('delete', '/guilds/:guildId/members/:userId/roles/:roleId', 'roles', roleChange('remove'));

  router.use(gate(state, { name: 'unknown route', kind: 'route' }), () => {
    throw routeNotFound();
  });
  router.use(countInvalid(state));
  return router;
}
