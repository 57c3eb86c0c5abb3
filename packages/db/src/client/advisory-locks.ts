import type { PoolClient } from 'pg';

// Session advisory locks: held by one pooled connection (so the caller passes the client it keeps), and
// released by PostgreSQL if the process dies. The keys live here so no two users of the database pick
// the same one.

/** Namespace of the sync worker's per-link locks: 'RLSY'. */
const SYNC_LINK_LOCK_CLASS = 0x524c5359;
/** Namespace of the plugin broker's per-link event delivery locks: 'RLEV'. */
const EVENT_LINK_LOCK_CLASS = 0x524c4556;
/** The outbox sweep's lock, shared by all API replicas: one sweeper runs at a time ("rlsw"). */
const SWEEP_LOCK = 0x726c7377;

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

/** False when another replica is sweeping. */
export async function tryLockSweep(client: PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [SWEEP_LOCK]);
  return rows[0]?.locked ?? false;
}

export async function unlockSweep(client: PoolClient): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [SWEEP_LOCK]);
}
