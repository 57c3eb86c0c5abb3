// The delivery log of signed events to plugins on the link page in a real Chromium,
// against the real dashboard, API, broker (its event sweep on) and example plugin, which opts in to
// member.not_in_guild and removal.* when it registers (test/dashboard/system.ts): an event is delivered
// for real, a dropped one is re-sent from the Events tab and then delivered, the audit log records who
// re-sent it, and the dashboard API refuses bad ids in the §7 shape. The screenshot in docs/dashboard.md is taken here.
import type { Page } from 'playwright-core';
import { inTransaction } from '@rolelink/db/client';
import { listEventLog, recordEvent, recordEventAttempt, subscribeLinkEvents } from '@rolelink/db/events';
import { findLinkAt } from '@rolelink/db/links';
import { DEMO } from '../../scripts/stack/config';
import { eventually, screenshot } from './browser';
import { signInAndCreateLink, useDashboardBrowser } from './browser-suite';
import { signIn } from './sign-in';
import type { DashboardSystem } from './system';

const G = DEMO.guildId;
const SUPPORTER = DEMO.linkedRoleId;
const OWNER = DEMO.users.find((u) => u.role === 'owner')!;

jest.setTimeout(120_000);

describe('event deliveries in the dashboard', () => {
  const suite = useDashboardBrowser({
    system: { members: 40, eventSweepEveryMs: 300 },
    pageTimeoutMs: 15_000,
    screenshotName: () => 'rl-dashboard-link-events',
  });
  let sys: DashboardSystem;
  let page: Page;
  beforeAll(() => {
    ({ sys, page } = suite);
  });

  it('lists each event with its attempts, re-sends a dropped one that the plugin then takes, and records who re-sent it', async () => {
    await signInAndCreateLink(page, sys, SUPPORTER);
    const link = (await findLinkAt(sys.db.pool, G, SUPPORTER))!;

    // What the bot records when a listed user is not in the guild; the broker's sweep sends it to the plugin.
    const missing = (BigInt(DEMO.firstMemberId) + 900n).toString();
    const delivered = (await recordEvent(sys.db.pool, link.id, 'member.not_in_guild', { user_id: missing }))!;
    // One that failed for 24 h: recorded with its last attempt at once, so the sweep never sees it pending.
    const dropped = await inTransaction(sys.db.pool, async (c) => {
      const id = (await recordEvent(c, link.id, 'removal.held', {
        change_id: '1',
        previous: 40,
        next: 2,
        removals: 38,
      }))!;
      await recordEventAttempt(
        c,
        id,
        { httpStatus: null, error: 'connect ECONNREFUSED', latencyMs: null },
        { state: 'dropped' },
      );
      return id;
    });
    await eventually(
      () => listEventLog(sys.db.pool, link.id),
      (l) => l.find((e) => e.id === delivered)?.state === 'delivered',
    );

    await page.getByRole('link', { name: 'Events' }).click();
    await page.getByText(/Subscribed to: member\.not_in_guild, removal\.held, removal\.applied/).waitFor();
    const table = page.getByRole('table', { name: 'Event deliveries' });
    const first = table.getByRole('row', { name: 'Event 1 member.not_in_guild' });
    const second = table.getByRole('row', { name: 'Event 2 removal.held' });
    await first.getByText('Delivered').waitFor();
    await first.getByText(/HTTP 2\d\d/).waitFor();
    await first.getByText(/in [\d,]+ ms/).waitFor();
    await second.getByText('Dropped').waitFor();
    await second.getByText('connect ECONNREFUSED').waitFor();
    await screenshot(page, 'link-events');

    await second.getByRole('button', { name: 'Resend event 2' }).click();
    await page.getByText(`Event evt_${dropped} queued for delivery again`).waitFor();
    // The tab polls while the event is pending; the broker delivers it ahead of any later event.
    await second.getByText('Delivered').waitFor();
    await second.getByText(/HTTP 2\d\d/).waitFor();
    await expect(second.getByRole('listitem').count()).resolves.toBe(2);

    const { rows } = await sys.db.pool.query<{ actor_name: string; via: string; role_id: string; detail: unknown }>(
      "SELECT actor_name, via, role_id::text, detail FROM admin_audit WHERE action = 'event_resent'",
    );
    expect(rows).toEqual([
      {
        actor_name: OWNER.username,
        via: 'dashboard',
        role_id: SUPPORTER,
        detail: { event_id: `evt_${dropped}`, kind: 'removal.held', seq: 2 },
      },
    ]);
    await page.goto(`${sys.url}/guilds/${G}/audit`);
    await page.getByText(`removal.held (#2, evt_${dropped}) queued for delivery again`).waitFor();

    // A plugin that stops asking (its health report's `events: []`): the tab says so.
    await subscribeLinkEvents(sys.db.pool, link.id, []);
    await page.goto(`${sys.url}/guilds/${G}/links/${SUPPORTER}/events`);
    await page.getByText('The plugin has not opted in to events').waitFor();
  });

  it('answers the events routes in the error shape: a malformed id 400, an unknown event or link 404, no CSRF token 403', async () => {
    const owner = await signIn(sys.url, OWNER.id);
    const base = `/dashboard-api/guilds/${G}/links/${SUPPORTER}/events`;
    const log = (await owner.agent.get(base).expect(200)).body as { events: { id: string; state: string }[] };
    expect(log.events.map((e) => e.state)).toEqual(['delivered', 'delivered']);
    const bad = await owner.agent.post(`${base}/nope/resend`).set('X-CSRF-Token', owner.csrf).expect(400);
    expect(bad.body).toMatchObject({ statusCode: 400 });
    expect(JSON.stringify(bad.body)).toContain('eventId: must be an event id such as evt_123');
    await owner.agent
      .post(`${base}/evt_999999/resend`)
      .set('X-CSRF-Token', owner.csrf)
      .expect(404, { statusCode: 404, message: 'Event not found' });
    await owner.agent.post(`${base}/${log.events[0]!.id}/resend`).expect(403);
    await owner.agent
      .post(`${base}/${log.events[0]!.id}/resend`)
      .set('X-CSRF-Token', owner.csrf)
      .expect(200, { id: log.events[0]!.id, state: 'pending' });
    // (A second resend while it is pending is a 409: services/cli/test/link-events.int.test.ts; the sweep here may beat us to it.)
    await owner.agent
      .get(`/dashboard-api/guilds/${G}/links/${DEMO.memberRoleId}/events`)
      .expect(404, { statusCode: 404, message: 'Role link not found' });
  });
});
