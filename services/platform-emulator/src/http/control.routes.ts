import { snowflake } from '@rolelink/contracts';
import { input, validate } from '@rolelink/runtime';
import express, { Router } from 'express';
import { z } from 'zod';
import type { EmulatorState } from '../emulator-state';
import { rulesPatchSchema } from '../guild-rules';
import { configPatchSchema } from '../options';
import { memberId, seedSchema } from '../seed';
import { renderMember, renderRole } from './render';

const guildParams = z.object({ guildId: snowflake });
const memberParams = z.object({ guildId: snowflake, userId: memberId });
const roleParams = z.object({ guildId: snowflake, roleId: snowflake });
/** `actorId`: the moderator the audit log names for this hand edit (default the guild's owner). */
const rolesBody = z.object({ roles: z.array(snowflake), actorId: snowflake.optional() });
const newMemberBody = z.object({ userId: memberId, roles: z.array(snowflake).optional() });
/** How long the guild's member-role changes answer 429 scope shared (0 lifts it). */
const sharedLimitBody = z.object({ retryAfterMs: z.number().int().min(0).max(86_400_000) });
const userParams = z.object({ userId: memberId });
const dmsBody = z.strictObject({ open: z.boolean() });
const ownerBody = z.strictObject({ userId: memberId });
/** The platform allows 250 roles a guild; position 0 is @everyone's. */
const rolePositionBody = z.strictObject({ position: z.number().int().min(1).max(250) });
const auditQuery = z.object({ limit: z.coerce.number().int().min(1).max(10_000).default(100) });

/**
 * The emulator's own control API under /_emulator: no auth, no rate limits, not counted as invalid
 * requests. Errors answer in the service's own shape, `ErrorBody` of @rolelink/wire-types.
 */
export function controlRouter(state: EmulatorState): Router {
  const router = Router();
  // Explicit member lists of big seeds are large; generated members cost nothing in the body.
  router.use(express.json({ limit: '200mb' }));

  router.post('/reset', (_req, res) => {
    state.reset();
    res.status(204).end();
  });

  router.post('/seed', validate({ body: seedSchema }), (_req, res) => {
    const { body } = input<{ body: typeof seedSchema }>(res);
    res.json({ guilds: state.seed(body) });
  });

  router.get('/stats', (_req, res) => {
    res.json(state.stats());
  });

  router.get('/config', (_req, res) => {
    res.json(state.config);
  });

  router.patch('/config', validate({ body: configPatchSchema }), (_req, res) => {
    const { body } = input<{ body: typeof configPatchSchema }>(res);
    res.json(state.configure(body));
  });

  // The platform's rules for the guild (guild-rules.ts): what a test switches to show both sides.
  router.get('/guilds/:guildId/rules', validate({ params: guildParams }), (_req, res) => {
    const { params } = input<{ params: typeof guildParams }>(res);
    res.json(state.rules(params.guildId));
  });

  router.patch('/guilds/:guildId/rules', validate({ params: guildParams, body: rulesPatchSchema }), (_req, res) => {
    const { params, body } = input<{ params: typeof guildParams; body: typeof rulesPatchSchema }>(res);
    res.json(state.setRules(params.guildId, body));
  });

  // An admin drags a role (Server Settings → Roles): how a test or the demo puts the bot's role above others.
  router.patch(
    '/guilds/:guildId/roles/:roleId',
    validate({ params: roleParams, body: rolePositionBody }),
    (_req, res) => {
      const { params, body } = input<{ params: typeof roleParams; body: typeof rolePositionBody }>(res);
      state.moveRole(params.guildId, params.roleId, body.position);
      const guild = state.requireGuild(params.guildId);
      res.json(renderRole(guild.role(params.roleId)!));
    },
  );

  // The account is deleted: out of every guild, 404 10013 Unknown User on user and member routes.
  router.delete('/users/:userId', validate({ params: userParams }), (_req, res) => {
    const { params } = input<{ params: typeof userParams }>(res);
    state.deleteUser(params.userId);
    res.status(204).end();
  });

  // The user's privacy setting "allow direct messages": off, posts to their DMs answer 403 50007.
  router.put('/users/:userId/dms', validate({ params: userParams, body: dmsBody }), (_req, res) => {
    const { params, body } = input<{ params: typeof userParams; body: typeof dmsBody }>(res);
    state.setDmsOpen(params.userId, body.open);
    res.status(204).end();
  });

  // The owner hands the guild to a member: GET /guilds/:g names the new owner from then on.
  router.put('/guilds/:guildId/owner', validate({ params: guildParams, body: ownerBody }), (_req, res) => {
    const { params, body } = input<{ params: typeof guildParams; body: typeof ownerBody }>(res);
    state.transferOwnership(params.guildId, body.userId);
    res.status(204).end();
  });

  router.post('/guilds/:guildId/members', validate({ params: guildParams, body: newMemberBody }), (_req, res) => {
    const { params, body } = input<{ params: typeof guildParams; body: typeof newMemberBody }>(res);
    state.addMember(params.guildId, body.userId, body.roles);
    res.status(201).json(memberView(state, params.guildId, body.userId));
  });

  router.delete('/guilds/:guildId/members/:userId', validate({ params: memberParams }), (_req, res) => {
    const { params } = input<{ params: typeof memberParams }>(res);
    state.removeMember(params.guildId, params.userId);
    res.status(204).end();
  });

  router.put(
    '/guilds/:guildId/members/:userId/roles',
    validate({ params: memberParams, body: rolesBody }),
    (_req, res) => {
      const { params, body } = input<{ params: typeof memberParams; body: typeof rolesBody }>(res);
      state.setMemberRoles(params.guildId, params.userId, body.roles, body.actorId);
      res.json(memberView(state, params.guildId, params.userId));
    },
  );

  router.get('/guilds/:guildId/roles/:roleId/holders', validate({ params: roleParams }), (_req, res) => {
    const { params } = input<{ params: typeof roleParams }>(res);
    res.json({ holders: state.holders(params.guildId, params.roleId) });
  });

  router.get('/guilds/:guildId/audit-log', validate({ params: guildParams, query: auditQuery }), (_req, res) => {
    const { params, query } = input<{ params: typeof guildParams; query: typeof auditQuery }>(res);
    state.requireGuild(params.guildId);
    res.json({ entries: state.audit.list(params.guildId, query.limit) });
  });

  router.put('/guilds/:guildId/shared-limit', validate({ params: guildParams, body: sharedLimitBody }), (_req, res) => {
    const { params, body } = input<{ params: typeof guildParams; body: typeof sharedLimitBody }>(res);
    state.requireGuild(params.guildId);
    state.limits.limitShared('roles', params.guildId, body.retryAfterMs, state.now());
    res.status(204).end();
  });

  return router;
}

function memberView(state: EmulatorState, guildId: string, userId: string) {
  const guild = state.requireGuild(guildId);
  const id = BigInt(userId);
  return renderMember(guild, { id, roles: guild.members.roles(id) ?? [] }, state.botUserId);
}
