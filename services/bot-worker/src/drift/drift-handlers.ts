import type { QueueName } from '@rolelink/contracts';
import type { JobHandlers } from '@rolelink/queue';
import { runDriftPoll, type DriftPollDeps } from './drift-poll';

/** How often the poll job runs for a guild read interval: a few ticks per interval, between 250 ms and 2 s. */
export function driftTickMs(everyMs: number): number {
  return Math.min(2_000, Math.max(250, Math.round(everyMs / 4)));
}

export function driftHandlers(deps: Omit<DriftPollDeps, 'jobId'>): JobHandlers<typeof QueueName.drift> {
  return {
    poll: async (_data, job) => runDriftPoll({ ...deps, jobId: job.id }),
  };
}
