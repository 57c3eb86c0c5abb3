import type { RedisClient } from './connection';
import { QueueName } from '@rolelink/contracts';
import type { Logger } from '@rolelink/runtime';
import { Producer } from './producer';
import { customBackoff } from './retry-backoff';

export type DeleteConfigInput = {
  pluginUrl: string;
  guildId: string;
  roleId: string;
  tokenCiphertext: Buffer;
  afterEvent?: string | null;
};

/**
 * Plugin work nobody waits for, handed to services/plugin-broker through the `plugin-calls` queue (with
 * retries). Calls a caller waits for (register, config) are the broker's HTTP routes: @rolelink/broker-client.
 */
export class PluginJobs {
  private readonly producer: Producer<typeof QueueName.pluginCalls>;

  constructor(
    connection: RedisClient,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.producer = new Producer(QueueName.pluginCalls, connection, prefix);
  }

  /**
   * Fire-and-forget DELETE {plugin}/config (spec 3.1): enqueues and returns; never throws. `afterEvent`:
   * the link's `link.deleted` event, when one was recorded; the broker sends DELETE /config only once
   * that event was delivered or dropped, since a plugin forgets the link's token (its signing secret)
   * on DELETE /config and could not verify the event afterwards.
   */
  async deleteConfig(input: DeleteConfigInput): Promise<void> {
    try {
      await this.producer.add(
        'delete-config',
        {
          pluginUrl: input.pluginUrl,
          guildId: input.guildId,
          roleId: input.roleId,
          tokenCiphertext: input.tokenCiphertext.toString('base64'),
          ...(input.afterEvent ? { afterEvent: input.afterEvent } : {}),
        },
        {
          attempts: 3,
          // The broker's Consumer registers the queue's rule (queueBackoff) as BullMQ's custom strategy.
          backoff: customBackoff,
          removeOnComplete: true,
          removeOnFail: { age: 7 * 24 * 3600 },
        },
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

  close(): Promise<void> {
    return this.producer.close().catch(() => undefined);
  }
}
