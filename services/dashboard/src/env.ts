import { z } from 'zod';
import { brokerInternalToken } from '@rolelink/contracts';
import { envFields, parseEnv, SECRET_KEY_REQUIRED } from '@rolelink/runtime';

/** The dashboard's configuration: parsed once at start (`loadEnv()` in main.ts), fails fast listing every problem. */
export const envSchema = z
  .object({
    NODE_ENV: envFields.nodeEnv,
    LOG_LEVEL: envFields.logLevel,
    SHUTDOWN_DRAIN_MS: envFields.shutdownDrainMs,
    DASHBOARD_PORT: envFields.port(3001),
    DASHBOARD_HOST: z.string().default('0.0.0.0'),
    /**
     * The origin admins open (scheme, host, port; no path): the OAuth2 redirect URI is built from it,
     * state-changing requests must come from it, and the session cookie is Secure when it is https.
     */
    DASHBOARD_PUBLIC_URL: z
      .string()
      .url()
      .default('http://127.0.0.1:3001')
      .transform((v) => new URL(v).origin),
    /** Signs the session cookie (express-session). At least 32 characters; rotate by restarting with a new value. */
    DASHBOARD_SESSION_SECRET: z.string().min(32, 'must be at least 32 characters'),
    DATABASE_URL: envFields.databaseUrl,
    /** PostgreSQL directly, when DATABASE_URL is a transaction pooler: the audit retention sweep's session lock (docs/pgbouncer.md). */
    DATABASE_SESSION_URL: envFields.databaseSessionUrl,
    REDIS_URL: envFields.redisUrl,
    QUEUE_PREFIX: envFields.queuePrefix,
    /** The token key, or several with IDs (ROLELINK_SECRET_KEYS, newest first); docs/operations.md, "Rotating secrets". */
    ROLELINK_SECRET_KEY: envFields.secretKey.optional(),
    ROLELINK_SECRET_KEYS: envFields.secretKeys,
    ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: envFields.allowPrivatePluginHosts,
    /** The plugin broker's internal routes (register, config); its NetworkPolicy admits the dashboard. */
    BROKER_URL: z.string().url().default('http://127.0.0.1:3002'),
    /** The broker's internal bearer: the same value as the broker's. */
    BROKER_INTERNAL_TOKEN: brokerInternalToken,
    /** The platform's REST base, as for the bot worker (`https://discord.com/api`; `/v10` is appended). */
    PLATFORM_API_URL: envFields.platformApiUrl,
    /** The bot's token: the dashboard reads roles and members as the bot, within its shared rate limits. */
    PLATFORM_BOT_TOKEN: envFields.platformBotToken,
    /**
     * Where admins are sent to sign in (the platform's OAuth2 authorize page); the bot's invite is on it too.
     * Default: the page at PLATFORM_API_URL's origin (domain's platformAuthorizeUrl), the configured platform's.
     */
    PLATFORM_OAUTH_AUTHORIZE_URL: z.string().url().optional(),
    PLATFORM_OAUTH_CLIENT_ID: z.string().min(1),
    PLATFORM_OAUTH_CLIENT_SECRET: z.string().min(1),
    /** How long the admin audit log keeps an entry (docs/dashboard.md "Audit log"); older ones are deleted. */
    AUDIT_RETENTION_DAYS: envFields.retentionDays(365),
    /** How often the audit retention sweep deletes entries past AUDIT_RETENTION_DAYS. */
    RETENTION_SWEEP_EVERY_MS: envFields.retentionSweepEveryMs,
    /** The built front end (services/dashboard/web/dist by default). */
    DASHBOARD_WEB_DIST: z.string().optional(),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && !env.DASHBOARD_PUBLIC_URL.startsWith('https:')) {
      ctx.addIssue({
        code: 'custom',
        path: ['DASHBOARD_PUBLIC_URL'],
        message: 'must be https in production (the session cookie is Secure)',
      });
    }
  })
  .refine(...SECRET_KEY_REQUIRED);

export type DashboardEnv = z.infer<typeof envSchema>;

/** Tests pass their own variables; main.ts passes none (process.env). */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): DashboardEnv {
  return parseEnv(envSchema, source);
}
