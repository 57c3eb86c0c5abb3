import { DiscordAPIError } from '@discordjs/rest';
import type { API } from '@discordjs/core/http-only';
import type { Pool } from 'pg';
import { inTransaction } from '@rolelink/db/client';
import {
  dueNotifications,
  getNotifySettings,
  lockGuildNotifications,
  markNotificationsDelivered,
  type NotificationRow,
} from '@rolelink/db/notifications';
import type { Logger } from '@rolelink/runtime';
import type { DmChannels } from './dm-channels';
import { notificationMessage } from './notify-message';

export type NotifyDeliveryOptions = {
  db: Pool;
  api: API;
  logger: Logger;
  windowMs: number;
  /** The owners' DMs, their channel ids cached per recipient. */
  dms: DmChannels;
  /** Waits for one platform request's worth of the notifications' share of the global budget (NOTIFY_SHARE). */
  spend: () => Promise<void>;
};
export type DeliveryResult = { messages: number; folded: number; off: number; failed: number };

/**
 * Delivers a guild's due notifications: per event kind, one message (a burst folds into it) to the
 * owner's DMs and/or the chosen channel, as the guild's settings say; a kind that is off is marked so and
 * sends nothing. One transaction per kind, under the guild's advisory lock, so two replicas never send the
 * same rows and a failure of one kind does not undo another's marks.
 *
 * A target the platform refuses for good (4xx: DMs closed, channel gone, no permission) is skipped and
 * the row says where the message did go (`failed` when nowhere). A rate limit, a 5xx or an unreachable
 * limiter throws: the rows stay pending and the job's retry, or the next sweep, sends them. Delivery is at
 * least once: a crash between the platform's answer and the commit sends that message again.
 *
 * The owner is asked of the platform once per delivery (however many kinds it sends), never kept longer:
 * ownership can be transferred, the bot hears of it no other way, and a stale owner would send the
 * guild's notifications to someone who no longer runs it. guild.owner_id is the operator's record (set by
 * `rolelink guild set-plan --owner`), not the platform's, so it is not used here either.
 */
export async function deliverGuildNotifications(o: NotifyDeliveryOptions, guildId: string): Promise<DeliveryResult> {
  const result: DeliveryResult = { messages: 0, folded: 0, off: 0, failed: 0 };
  let owner: Promise<string> | undefined;
  const ownerId = () =>
    (owner ??= (async () => {
      await o.spend();
      return (await o.api.guilds.get(guildId)).owner_id;
    })());
  const kinds = [...new Set((await dueNotifications(o.db, guildId, o.windowMs)).map((r) => r.kind))];
  for (const kind of kinds) {
    await inTransaction(o.db, async (c) => {
      await lockGuildNotifications(c, guildId);
      // Read again under the lock: another replica may have sent them, or opened the kind's window.
      const rows = (await dueNotifications(c, guildId, o.windowMs)).filter((r) => r.kind === kind);
      if (rows.length === 0) return;
      const settings = await getNotifySettings(c, guildId);
      const ids = rows.map((r) => r.id);
      if (!settings.events.includes(kind) || (!settings.dm_owner && settings.channel_id === null)) {
        await markNotificationsDelivered(c, ids, 'off', []);
        result.off += rows.length;
        return;
      }
      const to = await send(o, guildId, ownerId, settings, rows);
      if (to.length === 0) {
        await markNotificationsDelivered(c, ids, 'failed', []);
        result.failed += rows.length;
        return;
      }
      // The first row carries the message (and opens the kind's window); the rest were folded into it.
      await markNotificationsDelivered(c, ids.slice(0, 1), 'sent', to);
      await markNotificationsDelivered(c, ids.slice(1), 'folded', to);
      result.messages++;
      result.folded += rows.length - 1;
    });
  }
  return result;
}

async function send(
  o: NotifyDeliveryOptions,
  guildId: string,
  ownerId: () => Promise<string>,
  settings: { dm_owner: boolean; channel_id: string | null },
  rows: NotificationRow[],
): Promise<string[]> {
  const body = { content: notificationMessage(rows[0]!.kind, rows), allowed_mentions: { parse: [] } };
  const to: string[] = [];
  if (settings.dm_owner) {
    const sent = await refusedIsFalse(o, guildId, 'dm', async () => o.dms.send(await ownerId(), body));
    if (sent) to.push('dm');
  }
  if (settings.channel_id !== null) {
    const channelId = settings.channel_id;
    const post = async () => {
      await o.spend();
      await o.api.channels.createMessage(channelId, body);
    };
    if (await refusedIsFalse(o, guildId, 'channel', post)) to.push('channel');
  }
  return to;
}

/** True when sent; false when the platform refused for good (4xx other than 429); anything else throws. */
async function refusedIsFalse(
  o: NotifyDeliveryOptions,
  guildId: string,
  target: string,
  call: () => Promise<unknown>,
): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (err) {
    if (err instanceof DiscordAPIError && err.status >= 400 && err.status < 500 && err.status !== 429) {
      o.logger.warn('notification refused by the platform', {
        guildId,
        target,
        status: err.status,
        code: err.code,
        err: err.message,
      });
      return false;
    }
    throw err;
  }
}
