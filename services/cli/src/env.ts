import { z } from 'zod';
import { brokerInternalToken } from '@rolelink/contracts';
import { envFields, parseEnv } from '@rolelink/runtime';

// The CLI is a deployable like the services: this is the one place it reads process.env.
export const envSchema = z.object({
  DATABASE_URL: envFields.databaseUrl,
  REDIS_URL: envFields.redisUrl,
  QUEUE_PREFIX: envFields.queuePrefix,
  ROLELINK_SECRET_KEY: envFields.secretKey.optional(),
  /** Several token keys with IDs, newest first (`rolelink secrets reencrypt` moves every token to the first). */
  ROLELINK_SECRET_KEYS: envFields.secretKeys,
  ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: envFields.allowPrivatePluginHosts,
  /** The platform's REST base, as for the bot worker (`https://discord.com/api`); without it existing role holders are not read. */
  PLATFORM_API_URL: envFields.optionalPlatformApiUrl,
  PLATFORM_BOT_TOKEN: z.string().optional(),
  /**
   * The platform's OAuth2 authorize page and the application's client id: `rolelink doctor` and `link create`
   * build the bot's invite from them (page default: the one at PLATFORM_API_URL's origin, domain's
   * platformAuthorizeUrl; client id default: the application's, from the platform).
   */
  PLATFORM_OAUTH_AUTHORIZE_URL: z.string().url().optional(),
  PLATFORM_OAUTH_CLIENT_ID: z.string().min(1).optional(),
  /** The plugin broker's internal routes (link create, config get/set, iframe-url); its NetworkPolicy admits the CLI. */
  BROKER_URL: z.string().url().optional(),
  /** The broker's internal bearer; needed only by the commands that call a plugin. */
  BROKER_INTERNAL_TOKEN: brokerInternalToken.optional(),
  /** How long the CLI waits for the plugin broker to answer a register call. */
  ROLELINK_REGISTER_DEADLINE_MS: z.coerce.number().int().positive().optional(),
  /**
   * Set by `./rolelink`: the file of the local stack (scripts/start.sh writes .data/stack.env) it took
   * settings from, and their names, so an error can say where an address came from.
   */
  ROLELINK_STACK_FILE: z.string().optional(),
  ROLELINK_STACK_VARS: z.string().optional(),
  /** Who the audit log records for this command's admin actions (default: the OS user and host). */
  ROLELINK_OPERATOR: z.string().min(1).max(100).optional(),
});

export type CliEnv = z.infer<typeof envSchema>;

/** The broker's address when BROKER_URL is not set: the local stack's default port. */
export const DEFAULT_BROKER_URL = 'http://127.0.0.1:3002';

/** Where BROKER_URL came from, for the error of a broker that does not answer. */
export function brokerUrlSource(env: CliEnv): string {
  if (env.ROLELINK_STACK_FILE && (env.ROLELINK_STACK_VARS ?? '').split(' ').includes('BROKER_URL')) {
    return `BROKER_URL from ${env.ROLELINK_STACK_FILE}, which scripts/start.sh wrote for the stack it started; is that stack still running?`;
  }
  return env.BROKER_URL
    ? 'BROKER_URL'
    : 'BROKER_URL is not set, so the local default; set BROKER_URL, or start the stack with scripts/start.sh';
}
export const loadEnv = (): CliEnv => parseEnv(envSchema);
