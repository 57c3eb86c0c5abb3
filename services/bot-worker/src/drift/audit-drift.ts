import { AuditLogEvent, type APIAuditLogEntry } from 'discord-api-types/v10';

/** Per link, the users whose linked role someone other than the bot last added or removed. */
export type LinkDrift = { added: string[]; removed: string[] };

/**
 * What a page of a guild's audit log says about its linked roles. For each (role, member) the newest
 * MEMBER_ROLE_UPDATE naming the role decides: by the bot itself → nothing to do (its own record already
 * says so, and a hand edit older than the bot's call is superseded by it); by anyone else → the member
 * was given (`added`) or lost (`removed`) the role by hand. The platform may put several roles of one
 * edit in one entry, so every role of `$add` and `$remove` counts. Entries may come in any order.
 */
export function driftFromEntries(
  entries: readonly APIAuditLogEntry[],
  botUserId: string,
  linkOfRole: ReadonlyMap<string, string>,
): Map<string, LinkDrift> {
  const newest = new Map<
    string,
    { id: bigint; linkId: string; userId: string; op: '$add' | '$remove'; byBot: boolean }
  >();
  for (const e of entries) {
    if (e.action_type !== AuditLogEvent.MemberRoleUpdate || !e.target_id) continue;
    const id = BigInt(e.id);
    for (const change of e.changes ?? []) {
      if (change.key !== '$add' && change.key !== '$remove') continue;
      for (const role of change.new_value ?? []) {
        const linkId = linkOfRole.get(role.id);
        if (linkId === undefined) continue;
        const key = `${linkId}:${e.target_id}`;
        const seen = newest.get(key);
        if (!seen || seen.id < id)
          newest.set(key, { id, linkId, userId: e.target_id, op: change.key, byBot: e.user_id === botUserId });
      }
    }
  }
  const drift = new Map<string, LinkDrift>();
  for (const n of newest.values()) {
    if (n.byBot) continue;
    let d = drift.get(n.linkId);
    if (!d) drift.set(n.linkId, (d = { added: [], removed: [] }));
    (n.op === '$add' ? d.added : d.removed).push(n.userId);
  }
  return drift;
}

/** The highest entry id of a page (the poll's next `after`), or null for an empty page. */
export function newestEntryId(entries: readonly APIAuditLogEntry[]): string | null {
  let max: bigint | null = null;
  for (const e of entries) if (max === null || BigInt(e.id) > max) max = BigInt(e.id);
  return max === null ? null : max.toString();
}
