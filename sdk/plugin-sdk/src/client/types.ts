import type { ChunkAcceptedBody, DryRunResult } from '@rolelink/wire-types';
import type { AbortSignalLike } from '../host-types';

/**
 * The User Management API's bodies (spec 4.1, 7) are the service's own wire types, from
 * @rolelink/wire-types; the build copies them into dist/ (scripts/build.mjs), so the published package
 * stands alone. Below: the SDK's own types, built from them.
 */
export type { DryRunResult, ErrorBody, ListMeta, ShrinkBody } from '@rolelink/wire-types';

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
export type WriteOutcome =
  | { held: null; userCount: number; listVersion: string | null; replayed: boolean }
  | { held: HeldChange; userCount?: undefined; listVersion?: undefined; replayed: boolean };

/** What POST …/chunk answers: chunks received and IDs staged so far. */
export type UploadProgress = ChunkAcceptedBody['data'];

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
/**
 * addUser's expiry (docs/api.md "Memberships that expire"): the membership ends on its own at `expiresAt`
 * (a Date or an RFC 3339 string) or `ttlSeconds` from now; one of them. Neither: permanent, and an expiry
 * set by an earlier add is cleared (the latest call wins).
 */
export type AddUserOptions = IdempotentOptions & { expiresAt?: Date | string; ttlSeconds?: number };

export type WholeListOptions = IdempotentOptions & {
  /** A `change_id` from an earlier hold, sent as X-RoleLink-Confirm. */
  confirm?: string;
  /** Sent as `If-Match`: a listVersion read earlier; the write fails with a 412 RoleLinkApiError when the list changed since. */
  ifMatch?: string;
};

/**
 * The whole-list calls replaceUsers (replace-users.ts) makes: RoleLinkClient's PUT and upload methods.
 * Declared here so replace-users.ts does not import the client that calls it.
 */
export type WholeListWriter = {
  putUsers(ids: readonly string[], options?: WholeListOptions): Promise<WriteOutcome>;
  previewPut(ids: readonly string[], options?: Omit<WholeListOptions, 'idempotencyKey'>): Promise<DryRunResult>;
  createUpload(options?: CallOptions): Promise<string>;
  addChunk(uploadId: string, ids: readonly string[], options?: CallOptions): Promise<UploadProgress>;
  commitUpload(uploadId: string, options?: WholeListOptions): Promise<WriteOutcome>;
  previewCommit(uploadId: string, options?: Omit<WholeListOptions, 'idempotencyKey'>): Promise<DryRunResult>;
  cancelUpload(uploadId: string, options?: CallOptions): Promise<void>;
};
