import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { jobCatalog, type JobData, type JobName, type QueueName } from '@rolelink/contracts';

/** A typed producer for one queue of the catalog: payloads are checked against their zod schema. */
export class Producer<Q extends QueueName> {
  readonly queue: Queue;

  constructor(readonly name: Q, connection: Redis, prefix: string) {
    this.queue = new Queue(name, { connection, prefix });
    this.queue.on('error', () => undefined);
  }

  async add<N extends JobName<Q>>(job: N, data: JobData<Q, N>, opts: JobsOptions = {}): Promise<string | undefined> {
    const schema = (jobCatalog[this.name] as Record<string, { parse(v: unknown): unknown }>)[job];
    if (!schema) throw new Error(`unknown job ${job} on queue ${this.name}`);
    const added = await this.queue.add(job, schema.parse(data), { removeOnComplete: 1000, removeOnFail: 5000, ...opts });
    return added.id;
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
