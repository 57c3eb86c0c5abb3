import { z } from 'zod';
import { brokerInternalToken } from '@rolelink/contracts';
import { envFields, parseEnv } from '@rolelink/runtime';

// The CLI is a deployable like the services: this is the one place it reads process.env.
const schema = z.object({
  DATABASE_URL: envFields.databaseUrl,
  REDIS_URL: envFields.redisUrl,
  QUEUE_PREFIX: envFields.queuePrefix,
  ROLELINK_SECRET_KEY: envFields.secretKey.optional(),
  ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: envFields.allowPrivatePluginHosts,
  /** The platform's REST API with version (`…/api/v10`); without it existing role holders are not read. */
  PLATFORM_API_URL: z.string().url().optional(),
  PLATFORM_BOT_TOKEN: z.string().optional(),
  /** The platform's OAuth2 authorize page and the application's client id: `rolelink doctor` builds the bot's invite from them (client id default: the application's, from the platform). */
  PLATFORM_OAUTH_AUTHORIZE_URL: z.string().url().default('https://discord.com/oauth2/authorize'),
  PLATFORM_OAUTH_CLIENT_ID: z.string().min(1).optional(),
  /** The plugin broker's internal routes (link create, config get/set, iframe-url); its NetworkPolicy admits the CLI. */
  BROKER_URL: z.string().url().default('http://127.0.0.1:3002'),
  /** The broker's internal bearer; needed only by the commands that call a plugin. */
  BROKER_INTERNAL_TOKEN: brokerInternalToken.optional(),
  /** How long the CLI waits for the plugin broker to answer a register call. */
  ROLELINK_REGISTER_DEADLINE_MS: z.coerce.number().int().positive().optional(),
  /** Who the audit log records for this command's admin actions (default: the OS user and host). */
  ROLELINK_OPERATOR: z.string().min(1).max(100).optional(),
});

export type CliEnv = z.infer<typeof schema>;
export const loadEnv = (): CliEnv => parseEnv(schema);
