import type { API } from '@discordjs/core/http-only';
import type { APIGuildMember } from 'discord-api-types/v10';
import { classifyPlatformError, listingRefusal } from './errors';

export const MEMBERS_PAGE = 1000;

export type MemberPage = {
  /** Exclusive lower bound of the user ids this page covers ('0' for the first page). */
  after: string;
  /** Inclusive upper bound: the last member's id, or null on the final (possibly empty) page. */
  last: string | null;
  members: APIGuildMember[];
  done: boolean;
};

/** The guild's members in user-id order, one page of up to 1,000 at a time (GET /guilds/:g/members). */
export async function* memberPages(api: API, guildId: string, after = '0'): AsyncGenerator<MemberPage> {
  let cursor = after;
  for (;;) {
    const members = await api.guilds.getMembers(guildId, { limit: MEMBERS_PAGE, after: cursor });
    const lastMember = members[members.length - 1];
    const done = members.length < MEMBERS_PAGE;
    yield { after: cursor, last: lastMember?.user.id ?? null, members, done };
    if (done || !lastMember) return;
    cursor = lastMember.user.id;
  }
}

export type RoleHolders = {
  /** True only when the whole member listing was read and counted (never an estimate). */
  exact: boolean;
  /** Exact holder count when `exact`, otherwise the platform's quick count (role member counts). */
  count: number;
  /**
   * The listing was refused because the application lacks the Server Members intent (403 50001 while the
   * bot is in the guild): the holders cannot be read until an admin switches it on.
   */
  membersIntentMissing: boolean;
  /** The holders' user ids, read again from the platform, one page of members at a time. */
  pages(): AsyncIterable<string[]>;
};

/**
 * Who holds a role now (spec 1, existing role members). The quick count comes from
 * GET /guilds/:g/roles/member-counts; an exact count needs the full member listing (privileged over
 * HTTP too), read here up to `maxMembers` members. Larger guilds, or a listing the bot may not read,
 * give `exact: false` — and keep-current-members is only offered on an exact count.
 */
export async function readRoleHolders(
  api: API,
  guildId: string,
  roleId: string,
  options: { maxMembers?: number } = {},
): Promise<RoleHolders> {
  const maxMembers = options.maxMembers ?? 250_000;
  const counts = await api.guilds.getRoleMemberCounts(guildId);
  const quick = (counts as Record<string, number>)[roleId] ?? 0;
  let exact = false;
  let counted = 0;
  let membersIntentMissing = false;
  try {
    let seen = 0;
    for await (const page of memberPages(api, guildId)) {
      seen += page.members.length;
      counted += page.members.filter((m) => m.roles.includes(roleId)).length;
      if (page.done) {
        exact = true;
        break;
      }
      if (seen >= maxMembers) break;
    }
  } catch (err) {
    // No access to the member listing (403) or a failed read: the quick count is all we have.
    if (!(err instanceof Error) || !('status' in err) || (err as { status: number }).status !== 403) throw err;
    const failure = classifyPlatformError(err);
    membersIntentMissing =
      failure.kind === 'guild_unavailable' &&
      failure.code === 50001 &&
      (await listingRefusal(api, guildId).catch(() => 'guild_unavailable' as const)) === 'members_intent';
  }
  return {
    exact,
    membersIntentMissing,
    count: exact ? counted : quick,
    async *pages() {
      for await (const page of memberPages(api, guildId)) {
        const ids = page.members.filter((m) => m.roles.includes(roleId)).map((m) => m.user.id);
        if (ids.length) yield ids;
      }
    },
  };
}

export type RoleCounts = {
  /** True only when the whole member listing was read within `maxMembers` (then `counts` are exact). */
  exact: boolean;
  /** Holders per role id (every role but @everyone); the platform's quick counts when not exact. */
  counts: Record<string, number>;
};

/**
 * Holders of every role of a guild at once (the dashboard's role picker): one pass over the member
 * listing when the guild is small enough, else the platform's quick counts. A picker must answer in a
 * page load, so its default bound is lower than readRoleHolders' (link creation still counts exactly).
 */
export async function readRoleCounts(
  api: API,
  guildId: string,
  options: { maxMembers?: number } = {},
): Promise<RoleCounts> {
  const maxMembers = options.maxMembers ?? 10_000;
  const quick = (await api.guilds.getRoleMemberCounts(guildId)) as Record<string, number>;
  const counts: Record<string, number> = Object.fromEntries(Object.keys(quick).map((id) => [id, 0]));
  let seen = 0;
  try {
    for await (const page of memberPages(api, guildId)) {
      for (const m of page.members) for (const r of m.roles) counts[r] = (counts[r] ?? 0) + 1;
      seen += page.members.length;
      if (page.done) return { exact: true, counts };
      if (seen >= maxMembers) break;
    }
  } catch (err) {
    if (!(err instanceof Error) || !('status' in err) || (err as { status: number }).status !== 403) throw err;
  }
  return { exact: false, counts: quick };
}
