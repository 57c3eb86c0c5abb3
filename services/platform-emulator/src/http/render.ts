import {
  GuildDefaultMessageNotifications,
  GuildExplicitContentFilter,
  GuildMFALevel,
  GuildNSFWLevel,
  GuildPremiumTier,
  GuildVerificationLevel,
  Locale,
  type GuildMemberFlags,
  type UserFlags,
  type GuildSystemChannelFlags,
  type RoleFlags,
  type APIGuild,
  type APIGuildMember,
  type APIRole,
  type APIUser,
  type RESTAPIPartialCurrentUserGuild,
} from 'discord-api-types/v10';
import type { GuildState, RoleDef, UserProfile } from '../guild-state';
import type { MemberEntry } from '../member-store';

/** The platform's epoch (2015-01-01) in ms: a snowflake's top 42 bits are ms since then. */
const PLATFORM_EPOCH = 1_420_070_400_000n;
/** Bit-flag enums have no zero member; "no flags" is 0 on the wire. */
const NO_FLAGS = 0;

/**
 * Wire shapes typed from discord-api-types, with every field Discord's OpenAPI description marks required
 * (`UserResponse`: the flags and `primary_guild` too). Fields the emulator does not model get the
 * platform's neutral defaults.
 */
export function renderUser(id: string, profile?: UserProfile): APIUser {
  return {
    id,
    username: profile?.username ?? `user_${id}`,
    discriminator: '0',
    global_name: profile?.globalName ?? null,
    avatar: null,
    public_flags: NO_FLAGS as UserFlags,
    flags: NO_FLAGS as UserFlags,
    primary_guild: null,
  };
}

export function renderBotUser(id: string): APIUser {
  return {
    ...renderUser(id, { username: 'rolelink-emulator-bot', globalName: null }),
    bot: true,
  };
}

/**
 * GET /users/@me: the user object with what only its owner sees (`UserPIIResponse`): `mfa_enabled` and
 * `locale` (and `email`/`verified` with the `email` scope, which the emulator does not grant).
 */
export function renderCurrentUser(user: APIUser): APIUser {
  return { ...user, mfa_enabled: false, locale: Locale.EnglishUS };
}

export function renderRole(role: RoleDef): APIRole {
  return {
    id: role.id,
    name: role.name,
    color: role.color,
    colors: { primary_color: role.color, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.permissions.toString(),
    managed: role.managed,
    mentionable: false,
    flags: NO_FLAGS as RoleFlags,
    // The platform tags a bot's managed role with its bot's id; other managed roles are integrations'.
    ...(role.botId !== undefined && { tags: { bot_id: role.botId } }),
  };
}

/** joined_at is derived from the id (the snowflake's creation time), so it costs no storage. */
export function renderMember(guild: GuildState, member: MemberEntry, botUserId: string): APIGuildMember {
  const id = member.id.toString();
  return {
    user: id === botUserId ? renderBotUser(id) : renderUser(id, guild.profile(id)),
    nick: null,
    avatar: null,
    banner: null,
    roles: guild.roleIds(member.roles),
    joined_at: new Date(Number((member.id >> 22n) + PLATFORM_EPOCH)).toISOString(),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: NO_FLAGS as GuildMemberFlags,
    pending: false,
    communication_disabled_until: null,
  };
}

/**
 * The guild object with every field Discord's OpenAPI description marks required (`GuildWithCountsResponse`),
 * the ones it keeps for old clients (`region`, `home_header`, `nsfw`) included.
 */
export function renderGuild(
  guild: GuildState,
  withCounts: boolean,
  botUserId: string,
): APIGuild & { home_header: null; nsfw: boolean } {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    banner: null,
    description: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    region: 'deprecated',
    home_header: null,
    widget_enabled: false,
    widget_channel_id: null,
    nsfw: false,
    verification_level: GuildVerificationLevel.None,
    default_message_notifications: GuildDefaultMessageNotifications.OnlyMentions,
    explicit_content_filter: GuildExplicitContentFilter.Disabled,
    roles: guild.roles.map(renderRole),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: guild.rules(botUserId).mfaRequired ? GuildMFALevel.Elevated : GuildMFALevel.None,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: NO_FLAGS as GuildSystemChannelFlags,
    rules_channel_id: null,
    vanity_url_code: null,
    premium_tier: GuildPremiumTier.None,
    premium_subscription_count: 0,
    preferred_locale: Locale.EnglishUS,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    nsfw_level: GuildNSFWLevel.Default,
    premium_progress_bar_enabled: false,
    hub_type: null,
    incidents_data: null,
    max_members: 25_000_000,
    max_presences: null,
    max_video_channel_users: 25,
    max_stage_video_channel_users: 50,
    // Presence is not modelled: nobody is online in the emulator.
    ...(withCounts ? { approximate_member_count: guild.members.size, approximate_presence_count: 0 } : {}),
  };
}

/** An entry of GET /users/@me/guilds: the partial guild with the caller's ownership and permissions. */
export function renderCurrentUserGuild(
  guild: GuildState,
  owner: boolean,
  permissions: bigint,
): RESTAPIPartialCurrentUserGuild {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    banner: null,
    owner,
    permissions: permissions.toString(),
    features: [],
  };
}
