import type { Pool } from 'pg';
import { dryRunQuery, uploadParams } from '@rolelink/contracts';
import type { LinkContext } from '@rolelink/db/links';
import { addChunk, cancelUpload, createUpload } from '@rolelink/db/list';
import { MAX_CHUNK_USERS, limitsFor } from '@rolelink/domain';
import { AppError } from '@rolelink/runtime';
import { listBody, readIdItems } from '../body';
import { linkRoute, type LinkRoute } from '../links/link-route';
import { previewWholeList, writeWholeList } from '../list-write';
import type { SyncNotifier } from '@rolelink/queue';

type Deps = { pool: Pool; sync: SyncNotifier };

const notFound = () => AppError.notFound('Upload session not found', 'upload_not_found');

/** Chunked uploads exist on premium only (spec 8); a free link is told what to use instead. */
function premiumOnly(link: LinkContext): void {
  if (!limitsFor(link.plan).chunked)
    throw AppError.forbidden(
      `Chunked uploads are available on the premium plan only. On the free plan send the whole list with PUT /users (up to ${limitsFor('free').perPut.toLocaleString('en-US')} users).`,
      'premium_required',
    );
}

/** The chunked upload's routes, for the link pipeline's table; before the list's, so `/users/upload` is not read as a user id. */
export function uploadsRoutes(deps: Deps): LinkRoute[] {
  return [
    linkRoute({
      method: 'POST',
      path: '/users/upload',
      auth: 'fresh',
      linkCheck: premiumOnly,
      input: {},
      async handle({ res, link }) {
        res.json({ data: { upload_id: await createUpload(deps.pool, link.id) } });
      },
    }),

    linkRoute({
      method: 'POST',
      path: '/users/upload/:uploadId/chunk',
      auth: 'fresh',
      linkCheck: premiumOnly,
      input: { params: uploadParams },
      body: listBody(),
      async handle({ req, res, input: { params }, link }) {
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
        const counters = await addChunk(deps.pool, link.id, params.uploadId, ids, expiries);
        if (!counters) throw notFound();
        res.json({ data: counters });
      },
    }),

    linkRoute({
      method: 'POST',
      path: '/users/upload/:uploadId/commit',
      auth: 'fresh',
      linkCheck: premiumOnly,
      input: { params: uploadParams, query: dryRunQuery },
      idempotent: true,
      async handle({ req, res, input: { params, query }, link }) {
        const source = { kind: 'upload', uploadId: params.uploadId } as const;
        if (query.dry_run === 'true') {
          // The session stays open: a dry run neither commits nor closes it.
          res.json({ data: await previewWholeList(deps, link, source, req, res) });
          return;
        }
        const userCount = await writeWholeList(deps, link, source, req, res);
        res.json({ data: { user_count: userCount } });
      },
    }),

    linkRoute({
      method: 'DELETE',
      path: '/users/upload/:uploadId',
      auth: 'fresh',
      linkCheck: premiumOnly,
      input: { params: uploadParams },
      async handle({ res, input: { params }, link }) {
        if (!(await cancelUpload(deps.pool, link.id, params.uploadId))) throw notFound();
        res.json({ data: { cancelled: true } });
      },
    }),
  ];
}
