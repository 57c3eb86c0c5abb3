import { text } from 'node:stream/consumers';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { recordOutcome } from '../sync/applied-outcomes.repo';
import { latestHeldChange } from './held-changes.repo';
import { readJournal } from './list-changes.repo';
import { replaceList } from './list-replace.repo';
import { streamUserIdsJson } from './list-stream';
import { addChunk, createUpload } from './uploads.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

async function listed(linkId: string): Promise<string[]> {
  const { stream, done } = await streamUserIdsJson(db.pool, linkId);
  const body = await text(stream);
  await done;
  return JSON.parse(`[${body}]`) as string[];
}

async function linkRow(linkId: string): Promise<{ user_count: number; seq: string; version: string }> {
  const { rows } = await db.pool.query<{ user_count: number; seq: string; version: string }>(
    'SELECT user_count, sync_wanted_seq::text AS seq, list_version::text AS version FROM role_link WHERE id = $1',
    [linkId],
  );
  return rows[0]!;
}

const ids = (n: number, from: bigint) => ({ kind: 'ids' as const, ids: userIds(n, from) });

describe('list-replace repository (PUT and upload commit)', () => {
  it('writes a first list whole (deduplicated, journaled as one walk), then a small change per user', async () => {
    const { linkId } = await seedLink(db);
    const first = userIds(4, 1110000000000000000n);
    const before = await linkRow(linkId);
    const r = await replaceList(db.pool, {
      linkId,
      source: { kind: 'ids', ids: [...first, first[0]!] },
      storedLimit: 100,
    });
    const after = await linkRow(linkId);
    expect(r).toEqual({ kind: 'replaced', userCount: 4, listVersion: after.version });
    expect(await listed(linkId)).toEqual(first);
    expect((await readJournal(db.pool, linkId, BigInt(before.seq))).entries.map((e) => e.op)).toEqual(['walk']);

    const [extra] = userIds(1, 1120000000000000000n);
    const next = [...first.slice(1), extra!];
    expect(await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: next }, storedLimit: 100 })).toMatchObject({
      kind: 'replaced',
      userCount: 4,
    });
    expect(await listed(linkId)).toEqual(next);
    const journal = await readJournal(db.pool, linkId, BigInt(after.seq));
    expect(journal.entries.map((e) => [e.userId, e.op]).sort()).toEqual([
      [first[0], 'remove'],
      [extra, 'add'],
    ]);
  });

  it("journals a trusted link's diff per user up to the journal's size and as one walk beyond it (the DELETE counts the removals as it writes them)", async () => {
    const { linkId } = await seedLink(db, { trusted: true, plan: 'premium' });
    const base = 1130000000000000000n;
    const all = userIds(22_002, base); // the list is a window of 12,000 IDs sliding over these
    const window = (from: number) => ({ kind: 'ids' as const, ids: all.slice(from, from + 12_000) });
    await replaceList(db.pool, { linkId, source: window(0), storedLimit: 100_000 });

    // 5,000 out and 5,000 in: 10,000 changes, exactly the journal's size, so journaled per user.
    let before = await linkRow(linkId);
    expect(await replaceList(db.pool, { linkId, source: window(5_000), storedLimit: 100_000 })).toMatchObject({
      kind: 'replaced',
      userCount: 12_000,
    });
    let ops = (await readJournal(db.pool, linkId, BigInt(before.seq), 20_000)).entries.map((e) => e.op);
    expect(ops.filter((o) => o === 'remove')).toHaveLength(5_000);
    expect(ops.filter((o) => o === 'add')).toHaveLength(5_000);
    expect(ops).toHaveLength(10_000);

    // 5,001 out and 5,001 in: one change too many, so one walk; the list is still written exactly.
    before = await linkRow(linkId);
    expect(await replaceList(db.pool, { linkId, source: window(10_001), storedLimit: 100_000 })).toMatchObject({
      kind: 'replaced',
      userCount: 12_000,
    });
    ops = (await readJournal(db.pool, linkId, BigInt(before.seq), 20_000)).entries.map((e) => e.op);
    expect(ops).toEqual(['walk']);
    expect(await listed(linkId)).toEqual(all.slice(10_001, 22_001));
    expect((await linkRow(linkId)).user_count).toBe(12_000);

    // The same list again: no change, one 'link' entry.
    before = await linkRow(linkId);
    await replaceList(db.pool, { linkId, source: window(10_001), storedLimit: 100_000 });
    expect((await readJournal(db.pool, linkId, BigInt(before.seq))).entries.map((e) => e.op)).toEqual(['link']);
  });

  it("deletes a trusted link's large diff without returning its rows when a sample of the new list says it is large, and journals exactly when the sample was wrong", async () => {
    const { linkId } = await seedLink(db, { trusted: true, plan: 'premium' });
    const base = 1138000000000000000n;
    // 12,800 ids two apart; the sample (256 of them) takes the middle of each run of 50: positions 25, 75, …
    const even = Array.from({ length: 12_800 }, (_, j) => (base + 2n * BigInt(j)).toString());
    await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: even }, storedLimit: 100_000 });

    // Exactly the sampled positions replaced by the odd id beside them (same rank): the sample finds none
    // of them in the list and estimates 12,800 removals, but there are 256 (and 256 adds), within the
    // journal's 10,000. The delete is tried without journaling, rolled back, and journaled after all.
    const sampled = new Set(Array.from({ length: 256 }, (_, i) => i * 50 + 25));
    const shifted = even.map((id, j) => (sampled.has(j) ? (BigInt(id) + 1n).toString() : id));
    let before = await linkRow(linkId);
    expect(
      await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: shifted }, storedLimit: 100_000 }),
    ).toMatchObject({ kind: 'replaced', userCount: 12_800 });
    const journal = (await readJournal(db.pool, linkId, BigInt(before.seq), 20_000)).entries.map((e) => [
      e.userId,
      e.op,
    ]);
    expect(journal.sort()).toEqual(
      [...[...sampled].map((j) => [even[j], 'remove']), ...[...sampled].map((j) => [shifted[j], 'add'])].sort(),
    );
    expect(await listed(linkId)).toEqual(shifted);

    // A list that shares nothing: the sample is right, the delete returns nothing, one walk.
    const fresh = userIds(12_800, 1139000000000000000n);
    before = await linkRow(linkId);
    expect(
      await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: fresh }, storedLimit: 100_000 }),
    ).toMatchObject({ kind: 'replaced', userCount: 12_800 });
    expect((await readJournal(db.pool, linkId, BigInt(before.seq), 20_000)).entries.map((e) => e.op)).toEqual(['walk']);
    expect(await listed(linkId)).toEqual(fresh);
    expect((await linkRow(linkId)).user_count).toBe(12_800);
  });

  it('counts an id a body repeats once, whether the new count is taken before the write or after it (trusted link), across 2^63', async () => {
    const { linkId } = await seedLink(db, { trusted: true, plan: 'premium' });
    const first = userIds(3, 1135000000000000000n);
    await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: first }, storedLimit: 100 });
    const before = await linkRow(linkId);
    const [b] = userIds(1, 1136000000000000000n);
    const wide = '18446744073709551000';
    // 6 ids, 3 distinct, against a limit of 3: counted before the write (the body is longer than the limit).
    const body = [b!, wide, first[0]!, b!, wide, first[0]!];
    expect(await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: body }, storedLimit: 3 })).toMatchObject({
      kind: 'replaced',
      userCount: 3,
    });
    expect(await listed(linkId)).toEqual([first[0], b, wide]);
    const journal = await readJournal(db.pool, linkId, BigInt(before.seq));
    expect(journal.entries.map((e) => [e.userId, e.op]).sort()).toEqual([
      [first[1], 'remove'],
      [first[2], 'remove'],
      [b, 'add'],
      [wide, 'add'],
    ]);
    // The same body within the limit: counted after the write (old count - deleted + inserted).
    const [c] = userIds(1, 1137000000000000000n);
    expect(
      await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: [...body, c!, c!] }, storedLimit: 100 }),
    ).toMatchObject({ kind: 'replaced', userCount: 4 });
    expect(await listed(linkId)).toEqual([first[0], b, c, wide]);
    expect((await linkRow(linkId)).user_count).toBe(4);
  });

  it('refuses a version the caller does not accept, a list over the limit and an unknown link, writing nothing', async () => {
    const { linkId } = await seedLink(db);
    await replaceList(db.pool, { linkId, source: ids(2, 1130000000000000000n), storedLimit: 100 });
    const before = await linkRow(linkId);
    expect(
      await replaceList(db.pool, { linkId, source: ids(3, 1140000000000000000n), storedLimit: 100, ifMatch: ['0'] }),
    ).toEqual({ kind: 'version-mismatch', listVersion: before.version });
    expect(await replaceList(db.pool, { linkId, source: ids(3, 1140000000000000000n), storedLimit: 2 })).toEqual({
      kind: 'over-limit',
      next: 3,
    });
    expect(await linkRow(linkId)).toEqual(before);
    expect(await listed(linkId)).toEqual(userIds(2, 1130000000000000000n));
    expect(await replaceList(db.pool, { linkId: '999999999', source: ids(1, 1n), storedLimit: 100 })).toEqual({
      kind: 'link-not-found',
    });
  });

  it('holds a large removal of an untrusted link, then lets the confirmed resend through once', async () => {
    const { linkId } = await seedLink(db);
    const full = userIds(20, 1150000000000000000n);
    await replaceList(db.pool, { linkId, source: { kind: 'ids', ids: full }, storedLimit: 100 });
    const before = await linkRow(linkId);
    const held = await replaceList(db.pool, {
      linkId,
      source: { kind: 'ids', ids: full.slice(0, 5) },
      storedLimit: 100,
    });
    expect(held).toMatchObject({
      kind: 'held',
      change: { previous: 20, next: 5, removals: 15, removalSample: full.slice(5, 10) },
    });
    expect(await linkRow(linkId)).toEqual(before);
    if (held.kind !== 'held') throw new Error('unreachable');
    const bad = await replaceList(db.pool, {
      linkId,
      source: { kind: 'ids', ids: full.slice(0, 5) },
      storedLimit: 100,
      confirm: '00000000-0000-4000-8000-000000000000',
    });
    expect(bad).toMatchObject({ kind: 'held', note: 'the confirmation does not name the latest held change' });
    const latest = (await latestHeldChange(db.pool, linkId))!.changeId;
    expect(
      await replaceList(db.pool, {
        linkId,
        source: { kind: 'ids', ids: full.slice(0, 5) },
        storedLimit: 100,
        confirm: latest,
      }),
    ).toMatchObject({ kind: 'replaced', userCount: 5 });
    expect(await listed(linkId)).toEqual(full.slice(0, 5));
    expect((await latestHeldChange(db.pool, linkId))!.usedAt).toBeInstanceOf(Date);
  });

  it("measures a hand-over link's first list against the role's holders", async () => {
    const { linkId } = await seedLink(db, { memberMode: 'handover', firstList: false });
    const holders = userIds(12, 1160000000000000000n);
    for (const u of holders) await recordOutcome.added(db.pool, linkId, u);
    const r = await replaceList(db.pool, {
      linkId,
      source: { kind: 'ids', ids: holders.slice(0, 1) },
      storedLimit: 100,
    });
    expect(r).toMatchObject({ kind: 'held', change: { previous: 12, next: 1, removals: 11 } });
    expect(await listed(linkId)).toEqual([]);
  });

  it('commits an upload once, closing its session; an unknown or spent upload is not found', async () => {
    const { linkId } = await seedLink(db);
    const upload = await createUpload(db.pool, linkId);
    const staged = userIds(3, 1170000000000000000n);
    await addChunk(db.pool, linkId, upload, staged);
    await addChunk(db.pool, linkId, upload, staged.slice(0, 1));
    expect(
      await replaceList(db.pool, { linkId, source: { kind: 'upload', uploadId: upload }, storedLimit: 100 }),
    ).toMatchObject({ kind: 'replaced', userCount: 3 });
    expect(await listed(linkId)).toEqual(staged);
    expect(
      await replaceList(db.pool, { linkId, source: { kind: 'upload', uploadId: upload }, storedLimit: 100 }),
    ).toEqual({ kind: 'upload-not-found' });
  });

  it("joins the caller's transaction as a savepoint: rolled back with it, and refused outside one", async () => {
    const { linkId } = await seedLink(db);
    const before = await linkRow(linkId);
    const c = await db.pool.connect();
    try {
      await expect(replaceList(c, { linkId, source: ids(2, 1180000000000000000n), storedLimit: 100 })).rejects.toThrow(
        'SAVEPOINT can only be used in transaction blocks',
      );
      await c.query('BEGIN');
      expect(await replaceList(c, { linkId, source: ids(2, 1180000000000000000n), storedLimit: 100 })).toMatchObject({
        kind: 'replaced',
        userCount: 2,
      });
      // An over-limit refusal rolls back only its own savepoint; the caller's transaction goes on.
      expect(await replaceList(c, { linkId, source: ids(3, 1190000000000000000n), storedLimit: 2 })).toEqual({
        kind: 'over-limit',
        next: 3,
      });
      expect((await c.query('SELECT user_count FROM role_link WHERE id = $1', [linkId])).rows).toEqual([
        { user_count: 2 },
      ]);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
    expect(await linkRow(linkId)).toEqual(before);
    expect(await listed(linkId)).toEqual([]);
  });
});
