import { sweepEvents } from '../../../services/plugin-broker/src/events/event-sweep';
import { startHarness, type Harness } from '../../plugin-broker/test/support/harness';
import { json } from '../../plugin-broker/test/support/test-plugin';
import { snowflake } from '../../../test/support/fixtures';
import { until as pollUntil } from '../../../test/support/until';
import { listEventLog } from '@rolelink/db/events';
import { run } from '../src/main';
import { useCliEnv } from './cli-env';

let h: Harness;
let restoreEnv: () => void;

beforeAll(async () => {
  h = await startHarness({ events: { baseMs: 10, maxMs: 10 } });
  restoreEnv = useCliEnv(h);
});
afterAll(async () => {
  restoreEnv();
  await h.close();
});

async function cli(json: boolean, ...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await run(
    [...args, ...(json ? ['--json'] : [])],
    (s) => lines.push(s),
    (s) => lines.push(s),
  );
  return { code, out: lines.join('\n') };
}

/** Polls `read` until `done` holds (state the broker writes), for at most 20 s. */
const until = <T>(read: () => Promise<T>, done: (v: T) => boolean, what: string) => pollUntil(read, done, what, 20_000);

type Page = {
  link_id: string;
  kinds: string[];
  events: {
    id: string;
    kind: string;
    state: string;
    attempts: { http_status: number | null; latency_ms: number | null }[];
  }[];
};

describe('rolelink link events', () => {
  it('shows each event with its attempts (status, latency), re-sends a delivered one (audited), and refuses bad or pending ids in the error shape', async () => {
    const [g, r] = [snowflake(), snowflake()];
    h.plugin.on('POST /register', (_req, res) => json(res, 200, { ok: true, events: ['link.disabled'] }));
    let answers = [500, 204, 204];
    h.plugin.on('POST /events', (_req, res) => void res.writeHead(answers.shift() ?? 204).end());
    expect((await cli(true, 'link', 'create', g, r, '--plugin-url', h.plugin.url)).code).toBe(0);
    expect((await cli(true, 'link', 'set', g, r, '--enabled', 'false')).code).toBe(0);
    const none = JSON.parse((await cli(true, 'link', 'events', g, r)).out) as Page;
    expect(none.kinds).toEqual(['link.disabled']);
    expect(none.events.map((e) => [e.kind, e.state])).toEqual([['link.disabled', 'pending']]);

    await sweepEvents(h.ctx, h.broker.jobs);
    const linkId = none.link_id;
    await until(
      () => listEventLog(h.db.pool, linkId),
      (l) => l[0]?.state === 'delivered',
      'the first delivery',
    );
    const page = JSON.parse((await cli(true, 'link', 'events', g, r)).out) as Page;
    const [event] = page.events;
    expect(event).toMatchObject({ kind: 'link.disabled', state: 'delivered' });
    expect(event!.attempts.map((a) => a.http_status)).toEqual([500, 204]);
    expect(event!.attempts.every((a) => typeof a.latency_ms === 'number')).toBe(true);
    const human = await cli(false, 'link', 'events', g, r);
    expect(human.out).toMatch(new RegExp(`${event!.id} #1: link.disabled delivered \\(2 attempts\\)`));
    expect(human.out).toMatch(/attempt 1: \S+ HTTP 500 \d+ ms/);

    const resent = await cli(true, 'link', 'events', 'resend', event!.id);
    expect(JSON.parse(resent.out)).toEqual({ id: event!.id, state: 'pending' });
    // Recorded against the event's link, though the command named only the event.
    const audit = await h.db.pool.query(
      "SELECT guild_id::text, role_id::text, via, detail FROM admin_audit WHERE action = 'event_resent'",
    );
    expect(audit.rows).toEqual([
      { guild_id: g, role_id: r, via: 'cli', detail: { event_id: event!.id, kind: 'link.disabled', seq: 1 } },
    ]);
    const again = await cli(true, 'link', 'events', 'resend', event!.id);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toMatchObject({ statusCode: 409, message: 'Event is still pending delivery' });
    await sweepEvents(h.ctx, h.broker.jobs);
    const after = await until(
      () => listEventLog(h.db.pool, linkId),
      (l) => l[0]?.state === 'delivered',
      'the resent delivery',
    );
    expect(after[0]!.attempts.map((a) => a.httpStatus)).toEqual([500, 204, 204]);

    expect(JSON.parse((await cli(true, 'link', 'events', 'resend', 'evt_999999')).out)).toMatchObject({
      statusCode: 404,
      message: 'Event not found',
    });
    expect(JSON.parse((await cli(true, 'link', 'events', 'resend', 'nope')).out)).toMatchObject({ statusCode: 400 });
    answers = [];
  });
});
