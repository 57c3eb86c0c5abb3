import { z } from 'zod';
import { snowflake, userId } from './snowflake';

export const linkParams = z.object({ guildId: snowflake, roleId: snowflake });
export const userParams = linkParams.extend({ userId });
export const uploadParams = linkParams.extend({ uploadId: z.string().uuid('must be a UUID') });

/** Header carrying a held change's id when a plugin retries a large removal (spec 4.1 rule 6). */
export const CONFIRM_HEADER = 'x-rolelink-confirm';

export type ErrorBody = { statusCode: number; message: string };

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

/** Counters reported by GET /users in its top-level `meta` (spec 4.1 rule 7 leaves placement open). */
export type ListMeta = {
  user_count: number;
  synced_count: number;
  pending_count: number;
  synced_limit: number;
  user_limit: number;
};

/** `?dry_run=true` on PUT /users and on commit (docs/api.md "Dry run"): answer what would happen, write nothing. */
export const dryRunQuery = z.object({
  dry_run: z.enum(['true', 'false'], { message: 'must be true or false' }).optional(),
});

/** The 200 body of a dry run (`data`). `status` is what the same request without dry_run would answer. */
export type DryRunResult = {
  dry_run: true;
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
