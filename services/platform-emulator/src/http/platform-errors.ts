import { AppError } from '@rolelink/runtime';
import { RESTJSONErrorCodes, type RESTError, type RESTErrorData, type RESTRateLimit } from 'discord-api-types/v10';

/**
 * The platform's error bodies (`{ message, code, errors? }`), carried by the one error type as prescribed
 * bodies (the platform fixes them, not our ErrorBody) so the one error middleware sends them. The control API keeps the service's own `{ statusCode, message }` shape.
 */
export function platformError(status: number, message: string, code: number, errors?: RESTErrorData): AppError {
  const body: RESTError = errors === undefined ? { message, code } : { message, code, errors };
  return AppError.prescribed(status, message, `platform_${code}`, body);
}

export const unauthorized = () => platformError(401, '401: Unauthorized', 0);
export const routeNotFound = () => platformError(404, '404: Not Found', 0);
export const unknownGuild = () => platformError(404, 'Unknown Guild', RESTJSONErrorCodes.UnknownGuild);
export const unknownMember = () => platformError(404, 'Unknown Member', RESTJSONErrorCodes.UnknownMember);
export const unknownChannel = () => platformError(404, 'Unknown Channel', RESTJSONErrorCodes.UnknownChannel);
export const unknownRole = () => platformError(404, 'Unknown Role', RESTJSONErrorCodes.UnknownRole);
/** A user id no account has (never existed, or deleted). */
export const unknownUser = () => platformError(404, 'Unknown User', RESTJSONErrorCodes.UnknownUser);
/** A post to the DMs of a user who turned DMs off. */
export const cannotSendToUser = () =>
  platformError(403, 'Cannot send messages to this user', RESTJSONErrorCodes.CannotSendMessagesToThisUser);
/** A post to the DMs of a user who shares no guild with the bot. */
export const noMutualGuilds = () =>
  platformError(
    403,
    'Cannot send messages to this user due to having no mutual guilds',
    RESTJSONErrorCodes.CannotSendMessagesToThisUserDueToHavingNoMutualGuilds,
  );
/** A moderation action on a guild requiring 2FA, by an application whose owner has none. */
export const twoFactorRequired = () =>
  platformError(403, 'Two factor is required for this operation', RESTJSONErrorCodes.TwoFactorAuthenticationIsRequired);
export const missingPermissions = () =>
  platformError(403, 'Missing Permissions', RESTJSONErrorCodes.MissingPermissions);
/** A user token without the scope the route needs (e.g. `guilds` for GET /users/@me/guilds); the bot outside the guild; the member list without the intent. */
export const missingAccess = () => platformError(403, 'Missing Access', RESTJSONErrorCodes.MissingAccess);

/** The token endpoint's error codes (RFC 6749 §5.2), which the platform answers instead of `{ message, code }`. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type';

/** `{ error, error_description? }`, as the platform's token endpoint answers (no type for it in discord-api-types). */
export function oauthError(status: 400 | 401, error: OAuthErrorCode, description?: string): AppError {
  const body = description === undefined ? { error } : { error, error_description: description };
  return AppError.prescribed(status, description ?? error, `oauth_${error}`, body);
}

/** 400 Invalid Form Body naming one field, as the platform reports a bad path or query value. */
export function invalidFormBody(field: string, code: string, message: string): AppError {
  return platformError(400, 'Invalid Form Body', RESTJSONErrorCodes.InvalidFormBodyOrContentType, {
    [field]: { _errors: [{ code, message }] },
  });
}

/** The 429 body, worded per scope as the docs' examples; the caller sets Retry-After and the X-RateLimit-* headers. */
export function rateLimited(retryAfterMs: number, scope: 'user' | 'global' | 'shared'): AppError {
  const global = scope === 'global';
  const message = scope === 'shared' ? 'The resource is being rate limited.' : 'You are being rate limited.';
  const body: RESTRateLimit = { message, retry_after: Math.ceil(retryAfterMs) / 1000, global };
  return AppError.prescribed(429, body.message, `rate_limited_${scope}`, body);
}

/**
 * The body of the edge's ban (Cloudflare error 1015), not JSON: a client that parses every 429 as the
 * API's JSON fails on it, which is the point of sending it.
 */
export function edgeBanPage(retryAfterS: number): string {
  return `<!DOCTYPE html>
<html lang="en-US"><head><title>Access denied | discord.com used Cloudflare to restrict access</title></head>
<body><div id="cf-wrapper"><h1><span>Error</span> <span>1015</span></h1>
<h2>You are being rate limited</h2>
<p>The owner of this website (discord.com) has banned you temporarily from accessing this website. Retry in ${retryAfterS} seconds.</p>
</div></body></html>
`;
}

/**
 * The edge's refusal of a request without a client's User-Agent: Cloudflare's 403 page (error 1010, a
 * block on the client's signature), not JSON, with none of the API's headers.
 */
export function edgeUserAgentPage(): string {
  return `<!DOCTYPE html>
<html lang="en-US"><head><title>Access denied | discord.com used Cloudflare to restrict access</title></head>
<body><div id="cf-wrapper"><h1><span>Error</span> <span>1010</span></h1>
<h2>The owner of this website (discord.com) has banned your access based on your browser's signature.</h2>
<p>Send a User-Agent of the form "DiscordBot ($url, $versionNumber)", as the API's docs require (reference, User Agent).</p>
</div></body></html>
`;
}
