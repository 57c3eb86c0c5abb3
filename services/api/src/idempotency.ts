import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Pool } from 'pg';
import { CONFIRM_HEADER } from '@rolelink/contracts';
import { claimIdempotencyKey, recordIdempotentAnswer, releaseIdempotencyKey } from '@rolelink/db/list';
import { AppError } from '@rolelink/runtime';
import type { LinkAuth } from './links/link-auth';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** Visible ASCII, as the IETF Idempotency-Key draft suggests for the header's string value; UUIDs fit. */
const KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on the writing routes (docs/api.md): the first answer to a key is kept for 24 h in
 * PostgreSQL (so losing Redis loses no key) and replayed to any request with the same key and the same
 * fingerprint; the write does not run again. Scoped to the link the token opened. Mount after the body
 * is parsed (the fingerprint covers it). Without the header, or on a dry run, it does nothing.
 *
 * A request let through on remembered authentication is settled by a fresh read before its key is
 * claimed: a claim, and the answer recorded under it, must not rest on a read older than the request.
 *
 * The key is claimed in its own statement before the write and the answer recorded after it, before the
 * answer is sent. A 5xx frees the key (the write's transaction failed; a retry should run). A process
 * that dies before answering leaves a claim without an answer; it is free again once that process has
 * no connection left in PostgreSQL (db claimIdempotencyKey), so a retry runs. The one gap: a death
 * between the write's commit and recording the answer re-runs the write on retry.
 */
export function idempotent(pool: Pool): (req: Request, res: Response, auth: LinkAuth) => false | Promise<boolean> {
  /** Resolves true when it answered the request (a replay); throws its refusal. */
  const keyed = async (req: Request, res: Response, auth: LinkAuth): Promise<boolean> => {
    const key = req.get(IDEMPOTENCY_HEADER)!;
    if (!KEY.test(key))
      throw AppError.validation([
        { field: 'headers.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    await auth.confirm();
    const link = auth.link;
    const fingerprint = createHash('sha256')
      .update(
        JSON.stringify([
          req.method,
          req.path,
          req.body ?? null,
          req.get(CONFIRM_HEADER) ?? null,
          req.get('if-match') ?? null,
        ]),
      )
      .digest();
    const claim = await claimIdempotencyKey(pool, link.id, key, fingerprint);
    if (claim.kind !== 'claimed' && claim.fingerprint.length && !claim.fingerprint.equals(fingerprint)) {
      throw new AppError(
        422,
        'This Idempotency-Key was already used for a different request (method, path, body or headers differ). Use a new key for a new request.',
        'idempotency_key_reused',
      );
    }
    if (claim.kind === 'in-progress') {
      throw new AppError(
        409,
        'A request with this Idempotency-Key is still being processed. Retry after it has answered.',
        'idempotency_in_progress',
      );
    }
    if (claim.kind === 'answered') {
      res.setHeader('Idempotent-Replayed', 'true');
      if (claim.answer.etag) res.setHeader('ETag', claim.answer.etag);
      res.status(claim.answer.status).json(claim.answer.body);
      return true;
    }
    recordBeforeSending(res, pool, link.id, key);
    return false;
  };
  // Most calls carry no key: they pass without the promise an async step costs (the API's hottest route runs this).
  return (req, res, auth) => {
    if (req.headers[IDEMPOTENCY_HEADER] === undefined || req.query.dry_run === 'true') return false;
    return keyed(req, res, auth);
  };
}

/** Holds the JSON answer (a success or an error from the error middleware) until its record is written. */
function recordBeforeSending(res: Response, pool: Pool, linkId: string, key: string): void {
  const send = res.json.bind(res);
  res.json = (body: unknown) => {
    const etag = res.getHeader('ETag');
    const stored =
      res.statusCode >= 500
        ? releaseIdempotencyKey(pool, linkId, key)
        : recordIdempotentAnswer(pool, linkId, key, {
            status: res.statusCode,
            body,
            etag: typeof etag === 'string' ? etag : null,
          });
    // If the record cannot be written the answer still goes out; the claim then ages out as abandoned.
    void stored.catch(() => undefined).finally(() => send(body));
    return res;
  };
}
