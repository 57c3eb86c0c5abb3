import type { LinkView } from '@rolelink/contracts';
import { syncStatus } from './sync-status';

function link(
  counts: Partial<LinkView['counts']>,
  more: { eta?: number | null; held?: LinkView['held_change']; removal?: LinkView['removal'] } = {},
): LinkView {
  return {
    counts: {
      user_count: 20,
      synced_count: 20,
      pending_count: 0,
      held_count: 0,
      not_in_server_count: 0,
      deleted_count: 0,
      ...counts,
    },
    limits: { synced_limit: 100, user_limit: 10_000, per_put: 10_000 },
    sync: { rate_per_sec: 10, eta_seconds: more.eta ?? 0, last_sync_at: null },
    held_change: more.held ?? null,
    removal: more.removal ?? null,
  } as LinkView;
}

const held = (confirmedAt: string | null): NonNullable<LinkView['held_change']> => ({
  kind: 'shrink',
  change_id: 'c',
  previous: 3_003,
  next: 20,
  removals: 2_983,
  additions: 0,
  created_at: '2026-11-25T11:00:00Z',
  confirmed_at: confirmedAt,
});

const removal = (state: NonNullable<LinkView['removal']>['state']): LinkView['removal'] => ({
  change_id: 'c',
  kind: 'shrink',
  removals: 2_983,
  confirmed_at: '2026-11-25T11:30:00Z',
  window_ends_at: '2026-11-25T12:30:00Z',
  state,
  list_resent_at: null,
  resend: { listening: true, requested_at: null, available_at: null },
});

describe('syncStatus', () => {
  it('is up to date, full and green only with nothing pending and no hold', () => {
    expect(syncStatus(link({}))).toMatchObject({ text: 'up to date', tone: 'done', percent: 100 });
  });

  it('never says up to date under a held removal (issue 20: "Synced 0 of 0 · up to date" beside a hold)', () => {
    const s = syncStatus(link({ user_count: 0, synced_count: 0 }, { held: held(null) }));
    expect(s).toMatchObject({ text: 'removal held: waiting for the server owner', tone: 'held' });
    // Applied, and the server says the window is open: waiting for the plugin's list.
    const confirmed = held('2026-11-25T11:30:00Z');
    expect(syncStatus(link({}, { held: confirmed, removal: removal('awaiting_list') })).text).toBe(
      'removal confirmed: waiting for the plugin to resend its list',
    );
    // The server says the window closed without a resend: still held, still not up to date.
    expect(syncStatus(link({}, { held: confirmed, removal: removal('window_ended') })).text).toBe(
      'removal held: waiting for the server owner',
    );
  });

  it('counts removals in the bar and the ETA text: all 20 synced with 2,983 removals to go is not done', () => {
    const s = syncStatus(link({ pending_count: 2_983 }, { eta: 300 }));
    expect(s).toMatchObject({ pending: 2_983, tone: 'progress', text: 'ETA about 5 min' });
    expect(s.percent).toBeLessThan(1);
  });

  it('reaches up to date with listed users who are not in the server counted apart (issue 34)', () => {
    const s = syncStatus(link({ user_count: 10, synced_count: 7, not_in_server_count: 3 }));
    expect(s).toMatchObject({
      done: 7,
      target: 7,
      pending: 0,
      notInServer: 3,
      text: 'up to date',
      tone: 'done',
      percent: 100,
    });
  });

  it('reaches up to date with listed accounts that no longer exist counted apart (issue 34)', () => {
    const s = syncStatus(link({ user_count: 10, synced_count: 6, not_in_server_count: 2, deleted_count: 2 }));
    expect(s).toMatchObject({
      done: 6,
      target: 6,
      pending: 0,
      notInServer: 2,
      deleted: 2,
      text: 'up to date',
      tone: 'done',
      percent: 100,
    });
  });

  it('gives no target while the not-in-server count is unavailable, never a smaller number (issue 34)', () => {
    const s = syncStatus(link({ user_count: 10, synced_count: 7, not_in_server_count: null }));
    expect(s).toMatchObject({ done: 7, target: null, notInServer: null, text: 'up to date', tone: 'done' });
  });
});
