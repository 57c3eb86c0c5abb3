import type { Request, RequestHandler } from 'express';
import { grantsManageServer } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { GuildReader } from '../platform/guild-reader';
import type { OAuthClient, UserGuild } from './oauth-client';

/** How long the user's guild list (owner flag, permissions) is trusted before the platform is asked again. */
export const GUILDS_TTL_MS = 60_000;
/**
 * How stale the bot's guild list may be on the server list when the user holds Manage Server in a guild
 * the bot lacks (see manageable): one listing a second at most, per dashboard process, whoever asks.
 */
export const BOT_RECHECK_MS = 1_000;

export function holdsManageServer(g: UserGuild): boolean {
  return g.owner || grantsManageServer(BigInt(g.permissions));
}

/** 401 for every dashboard API call without a signed-in session. */
export const requireUser: RequestHandler = (req, _res, next) => {
  if (!req.session.user || !req.session.tokens)
    return next(new AppError(401, 'Sign in to use the dashboard', 'signed_out'));
  next();
};

/**
 * Who may do what, decided server-side on every call: a user manages a guild when the bot is in it (or
 * was, and the guild still has links: its page shows the bot is missing) and the platform says
 * they own it or hold Manage Server (or Administrator). Everything else about that
 * guild is 403, whether or not it exists here, so nothing leaks about other guilds. Owner-only actions
 * (Apply removals, the trusted flag; spec 5.8) check the platform's `owner` flag.
 */
export class GuildAccess {
  constructor(
    private readonly oauth: OAuthClient,
    private readonly reader: GuildReader,
    /** Of these guilds, the ones the bot is known to be out of with links here (guild_outage): still manageable, to show that. */
    private readonly unreachable: (guildIds: string[]) => Promise<Set<string>> = () => Promise.resolve(new Set()),
  ) {}

  /**
   * The guilds the user may manage. `recheckMs` (the server list only): when the user holds Manage Server
   * in a guild the memoised bot list lacks, maybe one they just added the bot to ("Add the bot to a
   * server"), re-read the bot's guilds if that list is older than this, so the server shows when they come
   * back rather than up to 60 s later. The memo is shared, so it costs one listing per `recheckMs` at most.
   */
  async manageable(req: Request, recheckMs?: number): Promise<UserGuild[]> {
    const [guilds, memoised] = await Promise.all([this.userGuilds(req), this.reader.botGuildIds()]);
    const waiting = recheckMs !== undefined && guilds.some((g) => holdsManageServer(g) && !memoised.has(g.id));
    const bot = waiting ? await this.reader.botGuildIds(recheckMs) : memoised;
    const managed = guilds.filter(holdsManageServer);
    const missing = managed.filter((g) => !bot.has(g.id)).map((g) => g.id);
    const out = missing.length ? await this.unreachable(missing) : new Set<string>();
    return managed.filter((g) => bot.has(g.id) || out.has(g.id));
  }

  async guild(req: Request, guildId: string): Promise<UserGuild> {
    const g = (await this.manageable(req)).find((x) => x.id === guildId);
    if (!g)
      throw new AppError(
        403,
        'You cannot manage this server: it needs the bot, and you need Manage Server',
        'guild_forbidden',
      );
    return g;
  }

  requireOwner(g: UserGuild, action: string): void {
    if (!g.owner) throw new AppError(403, `Only the server owner can ${action}`, 'owner_only');
  }

  private async userGuilds(req: Request): Promise<UserGuild[]> {
    const s = req.session;
    if (s.guilds && s.guildsAt && Date.now() - s.guildsAt < GUILDS_TTL_MS) return s.guilds;
    try {
      s.guilds = await this.oauth.guilds(s.tokens!);
      s.guildsAt = Date.now();
    } catch (err) {
      // A platform hiccup keeps the last known list for a while; an expired sign-in does not.
      if (err instanceof AppError && err.status === 401) {
        await new Promise<void>((resolve) => s.destroy(() => resolve()));
        throw err;
      }
      if (!s.guilds) throw err;
    }
    return s.guilds;
  }
}
