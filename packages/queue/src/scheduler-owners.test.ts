import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { schedulerCatalog, type SchedulerOwner } from '@rolelink/contracts';

// Periodic work has owners: each sweep is run by the service that owns its tables (docs/architecture.md,
// "Periodic work"). The catalog names the owner; this keeps it so, and keeps each owner's code the only
// one that schedules it (a service that consumed another's queue would take jobs it cannot run).
const root = path.resolve(__dirname, '..', '..', '..');

/** The non-test source of a service, as one text. */
function sourceOf(service: SchedulerOwner): string {
  const read = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === 'testing' ? [] : read(full);
      return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [readFileSync(full, 'utf8')] : [];
    });
  return read(path.join(root, 'services', service, 'src')).join('\n');
}

const OWNERS: readonly SchedulerOwner[] = ['api', 'bot-worker', 'plugin-broker', 'dashboard'];

describe('the scheduler catalog', () => {
  it('lists each sweep under the service that owns its tables', () => {
    const sweeps = Object.fromEntries(
      Object.entries(schedulerCatalog).map(([id, s]) => [id, `${s.owner}: ${s.queue} ${s.job}`]),
    );
    expect(sweeps).toMatchObject({
      // role_link's sync marks, upload_session/upload_staged, idempotency_key, link_user expiries: the API's.
      'outbox-sweep': 'api: maintenance outbox-sweep',
      'upload-sweep': 'api: maintenance upload-sweep',
      'idempotency-sweep': 'api: maintenance idempotency-sweep',
      'expiry-sweep': 'api: maintenance expiry-sweep',
      // link_purge: the worker strips a deleted link's roles, then its rows go; notifications it delivers.
      'link-purge': 'bot-worker: role-sync link-purge',
      'notification-retention': 'bot-worker: notify retention',
      // plugin_event*: the broker delivers them.
      'plugin-events-retention': 'plugin-broker: plugin-calls event-retention',
      // admin_audit: written by admin, whose long-running deployable is the dashboard.
      'audit-retention': 'dashboard: dashboard-maintenance audit-retention',
    });
  });

  it("puts each queue's schedulers under one owner", () => {
    const owners = new Map<string, Set<string>>();
    for (const s of Object.values(schedulerCatalog))
      owners.set(s.queue, (owners.get(s.queue) ?? new Set()).add(s.owner));
    for (const [queue, set] of owners) expect({ queue, owners: [...set] }).toEqual({ queue, owners: [[...set][0]] });
  });

  it("is scheduled by its owner's code and by no other service", () => {
    const sources = new Map(OWNERS.map((o) => [o, sourceOf(o)]));
    for (const [id, s] of Object.entries(schedulerCatalog)) {
      const schedulers = OWNERS.filter((o) => sources.get(o)!.includes(`'${id}'`));
      expect({ id, schedulers }).toEqual({ id, schedulers: [s.owner] });
    }
  });
});
