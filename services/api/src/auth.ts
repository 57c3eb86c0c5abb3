import type { Pool } from 'pg';
import type { RequestHandler, Response } from 'express';
import { linkParams } from '@rolelink/contracts';
import { findLinkAt, findLinkByTokenHash, type LinkContext } from '@rolelink/db/links';
import { StaleAuthError, type AuthGuard } from '@rolelink/db/list';
import { hashToken, isPaused, isWellFormedToken } from '@rolelink/domain';
import { addRequestLogFields, AppError, handle, SharedCall, zodIssues } from '@rolelink/runtime';

const SCHEME = /^([A-Za-z]+)\s+(\S+)\s*$/;

/** Remembered contexts kept at most; emptied when full (a plugin keeps one token, an API serves a few thousand links). */
const REMEMBERED_MAX = 10_000;

/**
 * A request authenticated from memory (see authenticate): the checks its list write makes in its own
 * statement, and the fresh read that settles it when that write is not reached or finds the link changed.
 */
type Remembered = { guard: AuthGuard; confirm: () => Promise<LinkContext> };

/**
 * Authenticates a User Management API call (spec 5, 7). The order of the checks is deliberate:
 *   1. 401 header missing, 2. 401 scheme not `Token`, 3. 400 path parameters invalid,
 *   4. 403 token unknown or revoked, 5. 404 no link at this guild/role, 6. 403 token of another link,
 *   7. 403 link disabled, 8. 403 link paused.
 * A caller without a valid token never learns whether a link exists (4 before 5).
 *
 * Every answer rests on a check made after the request arrived, so a revoked token, a disabled or a
 * paused link is refused at once. Usually that check is a read here. A single-user write the fast path
 * serves (allowRememberedAuth) may instead be let through on the link as last read for this token, if
 * that read passed every check; then its list write re-checks token, enabled, plan, slots and rank in its
 * own statement and writes nothing if any changed (guardedWrite), and an error answer of such a request
 * first reads afresh (confirmRememberedAuth), so that a revoked token still gets its 403, not a 400 or a
 * 429. Issue 24: the read before every write was a third of the PostgreSQL statements and a round trip
 * of latency on the API's hottest call.
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
      if (hashes.size >= REMEMBERED_MAX) hashes.clear();
      hex = hashToken(token).toString('hex');
      hashes.set(token, hex);
    }
    return hex;
  };
  // Per token hash: the link as last read, when that read passed every check, and the guard its writes carry.
  const remembered = new Map<string, { link: LinkContext; guard: AuthGuard }>();

  /** Checks 4–8 on a fresh read; the link that passed, or the AppError to answer. */
  const check = async (hashHex: string | null, guildId: string, roleId: string): Promise<LinkContext> => {
    const found = hashHex === null ? null : await byTokenHash.get(hashHex);
    const link = found && { ...found }; // each request its own copy of the shared answer
    if (hashHex !== null) remembered.delete(hashHex);
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
    if (remembered.size >= REMEMBERED_MAX) remembered.clear();
    const guard: AuthGuard = {
      tokenHash: Buffer.from(hashHex!, 'hex'),
      plan: link.plan,
      paidSlots: link.paidSlots,
      rank: link.rank,
    };
    remembered.set(hashHex!, { link: { ...link }, guard });
    return link;
  };

  const accept = (res: Response, link: LinkContext): void => {
    res.locals.link = link;
    // Only once every check passed: a refused request must not be attributed to the link it named.
    addRequestLogFields(res, { linkId: link.id });
  };

  return handle(async (req, res, next) => {
    const header = req.get('authorization')?.trim();
    if (!header) throw AppError.unauthorized('Authorization header required');
    const match = SCHEME.exec(header);
    if (!match || match[1]!.toLowerCase() !== 'token')
      throw AppError.unauthorized('Invalid authorization scheme. Use: Token <token>');
    const hashHex = hashOf(match[2]!);

    const known = hashHex !== null && res.locals.rememberedAuthAllowed === true ? remembered.get(hashHex) : undefined;
    // The remembered link's IDs are in their canonical form: a path that spells them exactly is valid
    // (check 3) and names that link, with no schema run or BigInt round trip (issue 35: a POST's CPU).
    // Any other spelling (leading zeros, say) takes the full path below.
    if (known && req.params.guildId === known.link.guildId && req.params.roleId === known.link.roleId) {
      const { guildId, roleId } = known.link;
      const confirm = async (): Promise<LinkContext> => {
        res.locals.remembered = undefined; // settled by this read, whatever it finds
        try {
          const link = await check(hashHex, guildId, roleId);
          accept(res, link);
          return link;
        } catch (err) {
          addRequestLogFields(res, { linkId: undefined });
          throw err;
        }
      };
      res.locals.remembered = { guard: known.guard, confirm } satisfies Remembered;
      accept(res, { ...known.link });
      return next();
    }
    const params = linkParams.safeParse(req.params);
    if (!params.success) throw AppError.validation(zodIssues(params.error, 'params'));
    const guildId = BigInt(params.data.guildId).toString();
    const roleId = BigInt(params.data.roleId).toString();
    accept(res, await check(hashHex, guildId, roleId));
    next();
  });
}

export function currentLink(res: Response): LinkContext {
  return res.locals.link as LinkContext;
}

/** Lets this request be authenticated from memory (see authenticate): only for requests whose every success is a guardedWrite. */
export function allowRememberedAuth(res: Response): void {
  res.locals.rememberedAuthAllowed = true;
}

/**
 * A list write for a request that may have been authenticated from memory: the write checks the guard in
 * its own statement; if the link changed, the request is authenticated afresh (its 403, or the write again
 * on the link as read now, a new plan's limit say).
 */
export async function guardedWrite<T>(
  res: Response,
  write: (link: LinkContext, guard?: AuthGuard) => Promise<T>,
): Promise<T> {
  const remembered = res.locals.remembered as Remembered | undefined;
  if (!remembered) return write(currentLink(res));
  try {
    const result = await write(currentLink(res), remembered.guard);
    res.locals.remembered = undefined; // the statement saw the token valid: settled
    return result;
  } catch (err) {
    if (!(err instanceof StaleAuthError)) throw err;
    return write(await remembered.confirm());
  }
}

/**
 * Before an error answer: a request authenticated from memory and not settled by its write is checked
 * afresh, and a failed check is the answer instead (the order of authenticate's checks holds). Resolves
 * to the error to answer.
 */
export async function confirmRememberedAuth(res: Response, err: unknown): Promise<unknown> {
  const remembered = res.locals.remembered as Remembered | undefined;
  if (!remembered) return err;
  try {
    await remembered.confirm();
    return err;
  } catch (authErr) {
    return authErr;
  }
}
