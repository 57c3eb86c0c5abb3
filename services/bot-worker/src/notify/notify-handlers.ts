import type { Job } from 'bullmq';
import type { Pool } from 'pg';
import { QueueName } from '@rolelink/contracts';
import { guildsWithDueNotifications } from '@rolelink/db/notifications';
import type { JobHandlers, Producer } from '@rolelink/queue';
import { deliverGuildNotifications, type NotifyDeliveryOptions } from './notify-delivery';
import { sweepNotificationRetention } from './notification-retention';

/**
 * `sweep` asks for one `deliver` per guild with a notification due (deduplicated per guild, so a slow
 * delivery never stacks); `deliver` sends that guild's messages; `retention` deletes delivered rows past
 * their retention. Events only write rows: nothing on their path waits for Redis or the platform.
 */
export function notifyHandlers(
  o: NotifyDeliveryOptions & { retentionDays: number; sessionDb: Pool },
  producer: Producer<typeof QueueName.notify>,
): JobHandlers<typeof QueueName.notify> {
  return {
    async sweep() {
      const guilds = await guildsWithDueNotifications(o.db, o.windowMs);
      for (const guildId of guilds) await producer.add('deliver', { guildId }, { dedup: 'due' });
      return { guilds: guilds.length };
    },
    deliver: ({ guildId }, _job: Job) => deliverGuildNotifications(o, guildId),
    retention: async () => ({ rows: await sweepNotificationRetention(o.sessionDb, o.retentionDays, o.logger) }),
  };
}
