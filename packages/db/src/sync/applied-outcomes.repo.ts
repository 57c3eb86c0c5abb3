import { backoffExpression, backoffMs, type Backoff } from '@rolelink/wire-types/backoff';
import type { Queryable } from '../client/queryable';
import { toStored } from '../client/user-id';

/** Outcomes recorded per user (design: sync engine rule 4). `removed` is the tombstone of a removal. */
export type Outcome = 'applied' | 'removed' | 'not_in_guild' | 'missing_permission' | 'failed' | 'unknown_user';

/** Back-off of a failed call: 30 s doubling per attempt, capped at an hour. */
export const FAILED_CALL_BACKOFF: Backoff = { firstMs: 30_000, maxMs: 3_600_000 };

/** The wait after the `attempts`-th failed call (1 = the first). */
export function retryDelayMs(attempts: number): number {
  return backoffMs(FAILED_CALL_BACKOFF, attempts - 1);
}

/** The same wait in SQL, after the row's `attempts` so far plus the one failing now. */
const retryDelaySql = (attemptsSoFar: string) => backoffExpression('sql', FAILED_CALL_BACKOFF, attemptsSoFar);

/** A user who is not in the guild waits for the reconcile (which sees them join) or a day. */
export const NOT_IN_GUILD_RETRY_MS = 24 * 3_600_000;

/**
 * Each write is one statement right after the platform answered, so a crash repeats at most the one
 * call in flight (role PUT/DELETE are idempotent). Times come from PostgreSQL's clock, the same clock
 * the reconcile compares against.
 */
export const recordOutcome = {
  /** The platform accepted this link's add: the link granted the role (provenance for a strip). */
  async added(db: Queryable, linkId: string, userId: string): Promise<void> {
    await db.query(
      `INSERT INTO applied_member (link_id, user_id, outcome, updated_at, attempts, next_retry_at, last_error, granted)
       VALUES ($1, ${toStored('$2')}, 'applied', clock_timestamp(), 0, NULL, NULL, true)
       ON CONFLICT (link_id, user_id) DO UPDATE
         SET outcome = 'applied', updated_at = clock_timestamp(), attempts = 0, next_retry_at = NULL, last_error = NULL, granted = true`,
      [linkId, userId],
    );
  },

  /** An add the platform refused: the user does not hold the role; retried after the back-off. */
  async addFailed(
    db: Queryable,
    linkId: string,
    userId: string,
    outcome: Exclude<Outcome, 'applied' | 'removed'>,
  ): Promise<Date> {
    const { rows } = await db.query<{ next_retry_at: Date }>(
      `INSERT INTO applied_member AS m (link_id, user_id, outcome, updated_at, attempts, next_retry_at, last_error)
       VALUES ($1, ${toStored('$2')}, $3, clock_timestamp(), 1, localtimestamp(3) + make_interval(secs => $4::double precision / 1000), NULL)
       ON CONFLICT (link_id, user_id) DO UPDATE
         SET outcome = $3, updated_at = clock_timestamp(), attempts = m.attempts + 1, last_error = NULL,
             next_retry_at = localtimestamp(3) + make_interval(secs => (CASE WHEN $3 = 'not_in_guild' THEN $4::double precision
                                                                  ELSE ${retryDelaySql('m.attempts')} END) / 1000)
       RETURNING next_retry_at`,
      [linkId, userId, outcome, outcome === 'not_in_guild' ? NOT_IN_GUILD_RETRY_MS : retryDelayMs(1)],
    );
    return rows[0]!.next_retry_at;
  },

  async removed(db: Queryable, linkId: string, userId: string): Promise<void> {
    await db.query(
      `UPDATE applied_member SET outcome = 'removed', updated_at = clock_timestamp(), attempts = 0, next_retry_at = NULL, last_error = NULL, granted = false
        WHERE link_id = $1 AND user_id = ${toStored('$2')}`,
      [linkId, userId],
    );
  },

  /** A removal the platform refused: the user keeps the role (outcome stays applied) and the error is kept. */
  async removeFailed(
    db: Queryable,
    linkId: string,
    userId: string,
    error: 'missing_permission' | 'failed',
  ): Promise<Date | null> {
    const { rows } = await db.query<{ next_retry_at: Date }>(
      `UPDATE applied_member SET last_error = $3, updated_at = clock_timestamp(), attempts = attempts + 1,
              next_retry_at = localtimestamp(3) + make_interval(secs => ${retryDelaySql('attempts')} / 1000)
        WHERE link_id = $1 AND user_id = ${toStored('$2')}
        RETURNING next_retry_at`,
      [linkId, userId, error],
    );
    return rows[0]?.next_retry_at ?? null;
  },

  /**
   * 10013 Unknown User: the account is deleted, which is permanent. Recorded without a retry time (the
   * partial retry index never lists it, and the worker skips the outcome), so the user is never asked
   * for again; only a list that drops the user forgets the record.
   */
  async unknownUser(db: Queryable, linkId: string, userId: string): Promise<void> {
    await db.query(
      `INSERT INTO applied_member AS m (link_id, user_id, outcome, updated_at, attempts, next_retry_at, last_error)
       VALUES ($1, ${toStored('$2')}, 'unknown_user', clock_timestamp(), 1, NULL, NULL)
       ON CONFLICT (link_id, user_id) DO UPDATE
         SET outcome = 'unknown_user', updated_at = clock_timestamp(), attempts = m.attempts + 1, next_retry_at = NULL, last_error = NULL, granted = false`,
      [linkId, userId],
    );
  },

  /** A desired user who holds the role after all (an old removal error): clear the error, no call. */
  async clearError(db: Queryable, linkId: string, userId: string): Promise<void> {
    await db.query(
      `UPDATE applied_member SET last_error = NULL, attempts = 0, next_retry_at = NULL, updated_at = clock_timestamp()
        WHERE link_id = $1 AND user_id = ${toStored('$2')} AND outcome = 'applied'`,
      [linkId, userId],
    );
  },

  /** Records of users who never got the role and are no longer wanted: nothing to undo, drop them. */
  async forget(db: Queryable, linkId: string, userIds: string[]): Promise<void> {
    if (!userIds.length) return;
    await db.query(
      `DELETE FROM applied_member WHERE link_id = $1 AND user_id IN (SELECT ${toStored('i')} FROM unnest($2::numeric[]) i) AND outcome NOT IN ('applied', 'removed')`,
      [linkId, userIds],
    );
  },
};
