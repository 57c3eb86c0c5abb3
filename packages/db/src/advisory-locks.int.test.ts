import type { PoolClient } from 'pg';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { tryLockSweep, tryLockSyncLink, unlockSweep, unlockSyncLink } from './advisory-locks';

let db: TestDb;
let a: PoolClient;
let b: PoolClient;
beforeAll(async () => {
  db = await createTestDb();
  a = await db.pool.connect();
  b = await db.pool.connect();
});
afterAll(async () => {
  a.release();
  b.release();
  await db.drop();
});

describe('advisory locks', () => {
  it('lets one session at a time hold a link, per link', async () => {
    expect(await tryLockSyncLink(a, '123456789012345678')).toBe(true);
    expect(await tryLockSyncLink(b, '123456789012345678')).toBe(false);
    expect(await tryLockSyncLink(b, '123456789012345679')).toBe(true);
    await unlockSyncLink(a, '123456789012345678');
    expect(await tryLockSyncLink(b, '123456789012345678')).toBe(true);
    await unlockSyncLink(b, '123456789012345678');
    await unlockSyncLink(b, '123456789012345679');
  });

  it('lets one session at a time sweep', async () => {
    expect(await tryLockSweep(a)).toBe(true);
    expect(await tryLockSweep(b)).toBe(false);
    await unlockSweep(a);
    expect(await tryLockSweep(b)).toBe(true);
    await unlockSweep(b);
  });
});
