import type { RequestHandler } from 'express';
import type { ApplicationFlags, RESTGetCurrentApplicationResult } from 'discord-api-types/v10';
import type { EmulatorState } from '../emulator-state';
import { renderBotUser, renderUser } from './render';

/** The emulated application's owner (the developer who made it): a user of its own, in no guild. */
export const APPLICATION_OWNER_ID = '1000000000000000009';

/**
 * GET /applications/@me (bot token): the bot's application. `id` is the OAuth2 client id the bot's invite
 * uses (EMULATOR_OAUTH_CLIENT_ID); `owner` is who must have 2FA when a guild requires it (rolelink doctor
 * names them). `flags` stays 0: the emulator keeps the Server Members intent per guild (the rules), where
 * the platform shows it here as GATEWAY_GUILD_MEMBERS(_LIMITED); clients read the intent from the listing.
 */
export function currentApplication(state: EmulatorState): RequestHandler {
  return (_req, res) => {
    res.json({
      id: state.oauthClient.clientId,
      name: 'RoleLink (emulated)',
      icon: null,
      description: '',
      bot_public: true,
      bot_require_code_grant: false,
      bot: renderBotUser(state.botUserId),
      owner: renderUser(APPLICATION_OWNER_ID, { username: 'app-owner', globalName: null }),
      summary: '',
      verify_key: '0'.repeat(64),
      team: null,
      // No flag set (the enum has no member for none).
      flags: 0 as ApplicationFlags,
      flags_new: '0',
    } satisfies RESTGetCurrentApplicationResult);
  };
}
