import {
  GuildDefaultMessageNotifications,
  GuildExplicitContentFilter,
  GuildMFALevel,
  GuildNSFWLevel,
  GuildPremiumTier,
  GuildVerificationLevel,
  Locale,
  type GuildMemberFlags,
  type GuildSystemChannelFlags,
  type RoleFlags,
  type APIGuild,
  type APIGuildMember,
  type APIRole,
  type APIUser,
} from 'discord-api-types/v10';
import type { GuildState, RoleDef } from '../guild-state';
import type { MemberEntry } from '../member-store';

/** The platform's epoch (2015-01-01) in ms: a snowflake's top 42 bits are ms since then. */
const PLATFORM_EPOCH = 1_420_070_400_000n;
const MANAGE_ROLES = '268435456';
/** Bit-flag enums have no zero member; "no flags" is 0 on the wire. */
const NO_FLAGS = 0;

/** Wire shapes typed from discord-api-types. Fields the emulator does not model get the platform's neutral defaults. */
export function renderUser(id: string, bot = false): APIUser {
  return { id, username: bot ? 'rolelink-emulator-bot' : `user_${id}`, discriminator: '0', global_name: null, avatar: null, ...(bot ? { bot: true } : {}) };
}

export function renderRole(guild: GuildState, role: RoleDef): APIRole {
  return {
    id: role.id,
    name: role.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.id === guild.botRole.id ? MANAGE_ROLES : '0',
    managed: false,
    mentionable: false,
    flags: NO_FLAGS as RoleFlags,
  };
}

/** joined_at is derived from the id (the snowflake's creation time), so it costs no storage. */
export function renderMember(guild: GuildState, member: MemberEntry, botUserId: string): APIGuildMember {
  const id = member.id.toString();
  return {
    user: renderUser(id, id === botUserId),
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

export function renderGuild(guild: GuildState, withCounts: boolean): APIGuild {
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
    verification_level: GuildVerificationLevel.None,
    default_message_notifications: GuildDefaultMessageNotifications.OnlyMentions,
    explicit_content_filter: GuildExplicitContentFilter.Disabled,
    roles: guild.roles.map((r) => renderRole(guild, r)),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: GuildMFALevel.None,
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
    // Presence is not modelled: nobody is online in the emulator.
    ...(withCounts ? { approximate_member_count: guild.members.size, approximate_presence_count: 0 } : {}),
  };
}
