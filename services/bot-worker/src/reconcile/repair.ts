import type { Pool } from 'pg';
import { inTransaction, MAX_USER_ID } from '@rolelink/db/client';
import { journalRepairs } from '@rolelink/db/list';
import { markEligibleAgain, markHandAdded, markHandRemoved } from '@rolelink/db/sync';
import { recordRoleRestoredEvents } from '@rolelink/db/events';
import type { APIGuildMember } from 'discord-api-types/v10';

export type RepairResult = { handAdded: number; handRemoved: number; eligibleAgain: number };

/**
 * Makes the applied record match one page of the platform's member listing for one link (design:
 * sync engine rule 6). The page covers user ids (after, last]; `seenAt` is PostgreSQL's time just before
 * the page was read: a record the sync worker wrote after it is newer than the page and is left alone,
 * so the reconcile never undoes a change it could not have seen.
 * - holds the role, record says otherwise → `applied` (a hand edit added it; the sync removes it if unwanted);
 * - record says applied, member lacks the role or left → `removed` (the sync adds it back if wanted);
 * - `not_in_guild` users who are members now → due at once.
 */
export async function repairPage(
  db: Pool,
  link: { id: string; roleId: string },
  page: { after: string; last: string | null; done: boolean; members: APIGuildMember[] },
  seenAt: Date,
): Promise<RepairResult> {
  const holders = page.members.filter((m) => m.roles.includes(link.roleId)).map((m) => m.user.id);
  const members = page.members.map((m) => m.user.id);
  const upper = page.done ? MAX_USER_ID.toString() : (page.last ?? page.after);

  return inTransaction(db, async (c) => {
    const added = await markHandAdded(c, link.id, holders, seenAt);
    const removed = await markHandRemoved(c, link.id, { after: page.after, upper, holders }, seenAt);
    const eligible = await markEligibleAgain(c, link.id, members);
    // The repaired users go into the journal in the same transaction: the sync applies exactly them.
    await journalRepairs(c, link.id, [...added, ...removed, ...eligible]);
    // Listed members who lost the role by hand get it back from the sync: their plugin may want to know.
    await recordRoleRestoredEvents(c, link.id, removed, 'reconcile');
    return { handAdded: added.length, handRemoved: removed.length, eligibleAgain: eligible.length };
  });
}
