/** Request and answer bodies of the User Management API (spec 4.1), `/api/role-link/:guildId/:roleId/users…`. */

/** Success bodies carry their answer under `data` (spec 4.1). */
export type DataBody<T> = { data: T };

/** PUT /users and POST …/chunk: user IDs, 17 to 20 digit strings; duplicates are removed. */
export type IdList = UserItem[];

/** Counters that GET /users reports beside the IDs, in its top-level `meta` (spec 4.1 rule 7). */
export type ListMeta = {
  /** Unique users stored. */
  user_count: number;
  /** Members who hold the role now, as the bot applied it. */
  synced_count: number;
  /** Role changes the bot still has to make, adds and removals together; not listed users no call can reach, such as those not in the server (docs/api.md, "Reading pending"). */
  pending_count: number;
  /** Of pending_count: members of the synced set still to get the role. */
  pending_adds: number;
  /** Of pending_count: holders still to lose the role. */
  pending_removals: number;
  /** Users synced per link on this plan (the lowest IDs). */
  synced_limit: number;
  /** Users stored per link on this plan. */
  user_limit: number;
  /**
   * The link's state, as the dashboard and `rolelink link show` show it (docs/api.md "A link's state"):
   * `disabled`, `paused`, `blocked`, `held`, `awaiting_first_list`, `syncing` or `up_to_date`.
   */
  state: 'disabled' | 'paused' | 'blocked' | 'held' | 'awaiting_first_list' | 'syncing' | 'up_to_date';
  /** Why, for `blocked` (e.g. `above_bot`, `bot_not_in_guild`), `paused` (`slot_allowance`) and `held` (`shrink`, `admin_source`); null otherwise. */
  state_reason: string | null;
  /** Removals held for the server owner's decision; not part of pending_count. */
  held_removals: number;
  /** With `?include=expiry` only: user ID → RFC 3339 time its membership ends; users without one are permanent. */
  expiries?: Record<string, string>;
};

/** GET /users: every user ID, ascending, with the counters. */
export type UsersListBody = { meta: ListMeta; data: string[] };
/** PUT /users and POST …/commit. */
export type UserCountBody = DataBody<{ user_count: number }>;
/** POST /users/upload. */
export type UploadCreatedBody = DataBody<{ upload_id: string }>;
/** POST /users/upload/:uploadId/chunk; `users` counts the IDs staged so far, before deduplication. */
export type ChunkAcceptedBody = DataBody<{ chunks: number; users: number }>;
/** DELETE /users/upload/:uploadId. */
export type UploadCancelledBody = DataBody<{ cancelled: true }>;
/** GET /users/:userId. */
export type UserExistsBody = DataBody<{ exists: boolean }>;
/** POST /users/:userId's optional body: one of the two, or neither (permanent). */
export type UserExpiryBody = { expires_at?: string | null; ttl_seconds?: number };
/** An item of PUT /users or of a chunk: an ID string, or an ID with its expiry. */
export type UserItem = string | ({ id: string } & UserExpiryBody);
/** POST /users/:userId; `added` is false when the user was already there. */
export type UserAddedBody = DataBody<{ added: boolean }>;
/** DELETE /users/:userId; `removed` is false when the user was absent. */
export type UserRemovedBody = DataBody<{ removed: boolean }>;

/** The 409 body of a replace or commit held by the shrink check (spec 4.1 rule 6). */
export type ShrinkBody = {
  errors: {
    error: 'confirm_required';
    code: 'shrink';
    /** Send it back as `X-RoleLink-Confirm` within one hour; only the latest one counts. */
    change_id: string;
    previous: number;
    next: number;
    removals: number;
    message: string;
  };
  requestId: string;
};

/** The `data` of `?dry_run=true` on PUT /users and on commit (docs/api.md "Dry run"): nothing was written. */
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
export type DryRunBody = DataBody<DryRunResult>;
