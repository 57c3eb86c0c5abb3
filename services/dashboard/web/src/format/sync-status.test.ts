import type { LinkView } from '@rolelink/contracts';
import { syncStatus } from './sync-status';

function link(
  counts: Partial<LinkView['counts']>,
  more: {
    state?: LinkView['state'];
    progress?: Partial<LinkView['progress']>;
    held?: LinkView['held_change'];
    removal?: LinkView['removal'];
  } = {},
): LinkView {
  return {
    state: more.state ?? 'up_to_date',
    counts: {
      listed: 20,
      synced: 20,
      to_add: 0,
      to_remove: 0,
      held: 0,
      not_in_server: 0,
      deleted: 0,
      over_limit: 0,
      ...counts,
    },
    progress: { percent: 100, moving: false, eta_seconds: null, ...more.progress },
    limits: { synced_limit: 100, user_limit: 10_000, per_put: 10_000 },
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
  it('is up to date, full and green when the server says so', () => {
    expect(syncStatus(link({}))).toMatchObject({ text: 'up to date', tone: 'done', percent: 100, moving: false });
  });

  it('never says up to date under a held removal', () => {
    const s = syncStatus(link({ listed: 0, synced: 0, held: 2_983 }, { state: 'held', held: held(null) }));
    expect(s).toMatchObject({ text: 'removal held: waiting for the server owner', tone: 'held' });
    const confirmed = held('2026-11-25T11:30:00Z');
    expect(syncStatus(link({}, { state: 'held', held: confirmed, removal: removal('awaiting_list') })).text).toBe(
      'removal confirmed: waiting for the plugin to resend its list',
    );
    expect(syncStatus(link({}, { state: 'held', held: confirmed, removal: removal('window_ended') })).text).toBe(
      'removal held: waiting for the server owner',
    );
  });

  it('shows the ETA and a moving bar only while syncing', () => {
    const s = syncStatus(
      link({ to_remove: 2_983 }, { state: 'syncing', progress: { percent: 0.6, moving: true, eta_seconds: 300 } }),
    );
    expect(s).toMatchObject({ pending: 2_983, tone: 'progress', text: 'ETA about 5 min', moving: true });
  });

  it('a blocked link shows no ETA and no moving bar, whatever is left to do', () => {
    const s = syncStatus(link({ synced: 22, to_add: 19 }, { state: 'blocked', progress: { percent: 53.6 } }));
    expect(s).toMatchObject({ tone: 'blocked', moving: false, pending: 19 });
    expect(s.text).not.toMatch(/ETA/);
  });

  it('names listed users who are not in the server, and deleted accounts, apart from the target', () => {
    const s = syncStatus(link({ listed: 10, synced: 6, not_in_server: 2, deleted: 2 }));
    expect(s).toMatchObject({ done: 6, target: 6, pending: 0, notInServer: 2, deleted: 2, text: 'up to date' });
  });

  it('gives no target while the not-in-server count is unavailable, never a smaller number', () => {
    const s = syncStatus(link({ listed: 10, synced: 7, not_in_server: null }));
    expect(s).toMatchObject({ done: 7, target: null, notInServer: null, text: 'up to date', tone: 'done' });
  });
});
