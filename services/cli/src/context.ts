import os from 'node:os';
import type { RedisClient } from '@rolelink/queue';
import type { AdminDeps } from '@rolelink/admin';
import { createDb, type Db } from '@rolelink/db/client';
import type { API } from '@discordjs/core/http-only';
import { botInviteUrl, platformAuthorizeUrl, type TokenKeyring } from '@rolelink/domain';
import {
  applicationKey,
  botGuildFacts,
  createPlatformClient,
  guildMemberFacts,
  readRoleHolders,
  SetupChecker,
  type PlatformClient,
} from '@rolelink/platform-client';
import { BrokerClient } from '@rolelink/broker-client';
import { PluginJobs, SyncNotifier, producerConnection } from '@rolelink/queue';
import { AppError, secretKeyring, silentLogger } from '@rolelink/runtime';
import { DEFAULT_BROKER_URL, type CliEnv } from './env';

/**
 * Who runs the command, for the audit log: ROLELINK_OPERATOR when set (e.g. the on-call engineer's name in a
 * shared pod), else the operating-system user and host.
 */
function operatorName(env: CliEnv): string {
  if (env.ROLELINK_OPERATOR) return env.ROLELINK_OPERATOR;
  try {
    return `${os.userInfo().username}@${os.hostname()}`;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}@${os.hostname()}`;
  }
}

/**
 * Connections a command needs, opened on first use and closed once at the end, so `rolelink guild
 * set-plan` does not wait on a platform it never calls.
 */
export class CliContext {
  private db?: Db;
  private redis?: RedisClient;
  private broker?: BrokerClient;
  private jobs?: PluginJobs;
  private sync?: SyncNotifier;
  private platform?: PlatformClient;
  private readonly closers: (() => Promise<unknown> | void)[] = [];

  constructor(readonly env: CliEnv) {}

  database(): Db {
    if (!this.db) {
      this.db = createDb(this.env.DATABASE_URL, { max: 4 });
      const db = this.db;
      this.closers.push(() => db.close());
    }
    return this.db;
  }

  redisConnection(): RedisClient {
    if (!this.redis) {
      this.redis = producerConnection(this.env.REDIS_URL);
      const redis = this.redis;
      this.closers.push(() => redis.disconnect());
    }
    return this.redis;
  }

  /** The plugin broker's internal routes: the plugin calls a command waits for. */
  brokerClient(): BrokerClient {
    if (!this.broker) {
      const token = this.env.BROKER_INTERNAL_TOKEN;
      if (!token)
        throw new AppError(
          500,
          "BROKER_INTERNAL_TOKEN is not set (the plugin broker's internal token, the same value as the broker's)",
          'config',
        );
      const register = this.env.ROLELINK_REGISTER_DEADLINE_MS;
      this.broker = new BrokerClient({
        baseUrl: this.env.BROKER_URL ?? DEFAULT_BROKER_URL,
        token,
        ...(register ? { timeoutsMs: { register } } : {}),
        logger: silentLogger(),
      });
    }
    return this.broker;
  }

  /** Plugin work nobody waits for (DELETE /config), through the broker's queue. */
  private pluginJobs(): PluginJobs {
    if (!this.jobs) {
      this.jobs = new PluginJobs(this.redisConnection(), this.env.QUEUE_PREFIX, silentLogger());
      const jobs = this.jobs;
      this.closers.unshift(() => jobs.close());
    }
    return this.jobs;
  }

  /** The token keys, newest first (ROLELINK_SECRET_KEYS, then ROLELINK_SECRET_KEY). */
  secretKey(): TokenKeyring {
    const ring = secretKeyring(this.env);
    if (ring.keys.length === 0)
      throw new AppError(
        500,
        'ROLELINK_SECRET_KEY is not set (32 bytes as 64 hex characters or base64), nor ROLELINK_SECRET_KEYS',
        'config',
      );
    return ring;
  }

  admin(): AdminDeps {
    return {
      db: this.database(),
      secretKey: () => this.secretKey(),
      allowPrivatePluginHosts: this.env.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS,
      plugin: {
        register: (linkId) => this.brokerClient().register(linkId),
        deleteConfig: (input) => this.pluginJobs().deleteConfig(input),
      },
      requestSync: (linkId) => this.syncNotifier().notify(linkId),
      wakeSync: (linkId) => this.syncNotifier().wake(linkId),
      holders: this.holderReader(),
      botFacts: this.botFactsReader(),
      members: this.memberFacts(),
      botInvite: this.botInvite(),
      ...(this.env.PLATFORM_BOT_TOKEN ? { appKey: applicationKey(this.env.PLATFORM_BOT_TOKEN) } : {}),
      actor: { id: null, name: operatorName(this.env), via: 'cli' },
    };
  }

  /**
   * The bot's REST client, opened on first use (only commands that read the platform pay for it); null
   * where no platform is configured.
   */
  private platformApi(): API | null {
    return this.platformClient()?.api ?? null;
  }

  private platformClient(): PlatformClient | null {
    const { PLATFORM_API_URL: apiUrl, PLATFORM_BOT_TOKEN: token } = this.env;
    if (!apiUrl || !token) return null;
    if (!this.platform) {
      // The shared rate limiter's scripts run as soon as the command starts: queue them until connected.
      const redis = producerConnection(this.env.REDIS_URL, { enableOfflineQueue: true });
      this.closers.push(() => redis.disconnect());
      this.platform = createPlatformClient({
        apiUrl,
        token,
        redis,
        keyPrefix: this.env.QUEUE_PREFIX,
        maxWaitMs: 30_000,
        maxBucketWaitMs: 30_000,
      });
    }
    return this.platform;
  }

  /** `rolelink doctor`'s checks on the configured platform; the invite it offers uses PLATFORM_OAUTH_* (client id default: the application's). */
  setupChecker(): SetupChecker {
    const client = this.platformClient();
    if (!client)
      throw new AppError(
        500,
        'PLATFORM_API_URL and PLATFORM_BOT_TOKEN are not set: rolelink doctor checks the platform the bot worker uses, so set them as for the worker',
        'config',
      );
    return new SetupChecker(client, (guildId, applicationId) => this.inviteUrl(guildId, applicationId));
  }

  /** The bot's invite for a guild on the configured platform (the dashboard builds it the same way). */
  private inviteUrl(guildId: string, applicationId: string): string {
    const page = platformAuthorizeUrl(this.env.PLATFORM_API_URL, this.env.PLATFORM_OAUTH_AUTHORIZE_URL);
    return botInviteUrl(page, this.env.PLATFORM_OAUTH_CLIENT_ID ?? applicationId, guildId);
  }

  /** The invite a refusal's fix names (`link create` on a server the bot is not in), as doctor's. */
  private botInvite(): AdminDeps['botInvite'] {
    if (!this.env.PLATFORM_API_URL || !this.env.PLATFORM_BOT_TOKEN) return undefined;
    return async (guildId) =>
      this.inviteUrl(
        guildId,
        this.env.PLATFORM_OAUTH_CLIENT_ID ?? (await this.platformApi()!.applications.getCurrent()).id,
      );
  }

  private holderReader(): AdminDeps['holders'] {
    if (!this.env.PLATFORM_API_URL || !this.env.PLATFORM_BOT_TOKEN) return undefined;
    return (guildId, roleId) => readRoleHolders(this.platformApi()!, guildId, roleId);
  }

  /** The bot's access to the role and its privileges, checked by `link create` (read only by that command). */
  private botFactsReader(): AdminDeps['botFacts'] {
    if (!this.env.PLATFORM_API_URL || !this.env.PLATFORM_BOT_TOKEN) return undefined;
    let read: AdminDeps['botFacts'];
    return (guildId) => (read ??= botGuildFacts(this.platformApi()!))(guildId);
  }

  /** A member's role ids on the configured platform, read by the bot's client (`rolelink trigger`'s hand edits). */
  async memberRoles(guildId: string, userId: string): Promise<string[]> {
    const api = this.platformApi();
    if (!api) throw AppError.badRequest('PLATFORM_API_URL and PLATFORM_BOT_TOKEN must be set to read a member');
    return (await api.guilds.getMember(guildId, userId)).roles;
  }

  /** A strip's names and lock-out check; facts are read lazily, so a command that never strips opens nothing. */
  private memberFacts(): AdminDeps['members'] {
    if (!this.env.PLATFORM_API_URL || !this.env.PLATFORM_BOT_TOKEN) return undefined;
    const facts = () => guildMemberFacts(this.platformApi()!);
    return {
      rolePermissions: (guildId) => facts().rolePermissions(guildId),
      ownerId: (guildId) => facts().ownerId(guildId),
      member: (guildId, userId) => facts().member(guildId, userId),
    };
  }

  /** Sync requests fail fast when Redis is down: the outbox marker makes the sweeper retry. */
  private syncNotifier(): SyncNotifier {
    if (!this.sync) {
      this.sync = new SyncNotifier(this.redisConnection(), this.env.QUEUE_PREFIX, silentLogger(), 2_000);
      const sync = this.sync;
      this.closers.unshift(() => sync.close());
    }
    return this.sync;
  }

  async close(): Promise<void> {
    for (const close of this.closers) await Promise.resolve(close()).catch(() => undefined);
  }
}
