import type { Job } from 'bullmq';
import { QueueName } from '@rolelink/contracts';
import type { Metrics } from '@rolelink/runtime';

/**
 * rolelink_job_duration_seconds of every role-sync job, by outcome: `rate_limited` for a sync slice
 * that yielded to a 429 (the job answers `yield`), `failed` for a throw, `completed` otherwise.
 */
export function timeJobs(
  metrics: Metrics | undefined,
): ((job: Job, run: () => Promise<unknown>) => Promise<unknown>) | undefined {
  const durations = metrics?.jobDuration();
  if (!durations) return undefined;
  return async (job, run) => {
    const started = performance.now();
    let outcome = 'completed';
    try {
      const answer = await run();
      if (job.name === 'sync' && answer === 'yield') outcome = 'rate_limited';
      return answer;
    } catch (err) {
      outcome = 'failed';
      throw err;
    } finally {
      durations.observe({ queue: QueueName.roleSync, job: job.name, outcome }, (performance.now() - started) / 1000);
    }
  };
}
