import type { API } from '@discordjs/core/http-only';
import { asPlatformAnswer, classifyPlatformError } from './errors';

/**
 * What a strip's preview and lock-out check read about a guild and its members (@rolelink/admin's
 * MemberFacts), over the bot's REST client and so through the shared rate limiter. A member's name is
 * their server nickname, else their global name, else their username. Failures are thrown classified
 * (domain's PlatformAnswerError), so admin tells the platform's answer, not "did not answer".
 */
export function guildMemberFacts(api: API) {
  return {
    async rolePermissions(guildId: string): Promise<Map<string, bigint>> {
      const roles = await api.guilds.getRoles(guildId).catch(asPlatformAnswer);
      return new Map(roles.map((r) => [r.id, BigInt(r.permissions)]));
    },
    async ownerId(guildId: string): Promise<string> {
      return (await api.guilds.get(guildId).catch(asPlatformAnswer)).owner_id;
    },
    async member(guildId: string, userId: string): Promise<{ name: string; roles: string[] } | null> {
      try {
        const m = await api.guilds.getMember(guildId, userId);
        return { name: m.nick ?? m.user.global_name ?? m.user.username, roles: m.roles };
      } catch (err) {
        if (classifyPlatformError(err).kind === 'not_in_guild') return null;
        return asPlatformAnswer(err); // a deleted account (10013) among them: the caller tells it apart
      }
    },
  };
}
