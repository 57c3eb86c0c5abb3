import { UnrecoverableError, Worker, type Job, type WorkerOptions } from 'bullmq';
import { redisAnswers, type RedisClient } from './connection';
import { jobCatalog, type JobData, type JobName, type QueueName } from '@rolelink/contracts';
import { queueBackoff, retryBackoffStrategy } from './retry-backoff';

/** One handler per job name of the queue, each given its payload parsed by the catalog's schema. */
export type JobHandlers<Q extends QueueName> = {
  [N in JobName<Q>]: (data: JobData<Q, N>, job: Job, token?: string) => Promise<unknown>;
};

export type ConsumerOptions = Omit<WorkerOptions, 'connection' | 'prefix' | 'autorun'> & {
  /** A worker connection (workerConnection(): waits for Redis, as BullMQ's blocking reads require). */
  connection: RedisClient;
  prefix: string;
  /** A job whose name the catalog does not know (left by an older or newer release); throws by default. */
  unknownJob?: (job: Job) => Promise<unknown>;
  /** Wraps every job, its parse included (a job-duration metric sees malformed payloads fail too). */
  around?: (job: Job, run: () => Promise<unknown>) => Promise<unknown>;
};

/**
 * The typed side of a queue of the catalog, as Producer is for adding: a BullMQ Worker whose jobs are
 * dispatched by name to `handlers` with their payload parsed. A payload that fails its schema fails the job
 * with BullMQ's `UnrecoverableError`: a retry would read the same bytes, so it is not retried whatever the
 * job's `attempts`. (An unknown job name stays retryable: during a rolling release a newer worker knows it.) A queue with an entry in `queueBackoff`
 * gets the project's backoff rule as its `settings.backoffStrategy` (jobs select it with `customBackoff`).
 * `worker` is BullMQ's, for events and close().
 */
export class Consumer<Q extends QueueName> {
  readonly worker: Worker;
  private readonly connection: RedisClient;

  constructor(
    readonly name: Q,
    private readonly handlers: JobHandlers<Q>,
    options: ConsumerOptions,
  ) {
    const { unknownJob, around, ...workerOptions } = options;
    this.connection = options.connection;
    const processor = (job: Job, token?: string) => this.dispatch(job, token, unknownJob);
    const backoff = queueBackoff[name];
    const settings = backoff
      ? { backoffStrategy: retryBackoffStrategy(backoff), ...workerOptions.settings }
      : workerOptions.settings;
    this.worker = new Worker(name, around ? (job, token) => around(job, () => processor(job, token)) : processor, {
      ...workerOptions,
      ...(settings ? { settings } : {}),
    });
  }

  private async dispatch(
    job: Job,
    token: string | undefined,
    unknownJob: ConsumerOptions['unknownJob'],
  ): Promise<unknown> {
    if (!isJobName(this.name, job.name)) {
      if (unknownJob) return unknownJob(job);
      throw new Error(`unknown ${this.name} job ${job.name}`);
    }
    return this.run(job.name, job, token);
  }

  private run<N extends JobName<Q>>(name: N, job: Job, token: string | undefined): Promise<unknown> {
    const schema = jobCatalog[this.name][name] as {
      safeParse(v: unknown): { success: true; data: JobData<Q, N> } | { success: false; error: Error };
    };
    const parsed = schema.safeParse(job.data);
    if (!parsed.success) return Promise.reject(new UnrecoverableError(parsed.error.message));
    return this.handlers[name](parsed.data, job, token);
  }

  /**
   * Stops taking jobs and waits for the running ones, while Redis answers. During an outage it waits for
   * none (a running job could not record its result anyway; its lock lapses and another worker takes it)
   * and drops the blocking connection instead of queueing a QUIT behind the outage.
   */
  close(): Promise<void> {
    return this.worker.close(!redisAnswers(this.connection));
  }
}

function isJobName<Q extends QueueName>(queue: Q, name: string): name is JobName<Q> {
  return Object.prototype.hasOwnProperty.call(jobCatalog[queue], name);
}
