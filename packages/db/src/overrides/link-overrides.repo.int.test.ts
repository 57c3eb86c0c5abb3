import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { applyOverrideChange, listOverrides, OVERRIDE_LIST_MAX, overrideIds, overrideOf } from './link-overrides.repo';
import { readJournal } from '../list/list-changes.repo';
import { diffUsers } from '../sync/applied-members.repo';
import { countDiff, desiredInRange, diffRange, listedUserAt } from '../sync/sync-diff.repo';
import { MAX_USER_ID, toStored } from '../client/user-id';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

const seq = async (linkId: string) =>
  BigInt(
    (await db.pool.query<{ s: string }>('SELECT sync_wanted_seq::text AS s FROM role_link WHERE id = $1', [linkId]))
      .rows[0]!.s,
  );

describe('link-overrides repository (admin "always keep" and "never give" lists)', () => {
  it('adds, removes and reads both lists; each change is journaled per changed user under one new sequence', async () => {
    const { linkId } = await seedLink(db);
    // Ids on both sides of 2^63, stored as id - 2^63.
    const [a, b, c] = ['18446744073709551615', '9223372036854775808', '100000000000000001'];
    const before = await seq(linkId);
    const r = await applyOverrideChange(db.pool, linkId, { always: [a, b], never: [c], remove: [] });
    expect(r).toEqual({
      kind: 'ok',
      added: { always: [b, a], never: [c] },
      removed: { always: [], never: [] },
      after: { always: [b, a], never: [c] },
    });
    expect(await seq(linkId)).toBe(before + 1n);
    const j = await readJournal(db.pool, linkId, before);
    expect(j.entries.map((e) => [e.userId, e.op])).toEqual([
      [c, 'repair'],
      [b, 'repair'],
      [a, 'repair'],
    ]);
    expect(await overrideIds(db.pool, linkId)).toEqual({ always: [b, a], never: [c] });
    expect((await listOverrides(db.pool, linkId))[0]).toMatchObject({ userId: c, kind: 'never' });
    expect(await overrideOf(db.pool, linkId, a)).toBe('always');
    expect(await overrideOf(db.pool, linkId, '100000000000000002')).toBeNull();

    // Removing one and re-adding an existing one: only the removed id is journaled.
    const r2 = await applyOverrideChange(db.pool, linkId, { always: [a], never: [], remove: [c] });
    expect(r2).toMatchObject({ kind: 'ok', added: { always: [], never: [] }, removed: { always: [], never: [c] } });
    expect((await readJournal(db.pool, linkId, before + 1n)).entries.map((e) => e.userId)).toEqual([c]);
    // A change that changes nothing journals nothing.
    await applyOverrideChange(db.pool, linkId, { always: [a], never: [], remove: ['100000000000000005'] });
    expect(await seq(linkId)).toBe(before + 2n);
  });

  it('refuses a user in both lists and a list over the cap, writing nothing; moving a user is remove + add in one change', async () => {
    const { linkId } = await seedLink(db);
    const [a, b] = userIds(2, 200000000000000000n);
    expect(await applyOverrideChange(db.pool, linkId, { always: [a!], never: [a!], remove: [] })).toEqual({
      kind: 'conflict',
      userIds: [a],
    });
    await applyOverrideChange(db.pool, linkId, { always: [a!], never: [], remove: [] });
    expect(await applyOverrideChange(db.pool, linkId, { always: [], never: [a!, b!], remove: [] })).toEqual({
      kind: 'conflict',
      userIds: [a],
    });
    expect(await overrideIds(db.pool, linkId)).toEqual({ always: [a], never: [] });
    expect(await applyOverrideChange(db.pool, linkId, { always: [], never: [a!], remove: [a!] })).toMatchObject({
      kind: 'ok',
      removed: { always: [a] },
      added: { never: [a] },
    });
    expect(await overrideIds(db.pool, linkId)).toEqual({ always: [], never: [a] });

    const many = userIds(OVERRIDE_LIST_MAX + 1, 300000000000000000n);
    expect(await applyOverrideChange(db.pool, linkId, { always: many, never: [], remove: [] })).toEqual({
      kind: 'too_many',
      list: 'always',
      count: OVERRIDE_LIST_MAX + 1,
    });
    expect(await applyOverrideChange(db.pool, linkId, { always: many.slice(1), never: [], remove: [] })).toMatchObject({
      kind: 'ok',
    });
    expect((await overrideIds(db.pool, linkId)).always).toHaveLength(OVERRIDE_LIST_MAX);
  });

  it('the sync diff puts overrides above the list: always desired whatever the boundary, never not desired, and the boundary skips both', async () => {
    const { linkId } = await seedLink(db);
    const u = userIds(6, 400000000000000000n);
    await db.pool.query(
      `INSERT INTO link_user (link_id, user_id) SELECT $1, ${toStored('x')} FROM unnest($2::numeric[]) x`,
      [linkId, u.slice(0, 4)],
    );
    // u0 holds the role (applied) but will be "never"; u5 (unlisted) is "always".
    await db.pool.query(
      `INSERT INTO applied_member (link_id, user_id, outcome) VALUES ($1, ${toStored('$2')}, 'applied')`,
      [linkId, u[0]],
    );
    await applyOverrideChange(db.pool, linkId, { always: [u[5]!], never: [u[0]!], remove: [] });

    // 2 synced places: u5 (always) takes one, u0 (never) is skipped, so u1 is the only listed one synced.
    const firstHeld = await listedUserAt(db.pool, linkId, 2 - 1, true);
    expect(firstHeld).toBe(BigInt(u[2]!));
    const cutoff = firstHeld! - 1n;
    const rows = await diffRange(db.pool, linkId, 0n, MAX_USER_ID, cutoff, true);
    expect(rows.map((r) => [r.userId, r.desired])).toEqual([
      [u[0], false],
      [u[1], true],
      [u[5], true],
    ]);
    // Without the override form the list alone decides (u0 stays, u5 is not wanted).
    expect((await diffRange(db.pool, linkId, 0n, MAX_USER_ID, cutoff)).map((r) => r.userId)).toEqual([u[1]]);
    expect((await countDiff(db.pool, linkId, cutoff, true)).changes).toBe(3);
    expect(await desiredInRange(db.pool, linkId, 0n, MAX_USER_ID, cutoff, true)).toBe(2);
    expect(await desiredInRange(db.pool, linkId, BigInt(u[4]!), MAX_USER_ID, cutoff, true)).toBe(1);
    expect(
      (await diffUsers(db.pool, linkId, [u[0]!, u[3]!, u[5]!], cutoff, true)).map((r) => [r.userId, r.desired]),
    ).toEqual([
      [u[0], false],
      [u[5], true],
    ]);
  });
});
