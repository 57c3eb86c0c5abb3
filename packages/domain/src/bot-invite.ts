import { MANAGE_ROLES } from './permissions';

/**
 * The permissions the bot asks for when it is added to a server, in one place:
 * - Manage Roles (0x10000000): its whole job, adding and removing the linked role. The platform also
 *   requires the bot's own role to sit above the roles it manages; no permission bit can ask for that.
 * - View Channels (0x400) and Send Messages (0x800): the notifier posts to a server's alert channel
 *   (services/bot-worker notify). Its DMs to admins need no guild permission.
 * - View Audit Log (0x80): drift repair reads the server's member role updates to find roles someone
 *   changed by hand and fixes just those members within minutes (docs/sync-engine.md, "Drift repair").
 *   Without it the bot still works: drift then waits for the periodic full reconcile.
 * Nothing more: the bot never needs Administrator, and a smaller grant is what admins expect to approve.
 */
export const VIEW_CHANNEL = 0x400n;
export const SEND_MESSAGES = 0x800n;
export const VIEW_AUDIT_LOG = 0x80n;
export const BOT_PERMISSIONS: bigint = MANAGE_ROLES | VIEW_CHANNEL | SEND_MESSAGES | VIEW_AUDIT_LOG;

/**
 * The platform's bot authorization URL ("add the bot to a server"): scope `bot` with the permissions
 * above, no redirect_uri, so the platform itself asks the signed-in user which server (one where they
 * hold Manage Server) and adds the bot there. `authorizeUrl` is the OAuth2 authorize endpoint the
 * dashboard already signs in through (PLATFORM_OAUTH_AUTHORIZE_URL), so the emulator serves it locally.
 */
export function botInviteUrl(authorizeUrl: string, clientId: string, guildId?: string): string {
  const url = new URL(authorizeUrl);
  const params = new URLSearchParams({ client_id: clientId, scope: 'bot', permissions: BOT_PERMISSIONS.toString() });
  if (guildId !== undefined) {
    params.set('guild_id', guildId);
    params.set('disable_guild_select', 'true');
  }
  url.search = params.toString();
  return url.toString();
}

/**
 * The OAuth2 authorize page of the configured platform: the one set (PLATFORM_OAUTH_AUTHORIZE_URL), else
 * the page at the origin of the platform's REST base (PLATFORM_API_URL `https://discord.com/api` →
 * `https://discord.com/oauth2/authorize`; the emulator serves it at the same place). The CLI and the
 * dashboard both build the bot's invite on it, so `rolelink doctor` and Check setup name one page, and
 * never the real platform's while the services talk to another.
 */
export function platformAuthorizeUrl(apiUrl: string | undefined, configured?: string): string {
  if (configured) return configured;
  if (!apiUrl) return 'https://discord.com/oauth2/authorize';
  return new URL('/oauth2/authorize', new URL(apiUrl).origin).toString();
}
