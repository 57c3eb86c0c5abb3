import { verifyIframeToken, type IframeTokenClaims } from '@rolelink/plugin-sdk';
import type { Registration, Registrations } from '../registrations';

export type EmbedAuth =
  | { ok: true; registration: Registration; claims: IframeTokenClaims }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired' };

/** What the viewer reads when the page or a call is refused (the embedded page shows it as is). */
export const EMBED_AUTH_MESSAGES: Record<Exclude<EmbedAuth, { ok: true }>['reason'], string> = {
  missing: 'This page opens from the Role Link dashboard: the rl_token parameter is missing.',
  invalid: 'The rl_token is not valid for this plugin (wrong signature, issuer or audience, or an unknown link).',
  expired: 'The rl_token has expired (it lasts 5 minutes). Reload the configuration tab in the dashboard.',
};

/**
 * The link a token claims to be for, read WITHOUT checking the signature. Each link's token is signed
 * with that link's own API token (spec 5.7), so the claims are needed to know which secret to verify
 * with; nothing here is trusted until verifyIframeToken has passed.
 */
function claimedLink(token: string): { guildId: string; roleId: string } | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    return typeof claims.guild_id === 'string' && typeof claims.role_id === 'string'
      ? { guildId: claims.guild_id, roleId: claims.role_id }
      : null;
  } catch {
    return null;
  }
}

/**
 * Checks an `rl_token` (spec 4.3, 5.7): signature with the claimed link's API token, `iss`, `aud` = this
 * plugin's public URL, and `exp`. A token minted for one link cannot open another: the other link's
 * API token would not verify it.
 */
export function authenticateEmbed(
  token: string | undefined,
  registrations: Registrations,
  publicUrl: string,
  now?: Date,
): EmbedAuth {
  if (!token) return { ok: false, reason: 'missing' };
  const link = claimedLink(token);
  const registration = link ? registrations.get(link.guildId, link.roleId) : undefined;
  if (!registration) return { ok: false, reason: 'invalid' };
  try {
    const claims = verifyIframeToken(token, {
      apiToken: registration.token,
      pluginUrl: publicUrl,
      ...(now ? { now } : {}),
    });
    return { ok: true, registration, claims };
  } catch (err) {
    return { ok: false, reason: err instanceof Error && err.name === 'TokenExpiredError' ? 'expired' : 'invalid' };
  }
}

/** The token of an API call made by the embedded page: `Authorization: Bearer <rl_token>`. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer (\S+)$/.exec(header ?? '')?.[1];
}
