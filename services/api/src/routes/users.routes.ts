import type { Pool } from 'pg';
import { dryRunQuery, userParams, usersQuery, type ListMeta } from '@rolelink/contracts';
import type { LinkContext } from '@rolelink/db/links';
import { hasUser, listExpiries, streamUserIdsJson } from '@rolelink/db/list';
import { linkStateFacts } from '@rolelink/db/sync';
import { deriveLinkStatus, limitsFor, storedLimitMessage } from '@rolelink/domain';
import { AppError, sendStream } from '@rolelink/runtime';
import { AddBatcher } from '../add-batcher';
import { idListBody, readIdList } from '../body';
import { expiryBody, readPostExpiry } from '../body/expiry-fields';
import { linkRoute, type LinkRoute } from '../links/link-route';
import { previewWholeList, writeWholeList } from '../list-write';
import { RemoveBatcher } from '../remove-batcher';
import { setListVersion } from '../list-version';
import type { SyncNotifier } from '@rolelink/queue';

type Deps = { pool: Pool; sync: SyncNotifier };

/**
 * The list's counts and the link's state, derived as every surface derives them (packages/domain
 * `deriveLinkStatus`; docs/api.md "A link's state"): listed users no call can reach (not in the server,
 * deleted accounts) are not pending, held removals are counted apart.
 */
export async function listMeta(pool: Pool, link: LinkContext): Promise<ListMeta> {
  const limits = limitsFor(link.plan);
  const status = deriveLinkStatus(await linkStateFacts(pool, link, null));
  return {
    user_count: link.userCount,
    synced_count: status.counts.synced,
    pending_count: status.counts.to_add + status.counts.to_remove,
    pending_adds: status.counts.to_add,
    pending_removals: status.counts.to_remove,
    synced_limit: limits.syncedUsers,
    user_limit: limits.storedUsers,
    state: status.state,
    state_reason: status.reason,
    held_removals: status.counts.held,
  };
}

/**
 * The list's routes, for the link pipeline's table (links/link-pipeline.ts). POST and DELETE
 * /users/:userId may be authenticated from memory (`auth: 'remembered'`): their every success is a list
 * write through `write`, which re-checks the authentication in its own statement.
 */
export function usersRoutes(deps: Deps): LinkRoute[] {
  const adds = new AddBatcher(deps);
  const removes = new RemoveBatcher(deps);

  return [
    linkRoute({
      method: 'GET',
      path: '/users',
      auth: 'fresh',
      input: { query: usersQuery },
      async handle({ req, res, input: { query }, link }) {
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
      },
    }),

    linkRoute({
      method: 'PUT',
      path: '/users',
      auth: 'fresh',
      input: { query: dryRunQuery },
      body: idListBody(),
      idempotent: true,
      async handle({ req, res, input: { query }, link }) {
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
      },
    }),

    linkRoute({
      method: 'GET',
      path: '/users/:userId',
      auth: 'fresh',
      input: { params: userParams },
      async handle({ res, input: { params }, link }) {
        setListVersion(res, link.id, link.listVersion); // read before the look-up (see GET /users)
        res.json({ data: { exists: await hasUser(deps.pool, link.id, params.userId) } });
      },
    }),

    linkRoute({
      method: 'POST',
      path: '/users/:userId',
      auth: 'remembered',
      input: { params: userParams },
      body: [expiryBody()],
      idempotent: true,
      async handle({ req, res, input: { params }, write }) {
        // Optional: without one the member is permanent, and an expiry set earlier is cleared (the latest call wins).
        const expiresAt = readPostExpiry(req.body, Date.now());
        // Batched with the link's concurrent adds; answers after the row is committed and, when it was added, the sync requested.
        const { link, result } = await write(async (link, guard) => ({
          link,
          result: await adds.add(link.id, params.userId, limitsFor(link.plan).storedUsers, req.id, expiresAt, guard),
        }));
        if (result.atLimit) throw new AppError(400, storedLimitMessage(link.plan), 'stored_limit');
        setListVersion(res, link.id, result.listVersion);
        res.json({ data: { added: result.added } });
      },
    }),

    linkRoute({
      method: 'DELETE',
      path: '/users/:userId',
      auth: 'remembered',
      input: { params: userParams },
      idempotent: true,
      async handle({ req, res, input: { params }, write }) {
        // Batched with the link's concurrent removals; answers after the removal is committed and, when it removed, the sync requested.
        const { link, removed, listVersion } = await write(async (link, guard) => ({
          link,
          ...(await removes.remove(link.id, params.userId, req.id, guard)),
        }));
        setListVersion(res, link.id, listVersion);
        res.json({ data: { removed } });
      },
    }),
  ];
}
