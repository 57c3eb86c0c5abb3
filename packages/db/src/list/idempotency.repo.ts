import type { Queryable } from '../client/queryable';

/** How long a key's first answer is kept and replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim without an answer older than this belongs to a process that died between its write and
 * recording the answer (the longest request, a commit, times out at 31 minutes): the key is free again.
 * The fallback for claims that name no claimant (written before claimants were recorded); see below.
 */
export const IDEMPOTENCY_ABANDONED_MS = 32 * 60 * 1000;

export type StoredAnswer = { status: number; body: unknown; etag: string | null };
export type Claim =
  | { kind: 'claimed' }
  | { kind: 'answered'; fingerprint: Buffer; answer: StoredAnswer }
  | { kind: 'in-progress'; fingerprint: Buffer };

/**
 * Claims a key for a request, in one statement (its own transaction, committed before the request's
 * write starts): a new key, an expired one or an abandoned claim is taken; otherwise the existing row
 * is returned. Two requests with one key: the second waits for the first's insert and then sees it.
 *
 * While unanswered, a claim's body is `{ "claimant": <application_name of the claiming connection> }`
 * (createDb gives each pool its own). A claim is abandoned once no connection of that name is left in
 * pg_stat_activity — the claimant process died (a rollout's SIGKILL, an OOM kill), and its write's
 * transaction is gone with its last backend: a backend killed mid-statement stays until that statement
 * ends, and so does the claim — or after IDEMPOTENCY_ABANDONED_MS, as before, for claims without one.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  linkId: string,
  key: string,
  fingerprint: Buffer,
): Promise<Claim> {
  const { rows } = await db.query<{
    claimed: boolean;
    fingerprint: Buffer | null;
    status: number | null;
    body: unknown;
    etag: string | null;
  }>(
    `WITH ins AS (
       INSERT INTO idempotency_key (link_id, key, fingerprint, body) VALUES ($1, $2, $3, jsonb_build_object('claimant', current_setting('application_name')))
       ON CONFLICT (link_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = NULL, body = EXCLUDED.body, etag = NULL, created_at = now()
       WHERE idempotency_key.created_at < now() - $4 * interval '1 millisecond'
          OR (idempotency_key.status IS NULL AND idempotency_key.created_at < now() - $5 * interval '1 millisecond')
          OR (idempotency_key.status IS NULL AND idempotency_key.body ? 'claimant'
              AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = idempotency_key.body->>'claimant'))
       RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM ins) AS claimed, k.fingerprint, k.status, k.body, k.etag
     FROM (SELECT 1) one LEFT JOIN idempotency_key k ON k.link_id = $1 AND k.key = $2`,
    [linkId, key, fingerprint, IDEMPOTENCY_TTL_MS, IDEMPOTENCY_ABANDONED_MS],
  );
  const r = rows[0]!;
  if (r.claimed) return { kind: 'claimed' };
  // The row read is the statement's snapshot: the one that made the insert conflict.
  if (r.fingerprint === null) return { kind: 'in-progress', fingerprint: Buffer.alloc(0) };
  if (r.status === null) return { kind: 'in-progress', fingerprint: r.fingerprint };
  return { kind: 'answered', fingerprint: r.fingerprint, answer: { status: r.status, body: r.body, etag: r.etag } };
}

export async function recordIdempotentAnswer(
  db: Queryable,
  linkId: string,
  key: string,
  answer: StoredAnswer,
): Promise<void> {
  await db.query('UPDATE idempotency_key SET status = $3, body = $4, etag = $5 WHERE link_id = $1 AND key = $2', [
    linkId,
    key,
    answer.status,
    JSON.stringify(answer.body),
    answer.etag,
  ]);
}

/** Frees a claim whose request failed without an answer worth replaying (5xx): a retry runs again. */
export async function releaseIdempotencyKey(db: Queryable, linkId: string, key: string): Promise<void> {
  await db.query('DELETE FROM idempotency_key WHERE link_id = $1 AND key = $2 AND status IS NULL', [linkId, key]);
}

/** Deletes expired keys (the API's idempotency sweep); returns how many. */
export async function collectIdempotencyKeys(db: Queryable): Promise<number> {
  const r = await db.query(`DELETE FROM idempotency_key WHERE created_at < now() - $1 * interval '1 millisecond'`, [
    IDEMPOTENCY_TTL_MS,
  ]);
  return r.rowCount ?? 0;
}
