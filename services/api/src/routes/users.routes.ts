import { Router, type RequestHandler } from 'express';
import type { Pool } from 'pg';
import { dryRunQuery, userParams, usersQuery, type ListMeta } from '@rolelink/contracts';
import type { LinkContext } from '@rolelink/db/links';
import { hasUser, listExpiries, streamUserIdsJson } from '@rolelink/db/list';
import { listedUnreachable } from '@rolelink/db/sync';
import { limitsFor, reportedPending, splitPending, storedLimitMessage } from '@rolelink/domain';
import { AppError, handle, input, sendStream, validate } from '@rolelink/runtime';
import { AddBatcher } from '../add-batcher';
import { currentLink, guardedWrite } from '../auth';
import { idListBody, readIdList } from '../body';
import { expiryBody, readPostExpiry } from '../body/expiry-fields';
import { previewWholeList, writeWholeList } from '../list-write';
import { RemoveBatcher } from '../remove-batcher';
import { setListVersion } from '../list-version';
import { idempotent } from '../idempotency';
import type { SyncNotifier } from '@rolelink/queue';

type Deps = { pool: Pool; sync: SyncNotifier };

/**
 * The list's counts. Listed users no call can reach (not in the server, deleted accounts: the platform's
 * last answer) are left out of pending, as on the dashboard (issue 34): no call can give them the role, so
 * the bot's holders will number the synced set less them.
 */
export async function listMeta(pool: Pool, link: LinkContext): Promise<ListMeta> {
  const limits = limitsFor(link.plan);
  const desired = Math.min(link.userCount, limits.syncedUsers);
  const unreachable = await listedUnreachable(pool, link.id);
  const out = unreachable.notInServer + unreachable.deleted;
  const pending = reportedPending(link, desired, out);
  const split = splitPending(pending, Math.max(0, desired - out), link.appliedCount);
  return {
    user_count: link.userCount,
    synced_count: Math.min(link.appliedCount, desired),
    pending_count: pending,
    pending_adds: split.adds,
    pending_removals: split.removals,
    synced_limit: limits.syncedUsers,
    user_limit: limits.storedUsers,
  };
}

/**
 * POST and DELETE /users/:userId's handler chains, as registered on the Express route: the fast path
 * (fast-users.ts) runs these same chains for the requests it takes, so the route has one home.
 */
export type SingleUserRoutes = { POST: RequestHandler[]; DELETE: RequestHandler[] };

/**
 * Registers the routes on `r`: the app passes the link router itself, so a request does not enter a nested router per route group.
 * Returns the single-user write chains (SingleUserRoutes) for the fast path.
 */
export function usersRoutes(deps: Deps, r: Router = Router({ mergeParams: true })): SingleUserRoutes {
  const adds = new AddBatcher(deps);
  const removes = new RemoveBatcher(deps);
  const once = idempotent(deps.pool);

  r.get(
    '/users',
    validate({ query: usersQuery }),
    handle(async (req, res) => {
      const link = currentLink(res);
      const { query } = input<{ query: typeof usersQuery }>(res);
      const meta: ListMeta = await listMeta(deps.pool, link);
      // Only on request: the list's answer without it stays as it was (and costs no extra read).
      if (query.include === 'expiry')
        meta.expiries = Object.fromEntries(
          (await listExpiries(deps.pool, link.id)).map((e) => [e.userId, e.expiresAt.toISOString()]),
        );
      const { stream, done } = await streamUserIdsJson(deps.pool, link.id);
      // The version read with the link, before the list: never newer than what is sent, so an If-Match
      // built from it can fail spuriously (412) but never let a write over an unseen change through.
      setListVersion(res, link.id, link.listVersion);
      res.status(200).type('application/json');
      // Stopped when the client goes away (sendStream says why that matters: the soak's leaked transactions).
      await sendStream(req, res, { stream, done }, { head: `{"meta":${JSON.stringify(meta)},"data":[`, tail: ']}' });
    }),
  );

  r.put(
    '/users',
    validate({ query: dryRunQuery }),
    ...idListBody(),
    once,
    handle(async (req, res) => {
      const link = currentLink(res);
      const { query } = input<{ query: typeof dryRunQuery }>(res);
      const cap = limitsFor(link.plan).perPut;
      const { ids, expiries } = readIdList(
        req.body,
        cap,
        (n) =>
          new AppError(
            413,
            `Too many users in one request: ${n.toLocaleString('en-US')} sent, at most ${cap.toLocaleString('en-US')} per PUT on the ${link.plan} plan.` +
              (link.plan === 'premium'
                ? ' Use the chunked upload (POST /users/upload) for larger lists.'
                : ' Upgrade to premium for larger lists and chunked uploads.'),
            'too_many_users',
          ),
        Date.now(),
      );
      if (query.dry_run === 'true') {
        res.json({ data: await previewWholeList(deps, link, { kind: 'ids', ids }, req, res) });
        return;
      }
      const userCount = await writeWholeList(deps, link, { kind: 'ids', ids, expiries }, req, res);
      res.json({ data: { user_count: userCount } });
    }),
  );

  r.get(
    '/users/:userId',
    validate({ params: userParams }),
    handle(async (_req, res) => {
      const { params } = input<{ params: typeof userParams }>(res);
      const link = currentLink(res);
      setListVersion(res, link.id, link.listVersion); // read before the look-up (see GET /users)
      res.json({ data: { exists: await hasUser(deps.pool, link.id, params.userId) } });
    }),
  );

  const postUser: RequestHandler[] = [
    validate({ params: userParams }),
    expiryBody(),
    once,
    handle(async (req, res) => {
      const { params } = input<{ params: typeof userParams }>(res);
      // Optional: without one the member is permanent, and an expiry set earlier is cleared (the latest call wins).
      const expiresAt = readPostExpiry(req.body, Date.now());
      // Batched with the link's concurrent adds; answers after the row is committed and, when it was added, the sync requested.
      const { link, result } = await guardedWrite(res, async (link, guard) => ({
        link,
        result: await adds.add(link.id, params.userId, limitsFor(link.plan).storedUsers, req.id, expiresAt, guard),
      }));
      if (result.atLimit) throw new AppError(400, storedLimitMessage(link.plan), 'stored_limit');
      setListVersion(res, link.id, result.listVersion);
      res.json({ data: { added: result.added } });
    }),
  ];
  r.post('/users/:userId', ...postUser);

  const deleteUser: RequestHandler[] = [
    validate({ params: userParams }),
    once,
    handle(async (req, res) => {
      const { params } = input<{ params: typeof userParams }>(res);
      // Batched with the link's concurrent removals; answers after the removal is committed and, when it removed, the sync requested.
      const { link, removed, listVersion } = await guardedWrite(res, async (link, guard) => ({
        link,
        ...(await removes.remove(link.id, params.userId, req.id, guard)),
      }));
      setListVersion(res, link.id, listVersion);
      res.json({ data: { removed } });
    }),
  ];
  r.delete('/users/:userId', ...deleteUser);

  return { POST: postUser, DELETE: deleteUser };
}
