import { describePlatformFailure, platformFailureOf, type PlatformFailure } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import type { AdminDeps } from './deps';

/**
 * A platform failure met by an admin operation, as the spec's error: domain's one reading of the answer
 * (describePlatformFailure), its status and code chosen by what the admin can do about it. A definite
 * refusal names its cause and fix and never says "try again"; only a 5xx or no answer does.
 */
export function platformAppError(failure: PlatformFailure, doing: string, inviteUrl?: string): AppError {
  const text = describePlatformFailure(failure, { inviteUrl });
  const said = `${doing}: ${lowerFirst(text.message)}${text.fix && !text.retry ? ` ${text.fix}` : ''}`;
  switch (failure.kind) {
    case 'guild_unavailable':
      return new AppError(409, said, 'bot_not_in_guild');
    case 'mfa_required':
      return new AppError(409, said, 'mfa_required');
    case 'missing_permission':
      return new AppError(409, said, 'missing_permission');
    case 'unknown_role':
      return new AppError(404, said, 'unknown_role');
    case 'not_in_guild':
      return new AppError(404, said, 'not_in_guild');
    case 'unknown_user':
      return new AppError(404, said, 'unknown_user');
    case 'unauthorized':
      return new AppError(502, said, 'platform_unauthorized');
    case 'failed':
      return new AppError(502, said, 'platform_refused');
    case 'server_error':
      return new AppError(502, said, 'platform_error');
    case 'no_answer':
      return new AppError(502, said, 'platform_unavailable');
    case 'malformed':
      return new AppError(502, said, 'platform_malformed');
    case 'rate_limited':
    case 'limiter_unavailable':
      return new AppError(503, said, 'platform_rate_limited');
  }
}

/** Any error of an injected platform reader as the spec's error; an AppError passes as it is. */
export async function platformErrorOf(
  deps: Pick<AdminDeps, 'botInvite'>,
  err: unknown,
  doing: string,
  guildId: string,
): Promise<AppError> {
  if (err instanceof AppError) return err;
  const failure = platformFailureOf(err);
  const invite =
    failure.kind === 'guild_unavailable' && deps.botInvite
      ? await Promise.resolve(deps.botInvite(guildId)).catch(() => undefined)
      : undefined;
  return platformAppError(failure, doing, invite);
}

const lowerFirst = (s: string) => (s.startsWith('The chat platform') ? `t${s.slice(1)}` : s);
