import { z } from 'zod';
import { snowflake } from './snowflake';

/**
 * The plugin broker's internal HTTP routes (services/plugin-broker/src/internal-routes.ts), for the calls
 * a caller waits for; `@rolelink/broker-client` is their one typed client. Work nobody waits for stays on
 * the `plugin-calls` queue (queues.ts).
 */
export const BrokerRoute = {
  register: (linkId: string) => `/internal/links/${linkId}/register`,
  config: (linkId: string) => `/internal/links/${linkId}/config`,
  /** A config save names its link by guild and role, as the admin does: the broker reads the link once, by them. */
  roleConfig: (guildId: string, roleId: string) => `/internal/guilds/${guildId}/links/${roleId}/config`,
} as const;

/** The link a config save is for, as its caller knows it. */
export type BrokerLinkRef = { guildId: string; roleId: string };
export const brokerRoleParams = z.object({ guildId: snowflake, roleId: snowflake });

/** A role link's id in a route: the decimal string of its bigint primary key. */
export const brokerLinkParams = z.object({ linkId: z.string().regex(/^\d{1,20}$/) });
/** GET …/config: `refresh=true` takes the plugin's latest structure; `viewer_id` mints an iframe rl_token. */
export const brokerFetchConfigQuery = z.object({
  refresh: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  viewer_id: snowflake.optional(),
});
// POST …/guilds/:guildId/links/:roleId/config takes `{config}` as its caller parsed it (the dashboard
// with `submitConfigBody`, the CLI from its JSON argument). The broker checks the config once, against
// the form (`validateSubmission`, which refuses a config that is not an object too).
export type BrokerSubmitResult = { status: number; body: unknown };

/**
 * The bearer every internal call carries (BROKER_INTERNAL_TOKEN, shared by the broker and its callers).
 * The NetworkPolicy already keeps the port from everyone else; the token keeps a compromised pod in the
 * namespace that is not a caller from asking the broker to speak for a link.
 */
export const brokerInternalToken = z.string().min(32, 'must be at least 32 characters (openssl rand -hex 32)');

/** The response header carrying an AppError's code across the internal hop (its body is the spec's, without a code). */
export const BROKER_ERROR_CODE_HEADER = 'x-rolelink-error-code';

/** Admin-facing messages of plugin failures (spec 7), shared by the broker and its callers. */
export const PluginCallMessage = {
  register: 'Failed to register with plugin server',
  fetchUnreachable: 'Failed to fetch plugin schema: plugin server unreachable',
  invalidSchema: 'Plugin returned invalid schema',
  submit: 'Failed to submit config to plugin server',
} as const;
