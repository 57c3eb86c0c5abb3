import type { Pool } from 'pg';
import type { Request, Response } from 'express';
import { linkParams } from '@rolelink/contracts';
import { findLinkAt, findLinkByTokenHash, type LinkContext } from '@rolelink/db/links';
import { StaleAuthError, type AuthGuard } from '@rolelink/db/list';
import { hashToken, isPaused, isWellFormedToken } from '@rolelink/domain';
import { addRequestLogFields, AppError, SharedCall, zodIssues } from '@rolelink/runtime';

const SCHEME = /^([A-Za-z]+)\s+(\S+)\s*$/;

/** Remembered links kept at most; emptied when full (a plugin keeps one token, an API serves a few thousand links). */
const REMEMBERED_MAX = 10_000;

/** How a request was let through: a read of its link made for it, or the link as last read for its token. */
export type Authentication = 'fresh' | 'remembered';

/** The path's link parameters as the route table matched them (decoded, not yet validated). */
export type LinkPathParams = { guildId: string; roleId: string };

/**
 * One request's authentication: the link it opened and how. A remembered one (`how === 'remembered'`)
 * rests on an earlier read until something settles it: its guarded write (write()), or a fresh read
 * (confirm()), which every other answer and every other effect must come after.
 */
export class LinkAuth {
  private pending: AuthGuard | undefined;

  constructor(
    private current: LinkContext,
    readonly how: Authentication,
    guard: AuthGuard | undefined,
    private readonly reread: () => Promise<LinkContext>,
  ) {
    this.pending = guard;
  }

  /** The link as authenticated (for a remembered request, as last read until settled). */
  get link(): LinkContext {
    return this.current;
  }

  /**
   * A list write. Unsettled (remembered), it carries the guard, which the statement checks in itself; if
   * the link changed, nothing was written and the write runs again on the link read afresh, or that
   * read's refusal (AppError) is thrown.
   */
  async write<T>(write: (link: LinkContext, guard?: AuthGuard) => Promise<T>): Promise<T> {
    const guard = this.pending;
    if (!guard) return write(this.current);
    try {
      const result = await write(this.current, guard);
      this.pending = undefined; // the statement saw the token valid: settled
      return result;
    } catch (err) {
      if (!(err instanceof StaleAuthError)) throw err;
      await this.confirm();
      return write(this.current);
    }
  }

  /** Settles a remembered request by a fresh read (a no-op once settled); throws that read's refusal. */
  async confirm(): Promise<void> {
    if (!this.pending) return;
    this.pending = undefined; // settled by this read, whatever it finds
    this.current = await this.reread();
  }

  /** Before an error answer: `err`, or the refusal of the fresh read an unsettled request still owes. */
  async confirmed(err: unknown): Promise<unknown> {
    try {
      await this.confirm();
      return err;
    } catch (authErr) {
      return authErr;
    }
  }
}

/**
 * Authenticates a User Management API call (spec 5, 7). The order of the checks is deliberate:
 *   1. 401 header missing, 2. 401 scheme not `Token`, 3. 400 path parameters invalid,
 *   4. 403 token unknown or revoked, 5. 404 no link at this guild/role, 6. 403 token of another link,
 *   7. 403 link disabled, 8. 403 link paused.
 * A caller without a valid token never learns whether a link exists (4 before 5).
 *
 * Usually checks 4–8 are a read made for the request. With `mayRemember` (the link pipeline passes it for
 * the routes whose every success is a guarded write) a token whose last read passed them all is let
 * through on that read instead: see LinkAuth, and docs/api.md "Remembered authentication".
 */
export function authenticator(
  pool: Pool,
): (req: Request, res: Response, params: LinkPathParams, mayRemember: boolean) => Promise<LinkAuth> {
  // Concurrent requests with one token share a look-up that starts after each of them arrived
  // (SharedCall, @rolelink/runtime): a plugin's burst costs a few reads instead of one per request.
  const byTokenHash = new SharedCall((hashHex: string) => findLinkByTokenHash(pool, Buffer.from(hashHex, 'hex')));
  // A plugin sends the same token on every call: its format check and its hash (two SHA-256) are
  // remembered per well-formed token. Bounded: emptied when full.
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

  /** A fresh read whose link is the request's: in its log line only once every check passed. */
  const read = async (res: Response, how: Authentication, hashHex: string | null, guildId: string, roleId: string) => {
    try {
      const link = await check(hashHex, guildId, roleId);
      addRequestLogFields(res, { linkId: link.id, auth: how });
      return link;
    } catch (err) {
      // A refused request must not be attributed to the link it named.
      addRequestLogFields(res, { linkId: undefined, auth: undefined });
      throw err;
    }
  };

  return async (req, res, params, mayRemember) => {
    const header = req.get('authorization')?.trim();
    if (!header) throw AppError.unauthorized('Authorization header required');
    const match = SCHEME.exec(header);
    if (!match || match[1]!.toLowerCase() !== 'token')
      throw AppError.unauthorized('Invalid authorization scheme. Use: Token <token>');
    const hashHex = hashOf(match[2]!);

    const known = mayRemember && hashHex !== null ? remembered.get(hashHex) : undefined;
    // The remembered link's IDs are in their canonical form: a path that spells them exactly is valid
    // (check 3) and names that link, with no schema run or BigInt round trip. Any other spelling (leading
    // zeros, say) takes the full path below.
    if (known && params.guildId === known.link.guildId && params.roleId === known.link.roleId) {
      const { guildId, roleId } = known.link;
      addRequestLogFields(res, { linkId: known.link.id, auth: 'remembered' });
      return new LinkAuth({ ...known.link }, 'remembered', known.guard, () =>
        read(res, 'remembered', hashHex, guildId, roleId),
      );
    }
    const parsed = linkParams.safeParse(params);
    if (!parsed.success) throw AppError.validation(zodIssues(parsed.error, 'params'));
    const guildId = BigInt(parsed.data.guildId).toString();
    const roleId = BigInt(parsed.data.roleId).toString();
    const link = await read(res, 'fresh', hashHex, guildId, roleId);
    return new LinkAuth(link, 'fresh', undefined, () => Promise.resolve(link));
  };
}
