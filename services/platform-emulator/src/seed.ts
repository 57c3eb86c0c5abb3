import { snowflake } from '@rolelink/contracts';
import { z } from 'zod';
import { CORRECT_BOT_PERMISSIONS, CORRECT_RULES, rulesPatchSchema, type GuildRules } from './guild-rules';

export type SeedRole = {
  id: string;
  name?: string;
  position: number;
  /** Permission bitfield as a decimal string, as the platform sends it (default '0'). */
  permissions?: string;
  /** RGB colour 0..0xFFFFFF (default 0, no colour). */
  color?: number;
  /**
   * Managed by an integration (a bot's own role, a subscription, a booster role): nobody can add or
   * remove it through the API. The bot's role (`botRoleId`) is always managed, as the platform creates it.
   */
  managed?: boolean;
};
export type SeedMember = {
  userId: string;
  roles?: string[];
  /** Shown on the OAuth2 sign-in page and in user objects; default `user_<id>`. */
  username?: string;
  /** Display name (`global_name`); default null. */
  globalName?: string;
};
export type SeedGuild = {
  id: string;
  name?: string;
  ownerId: string;
  roles: SeedRole[];
  /** The bot member's highest role: only roles strictly below it can be added or removed. */
  botRoleId: string;
  /**
   * Default true: the bot is a member from the start. False: it is not yet (GET /users/@me/guilds for
   * the bot leaves the guild out) until someone adds it on the bot authorization page (/oauth2/authorize
   * with scope=bot); `botRoleId` is then the managed role it will get, reserved for it, holding nobody.
   */
  botMember?: boolean;
  members?: SeedMember[];
  /** `count` members with consecutive ids from `startId` (default 100000000000000000), each holding `roles`. */
  generateMembers?: { count: number; startId?: string; roles?: string[] };
  /** Text channels (GET /guilds/:id/channels, messages). Default: one `general` whose id is the guild's. */
  channels?: SeedChannel[];
  /**
   * The platform's rules for this guild (guild-rules.ts); unset ones keep a new application's defaults:
   * `membersIntent` false, `mfaRequired` false, `ownerMfa` true, `botInGuild` = `botMember`. A correct
   * installation sets `membersIntent: true` (`CORRECT_RULES`). `botInGuild: false` is `botMember: false`.
   */
  rules?: Partial<GuildRules>;
  /**
   * User accounts that exist without being members here (say, a plugin lists them): member routes
   * answer 404 10007 Unknown Member for them, where an id nobody knows answers 10013 Unknown User.
   */
  users?: string[];
};
export type SeedChannel = { id: string; name: string };
/** `users`: accounts that exist outside every guild, as `SeedGuild.users` (the same set: users are platform-wide). */
export type EmulatorSeed = { guilds: SeedGuild[]; users?: string[] };

/**
 * A guild as a correct installation has it (the Server Members intent; the bot's role, with Manage Roles
 * and View Audit Log, above the role a test links), for tests and benches that need one linkable role and
 * set nothing else of the guild's rules. `rest` adds members, generated members, accounts or a name.
 */
export function correctlyInstalledGuild(
  g: { id: string; ownerId?: string; botRoleId: string; linkedRoleId: string } & Omit<
    Partial<SeedGuild>,
    'roles' | 'rules'
  >,
): SeedGuild {
  const { linkedRoleId, ...rest } = g;
  return {
    ownerId: '790000000000000001',
    ...rest,
    roles: [
      { id: g.botRoleId, name: 'rolelink', position: 5, permissions: CORRECT_BOT_PERMISSIONS },
      { id: linkedRoleId, name: 'linked', position: 3 },
    ],
    rules: CORRECT_RULES,
  };
}

export const DEFAULT_GENERATED_START_ID = '100000000000000000';
/**
 * A member's user id: any snowflake up to 2^64 - 1 (the platform's are unsigned 64-bit, and the service
 * must hold ids past 2^63 too), stored as such in the member store's BigUint64Array. Guild,
 * role and channel ids keep contracts' `snowflake` (within a signed bigint, as the service stores them).
 */
const MAX_ID = 18446744073709551615n;
export const memberId = z
  .string()
  .regex(/^[1-9]\d{0,19}$/, 'must be a snowflake (digits, no leading zero)')
  .refine((v) => BigInt(v) <= MAX_ID, 'out of the 64-bit range');
/** Ten million generated members is ~120 MB of arrays: a guard against a typo, not a platform rule. */
export const MAX_GENERATED_MEMBERS = 10_000_000;

const MAX_PERMISSIONS = (1n << 64n) - 1n;
const permissions = z
  .string()
  .regex(/^\d{1,20}$/, 'must be a decimal permission bitfield')
  .refine((v) => BigInt(v) <= MAX_PERMISSIONS, 'out of the 64-bit range');
/** The platform limits names to 32 characters but, unlike its username rules, not their characters: tests seed hostile names on purpose. */
const userName = z.string().min(1).max(32);

const seedRole = z.object({
  id: snowflake,
  name: z.string().max(100).optional(),
  position: z.number().int().min(0),
  permissions: permissions.optional(),
  color: z.number().int().min(0).max(0xffffff).optional(),
  managed: z.boolean().optional(),
});
const seedMember = z.object({
  userId: memberId,
  roles: z.array(snowflake).optional(),
  username: userName.optional(),
  globalName: userName.optional(),
});

export const seedGuildSchema = z
  .object({
    id: snowflake,
    name: z.string().min(1).max(100).optional(),
    ownerId: snowflake,
    roles: z.array(seedRole),
    botRoleId: snowflake,
    botMember: z.boolean().optional(),
    rules: rulesPatchSchema.optional(),
    users: z.array(memberId).optional(),
    members: z.array(seedMember).optional(),
    channels: z
      .array(z.object({ id: snowflake, name: z.string().min(1).max(100) }))
      .max(500)
      .optional(),
    generateMembers: z
      .object({
        count: z.number().int().min(0).max(MAX_GENERATED_MEMBERS),
        startId: memberId.optional(),
        roles: z.array(snowflake).optional(),
      })
      .optional(),
  })
  .superRefine((guild, ctx) => {
    const roleIds = new Set<string>([guild.id]);
    guild.roles.forEach((role, i) => {
      if (roleIds.has(role.id) && role.id !== guild.id)
        ctx.addIssue({ code: 'custom', path: ['roles', i, 'id'], message: `duplicate role ${role.id}` });
      roleIds.add(role.id);
    });
    const known = (id: string) => roleIds.has(id);
    if (!known(guild.botRoleId))
      ctx.addIssue({ code: 'custom', path: ['botRoleId'], message: `unknown role ${guild.botRoleId}` });
    guild.members?.forEach((m, i) =>
      m.roles?.forEach((r, k) => {
        if (!known(r)) ctx.addIssue({ code: 'custom', path: ['members', i, 'roles', k], message: `unknown role ${r}` });
      }),
    );
    if (
      guild.botMember !== undefined &&
      guild.rules?.botInGuild !== undefined &&
      guild.botMember !== guild.rules.botInGuild
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['rules', 'botInGuild'],
        message: 'botMember and rules.botInGuild say different things: give one',
      });
    }
    if (!botJoins(guild)) {
      // The platform creates the managed role as the bot joins, so nobody can hold it before that.
      if (guild.botRoleId === guild.id)
        ctx.addIssue({
          code: 'custom',
          path: ['botRoleId'],
          message:
            'with botMember false, botRoleId must be a role of its own (the one the bot gets when added), not @everyone',
        });
      guild.members?.forEach((m, i) => {
        if (m.roles?.includes(guild.botRoleId))
          ctx.addIssue({
            code: 'custom',
            path: ['members', i, 'roles'],
            message: `role ${guild.botRoleId} is reserved for the bot (botMember false)`,
          });
      });
      if (guild.generateMembers?.roles?.includes(guild.botRoleId))
        ctx.addIssue({
          code: 'custom',
          path: ['generateMembers', 'roles'],
          message: `role ${guild.botRoleId} is reserved for the bot (botMember false)`,
        });
    }
    const gen = guild.generateMembers;
    gen?.roles?.forEach((r, k) => {
      if (!known(r))
        ctx.addIssue({ code: 'custom', path: ['generateMembers', 'roles', k], message: `unknown role ${r}` });
    });
    if (gen && BigInt(gen.startId ?? DEFAULT_GENERATED_START_ID) + BigInt(gen.count) > MAX_ID) {
      ctx.addIssue({ code: 'custom', path: ['generateMembers'], message: 'generated ids pass the snowflake range' });
    }
  }) satisfies z.ZodType<SeedGuild>;

export const seedSchema = z.object({
  guilds: z.array(seedGuildSchema),
  users: z.array(memberId).optional(),
}) satisfies z.ZodType<EmulatorSeed>;

/** Whether the bot starts as a member of the seeded guild (`rules.botInGuild`, else `botMember`, default true). */
export function botJoins(guild: Pick<SeedGuild, 'botMember' | 'rules'>): boolean {
  return guild.rules?.botInGuild ?? guild.botMember ?? true;
}

/** Validates a seed (from a file or the control API); throws with every problem listed. */
export function parseSeed(value: unknown): EmulatorSeed {
  const result = seedSchema.safeParse(value);
  if (result.success) return result.data;
  const lines = result.error.issues.slice(0, 20).map((i) => `  ${i.path.join('.') || '(seed)'}: ${i.message}`);
  throw new Error(`Invalid emulator seed:\n${lines.join('\n')}`);
}
