import type { Pool } from 'pg';
import type { RequestHandler, Response } from 'express';
import { linkParams } from '@rolelink/contracts';
import { findLinkAt, findLinkByTokenHash, type LinkContext } from '@rolelink/db/links';
import { hashToken, isPaused, isWellFormedToken } from '@rolelink/domain';
import { addRequestLogFields, AppError, handle, SharedCall, zodIssues } from '@rolelink/runtime';

const SCHEME = /^([A-Za-z]+)\s+(\S+)\s*$/;

/**
 * Authenticates a User Management API call (spec 5, 7). The order of the checks is deliberate:
 *   1. 401 header missing, 2. 401 scheme not `Token`, 3. 400 path parameters invalid,
 *   4. 403 token unknown or revoked, 5. 404 no link at this guild/role, 6. 403 token of another link,
 *   7. 403 link disabled, 8. 403 link paused.
 * A caller without a valid token never learns whether a link exists (4 before 5).
 */
export function authenticate(pool: Pool): RequestHandler {
  // Concurrent requests with one token share a look-up that starts after each of them arrived
  // (SharedCall, @rolelink/runtime): a plugin's burst costs a few reads instead of one per request.
  const byTokenHash = new SharedCall((hashHex: string) => findLinkByTokenHash(pool, Buffer.from(hashHex, 'hex')));
  // A plugin sends the same token on every call: its format check and its hash (two SHA-256, ~5% of the
  // API's CPU on a POST, issue 24) are remembered per well-formed token. Bounded: emptied when full.
  const hashes = new Map<string, string>();
  const hashOf = (token: string): string | null => {
    let hex = hashes.get(token);
    if (hex === undefined) {
      if (!isWellFormedToken(token)) return null;
      if (hashes.size >= 10_000) hashes.clear();
      hex = hashToken(token).toString('hex');
      hashes.set(token, hex);
    }
    return hex;
  };
  return handle(async (req, res, next) => {
    const header = req.get('authorization');
    if (!header || !header.trim()) throw AppError.unauthorized('Authorization header required');
    const match = SCHEME.exec(header.trim());
    if (!match || match[1]!.toLowerCase() !== 'token') throw AppError.unauthorized('Invalid authorization scheme. Use: Token <token>');
    const params = linkParams.safeParse(req.params);
    if (!params.success) throw AppError.validation(zodIssues(params.error, 'params'));
    const guildId = BigInt(params.data.guildId).toString();
    const roleId = BigInt(params.data.roleId).toString();
    const token = match[2]!;
    const hashHex = hashOf(token);
    const found = hashHex === null ? null : await byTokenHash.get(hashHex);
    const link = found && { ...found }; // each request its own copy of the shared answer
    if (!link) throw AppError.forbidden('Invalid or revoked token', 'invalid_token');
    if (link.guildId !== guildId || link.roleId !== roleId) {
      const there = await findLinkAt(pool, guildId, roleId);
      if (!there) throw AppError.notFound('Role link not found', 'link_not_found');
      throw AppError.forbidden('Invalid or revoked token', 'invalid_token');
    }
    if (!link.enabled) throw AppError.forbidden('This role link is disabled', 'link_disabled');
    if (isPaused(link.rank, link.plan, link.paidSlots)) {
      throw AppError.forbidden('This role link is paused — integration slots quota exceeded', 'link_paused');
    }
    res.locals.link = link;
    // Only once every check passed: a refused request must not be attributed to the link it named.
    addRequestLogFields(res, { linkId: link.id });
    next();
  });
}

export function currentLink(res: Response): LinkContext {
  return res.locals.link as LinkContext;
}
