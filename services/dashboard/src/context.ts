import type { Request } from 'express';
import type { Redis } from 'ioredis';
import type { AdminDeps } from '@rolelink/admin';
import type { Db } from '@rolelink/db';
import { createPlatformClient, guildMemberFacts, readRoleHolders } from '@rolelink/platform-client';
import { PluginCallsClient, SyncNotifier } from '@rolelink/queue';
import type { Logger } from '@rolelink/runtime';
import { GuildAccess } from './auth/access';
import { OAuthClient, type OAuthSettings } from './auth/oauth-client';
import { GuildReader } from './platform/guild-reader';

/** What the dashboard API's routes work with. */
export type DashboardContext = {
  admin: AdminDeps;
  plugins: Pick<PluginCallsClient, 'fetchConfig' | 'submitConfig'>;
  reader: GuildReader;
  access: GuildAccess;
};

/** The admin operations as the signed-in user: what they do is recorded under their name (the audit log). */
export function actingAdmin(ctx: DashboardContext, req: Request): AdminDeps {
  const u = req.session.user!;
  return { ...ctx.admin, actor: { id: u.id, name: u.username, via: 'dashboard' } };
}

export type ContextOptions = {
  db: Db;
  /** Producer connection: sessions, plugin calls and sync requests fail fast while Redis is away. */
  redis: Redis;
  /** Offline-queueing connection for the shared rate limiter (its scripts wait for Redis at start). */
  limiterRedis: Redis;
  prefix: string;
  secretKey: Buffer;
  allowPrivatePluginHosts: readonly string[];
  platform: { apiUrl: string; botToken: string };
  oauth: OAuthSettings;
  logger: Logger;
  /** Tests shorten how long a plugin call is waited for. */
  pluginDeadlines?: { register?: number; fetchConfig?: number; submitConfig?: number };
};

/**
 * Wires the dashboard's dependencies once (main.ts, and the tests that run the real dashboard): the
 * same @rolelink/admin functions as the CLI, plugin calls through the broker's queue, bot-side platform
 * reads through the shared rate limiter, the user's side through OAuth2.
 */
export function buildContext(o: ContextOptions): { ctx: DashboardContext; oauth: OAuthClient; close(): Promise<void> } {
  const platform = createPlatformClient({ apiUrl: o.platform.apiUrl, token: o.platform.botToken, redis: o.limiterRedis, keyPrefix: o.prefix, maxWaitMs: 10_000, maxBucketWaitMs: 10_000 });
  const plugins = new PluginCallsClient({ connection: o.redis, prefix: o.prefix, logger: o.logger, ...(o.pluginDeadlines ? { deadlineMs: o.pluginDeadlines } : {}) });
  const sync = new SyncNotifier(o.redis, o.prefix, o.logger, 2_000);
  const admin: AdminDeps = {
    db: o.db,
    secretKey: () => o.secretKey,
    allowPrivatePluginHosts: o.allowPrivatePluginHosts,
    plugin: { register: (linkId) => plugins.register(linkId), deleteConfig: (input) => plugins.deleteConfig(input) },
    requestSync: (linkId) => sync.notify(linkId),
    holders: (guildId, roleId) => readRoleHolders(platform.api, guildId, roleId),
    members: guildMemberFacts(platform.api),
  };
  const oauth = new OAuthClient(o.oauth);
  const reader = new GuildReader(platform.api);
  return {
    ctx: { admin, plugins, reader, access: new GuildAccess(oauth, reader) },
    oauth,
    async close() {
      await plugins.close();
      await sync.close();
    },
  };
}
