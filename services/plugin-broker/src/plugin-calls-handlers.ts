import { DelayedError } from 'bullmq';
import type { QueueName } from '@rolelink/contracts';
import type { JobHandlers, Producer } from '@rolelink/queue';
import { recordHealth } from '@rolelink/db/health';
import { findPluginUrl } from '@rolelink/db/links';
import { recordPluginHealthNotifications } from '@rolelink/db/notifications';
import { subscribePluginEvents } from '@rolelink/db/events';
import { subscribedKinds } from '@rolelink/contracts';
import { deleteConfig } from './calls/delete-config';
import { deliverLinkEvents } from './events/deliver-events';
import { sweepEventRetention } from './events/event-retention';
import { sweepEvents } from './events/event-sweep';
import type { BrokerContext } from './context';
import { checkPluginHealth } from './health/check-health';
import { enqueueHealthChecks, pollHealth } from './health/health-poll';

type PluginCalls = typeof QueueName.pluginCalls;

/**
 * The `plugin-calls` jobs: the plugin work nobody waits for, one handler each (payloads parsed by the
 * catalog's schemas). Calls a caller waits for are the internal HTTP routes (internal-routes.ts).
 */
export function pluginCallsHandlers(
  ctx: BrokerContext,
  jobs: Producer<PluginCalls>,
  concurrency: number,
): JobHandlers<PluginCalls> {
  // Health checks may take at most half the slots: a poll over many dead plugins (5 s timeouts each)
  // must never leave a DELETE /config retry waiting behind them all. Priority only orders waiting
  // jobs; this keeps running ones from filling the worker.
  const healthCap = Math.max(1, Math.floor(concurrency / 2));
  let healthInFlight = 0;

  return {
    async 'delete-config'(data, job, token) {
      await deleteConfig(ctx, data, job, token);
      return null;
    },
    'health-poll': async () => ({ plugins: await pollHealth(ctx, jobs) }),
    'event-deliver': async ({ linkId }) => deliverLinkEvents(ctx, jobs, linkId),
    'event-sweep': async () => ({ links: await sweepEvents(ctx, jobs) }),
    'event-retention': async () => ({ rows: await sweepEventRetention(ctx) }),
    async 'health-check'({ pluginUrl }, job, token) {
      if (healthInFlight >= healthCap) {
        await job.moveToDelayed(ctx.now() + 200 + Math.floor(Math.random() * 300), token);
        throw new DelayedError();
      }
      healthInFlight++;
      try {
        const result = await checkPluginHealth(ctx, pluginUrl);
        await recordHealth(ctx.db, pluginUrl, result, new Date(ctx.now()));
        // A report listing `events` sets the event kinds of every link the plugin serves (docs/api.md).
        if (result.events !== undefined) await subscribePluginEvents(ctx.db, pluginUrl, subscribedKinds(result.events));
        // The outcome hook of notifications: a transition notifies each link's owner once.
        await recordPluginHealthNotifications(ctx.db, pluginUrl, result.status);
        return { status: result.status };
      } finally {
        healthInFlight--;
      }
    },
  };
}

/**
 * A new link's plugin is checked now rather than at the next poll (its admin is looking at its card);
 * best effort: the next poll covers a failure.
 */
export async function checkSoon(ctx: BrokerContext, jobs: Producer<PluginCalls>, linkId: string): Promise<void> {
  try {
    const pluginUrl = await findPluginUrl(ctx.db, linkId);
    if (pluginUrl !== null) await enqueueHealthChecks(jobs, [pluginUrl]);
  } catch (err) {
    ctx.logger.warn('health check after register not enqueued; the next poll covers it', {
      linkId,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}
