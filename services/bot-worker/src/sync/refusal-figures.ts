import type { Pool } from 'pg';
import { countBlockedLinks, countGuildOutages, membersListingBlockedSince } from '@rolelink/db/sync';
import type { RefusalSample } from '@rolelink/runtime';

/** The standing refusals at scrape time (the worker's refusal gauges): three small reads. */
export async function readRefusals(db: Pool, appKey: string): Promise<RefusalSample> {
  const [since, guildsUnavailable, linksBlocked] = await Promise.all([
    membersListingBlockedSince(db, appKey),
    countGuildOutages(db),
    countBlockedLinks(db),
  ]);
  return { membersListingBlocked: since ? 1 : 0, guildsUnavailable, linksBlocked };
}
