import type { Request } from 'express';
import type { RedisClient } from '@rolelink/queue';
import type { AdminDeps } from '@rolelink/admin';
import type { Db } from '@rolelink/db/client';
import { botInviteUrl, type TokenKeyring } from '@rolelink/domain';
import { guildOutages } from '@rolelink/db/sync';
import {
  applicationKey,
  botGuildFacts,
  createPlatformClient,
  guildMemberFacts,
  readRoleHolders,
  SetupChecker,
  type PlatformShapeError,
} from '@rolelink/platform-client';
import { BrokerClient, type BrokerTimeouts } from '@rolelink/broker-client';
import { PluginJobs, SyncNotifier } from '@rolelink/queue';
import type { Logger } from '@rolelink/runtime';
import { GuildAccess } from './auth/access';
import { OAuthClient, type OAuthSettings } from './auth/oauth-client';
import { GuildReader } from './platform/guild-reader';

/** What the dashboard API's routes work with. */
export type DashboardContext = {
  admin: AdminDeps;
  plugins: Pick<BrokerClient, 'fetchConfig' | 'submitConfig'>;
  reader: GuildReader;
  access: GuildAccess;
  /** The "Check setup" panel's checks (the same as `rolelink doctor`): a new checker per request, so each run asks the platform afresh. */
  setupChecker(): SetupChecker;
  /** The bot's invite for one guild (its authorize page and client id): offered where the bot is not in the server. */
  botInvite(guildId: string): string;
};

/** The admin operations as the signed-in user: what they do is recorded under their name (the audit log). */
export function actingAdmin(ctx: DashboardContext, req: Request): AdminDeps {
  const u = req.session.user!;
  return { ...ctx.admin, actor: { id: u.id, name: u.username, via: 'dashboard' } };
}

export type ContextOptions = {
  db: Db;
  /** Producer connection: sessions, plugin jobs and sync requests fail fast while Redis is away. */
  redis: RedisClient;
  /** Offline-queueing connection for the shared rate limiter (its scripts wait for Redis at start). */
  limiterRedis: RedisClient;
  prefix: string;
  secretKey: Buffer | TokenKeyring;
  allowPrivatePluginHosts: readonly string[];
  platform: { apiUrl: string; botToken: string };
  oauth: OAuthSettings;
  /** The plugin broker's internal routes (BROKER_URL, BROKER_INTERNAL_TOKEN); tests may shorten the waits. */
  broker: { url: string; token: string; timeoutsMs?: Partial<BrokerTimeouts> };
  logger: Logger;
  /** A platform answer of the wrong shape, bot's or user's (counted and logged by main.ts). */
  onShapeError?: (err: PlatformShapeError) => void;
};

/**
 * Wires the dashboard's dependencies once (main.ts, and the tests that run the real dashboard): the
 * same @rolelink/admin functions as the CLI, plugin calls through the broker (HTTP for what is waited
 * for, its queue for DELETE /config), bot-side platform
 * reads through the shared rate limiter, the user's side through OAuth2.
 */
export function buildContext(o: ContextOptions): { ctx: DashboardContext; oauth: OAuthClient; close(): Promise<void> } {
  const platform = createPlatformClient({
    apiUrl: o.platform.apiUrl,
    token: o.platform.botToken,
    redis: o.limiterRedis,
    keyPrefix: o.prefix,
    maxWaitMs: 10_000,
    maxBucketWaitMs: 10_000,
    ...(o.onShapeError ? { events: { shapeError: o.onShapeError } } : {}),
  });
  const plugins = new BrokerClient({
    baseUrl: o.broker.url,
    token: o.broker.token,
    logger: o.logger,
    ...(o.broker.timeoutsMs ? { timeoutsMs: o.broker.timeoutsMs } : {}),
  });
  const pluginJobs = new PluginJobs(o.redis, o.prefix, o.logger);
  const sync = new SyncNotifier(o.redis, o.prefix, o.logger, 2_000);
  // The bot's invite, the dashboard's own (its authorize page and client id): one for every surface.
  const invite = (guildId: string) => botInviteUrl(o.oauth.authorizeUrl, o.oauth.clientId, guildId);
  const admin: AdminDeps = {
    db: o.db,
    secretKey: () => o.secretKey,
    allowPrivatePluginHosts: o.allowPrivatePluginHosts,
    plugin: { register: (linkId) => plugins.register(linkId), deleteConfig: (input) => pluginJobs.deleteConfig(input) },
    requestSync: (linkId) => sync.notify(linkId),
    wakeSync: (linkId) => sync.wake(linkId),
    holders: (guildId, roleId) => readRoleHolders(platform.api, guildId, roleId),
    botFacts: botGuildFacts(platform.api),
    members: guildMemberFacts(platform.api),
    botInvite: invite,
    appKey: applicationKey(o.platform.botToken),
  };
  const oauth = new OAuthClient(o.oauth, o.onShapeError);
  const reader = new GuildReader(platform.api);
  return {
    ctx: {
      admin,
      plugins,
      reader,
      // Guilds the bot is out of stay manageable where they have links: their page says so.
      access: new GuildAccess(oauth, reader, async (ids) => new Set((await guildOutages(o.db.pool, ids)).keys())),
      setupChecker: () => new SetupChecker(platform, invite),
      botInvite: invite,
    },
    oauth,
    async close() {
      await pluginJobs.close();
      await sync.close();
    },
  };
}
