import { interimCounts, passRate } from './progress';
import { retryDelayMs } from '@rolelink/db/sync';
import { inactiveReason, type LinkContext } from './link-context';

describe('progress', () => {
  it('bounds the interim applied count by the synced set and reports the rest as pending', () => {
    expect(
      interimCounts({ userCount: 150, syncedLimit: 100 }, { baseApplied: 90, adds: 30, passPending: 0, changes: 30 }),
    ).toEqual({ applied: 100, pending: 0 });
    expect(
      interimCounts(
        { userCount: 5_000, syncedLimit: 30_000_000 },
        { baseApplied: 0, adds: 1_200, passPending: 0, changes: 1_200 },
      ),
    ).toEqual({ applied: 1_200, pending: 3_800 });
  });

  it('counts the removals still to make as pending, not only the missing additions', () => {
    // 3,003 holders, a list of 20 of them: 2,983 removals, all 20 already applied.
    expect(
      interimCounts({ userCount: 20, syncedLimit: 100 }, { baseApplied: 20, adds: 0, passPending: 2_983, changes: 0 }),
    ).toEqual({ applied: 20, pending: 2_983 });
    expect(
      interimCounts(
        { userCount: 20, syncedLimit: 100 },
        { baseApplied: 20, adds: 0, passPending: 2_983, changes: 983 },
      ),
    ).toEqual({ applied: 20, pending: 2_000 });
  });

  it('derives the rate from the changes of the pass and its elapsed time', () => {
    const start = new Date(1_000_000);
    expect(passRate({ changes: 50, passStartedAt: start }, 1_010_000)).toBeCloseTo(5);
    expect(passRate({ changes: 0, passStartedAt: start }, 1_010_000)).toBeNull();
  });
});

describe('back-off', () => {
  it('doubles from 30 seconds per failed attempt and stops at an hour', () => {
    expect(retryDelayMs(1)).toBe(30_000);
    expect(retryDelayMs(2)).toBe(60_000);
    expect(retryDelayMs(20)).toBe(3_600_000);
  });
});

describe('inactiveReason', () => {
  const link = { enabled: true, paused: false, awaitingFirstList: false } as LinkContext;
  it('syncs nothing for a disabled, paused or waiting hand-over link', () => {
    expect(inactiveReason(link)).toBeNull();
    expect(inactiveReason({ ...link, enabled: false })).toBe('disabled');
    expect(inactiveReason({ ...link, paused: true })).toBe('paused');
    expect(inactiveReason({ ...link, awaitingFirstList: true })).toBe('awaiting_first_list');
  });
});
