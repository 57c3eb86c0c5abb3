import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import { PLUGIN_HEALTH_STATUSES } from '@rolelink/contracts';
import type { BrokerContext } from '../context';
import { countLinksByHealth, pluginUrlsAfter, pruneUnusedPlugins } from '@rolelink/db';

export const HEALTH_SCHEDULER_ID = 'plugin-health';
const PAGE = 1000;

/**
 * Registers (or updates) the repeating poll. Idempotent across replicas and restarts: BullMQ keeps one
 * scheduler per id, so every broker may call it at start.
 */
export async function scheduleHealthPolls(queue: Queue, everyMs: number): Promise<void> {
  await queue.upsertJobScheduler(HEALTH_SCHEDULER_ID, { every: everyMs }, { name: 'health-poll', data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } });
}

/** A `health-check` job for one plugin URL, deduplicated per URL and below interactive calls. */
export function healthCheckJob(pluginUrl: string) {
  return {
    name: 'health-check',
    data: { pluginUrl },
    opts: {
      deduplication: { id: `health:${createHash('sha256').update(pluginUrl).digest('hex').slice(0, 32)}` },
      priority: 10,
      attempts: 1,
      removeOnComplete: true,
      removeOnFail: true,
    },
  };
}

/**
 * One poll: a `health-check` job per distinct plugin URL (a plugin serving many links is asked once).
 * Deduplicated per URL, so a slow plugin never piles up checks, and prioritised below interactive calls
 * (jobs without a priority run first), so polling never delays a dashboard or link creation.
 */
export async function enqueueHealthChecks(ctx: BrokerContext, queue: Queue): Promise<number> {
  let after = '';
  let total = 0;
  for (;;) {
    const urls = await pluginUrlsAfter(ctx.prisma, after, PAGE);
    if (urls.length === 0) break;
    await queue.addBulk(urls.map((pluginUrl) => healthCheckJob(pluginUrl)));
    total += urls.length;
    after = urls[urls.length - 1]!;
    if (urls.length < PAGE) break;
  }
  await pruneUnusedPlugins(ctx.prisma);
  if (ctx.metrics) {
    const counts = await countLinksByHealth(ctx.prisma);
    const gauge = ctx.metrics.pluginHealth();
    for (const status of PLUGIN_HEALTH_STATUSES) gauge.set({ status }, counts[status] ?? 0);
  }
  return total;
}
