import { MAX_USER_ID } from '@rolelink/db/client';
import { readJournal, type JournalEntry } from '@rolelink/db/list';
import {
  countCalls,
  diffRange,
  diffUsers,
  dueRetries,
  recordJournalApplied,
  writeJournalProgress,
  type UserDiff,
} from '@rolelink/db/sync';
import { applyRange } from './apply-range';
import type { RangeContext } from './range-context';
import type { SliceResult } from './slice-result';
import { hasOverrides, syncedCutoff } from './link-context';

/** What consuming the journal came to: nothing left, a walk is needed, or the slice must stop. */
export type JournalOutcome =
  { kind: 'drained'; seq: bigint } | { kind: 'walk' } | { kind: 'stop'; result: SliceResult };

export type JournalContext = Omit<RangeContext, 'cutoff'> & {
  /** The boundary last applied (null = the whole list was synced). */
  appliedCutoff: bigint | null;
  /** Inside a walk: only list changes after the walk's sequence, no retries (the walk has those). */
  walking: boolean;
};

/** Sequences must follow each other: a missing one is a write that bypassed the journal. */
function contiguous(after: bigint, entries: readonly JournalEntry[]): boolean {
  let expected = after + 1n;
  for (const e of entries) {
    if (e.seq === expected) expected++;
    else if (e.seq !== expected - 1n) return false;
  }
  return true;
}

/** Ids whose desired state may differ when the boundary moves from `from` to `to`: the range between them. */
function boundaryRange(from: bigint | null, to: bigint | null): [bigint, bigint] | null {
  const a = from ?? MAX_USER_ID;
  const b = to ?? MAX_USER_ID;
  if (a === b) return null;
  return a < b ? [a, b] : [b, a];
}

function merged(a: UserDiff[], b: UserDiff[]): UserDiff[] {
  const byId = new Map<string, UserDiff>();
  for (const r of [...a, ...b]) byId.set(r.userId, r);
  return [...byId.values()].sort((x, y) => (BigInt(x.userId) < BigInt(y.userId) ? -1 : 1));
}

/**
 * Applies the journal after `afterSeq` in batches of whole sequences (design: sync engine rule 7). A
 * batch touches only its users, the users whose back-off ended, and — when the lowest-N boundary moved —
 * the ids between the old and the new boundary (an add below it demotes the highest synced id, a
 * removal below it promotes the lowest held one). The batch is marked applied (and compacted) only after
 * every call of it was answered; a crash or a yield repeats the batch, and since it is diffed against
 * the applied record again, users already done are no longer differences: exactly once in effect.
 */
export async function consumeJournal(
  ctx: JournalContext,
  afterSeq: bigint,
  wantedSeq: bigint,
): Promise<JournalOutcome> {
  const { client, link } = ctx;
  let floor = afterSeq;
  let appliedCutoff = ctx.appliedCutoff;
  for (;;) {
    const { entries, more } = await readJournal(client, link.id, floor);
    if (!contiguous(floor, entries) || entries.some((e) => e.op === 'walk')) return { kind: 'walk' };
    if (!entries.length && wantedSeq > floor) return { kind: 'walk' };
    const retries = ctx.walking ? [] : await dueRetries(client, link.id);
    if (!entries.length && !retries.length) return { kind: 'drained', seq: floor };

    const cutoff = await syncedCutoff(client, link);
    if (ctx.walking && cutoff !== appliedCutoff) return { kind: 'drained', seq: floor }; // the boundary is the walk's to settle
    const users = [...new Set([...entries.filter((e) => e.userId !== '0').map((e) => e.userId), ...retries])];
    const range = boundaryRange(appliedCutoff, cutoff);
    const ov = hasOverrides(link);
    const rows = merged(
      await diffUsers(client, link.id, users, cutoff, ov),
      range ? await diffRange(client, link.id, range[0], range[1], cutoff, ov) : [],
    );

    const out = await applyRange({ ...ctx, cutoff }, rows);
    await countCalls(client, link.id, out.changes, out.adds);
    if (out.stop) {
      // The calls made so far are on the platform: the counts move by them now (the outbox stays at the
      // last whole batch, and the next slice reads these entries again and finds nothing left to do).
      // What this batch has still to do counts as pending, removals included.
      if (!ctx.walking)
        await writeJournalProgress(
          client,
          link.id,
          {
            seq: floor,
            adds: out.adds,
            removes: out.removes,
            limit: link.syncedLimit,
            left: Math.max(0, rows.length - out.adds - out.removes),
          },
          ov,
        );
      return { kind: 'stop', result: out.stop };
    }
    const seq = entries.length ? entries[entries.length - 1]!.seq : floor;
    await recordJournalApplied(client, link.id, { seq, cutoff, limit: link.syncedLimit });
    if (!ctx.walking)
      await writeJournalProgress(
        client,
        link.id,
        { seq, adds: out.adds, removes: out.removes, limit: link.syncedLimit, left: 0 },
        ov,
      );
    floor = seq;
    appliedCutoff = cutoff;
    if (!more && !entries.length) return { kind: 'drained', seq: floor };
    if (ctx.exhausted()) return { kind: 'stop', result: { kind: 'continue' } };
  }
}
