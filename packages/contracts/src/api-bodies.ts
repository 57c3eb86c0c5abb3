import { z } from 'zod';
import { dryRunResultSchema } from './api';
import { errorBody } from './error-body';
import { userId } from './snowflake';

/**
 * Request and answer bodies of the User Management API (spec 4.1, 7) as zod schemas: the one source
 * of the OpenAPI document (services/api/src/openapi) and of the API's runtime checks. Each one parses to
 * exactly its type in @rolelink/wire-types (wire-types.check.ts fails `pnpm typecheck` otherwise). The
 * API's handlers write these shapes; services/api/test/openapi.int.test.ts checks every documented answer.
 */

export const expiryFields = {
  expires_at: z
    .string()
    .nullable()
    .optional()
    .describe('RFC 3339 time with a time zone, in the future, at most 10 years ahead; null: permanent'),
  ttl_seconds: z
    .number()
    .int()
    .min(1)
    .max(316_224_000)
    .optional()
    .describe('Seconds from the request (1 to 10 years); not together with expires_at'),
};
/** POST /users/:userId's optional body (docs/api.md "Memberships that expire"). */
export const userExpiryBody = z
  .object(expiryFields)
  .strict()
  .describe('Optional. Neither field (or no body): the member is permanent, and an earlier expiry is cleared.');
export const userItem = z.union([userId, z.object({ id: userId, ...expiryFields }).strict()]);
export const idListBody = z
  .array(userItem)
  .describe(
    'User IDs (17 to 20 digit strings), or {"id", "expires_at" | "ttl_seconds"} objects for members that expire; duplicates are removed',
  );

export const listMetaSchema = z.object({
  user_count: z.number().int().describe('Unique users stored'),
  synced_count: z.number().int().describe('Users of the synced set the bot has applied'),
  pending_count: z
    .number()
    .int()
    .describe(
      'Role changes the bot still has to make on the platform, adds and removals together (pending_adds + pending_removals). Not a count of list members: right after a replace from 250,000 members to 30 it is about 249,970, the holders still to lose the role. 0 when the platform matches the synced set. Listed users no call can reach are not counted: those not in the server (they get the role when they join) and deleted accounts.',
    ),
  pending_adds: z.number().int().describe('Of pending_count: members of the synced set still to get the role'),
  pending_removals: z
    .number()
    .int()
    .describe(
      'Of pending_count: holders still to lose the role (removed from the list, or moved out of the synced set)',
    ),
  synced_limit: z.number().int().describe('Users synced per link on this plan (the lowest IDs)'),
  user_limit: z.number().int().describe('Users stored per link on this plan'),
  state: z
    .enum(['disabled', 'paused', 'blocked', 'held', 'awaiting_first_list', 'syncing', 'up_to_date'])
    .describe('The link\'s state, as the dashboard and `rolelink link show` show it (docs/api.md "A link\'s state")'),
  state_reason: z
    .string()
    .nullable()
    .describe(
      'Why, for blocked (above_bot, bot_not_in_guild, …), paused (slot_allowance) and held (shrink, admin_source)',
    ),
  held_removals: z.number().int().describe("Removals held for the server owner's decision; not part of pending_count"),
  expiries: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      'Only with ?include=expiry: user ID → the RFC 3339 time its membership ends on its own. Users not named are permanent.',
    ),
});

export const usersListBody = z.object({ meta: listMetaSchema, data: z.array(z.string()) });
export const userCountBody = z.object({ data: z.object({ user_count: z.number().int() }) });
export const uploadCreatedBody = z.object({ data: z.object({ upload_id: z.uuid() }) });
export const chunkAcceptedBody = z.object({
  data: z.object({
    chunks: z.number().int(),
    users: z.number().int().describe('IDs staged so far, before deduplication'),
  }),
});
export const uploadCancelledBody = z.object({ data: z.object({ cancelled: z.literal(true) }) });
export const userExistsBody = z.object({ data: z.object({ exists: z.boolean() }) });
export const userAddedBody = z.object({
  data: z.object({ added: z.boolean().describe('false when already present') }),
});
/** 200 of `?dry_run=true` on PUT /users and on commit: what would happen; nothing was written. */
export const dryRunBody = z.object({ data: dryRunResultSchema });
export const userRemovedBody = z.object({ data: z.object({ removed: z.boolean().describe('false when absent') }) });

export const shrinkBodySchema = z.object({
  errors: z.object({
    error: z.literal('confirm_required'),
    code: z.literal('shrink'),
    change_id: z.uuid(),
    previous: z.number().int(),
    next: z.number().int(),
    removals: z.number().int(),
    message: z.string(),
  }),
  requestId: z.string(),
});

/** Any error answer: the one error body, or the 409 shrink hold (spec 7 points to 4.1 for its shape). */
export const errorAnswer = z.union([errorBody, shrinkBodySchema]);
