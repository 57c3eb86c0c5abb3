import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import type { API } from '@discordjs/core/http-only';
import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import { PlatformAnswerError, type PlatformFailure } from '@rolelink/domain';
import { PlatformShapeError } from './shapes/shape-error';

/**
 * Thrown by the platform client instead of waiting when the shared limiter says the next slot is
 * further away than the caller is willing to block. Callers yield (a delayed re-enqueue) and retry later.
 */
export class PlatformRateLimitedError extends Error {
  override readonly name = 'PlatformRateLimitedError';
  constructor(
    readonly retryAfterMs: number,
    /**
     * What is exhausted: the guild's `bucket`, the token's `global` limit, a `block` (429 global, an edge
     * ban, auth or invalid-request back-off), or `edge`: this very call met the platform's edge ban.
     */
    readonly limitedBy: 'bucket' | 'global' | 'block' | 'probe' | 'edge',
    readonly routeKey: string,
    readonly major: string,
  ) {
    super(`platform rate limit (${limitedBy}) on ${routeKey} [${major}]: retry in ${Math.ceil(retryAfterMs)} ms`);
  }
}

/**
 * The shared limiter's Redis could not be reached, so the request was never sent. Nothing is known about
 * the user: callers yield and try the same change again, as for a rate limit. Recording it as the
 * platform's refusal would park the user in a per-user back-off whose retry is a delayed job in the very
 * Redis that is gone.
 */
export class PlatformLimiterUnavailableError extends Error {
  override readonly name = 'PlatformLimiterUnavailableError';
  constructor(readonly reason: unknown) {
    super(
      `platform call not sent: the shared rate limiter is unavailable (${reason instanceof Error ? reason.message : String(reason)})`,
    );
  }
}

/** The one classification of platform answers (domain's, so admin and the dashboard tell it the same way). */
export type { PlatformFailure } from '@rolelink/domain';

/**
 * Maps whatever a platform call threw to what the caller has to do about it. The platform's JSON error
 * codes are discord-api-types' own (RESTJSONErrorCodes), never redeclared here.
 */
export function classifyPlatformError(err: unknown): PlatformFailure {
  if (err instanceof PlatformRateLimitedError) return { kind: 'rate_limited', retryAfterMs: err.retryAfterMs };
  if (err instanceof PlatformLimiterUnavailableError) return { kind: 'limiter_unavailable', retryAfterMs: 1_000 };
  if (err instanceof RateLimitError)
    return { kind: 'rate_limited', retryAfterMs: Math.max(err.retryAfter, err.timeToReset, 50) };
  if (err instanceof DiscordAPIError) {
    if (err.code === RESTJSONErrorCodes.UnknownMember) return { kind: 'not_in_guild' };
    if (err.code === RESTJSONErrorCodes.UnknownRole) return { kind: 'unknown_role' };
    if (err.code === RESTJSONErrorCodes.UnknownUser) return { kind: 'unknown_user' };
    if (err.code === RESTJSONErrorCodes.UnknownGuild || err.code === RESTJSONErrorCodes.MissingAccess)
      return { kind: 'guild_unavailable', code: Number(err.code) };
    if (err.code === RESTJSONErrorCodes.TwoFactorAuthenticationIsRequired) return { kind: 'mfa_required' };
    if (err.status >= 500) return { kind: 'server_error', status: err.status, message: err.message };
    if (err.status === 403) return { kind: 'missing_permission' };
    if (err.status === 401) return { kind: 'unauthorized' };
    return {
      kind: 'failed',
      status: err.status,
      code: typeof err.code === 'number' ? err.code : null,
      message: err.message,
    };
  }
  // @discordjs/rest throws HTTPError for an answer without a JSON error body: a 5xx once its retries are spent.
  if (err instanceof HTTPError)
    return err.status >= 500
      ? { kind: 'server_error', status: err.status, message: err.message }
      : err.status === 401
        ? { kind: 'unauthorized' }
        : { kind: 'failed', status: err.status, code: null, message: err.message };
  if (err instanceof PlatformAnswerError) return err.failure;
  if (err instanceof PlatformShapeError) return { kind: 'malformed', message: err.message };
  // Nothing came back: a network error, or the client's timeout aborted the call.
  return { kind: 'no_answer', message: err instanceof Error ? err.message : String(err) };
}

/**
 * Rethrows a platform call's error classified, for code that does not read the client's errors itself
 * (packages/admin's injected readers): it tells the answer with domain's describePlatformFailure.
 */
export function asPlatformAnswer(err: unknown): never {
  throw err instanceof PlatformAnswerError ? err : new PlatformAnswerError(classifyPlatformError(err));
}

/**
 * Why GET /guilds/{id}/members was refused with 403 50001 (Missing Access): the platform gives the same
 * answer when the application lacks the Server Members intent and when the bot is not in the guild. One
 * GET /guilds/{id} tells them apart: it needs no intent, so it succeeds only while the bot is in the guild.
 */
export async function listingRefusal(api: API, guildId: string): Promise<'members_intent' | 'guild_unavailable'> {
  try {
    await api.guilds.get(guildId);
    return 'members_intent';
  } catch (err) {
    if (classifyPlatformError(err).kind === 'guild_unavailable') return 'guild_unavailable';
    throw err;
  }
}
