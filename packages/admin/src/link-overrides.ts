import { OVERRIDE_LIST_MAX, overridesChangeBody, type OverridesView } from '@rolelink/contracts';
import { inTransaction, type Queryable } from '@rolelink/db/client';
import { findLinkAt } from '@rolelink/db/links';
import { applyOverrideChange, listOverrides } from '@rolelink/db/overrides';
import { AppError, zodIssues } from '@rolelink/runtime';
import { audit } from './audit';
import type { AdminDeps } from './deps';
import { parseSnowflake } from './ids';

/**
 * Admin overrides per link (docs/sync-engine.md, "Admin overrides"): "always keep"
 * members hold the role whatever the plugin's list says, "never give" members do not get it even when
 * listed. The plugin's list and its API answers are untouched; the sync engine applies the overrides
 * above it. Shared by the dashboard and `rolelink link overrides`.
 */
export async function getOverrides(
  deps: AdminDeps,
  input: { guildId: string; roleId: string },
): Promise<OverridesView> {
  const link = await findLink(deps, input);
  return view(deps.db.pool, link.id);
}

/**
 * Adds and removes override entries (body: `overridesChangeBody`), records what changed in the admin
 * audit log in the same transaction, and asks for a sync of the link. A user who would end up in both
 * lists, or a list over OVERRIDE_LIST_MAX, is a 400 and nothing changes.
 */
export async function changeOverrides(
  deps: AdminDeps,
  input: { guildId: string; roleId: string; change: unknown },
): Promise<OverridesView> {
  const parsed = overridesChangeBody.safeParse(input.change ?? {});
  if (!parsed.success)
    throw AppError.validation(zodIssues(parsed.error).map((i) => ({ ...i, field: i.field || 'overrides' })));
  const link = await findLink(deps, input);
  const { always, never, remove, replace } = parsed.data;
  const result = await inTransaction(deps.db.pool, async (c) => {
    const r = await applyOverrideChange(c, link.id, { always, never, remove, replace });
    if (r.kind === 'conflict') {
      const field = never.some((id) => r.userIds.includes(id)) ? 'never' : 'always';
      throw AppError.fields(400, 'A member cannot be in both "always keep" and "never give"', 'override_conflict', [
        {
          field,
          message: `in both lists: ${r.userIds.slice(0, 10).join(', ')}${r.userIds.length > 10 ? ` and ${r.userIds.length - 10} more` : ''}; remove them from the other list first`,
        },
      ]);
    }
    if (r.kind === 'too_many')
      throw AppError.fields(400, `At most ${OVERRIDE_LIST_MAX} members per override list`, 'override_limit', [
        { field: r.list, message: `would hold ${r.count} members; the limit is ${OVERRIDE_LIST_MAX}` },
      ]);
    const changed = r.added.always.length + r.added.never.length + r.removed.always.length + r.removed.never.length;
    if (changed)
      await audit(deps, c, {
        guildId: link.guildId,
        roleId: link.roleId,
        action: 'overrides_changed',
        detail: {
          added: r.added,
          removed: r.removed,
          after: { always: r.after.always.length, never: r.after.never.length },
        },
      });
    return { changed };
  });
  // The override change is journaled with the write; this only wakes the worker (the outbox covers a lost wake-up).
  if (result.changed) await deps.requestSync(link.id);
  return view(deps.db.pool, link.id);
}

async function findLink(
  deps: AdminDeps,
  input: { guildId: string; roleId: string },
): Promise<{ id: string; guildId: string; roleId: string }> {
  const guildId = parseSnowflake(input.guildId, 'guildId');
  const roleId = parseSnowflake(input.roleId, 'roleId');
  const link = await findLinkAt(deps.db.pool, guildId, roleId);
  if (!link) throw AppError.notFound('Role link not found', 'link_not_found');
  return { id: link.id, guildId, roleId };
}

async function view(db: Queryable, linkId: string): Promise<OverridesView> {
  const out: OverridesView = { always: [], never: [], max_per_list: OVERRIDE_LIST_MAX };
  for (const e of await listOverrides(db, linkId))
    out[e.kind].push({ user_id: e.userId, added_at: e.addedAt.toISOString() });
  return out;
}
