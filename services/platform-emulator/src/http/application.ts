import type { RequestHandler } from 'express';
import { ApplicationFlags, type RESTGetCurrentApplicationResult } from 'discord-api-types/v10';
import type { EmulatorState } from '../emulator-state';
import { renderBotUser, renderUser } from './render';

/** The emulated application's owner (the developer who made it): a user of its own, in no guild. */
export const APPLICATION_OWNER_ID = '1000000000000000009';

/**
 * The application's flags as the platform shows them. The emulator keeps the Server Members intent per
 * guild (the rules); the platform keeps it per application, so the application carries it when every
 * guild the bot is in has it. An application in fewer than 100 servers gets the `_LIMITED` bit for the
 * portal's switch (GATEWAY_GUILD_MEMBERS is for verified applications), and so does this one.
 */
export function applicationFlags(state: EmulatorState): number {
  const guilds = state.allGuilds().filter((g) => g.hasBot(state.botUserId));
  const intent = guilds.length > 0 && guilds.every((g) => g.rules(state.botUserId).membersIntent);
  return intent ? ApplicationFlags.GatewayGuildMembersLimited : 0;
}

/**
 * GET /applications/@me (bot token): the bot's application, with every field Discord's OpenAPI description
 * marks required (`PrivateApplicationResponse`). `id` is the OAuth2 client id the bot's invite uses
 * (EMULATOR_OAUTH_CLIENT_ID, a snowflake); `owner` is who must have 2FA when a guild requires it (rolelink
 * doctor names them); `redirect_uris` are the registered ones sign-in accepts.
 */
export function currentApplication(state: EmulatorState): RequestHandler {
  return (_req, res) => {
    const flags = applicationFlags(state);
    const guildCount = state.allGuilds().filter((g) => g.hasBot(state.botUserId)).length;
    res.json({
      id: state.oauthClient.clientId,
      name: 'RoleLink (emulated)',
      icon: null,
      description: '',
      type: null,
      bot_public: true,
      bot_require_code_grant: false,
      bot: renderBotUser(state.botUserId),
      owner: renderUser(APPLICATION_OWNER_ID, { username: 'app-owner', globalName: null }),
      summary: '',
      verify_key: '0'.repeat(64),
      team: null,
      flags: flags as ApplicationFlags,
      flags_new: String(flags),
      redirect_uris: [...state.oauthClient.redirectUris],
      interactions_endpoint_url: null,
      role_connections_verification_url: null,
      approximate_guild_count: guildCount,
      approximate_user_install_count: 0,
      approximate_user_authorization_count: 0,
      explicit_content_filter: 0,
      eligible_oauth2_scopes: [],
    } satisfies RESTGetCurrentApplicationResult & Record<string, unknown>);
  };
}
