import { journalRepairs } from '../list/list-changes.repo';
import type { Queryable } from '../client/queryable';
import { fromStored, toStored } from '../client/user-id';

// Admin overrides per link (table link_override, docs/sync-engine.md "Admin overrides"):
// "always" members hold the role whatever the plugin's list says, "never" members do not get it even when
// listed. Small by rule (OVERRIDE_LIST_MAX per list), so whole lists are read and diffed in memory.

export type OverrideKind = 'always' | 'never';
export type OverrideEntry = { userId: string; kind: OverrideKind; addedAt: Date };
export type OverrideIds = { always: string[]; never: string[] };

/** Entries per list and link: an admin's hand-kept list, not a second plugin list. */
export const OVERRIDE_LIST_MAX = 1_000;

/** Both lists of a link, each in user-id order. */
export async function listOverrides(db: Queryable, linkId: string): Promise<OverrideEntry[]> {
  const { rows } = await db.query<{ user_id: string; kind: OverrideKind; added_at: Date }>(
    `SELECT ${fromStored('user_id')} AS user_id, kind, added_at FROM link_override WHERE link_id = $1 ORDER BY link_override.user_id`,
    [linkId],
  );
  return rows.map((r) => ({ userId: r.user_id, kind: r.kind, addedAt: r.added_at }));
}

/** The ids of both lists (the sync worker reads them once per slice). */
export async function overrideIds(db: Queryable, linkId: string): Promise<OverrideIds> {
  const out: OverrideIds = { always: [], never: [] };
  for (const e of await listOverrides(db, linkId)) out[e.kind].push(e.userId);
  return out;
}

/** One user's override on a link, or null (the member look-up). */
export async function overrideOf(db: Queryable, linkId: string, userId: string): Promise<OverrideKind | null> {
  const { rows } = await db.query<{ kind: OverrideKind }>(
    `SELECT kind FROM link_override WHERE link_id = $1 AND user_id = ${toStored('$2')}`,
    [linkId, userId],
  );
  return rows[0]?.kind ?? null;
}

/** `replace`: the lists become exactly `always` and `never` (every other entry is removed). */
export type OverrideChange = {
  always: readonly string[];
  never: readonly string[];
  remove: readonly string[];
  replace?: boolean;
};

export type OverrideChangeResult =
  | { kind: 'ok'; added: OverrideIds; removed: OverrideIds; after: OverrideIds }
  /** These users would end up in both lists (already in one, asked for the other): nothing was written. */
  | { kind: 'conflict'; userIds: string[] }
  /** The list would hold more than OVERRIDE_LIST_MAX entries: nothing was written. */
  | { kind: 'too_many'; list: OverrideKind; count: number };

/**
 * Applies one admin change to a link's overrides, in the caller's transaction: removals first, then the
 * additions (an id already in the list it is added to is left as it is). The link row is locked so two
 * admins' changes apply one after the other. Every user whose override changed is journaled (`repair`,
 * one new sequence), so the sync worker re-diffs exactly them and the synced boundary, as for a list
 * change. Ids are canonical decimal user ids (validated by the caller).
 */
export async function applyOverrideChange(
  db: Queryable,
  linkId: string,
  change: OverrideChange,
): Promise<OverrideChangeResult> {
  await db.query('SELECT 1 FROM role_link WHERE id = $1 FOR UPDATE', [linkId]);
  const before = await overrideIds(db, linkId);
  const removing = new Set(change.replace ? [...before.always, ...before.never] : change.remove);
  const after: Record<OverrideKind, Set<string>> = {
    always: new Set(before.always.filter((id) => !removing.has(id))),
    never: new Set(before.never.filter((id) => !removing.has(id))),
  };
  for (const id of change.always) after.always.add(id);
  for (const id of change.never) after.never.add(id);
  const both = [...after.always].filter((id) => after.never.has(id));
  if (both.length) return { kind: 'conflict', userIds: both.sort(byId) };
  for (const list of ['always', 'never'] as const)
    if (after[list].size > OVERRIDE_LIST_MAX) return { kind: 'too_many', list, count: after[list].size };

  const diff = (a: Iterable<string>, b: readonly string[] | Set<string>) => {
    const s = b instanceof Set ? b : new Set(b);
    return [...a].filter((id) => !s.has(id)).sort(byId);
  };
  const added: OverrideIds = { always: diff(after.always, before.always), never: diff(after.never, before.never) };
  const removed: OverrideIds = { always: diff(before.always, after.always), never: diff(before.never, after.never) };
  const gone = [...removed.always, ...removed.never];
  if (gone.length)
    await db.query(
      `DELETE FROM link_override WHERE link_id = $1 AND user_id IN (SELECT ${toStored('i')} FROM unnest($2::numeric[]) i)`,
      [linkId, gone],
    );
  for (const kind of ['always', 'never'] as const) {
    if (added[kind].length)
      await db.query(
        `INSERT INTO link_override (link_id, user_id, kind) SELECT $1, ${toStored('i')}, $3 FROM unnest($2::numeric[]) i`,
        [linkId, added[kind], kind],
      );
  }
  const changed = [...new Set([...gone, ...added.always, ...added.never])];
  await journalRepairs(db, linkId, changed);
  return {
    kind: 'ok',
    added,
    removed,
    after: { always: [...after.always].sort(byId), never: [...after.never].sort(byId) },
  };
}

function byId(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
