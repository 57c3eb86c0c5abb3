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
