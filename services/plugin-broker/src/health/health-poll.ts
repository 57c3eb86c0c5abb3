import { PLUGIN_HEALTH_STATUSES, type QueueName } from '@rolelink/contracts';
import type { Producer } from '@rolelink/queue';
import type { BrokerContext } from '../context';
import { countLinksByHealth, pluginUrlsAfter, pruneUnusedPlugins } from '@rolelink/db/health';

const PAGE = 1000;

type PluginCalls = Producer<typeof QueueName.pluginCalls>;

/**
 * `health-check` jobs, deduplicated per URL by the catalog's rule (a slow plugin never piles up checks)
 * and below interactive work (priority 10; jobs without one run first).
 */
export function enqueueHealthChecks(jobs: PluginCalls, pluginUrls: readonly string[]): Promise<void> {
  return jobs.addBulk(
    'health-check',
    pluginUrls.map((pluginUrl) => ({ pluginUrl })),
    { dedup: 'perUrl', priority: 10, attempts: 1, removeOnComplete: true, removeOnFail: true },
  );
}

/**
 * One poll: a `health-check` job per distinct plugin URL (a plugin serving many links is asked once).
 * Deduplicated per URL, so a slow plugin never piles up checks, and prioritised below interactive calls
 * (jobs without a priority run first), so polling never delays a dashboard or link creation.
 */
export async function pollHealth(ctx: BrokerContext, jobs: PluginCalls): Promise<number> {
  let after = '';
  let total = 0;
  for (;;) {
    const urls = await pluginUrlsAfter(ctx.db, after, PAGE);
    if (urls.length === 0) break;
    await enqueueHealthChecks(jobs, urls);
    total += urls.length;
    after = urls[urls.length - 1]!;
    if (urls.length < PAGE) break;
  }
  await pruneUnusedPlugins(ctx.db);
  if (ctx.metrics) {
    const counts = await countLinksByHealth(ctx.db);
    const gauge = ctx.metrics.pluginHealth();
    for (const status of PLUGIN_HEALTH_STATUSES) gauge.set({ status }, counts[status] ?? 0);
  }
  return total;
}
