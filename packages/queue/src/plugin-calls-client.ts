import { Job, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { PluginCallMessage, QueueName, jobCatalog, type ConfigView, type JobData, type PluginCallResult, type PluginCallValues } from '@rolelink/contracts';
import { AppError, createLogger, zodIssues, type Logger } from '@rolelink/runtime';
import { Producer } from './producer';

/**
 * How long a caller waits for the broker: a little above the plugin timeouts of spec 4.2 (5 s, 10 s for
 * POST /config) so that a healthy broker always answers first and a missing one yields a 502, never a hang.
 */
export const DEFAULT_PLUGIN_CALL_DEADLINES = { register: 7_000, fetchConfig: 7_000, submitConfig: 17_000 } as const;

type WaitedCall = keyof PluginCallValues;
type PluginCallsQueue = typeof QueueName.pluginCalls;

export type PluginCallsClientOptions = {
  /** A producer connection (producerConnection()): fails fast when Redis is down. */
  connection: Redis;
  prefix: string;
  deadlineMs?: { register?: number; fetchConfig?: number; submitConfig?: number };
  logger?: Logger;
};

/**
 * Typed calls to services/plugin-broker over the `plugin-calls` queue (design: the broker is the only
 * process that opens connections to plugins). Waited calls resolve with the broker's result or reject
 * with the AppError the dashboard shows (spec 7); Redis down, no broker, or a passed deadline all give
 * the same 502 as an unreachable plugin.
 */
export class PluginCallsClient {
  private readonly producer: Producer<PluginCallsQueue>;
  private readonly deadlines: { register: number; fetchConfig: number; submitConfig: number };
  private readonly logger: Logger;
  private events: { queueEvents: QueueEvents; connection: Redis } | null = null;
  private closing: Promise<void> | null = null;

  constructor(private readonly opts: PluginCallsClientOptions) {
    this.producer = new Producer(QueueName.pluginCalls, opts.connection, opts.prefix);
    this.deadlines = { ...DEFAULT_PLUGIN_CALL_DEADLINES, ...opts.deadlineMs };
    this.logger = opts.logger ?? createLogger('plugin-calls-client');
  }

  /**
   * POST {plugin}/register for a link whose row is already committed (the broker reads its URL and
   * encrypted token by id). Rejects with 502 `Failed to register with plugin server` on any failure.
   */
  async register(linkId: bigint | string): Promise<void> {
    await this.call('register', { linkId: String(linkId) }, this.deadlines.register, PluginCallMessage.register);
  }

  /** Fire-and-forget DELETE {plugin}/config (spec 3.1): enqueues and returns; never throws. */
  async deleteConfig(input: { pluginUrl: string; guildId: string; roleId: string; tokenCiphertext: Buffer }): Promise<void> {
    try {
      await this.producer.add(
        'delete-config',
        { pluginUrl: input.pluginUrl, guildId: input.guildId, roleId: input.roleId, tokenCiphertext: input.tokenCiphertext.toString('base64') },
        { attempts: 3, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } },
      );
    } catch (err) {
      this.logger.warn('DELETE /config not enqueued; the plugin will not be told about the deletion', {
        pluginUrl: input.pluginUrl,
        guildId: input.guildId,
        roleId: input.roleId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** GET {plugin}/config: the validated form with fresh values, or the iframe page (with rl_token when viewerId is given). */
  fetchConfig(linkId: bigint | string, opts: { refresh?: boolean; viewerId?: string } = {}): Promise<ConfigView> {
    const data = { linkId: String(linkId), refresh: opts.refresh ?? false, ...(opts.viewerId !== undefined ? { viewerId: opts.viewerId } : {}) };
    return this.call('fetch-config', data, this.deadlines.fetchConfig, PluginCallMessage.fetchUnreachable);
  }

  /**
   * POST {plugin}/config after validating `config` against the form (400 with per-field `errors`). A 4xx
   * from the plugin keeps its status; 5xx, timeout or network give 502 (spec 4.2 rule 5).
   */
  submitConfig(linkId: bigint | string, config: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
    return this.call('submit-config', { linkId: String(linkId), config }, this.deadlines.submitConfig, PluginCallMessage.submit);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.events) {
        await this.events.queueEvents.close().catch(() => undefined);
        this.events.connection.disconnect();
      }
      await this.producer.close().catch(() => undefined);
    })();
    return this.closing;
  }

  private queueEvents(): QueueEvents {
    if (!this.events) {
      // Blocking reads need a connection of their own that waits for Redis (BullMQ requirement).
      const connection = this.opts.connection.duplicate({ maxRetriesPerRequest: null, enableOfflineQueue: true });
      connection.on('error', () => undefined);
      const queueEvents = new QueueEvents(QueueName.pluginCalls, { connection, prefix: this.opts.prefix });
      queueEvents.on('error', () => undefined);
      this.events = { queueEvents, connection };
    }
    return this.events.queueEvents;
  }

  private async call<N extends WaitedCall>(name: N, data: Omit<JobData<PluginCallsQueue, N>, 'deadline'>, ttl: number, failure: string): Promise<PluginCallValues[N]> {
    const unavailable = (reason: string): AppError => {
      this.logger.warn(`plugin call ${name} failed: ${reason}`);
      return new AppError(502, failure, 'plugin_unreachable');
    };
    const deadline = Date.now() + ttl;
    const parsed = jobCatalog[QueueName.pluginCalls][name].safeParse({ ...data, deadline });
    if (!parsed.success) throw AppError.validation(zodIssues(parsed.error));
    const payload = parsed.data;
    let job: Job;
    try {
      job = await this.producer.queue.add(name, payload, { attempts: 1, removeOnComplete: { age: 300 }, removeOnFail: { age: 3600 } });
    } catch (err) {
      throw unavailable(`not enqueued (${err instanceof Error ? err.message : String(err)})`);
    }
    let result: PluginCallResult<PluginCallValues[N]>;
    try {
      result = await withDeadline(job.waitUntilFinished(this.queueEvents(), ttl) as Promise<PluginCallResult<PluginCallValues[N]>>, ttl + 250);
    } catch (err) {
      // The last look covers a completion the event stream missed; otherwise the job must not run late
      // (a register after its caller rolled back): remove it if still waiting; the broker also skips it.
      const late = await Job.fromId(this.producer.queue, job.id!).catch(() => undefined);
      if (late?.finishedOn && !late.failedReason && late.returnvalue) result = late.returnvalue as PluginCallResult<PluginCallValues[N]>;
      else {
        await job.remove().catch(() => undefined);
        throw unavailable(err instanceof Error ? err.message : String(err));
      }
    }
    // Results can carry a short-lived iframe token and form values: they do not stay in Redis.
    await job.remove().catch(() => undefined);
    if (!result?.ok) {
      const e = result?.error ?? { status: 502, message: failure, code: 'plugin_unreachable' };
      throw new AppError(e.status, e.message, e.code, e.body);
    }
    return result.value;
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
