import { Queue, type JobsOptions } from 'bullmq';
import type { RedisClient } from './connection';
import {
  jobCatalog,
  jobDedup,
  type Dedup,
  type DedupReason,
  type JobData,
  type JobName,
  type QueueName,
} from '@rolelink/contracts';

/** Options of one add: BullMQ's, except that deduplication is named by its reason in the catalog (jobDedup). */
export type AddOptions<Q extends QueueName, N extends JobName<Q>> = Omit<JobsOptions, 'deduplication'> & {
  dedup?: DedupReason<Q, N>;
};

/** A typed producer for one queue of the catalog: payloads are checked against their zod schema. */
export class Producer<Q extends QueueName> {
  readonly queue: Queue;

  constructor(
    readonly name: Q,
    connection: RedisClient,
    prefix: string,
  ) {
    this.queue = new Queue(name, { connection, prefix });
    this.queue.on('error', () => undefined);
  }

  async add<N extends JobName<Q>>(
    job: N,
    data: JobData<Q, N>,
    opts: AddOptions<Q, N> = {},
  ): Promise<string | undefined> {
    const added = await this.queue.add(job, ...this.prepare(job, data, opts));
    return added.id;
  }

  /** Several jobs of one name in one round trip (a health poll's checks), each checked as add() checks it. */
  async addBulk<N extends JobName<Q>>(
    job: N,
    items: readonly JobData<Q, N>[],
    opts: AddOptions<Q, N> = {},
  ): Promise<void> {
    await this.queue.addBulk(
      items.map((data) => {
        const [parsed, jobOpts] = this.prepare(job, data, opts);
        return { name: job, data: parsed, opts: jobOpts };
      }),
    );
  }

  /**
   * A repeating job: BullMQ keeps one scheduler per id, so every replica may upsert it at start. Its
   * payload is checked against the catalog like add()'s.
   */
  async schedule<N extends JobName<Q>>(
    schedulerId: string,
    everyMs: number,
    job: N,
    data: JobData<Q, N>,
    opts: Omit<JobsOptions, 'deduplication' | 'repeat' | 'jobId'> = {},
  ): Promise<void> {
    await this.queue.upsertJobScheduler(
      schedulerId,
      { every: everyMs },
      { name: job, data: this.schema(job).parse(data), opts },
    );
  }

  private schema(job: string): { parse(v: unknown): unknown } {
    const schema = (jobCatalog[this.name] as Record<string, { parse(v: unknown): unknown }>)[job];
    if (!schema) throw new Error(`unknown job ${job} on queue ${this.name}`);
    return schema;
  }

  private prepare<N extends JobName<Q>>(job: N, data: JobData<Q, N>, opts: AddOptions<Q, N>): [unknown, JobsOptions] {
    const { dedup, ...rest } = opts;
    const deduplication = dedup === undefined ? undefined : dedupFor(this.name, job, dedup, data, rest.delay ?? 0);
    return [
      this.schema(job).parse(data),
      { removeOnComplete: 1000, removeOnFail: 5000, ...rest, ...(deduplication ? { deduplication } : {}) },
    ];
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/** The catalog's rule for (queue, job, reason). The lookup is by strings, so its types are checked at add(). */
function dedupFor(queue: QueueName, job: string, reason: string, data: unknown, delayMs: number): Dedup {
  const rules = (
    jobDedup as Record<string, Record<string, Record<string, (data: unknown, delayMs: number) => Dedup>> | undefined>
  )[queue]?.[job];
  const rule = rules?.[reason];
  if (!rule) throw new Error(`no dedup rule ${reason} for job ${job} on queue ${queue}`);
  return rule(data, delayMs);
}
