import type { PoolClient } from 'pg';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { until } from '../../../../test/support/until';
import {
  tryLockEventLink,
  tryLockSweep,
  tryLockSyncLink,
  unlockEventLink,
  unlockSweep,
  unlockSyncLink,
} from './advisory-locks';

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

  it('lets one session at a time send a link’s events, apart from its sync lock, and frees it with the session', async () => {
    const link = '123456789012345680';
    expect(await tryLockEventLink(a, link)).toBe(true);
    expect(await tryLockEventLink(b, link)).toBe(false);
    // Another namespace than the sync's: the sync of the link is not held up by its events.
    expect(await tryLockSyncLink(b, link)).toBe(true);
    await unlockSyncLink(b, link);
    await unlockEventLink(a, link);
    expect(await tryLockEventLink(b, link)).toBe(true);
    await unlockEventLink(b, link);
    // A session that ends (a broker that died) leaves the link to the others, without unlocking it.
    const d = await db.pool.connect();
    expect(await tryLockEventLink(d, link)).toBe(true);
    d.release(true);
    await until(
      () => tryLockEventLink(a, link),
      (ok) => ok,
      'the lock of the ended session',
      20_000,
    );
    await unlockEventLink(a, link);
  });

  it('lets one session at a time sweep', async () => {
    expect(await tryLockSweep(a)).toBe(true);
    expect(await tryLockSweep(b)).toBe(false);
    await unlockSweep(a);
    expect(await tryLockSweep(b)).toBe(true);
    await unlockSweep(b);
  });
});
