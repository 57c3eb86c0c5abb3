import type { API } from '@discordjs/core/http-only';
import type { BotFacts } from '@rolelink/domain';
import type { NamedRole } from './setup-check';
import { asPlatformAnswer } from './errors';

/**
 * What the bot's power over a guild's roles depends on, read from the platform now (two or three calls:
 * the bot's user, once per client; the guild's roles; the bot's member): the shape of @rolelink/domain's
 * `BotFacts`, for `roleAccessProblem` and `privilegedPermissions`. Nothing is cached: link creation
 * decides on it, and a role moved a second ago must count.
 */
export function botGuildFacts(api: API) {
  let botUserId: Promise<string> | null = null;
  return async (guildId: string): Promise<Omit<BotFacts, 'roles'> & { roles: NamedRole[] }> => {
    botUserId ??= api.users.getCurrent().then(
      (u) => u.id,
      (err: unknown) => {
        botUserId = null;
        throw err;
      },
    );
    // Thrown classified (domain's PlatformAnswerError): link creation tells 10004 from a 500 from no answer.
    const [roles, member] = await Promise.all([
      api.guilds.getRoles(guildId),
      botUserId.then((id) => api.guilds.getMember(guildId, id)),
    ]).catch(asPlatformAnswer);
    return {
      guildId,
      roles: roles.map((r) => ({
        id: r.id,
        name: r.name,
        position: r.position,
        permissions: BigInt(r.permissions),
        managed: r.managed,
      })),
      botRoleIds: member.roles,
    };
  };
}
