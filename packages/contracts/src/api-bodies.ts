import { z } from 'zod';
import { dryRunResultSchema } from './api';
import { userId } from './snowflake';

/**
 * Request and answer bodies of the User Management API (spec 4.1, 7) as zod schemas: the one source
 * of the OpenAPI document (services/api/src/openapi) and of the types in api.ts. The API's handlers
 * write these shapes; services/api/test/openapi.int.test.ts checks every documented answer against them.
 */

export const idListBody = z.array(userId).describe('User IDs (17 to 20 digit strings); duplicates are removed');

export const listMetaSchema = z.object({
  user_count: z.number().int().describe('Unique users stored'),
  synced_count: z.number().int().describe('Users of the synced set the bot has applied'),
  pending_count: z
    .number()
    .int()
    .describe(
      'Role changes the bot still has to make on the platform, adds and removals together (pending_adds + pending_removals). Not a count of list members: right after a replace from 250,000 members to 30 it is about 249,970, the holders still to lose the role. 0 when the platform matches the synced set.',
    ),
  pending_adds: z.number().int().describe('Of pending_count: members of the synced set still to get the role'),
  pending_removals: z.number().int().describe('Of pending_count: holders still to lose the role (removed from the list, or moved out of the synced set)'),
  synced_limit: z.number().int().describe('Users synced per link on this plan (the lowest IDs)'),
  user_limit: z.number().int().describe('Users stored per link on this plan'),
});

export const usersListBody = z.object({ meta: listMetaSchema, data: z.array(z.string()) });
export const userCountBody = z.object({ data: z.object({ user_count: z.number().int() }) });
export const uploadCreatedBody = z.object({ data: z.object({ upload_id: z.uuid() }) });
export const chunkAcceptedBody = z.object({ data: z.object({ chunks: z.number().int(), users: z.number().int().describe('IDs staged so far, before deduplication') }) });
export const uploadCancelledBody = z.object({ data: z.object({ cancelled: z.literal(true) }) });
export const userExistsBody = z.object({ data: z.object({ exists: z.boolean() }) });
export const userAddedBody = z.object({ data: z.object({ added: z.boolean().describe('false when already present') }) });
/** 200 of `?dry_run=true` on PUT /users and on commit: what would happen; nothing was written. */
export const dryRunBody = z.object({ data: dryRunResultSchema });
export const userRemovedBody = z.object({ data: z.object({ removed: z.boolean().describe('false when absent') }) });

export const errorBodySchema = z.object({
  statusCode: z.number().int(),
  message: z.string(),
  details: z.array(z.string()).optional().describe('On validation errors: the offending paths'),
});

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

// The hand-written types of api.ts must stay what these schemas describe (checked by the compiler).
import type { ListMeta, ShrinkBody } from './api';
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const listMetaMatchesSchema: Same<ListMeta, z.infer<typeof listMetaSchema>> = true;
const shrinkBodyMatchesSchema: Same<ShrinkBody, z.infer<typeof shrinkBodySchema>> = true;
void [listMetaMatchesSchema, shrinkBodyMatchesSchema];
