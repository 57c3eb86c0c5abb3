import { DiscordAPIError } from '@discordjs/rest';
import type { API } from '@discordjs/core/http-only';
import { RESTJSONErrorCodes, type RESTPostAPIChannelMessageJSONBody } from 'discord-api-types/v10';
import type { RedisClient } from '@rolelink/queue';

/**
 * How long a user's DM channel id is kept. The platform keeps one DM channel per bot and user for good
 * (Create DM: "if one already exists, it will be returned instead"), so the id does not go stale; the
 * TTL only lets go of users the bot no longer writes to (one key of ~100 B per recipient).
 */
export const DM_CHANNEL_TTL_MS = 7 * 24 * 60 * 60_000;

/**
 * Answers to a post in a cached channel that may mean the cache is wrong (a channel unknown to the
 * platform; a user it will not let us write to there): the entry is dropped and the channel asked again
 * once. When the user's DMs are closed for real, the second post is refused alike and the caller gets it.
 */
const STALE_CODES: ReadonlySet<number> = new Set([
  RESTJSONErrorCodes.UnknownChannel,
  RESTJSONErrorCodes.CannotSendMessagesToThisUser,
  RESTJSONErrorCodes.CannotSendMessagesToThisUserDueToHavingNoMutualGuilds,
]);

/** The Redis key of a recipient's DM channel: per bot application too, as the channel is the bot user's. */
export const dmChannelKey = (prefix: string, appKey: string, userId: string) =>
  `${prefix}:notify:dm:${appKey}:${userId}`;

export type DmChannelsOptions = {
  api: API;
  redis: RedisClient;
  prefix: string;
  appKey: string;
  /** Waits for one platform request's worth of the notifications' budget share; called before each request. */
  spend: () => Promise<void>;
};

/**
 * Direct messages with the DM channel id kept per recipient in Redis (shared by every worker, expires by
 * itself, costs one extra Create DM when lost), so a DM to a user written to before is one request (the
 * post) instead of two (Create DM, then the post). The recipient is the caller's to get right: the cache
 * maps a user to that user's own channel, so it can never send to anyone else.
 */
export class DmChannels {
  constructor(private readonly o: DmChannelsOptions) {}

  /** Posts to the user's DMs. Throws the platform's refusal (DiscordAPIError) when it will not take it. */
  async send(userId: string, body: RESTPostAPIChannelMessageJSONBody): Promise<void> {
    const key = dmChannelKey(this.o.prefix, this.o.appKey, userId);
    const cached = await this.o.redis.get(key);
    if (cached !== null) {
      try {
        await this.post(cached, body);
        return;
      } catch (err) {
        if (!(err instanceof DiscordAPIError && typeof err.code === 'number' && STALE_CODES.has(err.code))) throw err;
        await this.o.redis.del(key);
      }
    }
    await this.o.spend();
    const dm = await this.o.api.users.createDM(userId);
    await this.o.redis.set(key, dm.id, 'PX', DM_CHANNEL_TTL_MS);
    await this.post(dm.id, body);
  }

  private async post(channelId: string, body: RESTPostAPIChannelMessageJSONBody): Promise<void> {
    await this.o.spend();
    await this.o.api.channels.createMessage(channelId, body);
  }
}
