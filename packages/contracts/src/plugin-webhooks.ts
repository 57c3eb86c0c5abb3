import { z } from 'zod';
import { registerAnswer } from './events';
import { snowflake, userId } from './snowflake';

/**
 * What the service sends to a plugin (spec 4.2 and docs/api.md "Events to plugins") as zod schemas, for
 * the OpenAPI document's `webhooks` and for tests that hold the SDK and `rolelink plugin check` to them.
 * Each parses to exactly its type in @rolelink/wire-types (wire-types.check.ts), which the SDK ships.
 */

export const pluginLinkBody = z.object({ guild_id: snowflake, role_id: snowflake });

export const pluginRegisterBody = pluginLinkBody.extend({
  member_mode: z.enum(['handover', 'keep']),
  current_holders: z.number().int().min(0),
});

export const pluginConfigSubmitBody = pluginLinkBody.extend({ config: z.record(z.string(), z.unknown()) });

export { registerAnswer as pluginRegisterAnswer };

const at = z.iso.datetime({ offset: true });
const linkState = z.object({ state: z.string(), reason: z.string().nullable() });

/** Each event kind's `data`. */
export const pluginEventData = {
  'member.not_in_guild': z.object({ user_id: userId, reason: z.enum(['not_a_member', 'account_deleted']) }),
  'member.role_restored': z.object({ user_id: userId, source: z.enum(['drift', 'reconcile']) }),
  'member.expired': z.object({ user_id: userId, expired_at: at }),
  'removal.held': z.object({
    change_id: z.string(),
    previous: z.number().int(),
    next: z.number().int(),
    removals: z.number().int(),
  }),
  'removal.applied': z.object({ change_id: z.string(), removals: z.number().int(), window_ends_at: at }),
  'list.resend_requested': z.object({ change_id: z.string(), window_ends_at: at }),
  'link.paused': linkState,
  'link.resumed': linkState.extend({ resolved: z.string().optional() }),
  'link.disabled': z.record(z.string(), z.never()),
  'link.enabled': z.record(z.string(), z.never()),
  'link.deleted': z.record(z.string(), z.never()),
  'sync.first_completed': z.object({ applied: z.number().int().min(0) }),
  'test.ping': z.object({ message: z.string() }),
} as const;

function eventOf<K extends keyof typeof pluginEventData>(kind: K) {
  return z.object({
    id: z.string(),
    type: z.literal(kind),
    timestamp: at,
    guild_id: snowflake,
    role_id: snowflake,
    seq: z.number().int().min(0),
    data: pluginEventData[kind],
  });
}

/** POST {plugin}/events: one event, by `type`. */
export const pluginEvent = z.discriminatedUnion('type', [
  eventOf('member.not_in_guild'),
  eventOf('member.role_restored'),
  eventOf('member.expired'),
  eventOf('removal.held'),
  eventOf('removal.applied'),
  eventOf('list.resend_requested'),
  eventOf('link.paused'),
  eventOf('link.resumed'),
  eventOf('link.disabled'),
  eventOf('link.enabled'),
  eventOf('link.deleted'),
  eventOf('sync.first_completed'),
  eventOf('test.ping'),
]);
