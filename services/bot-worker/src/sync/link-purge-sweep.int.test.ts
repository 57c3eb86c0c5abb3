import { deleteLinkAt, recordPurge } from '@rolelink/db/links';
import { addUsers } from '@rolelink/db/list';
import { memoryLogger } from '@rolelink/runtime';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { seedLink, userIds } from '../../../../test/support/fixtures';
import { holdSweepLock, sweepLines } from '../../../../test/support/sweeps';
import { sweepLinkPurge } from './link-purge-sweep';

let db: TestDb;
beforeAll(async () => (db = await createTestDb()));
afterAll(() => db.drop());

const listed = async (linkId: string) =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM link_user WHERE link_id = $1', [linkId])).rows[0]!
    .n;

it('purges the rows of deleted links under its own lock, waiting for a strip, logging what it removed', async () => {
  const deleted = await seedLink(db);
  const stripping = await seedLink(db);
  const live = await seedLink(db);
  for (const l of [deleted, stripping, live]) await addUsers(db.pool, l.linkId, userIds(3, 620000000000000000n), 100);
  for (const [l, stripRoles] of [
    [deleted, false],
    [stripping, true],
  ] as const) {
    await deleteLinkAt(db.pool, l.guildId, l.roleId);
    await recordPurge(db.pool, { ...l, stripRoles });
  }
  const { logger, lines } = memoryLogger();

  // Another worker replica is in the middle of this sweep: this one deletes nothing.
  const release = await holdSweepLock(db.pool, 'link-purge');
  expect(await sweepLinkPurge(db.pool, logger)).toBe(0);
  expect(await listed(deleted.linkId)).toBe(3);
  await release();

  // The journal's rows of the list writes go too (addUsers journaled each add).
  const rows = await sweepLinkPurge(db.pool, logger);
  expect(rows).toBeGreaterThanOrEqual(3);
  expect(await listed(deleted.linkId)).toBe(0);
  expect(await listed(stripping.linkId)).toBe(3); // its roles are not stripped yet
  expect(await listed(live.linkId)).toBe(3);
  expect(await sweepLinkPurge(db.pool, logger)).toBe(0);
  expect(sweepLines(lines, 'deleted links purged')).toEqual([{ rows }]);
});
