import { z } from 'zod';
import { snowflake, userId } from './snowflake';

export const linkParams = z.object({ guildId: snowflake, roleId: snowflake });
export const userParams = linkParams.extend({ userId });
export const uploadParams = linkParams.extend({ uploadId: z.string().uuid('must be a UUID') });

/** Header carrying a held change's id when a plugin retries a large removal (spec 4.1 rule 6). */
export const CONFIRM_HEADER = 'x-rolelink-confirm';

// The wire shapes (ErrorBody, ShrinkBody, ListMeta, …) are declared once, in @rolelink/wire-types.
export type { ErrorBody, ListMeta, ShrinkBody } from '@rolelink/wire-types';

/** GET /users: `?include=expiry` adds `meta.expiries` (docs/api.md "Memberships that expire"). */
export const usersQuery = z.object({
  include: z.enum(['expiry'], { message: 'must be expiry' }).optional(),
});

/** `?dry_run=true` on PUT /users and on commit (docs/api.md "Dry run"): answer what would happen, write nothing. */
export const dryRunQuery = z.object({
  dry_run: z.enum(['true', 'false'], { message: 'must be true or false' }).optional(),
});

/**
 * The 200 body of a dry run (`data`). `status` is what the same request without dry_run would answer.
 * A zod schema (not only a type) so the OpenAPI document and the SDK's checks come from this one place.
 */
export const dryRunResultSchema = z.object({
  dry_run: z.literal(true),
  status: z.union([z.literal(200), z.literal(400), z.literal(409)]),
  outcome: z.enum(['replaced', 'stored_limit', 'held']),
  message: z.string(),
  user_count: z.number().int(),
  next_user_count: z.number().int(),
  adds: z.number().int(),
  removals: z.number().int(),
  synced_limit: z.number().int(),
  /** Users of the new list beyond the synced limit (the highest IDs): stored, not given the role. */
  held_by_synced_limit: z.number().int(),
  shrink: z.object({
    previous: z.number().int(),
    removals: z.number().int(),
    large_removal: z.boolean(),
    trusted: z.boolean(),
    confirmation: z.enum(['none', 'header', 'dashboard', 'invalid']),
    would_hold: z.boolean(),
  }),
});
export type DryRunResult = z.infer<typeof dryRunResultSchema>;
