// Events reach a plugin in `seq` order per link, whatever the number of broker replicas and however a
// replica stalls (docs/api.md "Events to plugins", "Delivery"). Two ways this failed: the next event was
// the lowest seq as text ("10" before "9"), and a link's sender was held off by a lease that ran out, so a
// stalled sender was overtaken by another replica and then sent the event it held after the later ones.
import { setLink } from '@rolelink/admin';
import { inTransaction } from '@rolelink/db/client';
import {
  listEventLog,
  recordEvent,
  recordMemberExpiredEvents,
  recordNotInGuildEvent,
  subscribeLinkEvents,
} from '@rolelink/db/events';
import type { PluginEvent } from '@rolelink/plugin-sdk';
import type { PluginHttp } from '@rolelink/plugin-http';
import { testAdminDeps } from '../../../packages/admin/test/support/deps';
import { waitFor } from '../../../test/support/until';
import type { BrokerContext } from '../src/context';
import { askDelivery, deliverLinkEvents } from '../src/events/deliver-events';
import { closeEventLinkLocks } from '../src/events/link-locks';
import { sweepEvents } from '../src/events/event-sweep';
import { startHarness, type Harness, type SeededLink } from './support/harness';
import { createBrokerWorker, type BrokerWorker } from '../src/worker';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ events: { baseMs: 20, maxMs: 80, windowMs: 600_000, timeoutMs: 30_000 } });
});
afterAll(() => h.close());

const KINDS = ['link.enabled', 'link.disabled', 'member.not_in_guild', 'member.expired', 'member.role_restored'];

/** What the plugin saw of one link: each POST /events in arrival order, and how many were unanswered at once. */
type Seen = { seqs: number[]; inFlight: number; maxInFlight: number };

/** The test plugin answers the link's events (after `answerAfter`, if given) and records their arrival. */
function watch(link: SeededLink, answerAfter?: () => Promise<void>): Seen {
  const seen: Seen = { seqs: [], inFlight: 0, maxInFlight: 0 };
  h.plugin.on('POST /events', (req, res) => {
    const e = JSON.parse(req.body) as PluginEvent;
    if (e.role_id !== link.roleId) return void res.writeHead(204).end();
    seen.seqs.push(e.seq);
    seen.maxInFlight = Math.max(seen.maxInFlight, ++seen.inFlight);
    void (answerAfter?.() ?? Promise.resolve()).then(() => {
      seen.inFlight--;
      res.writeHead(204).end();
    });
  });
  return seen;
}

/** A replica of the broker: its own context (its own connections), the same database, queue and plugin. */
function replicaContext(http: Pick<PluginHttp, 'request'> = h.ctx.http): BrokerContext {
  return { ...h.ctx, http: http as PluginHttp };
}

/** The plugin calls of a replica that stalls before each request while `stall` is set (a paused process, a slow DNS answer). */
function stallingHttp(stall: { until: Promise<void> | null; reached?: () => void }): Pick<PluginHttp, 'request'> {
  return {
    request: async (req) => {
      if (stall.until) {
        stall.reached?.();
        await stall.until;
      }
      return h.ctx.http.request(req);
    },
  };
}

/** Every lease on a link's delivery runs out now: what a stall longer than the lease would have done. */
const expireLeases = () =>
  h.db.pool.query(
    `UPDATE plugin_event_link SET lease_until = (now() AT TIME ZONE 'UTC')::timestamp(3) - interval '1 second' WHERE lease_until IS NOT NULL`,
  );

const pendingCount = async (linkId: string) =>
  (await listEventLog(h.db.pool, linkId, 1000)).filter((e) => e.state === 'pending').length;

describe('events in order per link, across broker replicas (docs/api.md "Events to plugins")', () => {
  it('a replica that stalls in the middle of a delivery is not overtaken: nothing is sent after a later event', async () => {
    const link = await h.seedLink();
    await subscribeLinkEvents(h.db.pool, link.linkId, KINDS);
    const seen = watch(link);
    // The order that went wrong: the link enabled, then a listed user not in the server, then a role taken by hand.
    await recordEvent(h.db.pool, link.linkId, 'link.enabled', {});
    await recordNotInGuildEvent(h.db.pool, link.linkId, '300000000000000001');
    await recordEvent(h.db.pool, link.linkId, 'member.role_restored', {
      user_id: '300000000000000002',
      source: 'drift',
    });

    // Replica A takes the link and stalls just before its first request goes out.
    let reached!: () => void;
    const atStall = new Promise<void>((r) => (reached = r));
    let resume!: () => void;
    const stall = { until: new Promise<void>((r) => (resume = r)) as Promise<void> | null, reached };
    const a = replicaContext(stallingHttp(stall));
    const runA = deliverLinkEvents(a, h.broker.jobs, link.linkId);
    await atStall;
    // The stall outlasts the lease (4 × the timeout + 30 s): its time runs out as it would have.
    await expireLeases();
    // Replica B is asked to deliver the link (the sweep's job) while A is stalled.
    const b = replicaContext();
    const runB = await deliverLinkEvents(b, h.broker.jobs, link.linkId);
    stall.until = null;
    resume();
    await runA;
    await waitFor(
      () => pendingCount(link.linkId),
      (n) => n === 0,
      { what: 'every event delivered' },
    );
    await closeReplica(a);
    await closeReplica(b);

    expect(seen.seqs).toEqual([1, 2, 3]);
    expect(runB).toMatchObject({ busy: true, delivered: 0 });
    const log = await listEventLog(h.db.pool, link.linkId);
    expect(log.map((e) => [e.seq, e.state, e.attempts.length])).toEqual([
      ['3', 'delivered', 1],
      ['2', 'delivered', 1],
      ['1', 'delivered', 1],
    ]);
  });

  it('three replicas and a burst of changes of one link (enable/disable, users not in the server, expiries): the plugin gets them in seq order, one at a time', async () => {
    const link = await h.seedLink();
    await subscribeLinkEvents(h.db.pool, link.linkId, KINDS);
    // The plugin takes a moment over each event, so deliveries overlap the recordings.
    const seen = watch(link, () => new Promise((r) => setImmediate(r)));
    // Each replica stalls now and then before a request, and leases keep running out (stalls longer than
    // a lease): the conditions in which a second sender could join a link's delivery.
    const stalls = [0, 1, 2].map(() => ({ until: null as Promise<void> | null }));
    const replicas: { ctx: BrokerContext; worker: BrokerWorker }[] = stalls.map((stall) => {
      const ctx = replicaContext(stallingHttp(stall));
      return { ctx, worker: createBrokerWorker(ctx, { connection: h.redis, prefix: h.prefix, concurrency: 4 }) };
    });
    await Promise.all(replicas.map((r) => r.worker.ready()));
    let churning = true;
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const stall = stalls[i % stalls.length]!;
        stall.until = new Promise((r) => setTimeout(r, 5 + (i % 4) * 10));
        await expireLeases();
        await sweepEvents(replicas[i % replicas.length]!.ctx, h.broker.jobs);
        await new Promise((r) => setTimeout(r, 10));
        stall.until = null;
      }
    })();

    const deps = testAdminDeps(h.db);
    let expiredUser = 400000000000000000n;
    // Four writers at once, as the admin, the sync, drift repair and the expiry sweep would be.
    const writers = [0, 1, 2, 3].map(async (w) => {
      for (let i = 0; i < 8; i++) {
        if (w === 0) await setLink(deps, { guildId: link.guildId, roleId: link.roleId, enabled: i % 2 === 1 });
        else if (w === 1) await recordNotInGuildEvent(h.db.pool, link.linkId, `30000000000000${w}${i}00`);
        else if (w === 2)
          await inTransaction(h.db.pool, async (c) => {
            await recordEvent(c, link.linkId, 'member.role_restored', {
              user_id: `31000000000000${i}000`,
              source: 'drift',
            });
            await new Promise((r) => setImmediate(r)); // the rest of the writer's transaction
          });
        else
          await recordMemberExpiredEvents(
            h.db.pool,
            link.linkId,
            [String(++expiredUser), String(++expiredUser)],
            new Date(),
          );
        await askDelivery(replicas[(w + i) % replicas.length]!.ctx, h.broker.jobs, link.linkId);
      }
    });
    await Promise.all(writers);
    const recorded = (await listEventLog(h.db.pool, link.linkId, 1000)).length;
    // Wait on progress: the deliveries made so far (a slow machine is slow, not stuck).
    await waitFor(
      async () => {
        await sweepEvents(h.ctx, h.broker.jobs);
        return pendingCount(link.linkId);
      },
      (n) => n === 0,
      { what: 'every event delivered', progress: (n) => n },
    );
    churning = false;
    await churn;
    await Promise.all(replicas.map(async (r) => r.worker.close()));
    await Promise.all(replicas.map((r) => closeReplica(r.ctx)));

    expect(recorded).toBeGreaterThanOrEqual(8 * 3 + 4);
    // Each seq once, ascending: never a later event before an earlier one, never one sent twice.
    expect(seen.seqs).toEqual(Array.from({ length: recorded }, (_, i) => i + 1));
    expect(seen.maxInFlight).toBe(1);
  });
});

/** Lets a replica's delivery locks go (its connection back to the pool). */
const closeReplica = (ctx: BrokerContext) => closeEventLinkLocks(ctx);
