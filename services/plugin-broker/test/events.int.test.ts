import { listEventLog, recordEvent, subscribeLinkEvents } from '@rolelink/db/events';
import { verifyEvent, type PluginEvent } from '@rolelink/plugin-sdk';
import { askDelivery } from '../src/events/deliver-events';
import { sweepEvents } from '../src/events/event-sweep';
import { checkPluginHealth } from '../src/health/check-health';
import { startHarness, type Harness } from './support/harness';
import { json, type RecordedRequest } from './support/test-plugin';
import { until as pollUntil } from '../../../test/support/until';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    allowHosts: ['127.0.0.1'],
    // Every name resolves to loopback: `rebind.test` plays a public name whose DNS points inside.
    resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    // Backoff in milliseconds (EVENT_RETRY_* in production are seconds to hours).
    events: { baseMs: 20, maxMs: 80, windowMs: 60_000 },
  });
});
afterAll(() => h.close());

/** Polls `read` until `done` holds (state the broker writes), for at most 20 s. */
const until = <T>(read: () => Promise<T>, done: (v: T) => boolean, what: string) => pollUntil(read, done, what, 20_000);

const log = (linkId: string) => listEventLog(h.db.pool, linkId);

/** A link registered through the broker, its plugin answering /register with `events`. */
async function optedInLink(kinds: string[]) {
  const link = await h.seedLink();
  h.plugin.on('POST /register', (_req, res) => json(res, 200, { ok: true, events: kinds }));
  await h.client.register(link.linkId);
  return link;
}

describe('signed events to plugins (docs/api.md "Events to plugins")', () => {
  it('delivers an event, signed per Standard Webhooks with the link’s derived secret, to a plugin that opted in on /register', async () => {
    const link = await optedInLink(['member.not_in_guild', 'some.future.kind']);
    const received: RecordedRequest[] = [];
    h.plugin.on('POST /events', (req, res) => {
      received.push(req);
      res.writeHead(204).end();
    });
    const id = await recordEvent(h.db.pool, link.linkId, 'member.not_in_guild', { user_id: '123456789012345678' });
    expect(id).not.toBeNull();
    await askDelivery(h.ctx, h.broker.jobs, link.linkId);
    const [entry] = await until(
      () => log(link.linkId),
      (l) => l[0]?.state === 'delivered',
      'delivery',
    );
    const req = received.find((r) => r.headers['webhook-id'] === `evt_${id}`)!;
    const event = verifyEvent(req.headers, req.body, link.token);
    expect(event).toEqual({
      id: `evt_${id}`,
      type: 'member.not_in_guild',
      timestamp: expect.any(String),
      guild_id: link.guildId,
      role_id: link.roleId,
      seq: 1,
      data: { user_id: '123456789012345678' },
    });
    expect(req.headers['authorization']).toBe(`Token ${link.token}`);
    expect(req.headers['content-type']).toBe('application/json');
    expect(() => verifyEvent(req.headers, req.body, `${link.token}x`)).toThrow('No matching signature');
    expect(() =>
      verifyEvent(req.headers, req.body.replace('123456789012345678', '123456789012345679'), link.token),
    ).toThrow();
    expect(entry!.attempts).toEqual([
      { at: expect.any(Date), httpStatus: 204, error: null, latencyMs: expect.any(Number) },
    ]);
  });

  it('records nothing and sends nothing for a link whose plugin did not opt in (a plain 2xx register answer)', async () => {
    const link = await h.seedLink();
    h.plugin.on('POST /register', (_req, res) => res.writeHead(204).end());
    await h.client.register(link.linkId);
    expect(await recordEvent(h.db.pool, link.linkId, 'member.not_in_guild', { user_id: '1' })).toBeNull();
    await sweepEvents(h.ctx, h.broker.jobs);
    expect(await log(link.linkId)).toEqual([]);
    const { rows } = await h.db.pool.query('SELECT 1 FROM plugin_event_link WHERE link_id = $1', [link.linkId]);
    expect(rows).toEqual([]);
  });

  it('retries a failing delivery with backoff, and holds the link’s later events until the first got through (ordered per link)', async () => {
    const link = await h.seedLink();
    await subscribeLinkEvents(h.db.pool, link.linkId, ['link.paused', 'link.resumed']);
    let failures = 3;
    const order: string[] = [];
    h.plugin.on('POST /events', (req, res) => {
      const e = JSON.parse(req.body) as PluginEvent;
      if (e.role_id !== link.roleId) return void res.writeHead(204).end();
      if (e.type === 'link.paused' && failures-- > 0) return void res.writeHead(503).end();
      order.push(`${e.seq}:${e.type}`);
      res.writeHead(200).end('ok');
    });
    await recordEvent(h.db.pool, link.linkId, 'link.paused', { reason: 'slot allowance' });
    await recordEvent(h.db.pool, link.linkId, 'link.resumed', { reason: 'slot allowance' });
    await askDelivery(h.ctx, h.broker.jobs, link.linkId);
    const entries = await until(
      () => log(link.linkId),
      (l) => l.every((e) => e.state === 'delivered'),
      'both delivered',
    );
    expect(order).toEqual(['1:link.paused', '2:link.resumed']);
    const paused = entries.find((e) => e.kind === 'link.paused')!;
    expect(paused.attempts.map((a) => a.httpStatus)).toEqual([503, 503, 503, 200]);
    // Each wait at least the backoff (20, 40, 80 ms): attempts are spaced, never a burst.
    const gaps = paused.attempts.slice(1).map((a, i) => a.at.getTime() - paused.attempts[i]!.at.getTime());
    expect(gaps.every((g, i) => g >= [20, 40, 80][i]! - 2)).toBe(true);
    // The later event was not attempted before the earlier one succeeded.
    const resumed = entries.find((e) => e.kind === 'link.resumed')!;
    expect(resumed.attempts).toHaveLength(1);
    expect(resumed.attempts[0]!.at.getTime()).toBeGreaterThanOrEqual(paused.attempts[3]!.at.getTime());
  });

  it('drops an event still failing after the retry window, leaves a health note, and goes on with the next', async () => {
    const link = await h.seedLink();
    await subscribeLinkEvents(h.db.pool, link.linkId, ['removal.held', 'removal.applied']);
    h.plugin.on('POST /events', (req, res) => {
      const e = JSON.parse(req.body) as PluginEvent;
      if (e.role_id === link.roleId && e.type === 'removal.held') return void res.writeHead(500).end();
      res.writeHead(204).end();
    });
    const held = (await recordEvent(h.db.pool, link.linkId, 'removal.held', { previous: 10, next: 1, removals: 9 }))!;
    await recordEvent(h.db.pool, link.linkId, 'removal.applied', { removals: 9 });
    // A window that has already run out (as if 24 h had passed): the first failure drops it.
    await h.db.pool.query(`UPDATE plugin_event SET retry_from = retry_from - interval '25 hours' WHERE id = $1`, [
      held,
    ]);
    await askDelivery(h.ctx, h.broker.jobs, link.linkId);
    const entries = await until(
      () => log(link.linkId),
      (l) => l.length === 2 && l.every((e) => e.state !== 'pending'),
      'drop and next delivery',
    );
    expect(entries.map((e) => [e.kind, e.state])).toEqual([
      ['removal.applied', 'delivered'],
      ['removal.held', 'dropped'],
    ]);
    const { rows } = await h.db.pool.query<{ kind: string; detail: { event_id: string } }>(
      `SELECT kind, detail FROM notification WHERE dedupe_key = $1`,
      [`events:${link.linkId}`],
    );
    expect(rows).toEqual([
      {
        kind: 'events_dropped',
        detail: expect.objectContaining({ event_id: held, kind: 'removal.held', attempts: 1 }),
      },
    ]);
  });

  it('refuses to deliver to a plugin name that resolves to a private address (SSRF rules of every plugin call)', async () => {
    const link = await h.seedLink(`https://rebind.test:${h.plugin.port}`);
    await subscribeLinkEvents(h.db.pool, link.linkId, ['link.disabled']);
    const before = h.plugin.requests.length;
    await recordEvent(h.db.pool, link.linkId, 'link.disabled', {});
    await askDelivery(h.ctx, h.broker.jobs, link.linkId);
    const [entry] = await until(
      () => log(link.linkId),
      (l) => (l[0]?.attempts.length ?? 0) > 0,
      'a refused attempt',
    );
    expect(entry!.state).toBe('pending');
    expect(entry!.attempts[0]).toMatchObject({
      httpStatus: null,
      error: expect.stringMatching(/^blocked: .*private or reserved/),
    });
    expect(h.plugin.requests.slice(before).filter((r) => r.path === '/events')).toEqual([]);
  });

  it('takes the event kinds from a /health report that lists them, for every link of the plugin', async () => {
    const a = await h.seedLink();
    const b = await h.seedLink();
    h.plugin.on('GET /health', (_req, res) =>
      json(res, 200, { status: 'healthy', events: ['link.deleted', 'unknown.kind'] }),
    );
    const result = await checkPluginHealth(h.ctx, h.plugin.url);
    expect(result).toMatchObject({ status: 'healthy', events: ['link.deleted', 'unknown.kind'] });
    expect(result.detail).not.toHaveProperty('events');
    // The broker's health-check job stores them; drive it through the queue (listening before the add:
    // a job done before the listener is attached would be waited for until the test's timeout).
    const done = h.completed('health-check');
    await h.broker.jobs.add('health-check', { pluginUrl: h.plugin.url });
    await done;
    const { rows } = await h.db.pool.query<{ link_id: string; kinds: string[] }>(
      'SELECT link_id::text, kinds FROM plugin_event_link WHERE link_id = ANY($1::bigint[]) ORDER BY link_id',
      [[a.linkId, b.linkId]],
    );
    expect(rows).toEqual([
      { link_id: a.linkId, kinds: ['link.deleted'] },
      { link_id: b.linkId, kinds: ['link.deleted'] },
    ]);
  });
});
