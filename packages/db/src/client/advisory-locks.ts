import type { PoolClient } from 'pg';
import type { Queryable } from './queryable';

// Session advisory locks: held by one pooled connection (so the caller passes the client it keeps), and
// released by PostgreSQL if the process dies. The keys live here so no two users of the database pick
// the same one.

/** Namespace of the sync worker's per-link locks: 'RLSY'. */
const SYNC_LINK_LOCK_CLASS = 0x524c5359;
/** Namespace of the plugin broker's per-link event delivery locks: 'RLEV'. */
const EVENT_LINK_LOCK_CLASS = 0x524c4556;
/** Namespace of the periodic sweeps' locks: 'RLSW', one key per sweep (SWEEP_LOCKS). */
const SWEEP_LOCK_CLASS = 0x524c5357;

/**
 * Every periodic sweep's key in SWEEP_LOCK_CLASS: replicas of the owning service never run the same sweep
 * at once, and different sweeps never wait for each other. A key is never reused for another sweep.
 */
export const SWEEP_LOCKS = {
  outbox: 1,
  uploads: 2,
  idempotency: 3,
  'link-purge': 4,
  'audit-retention': 5,
  'notification-retention': 6,
  'event-retention': 7,
} as const;
export type SweepLock = keyof typeof SWEEP_LOCKS;

function linkLockKey(linkId: string): number {
  return Number(BigInt(linkId) % 2147483647n);
}

/** At most one job works a link at a time: false when another session holds the link. */
export async function tryLockSyncLink(client: PoolClient, linkId: string): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
    SYNC_LINK_LOCK_CLASS,
    linkLockKey(linkId),
  ]);
  return rows[0]?.ok ?? false;
}

export async function unlockSyncLink(client: PoolClient, linkId: string): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1, $2)', [SYNC_LINK_LOCK_CLASS, linkLockKey(linkId)]);
}

/**
 * One sender of a link's events across broker replicas: false when another session holds the link. The
 * lock is the session's, so it lasts as long as the sender's connection, however long the sender stalls.
 */
export async function tryLockEventLink(client: PoolClient, linkId: string): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
    EVENT_LINK_LOCK_CLASS,
    linkLockKey(linkId),
  ]);
  return rows[0]?.ok ?? false;
}

export async function unlockEventLink(client: PoolClient, linkId: string): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1, $2)', [EVENT_LINK_LOCK_CLASS, linkLockKey(linkId)]);
}

/**
 * Runs `work` on a connection holding the sweep's session lock (one checked out of the pool, or the client
 * given), then unlocks. Null when the sweep did not run: another session holds its lock, or PostgreSQL
 * gave no connection (its outage is the dependency log's to report; the next scheduled run catches up).
 */
export async function withSweepLock<T>(
  db: Queryable,
  sweep: SweepLock,
  work: (client: PoolClient) => Promise<T>,
): Promise<T | null> {
  // A pool has no `release`; a checked-out client does.
  const own = !('release' in db);
  const client = own ? await db.connect().catch(() => null) : db;
  if (!client) return null;
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
      SWEEP_LOCK_CLASS,
      SWEEP_LOCKS[sweep],
    ]);
    if (!rows[0]?.locked) return null;
    try {
      return await work(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [SWEEP_LOCK_CLASS, SWEEP_LOCKS[sweep]]);
    }
  } finally {
    if (own) client.release();
  }
}
