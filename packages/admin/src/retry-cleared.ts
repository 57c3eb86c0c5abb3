import type { SetupCheck } from '@rolelink/contracts';
import { enabledLinksOfGuild } from '@rolelink/db/links';
import { blockedLinksOfGuild, endLinkBackoff, findGuildOutage, releaseGuildProbe } from '@rolelink/db/sync';
import { causeCleared, type CauseEvidence, type RoleAccessProblem } from '@rolelink/domain';
import type { AdminDeps } from './deps';

/**
 * "Cause cleared → retry now": a check saw a blocking cause gone (`rolelink doctor`, the dashboard's
 * Check setup or its read of the guild's roles), so the guild's links it blocked are asked to sync at
 * once, their back-off ended (a guild outage: its probe made due), instead of waiting out the back-off.
 * The worker still decides: it re-checks and ends the block itself. Returns the links asked.
 */
export async function retryClearedCauses(
  deps: Pick<AdminDeps, 'db' | 'requestSync' | 'wakeSync'>,
  guildId: string,
  evidence: CauseEvidence,
): Promise<string[]> {
  const pool = deps.db.pool;
  const retried = new Set<string>();
  if (evidence.botInGuild === true && (await findGuildOutage(pool, guildId))) {
    await releaseGuildProbe(pool, guildId);
    for (const id of await enabledLinksOfGuild(pool, guildId)) retried.add(id);
  }
  for (const b of await blockedLinksOfGuild(pool, guildId)) {
    if (retried.has(b.linkId) || !causeCleared(b, evidence)) continue;
    await endLinkBackoff(pool, b.linkId);
    retried.add(b.linkId);
  }
  for (const id of retried) await (deps.wakeSync ?? deps.requestSync)(id);
  return [...retried];
}

/** What a setup report (doctor, Check setup) saw, as evidence: only the checks that ran say anything. */
export function evidenceFromChecks(checks: readonly SetupCheck[]): CauseEvidence {
  const by = new Map(checks.map((c) => [c.id, c]));
  const roles = by.get('linked_roles');
  const ran = (c: SetupCheck | undefined) => c !== undefined && c.status !== 'skip';
  const problems = new Map((roles?.roles ?? []).map((r) => [r.role_id, r.problem as RoleAccessProblem]));
  return {
    explicit: true,
    ...(ran(by.get('bot_in_guild')) ? { botInGuild: by.get('bot_in_guild')!.status === 'pass' } : {}),
    ...(ran(roles) ? { roleProblem: (roleId: string) => problems.get(roleId) ?? null } : {}),
    ...(ran(by.get('two_factor')) ? { twoFactorOk: by.get('two_factor')!.status === 'pass' } : {}),
  };
}
