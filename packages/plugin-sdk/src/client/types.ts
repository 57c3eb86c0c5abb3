/**
 * Wire types of the User Management API (spec 4.1, 7), declared here rather than imported so the SDK
 * stands alone as a package. `contracts-compat.test.ts` checks at compile time that they stay equal to
 * the service's own contracts.
 */

/** Counters that GET /users reports beside the IDs (spec 4.1 rule 7). */
export type ListMeta = {
  user_count: number;
  synced_count: number;
  pending_count: number;
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

/** What a whole-list write answered: applied (with the stored count) or held for confirmation. */
export type WriteOutcome = { held: null; userCount: number } | { held: HeldChange; userCount?: undefined };

export type UploadProgress = { chunks: number; users: number };

/** Options every call accepts. */
export type CallOptions = {
  /** Aborts the call, including its retries and any wait for Retry-After. */
  signal?: AbortSignal;
};
