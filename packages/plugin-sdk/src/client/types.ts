/**
 * Wire types of the User Management API (spec 4.1, 7), declared here rather than imported so the SDK
 * stands alone as a package. `test/contracts-compat.check.ts` checks at compile time that they stay equal to
 * the service's own contracts.
 */

import type { AbortSignalLike } from '../host-types';

/** Counters that GET /users reports beside the IDs (spec 4.1 rule 7). */
export type ListMeta = {
  user_count: number;
  synced_count: number;
  /** Role changes still to make, adds and removals together: not a count of list members (README, "Reading meta"). */
  pending_count: number;
  /** Of pending_count: members of the synced set still to get the role. */
  pending_adds: number;
  /** Of pending_count: holders still to lose the role (right after a large shrink, nearly all of pending_count). */
  pending_removals: number;
  synced_limit: number;
  user_limit: number;
};

/** The error body of every refusal except the shrink hold (spec 7); `details` on validation errors. */
export type ErrorBody = { statusCode: number; message: string; details?: string[] };

/** The 409 body of a held replace or commit (spec 4.1 rule 6). */
export type ShrinkBody = {
  errors: {
    error: 'confirm_required';
    code: 'shrink';
    change_id: string;
    previous: number;
    next: number;
    removals: number;
    message: string;
  };
  requestId: string;
};

/** A replace or commit the service held because it removes too many users (spec 3.3). */
export type HeldChange = {
  /** Send it back as `X-RoleLink-Confirm` (within one hour; only the latest one counts). */
  changeId: string;
  previous: number;
  next: number;
  removals: number;
  message: string;
};

/**
 * What a whole-list write answered: applied (with the stored count and the list's new version) or held
 * for confirmation. `replayed`: the service answered from its record of an earlier request with the same
 * Idempotency-Key (a retry after a lost answer), and wrote nothing again.
 */
export type WriteOutcome = { held: null; userCount: number; listVersion: string | null; replayed: boolean } | { held: HeldChange; userCount?: undefined; listVersion?: undefined; replayed: boolean };

/** The `data` of a dry run (`?dry_run=true` on PUT and commit): what the write would do; nothing was written. */
export type DryRunResult = {
  dry_run: true;
  /** What the same request without dry_run would answer. */
  status: 200 | 400 | 409;
  outcome: 'replaced' | 'stored_limit' | 'held';
  message: string;
  user_count: number;
  next_user_count: number;
  adds: number;
  removals: number;
  synced_limit: number;
  /** Users of the new list beyond the synced limit (the highest IDs): stored, not given the role. */
  held_by_synced_limit: number;
  shrink: {
    previous: number;
    removals: number;
    large_removal: boolean;
    trusted: boolean;
    confirmation: 'none' | 'header' | 'dashboard' | 'invalid';
    would_hold: boolean;
  };
};

export type UploadProgress = { chunks: number; users: number };

/** Options every call accepts. */
export type CallOptions = {
  /** Aborts the call, including its retries and any wait for Retry-After. */
  signal?: AbortSignalLike;
};

/** Options of the writes that take an Idempotency-Key (PUT, commit, single add and remove). */
export type IdempotentOptions = CallOptions & {
  /**
   * Sent as `Idempotency-Key`, the same on every retry of this call. When absent, the SDK makes one per
   * call (a random UUID), so its own retries of a write never apply it twice. Give your own to make a
   * retry across process restarts safe too (the service keeps keys 24 hours).
   */
  idempotencyKey?: string;
};

/** Options of the whole-list writes (PUT and commit). */
export type WholeListOptions = IdempotentOptions & {
  /** A `change_id` from an earlier hold, sent as X-RoleLink-Confirm. */
  confirm?: string;
  /** Sent as `If-Match`: a listVersion read earlier; the write fails with a 412 RoleLinkApiError when the list changed since. */
  ifMatch?: string;
};
