import type { PoolClient } from 'pg';
import type { API } from '@discordjs/core/http-only';
import type { ChangeCause, LinkContext } from './link-context';
import type { RefusalContext } from './refusals';
import type { ChangeMetrics } from './slice-result';

/**
 * What applying one range of a link's diff works with (apply-range.ts), and what the removal guard
 * (admin-guard.ts) reads of it. Its own file so both can use it without importing each other.
 */
export type RangeContext = {
  client: PoolClient;
  api: API;
  link: LinkContext;
  cutoff: bigint | null;
  /** Why these calls are made: the audit-log reason and each member's change history say so. */
  cause: ChangeCause;
  /** True once the slice has used its time or change budget. */
  exhausted(): boolean;
  /** Counts one platform call against the slice's budget. */
  spend(): void;
  metrics?: ChangeMetrics;
  /**
   * For refusals that stop the whole link or guild (refusals.ts). `blockPending`: the link is blocked for
   * a cause the guild's roles cannot show (2FA, an unexplained 50013): the first accepted call ends it.
   */
  refusal: RefusalContext & { blockPending: boolean };
};
