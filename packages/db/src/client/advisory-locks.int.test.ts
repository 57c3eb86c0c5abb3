import type { PoolClient } from 'pg';
import { createTestDb, type TestDb } from '../../../../test/support/db';
import { until } from '../../../../test/support/until';
import { tryLockEventLink, tryLockSyncLink, unlockEventLink, withSweepLock, unlockSyncLink } from './advisory-locks';

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

  it('runs a sweep under its own lock: one session at a time per sweep, other sweeps unaffected', async () => {
    // b holds the uploads sweep's lock, as a replica in the middle of that sweep would.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const first = withSweepLock(db.pool, 'uploads', async () => {
      started();
      await held;
      return 'first';
    });
    await running;
    expect(await withSweepLock(db.pool, 'uploads', () => Promise.resolve('second'))).toBeNull();
    expect(await withSweepLock(db.pool, 'audit-retention', () => Promise.resolve('other sweep'))).toBe('other sweep');
    release();
    expect(await first).toBe('first');
    // Unlocked when the work ended, and again when it throws.
    await expect(withSweepLock(db.pool, 'uploads', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await withSweepLock(db.pool, 'uploads', () => Promise.resolve('after'))).toBe('after');
  });
});
