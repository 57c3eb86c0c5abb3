import { Router, type RequestHandler } from 'express';
import type { Pool } from 'pg';
import { dryRunQuery, uploadParams } from '@rolelink/contracts';
import { addChunk, cancelUpload, createUpload } from '@rolelink/db/list';
import { MAX_CHUNK_USERS, limitsFor } from '@rolelink/domain';
import { AppError, handle, input, validate } from '@rolelink/runtime';
import { currentLink } from '../auth';
import { listBody, readIdItems } from '../body';
import { previewWholeList, writeWholeList } from '../list-write';
import { idempotent } from '../idempotency';
import type { SyncNotifier } from '@rolelink/queue';

type Deps = { pool: Pool; sync: SyncNotifier };

const notFound = () => AppError.notFound('Upload session not found', 'upload_not_found');

/** Chunked uploads exist on premium only (spec 8); a free link is told what to use instead. */
const premiumOnly: RequestHandler = (_req, res, next) => {
  if (!limitsFor(currentLink(res).plan).chunked) {
    return next(
      AppError.forbidden(
        `Chunked uploads are available on the premium plan only. On the free plan send the whole list with PUT /users (up to ${limitsFor('free').perPut.toLocaleString('en-US')} users).`,
        'premium_required',
      ),
    );
  }
  next();
};

/** Registers the routes on `r`: the app passes the link router itself, so a request does not enter a nested router per route group. */
export function uploadsRoutes(deps: Deps, r: Router = Router({ mergeParams: true })): Router {
  const session = validate({ params: uploadParams });
  type Params = { params: typeof uploadParams };

  r.post(
    '/users/upload',
    premiumOnly,
    handle(async (_req, res) => {
      res.json({ data: { upload_id: await createUpload(deps.pool, currentLink(res).id) } });
    }),
  );

  r.post(
    '/users/upload/:uploadId/chunk',
    premiumOnly,
    session,
    ...listBody(),
    handle(async (req, res) => {
      const { params } = input<Params>(res);
      const { ids, expiries } = readIdItems(
        req.body,
        MAX_CHUNK_USERS,
        (n) =>
          AppError.validation([
            {
              field: 'body',
              message: `a chunk holds at most ${MAX_CHUNK_USERS.toLocaleString('en-US')} IDs (${n} sent)`,
            },
          ]),
        Date.now(),
      );
      const counters = await addChunk(deps.pool, currentLink(res).id, params.uploadId, ids, expiries);
      if (!counters) throw notFound();
      res.json({ data: counters });
    }),
  );

  r.post(
    '/users/upload/:uploadId/commit',
    premiumOnly,
    validate({ params: uploadParams, query: dryRunQuery }),
    idempotent(deps.pool),
    handle(async (req, res) => {
      const { params, query } = input<{ params: typeof uploadParams; query: typeof dryRunQuery }>(res);
      const source = { kind: 'upload', uploadId: params.uploadId } as const;
      if (query.dry_run === 'true') {
        // The session stays open: a dry run neither commits nor closes it.
        res.json({ data: await previewWholeList(deps, currentLink(res), source, req, res) });
        return;
      }
      const userCount = await writeWholeList(deps, currentLink(res), source, req, res);
      res.json({ data: { user_count: userCount } });
    }),
  );

  r.delete(
    '/users/upload/:uploadId',
    premiumOnly,
    session,
    handle(async (_req, res) => {
      const { params } = input<Params>(res);
      if (!(await cancelUpload(deps.pool, currentLink(res).id, params.uploadId))) throw notFound();
      res.json({ data: { cancelled: true } });
    }),
  );

  return r;
}
