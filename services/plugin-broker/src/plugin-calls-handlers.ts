import { DelayedError, type Job, type Queue } from 'bullmq';
import { PluginCallMessage, type PluginCallResult, type PluginCallValues, type QueueName } from '@rolelink/contracts';
import type { JobHandlers } from '@rolelink/queue';
import { AppError } from '@rolelink/runtime';
import { findPluginUrl, recordHealth, recordPluginHealthNotifications } from '@rolelink/db';
import { fetchConfig } from './calls/fetch-config';
import { registerLink } from './calls/register';
import { submitConfig } from './calls/submit-config';
import { deleteConfig } from './calls/delete-config';
import type { BrokerContext } from './context';
import { checkPluginHealth } from './health/check-health';
import { enqueueHealthChecks, healthCheckJob } from './health/health-poll';

type PluginCallsQueue = typeof QueueName.pluginCalls;
type Waited = keyof PluginCallValues;
const FAILURE_MESSAGE: Record<Waited, string> = {
  register: PluginCallMessage.register,
  'fetch-config': PluginCallMessage.fetchUnreachable,
  'submit-config': PluginCallMessage.submit,
};
/** Kept back from a caller's deadline for queue and Redis latency, so the result arrives while it still waits. */
const DEADLINE_MARGIN_MS = 300;

function toResult<T>(err: unknown, fallback: string, ctx: BrokerContext, job: Job): PluginCallResult<T> {
  if (err instanceof AppError) return { ok: false, error: { status: err.status, message: err.message, code: err.code, ...(err.body ? { body: err.body } : {}) } };
  ctx.logger.error('plugin call failed unexpectedly', { jobId: job.id, job: job.name, error: err instanceof Error ? err.message : String(err) });
  return { ok: false, error: { status: 502, message: fallback, code: 'broker_error' } };
}

/**
 * The plugin-calls jobs, one handler each (payloads parsed by the catalog's schemas). Calls someone waits
 * for answer a PluginCallResult (expected failures are results, not job failures, so they reach the
 * caller with their status and body). A call whose caller's deadline leaves too little time for the
 * plugin's timeout is not started at all: a late register would reach a plugin for a link that was
 * already rolled back.
 */
export function pluginCallsHandlers(ctx: BrokerContext, queue: Queue, concurrency: number): JobHandlers<PluginCallsQueue> {
  // Health checks may take at most half the slots: a poll over many dead plugins (5 s timeouts each)
  // must never leave a link creation or a dashboard waiting for a free slot past its deadline.
  // Priority only orders waiting jobs; this keeps running ones from filling the worker.
  const healthCap = Math.max(1, Math.floor(concurrency / 2));
  let healthInFlight = 0;

  const waited = async <N extends Waited>(job: Job, name: N, deadline: number, needMs: number, run: (budgetMs: number) => Promise<PluginCallValues[N]>): Promise<PluginCallResult<PluginCallValues[N]>> => {
    const budget = deadline - ctx.now() - DEADLINE_MARGIN_MS;
    if (budget < needMs) {
      ctx.logger.warn('plugin call skipped: its caller has stopped waiting', { jobId: job.id, job: name });
      return { ok: false, error: { status: 502, message: FAILURE_MESSAGE[name], code: 'deadline_passed' } };
    }
    try {
      return { ok: true, value: await run(budget) };
    } catch (err) {
      return toResult(err, FAILURE_MESSAGE[name], ctx, job);
    }
  };

  const checkSoon = async (linkId: string): Promise<void> => {
    try {
      const pluginUrl = await findPluginUrl(ctx.prisma, linkId);
      if (pluginUrl !== null) {
        const { name, data, opts } = healthCheckJob(pluginUrl);
        await queue.add(name, data, opts);
      }
    } catch (err) {
      ctx.logger.warn('health check after register not enqueued; the next poll covers it', { linkId, error: err instanceof Error ? err.message : String(err) });
    }
  };

  return {
    async register({ linkId, deadline }, job) {
      const result = await waited(job, 'register', deadline, ctx.timeouts.register, () => registerLink(ctx, linkId));
      // A new link's plugin is checked now rather than at the next poll: its admin is looking at its card.
      if (result.ok) await checkSoon(linkId);
      return result;
    },
    'fetch-config': (data, job) => waited(job, 'fetch-config', data.deadline, ctx.timeouts.fetchConfig, () => fetchConfig(ctx, data)),
    'submit-config': (data, job) => waited(job, 'submit-config', data.deadline, ctx.timeouts.submitConfig, (budget) => submitConfig(ctx, data, budget)),
    async 'delete-config'(data) {
      await deleteConfig(ctx, data);
      return null;
    },
    'health-poll': async () => ({ plugins: await enqueueHealthChecks(ctx, queue) }),
    async 'health-check'({ pluginUrl }, job, token) {
      if (healthInFlight >= healthCap) {
        await job.moveToDelayed(ctx.now() + 200 + Math.floor(Math.random() * 300), token);
        throw new DelayedError();
      }
      healthInFlight++;
      try {
        const result = await checkPluginHealth(ctx, pluginUrl);
        await recordHealth(ctx.prisma, pluginUrl, result, new Date(ctx.now()));
        // The outcome hook of notifications (issue 20, part 3): a transition notifies each link's owner once.
        await recordPluginHealthNotifications(ctx.prisma, pluginUrl, result.status);
        return { status: result.status };
      } finally {
        healthInFlight--;
      }
    },
  };
}
