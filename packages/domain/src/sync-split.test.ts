import { reportedPending, splitPending } from './sync-split';

describe('splitPending', () => {
  it('reads a confirmed replace from 250,000 holders to 30 members as removals still to make', () => {
    const pending = reportedPending({ syncBehind: true, pendingCount: 0, appliedCount: 250_000 }, 30, 0);
    expect(pending).toBe(249_970);
    expect(splitPending(pending, 30, 250_000)).toEqual({ adds: 0, removals: 249_970 });
  });

  it('reads growth as adds, and a swap of members as as many adds as removals', () => {
    expect(splitPending(40, 140, 100)).toEqual({ adds: 40, removals: 0 });
    // 10 members replaced by 10 others: the size is unchanged, 20 changes.
    expect(splitPending(20, 100, 100)).toEqual({ adds: 10, removals: 10 });
    // 30 members removed and 5 new ones added: 35 changes, 25 fewer holders.
    expect(splitPending(35, 75, 100)).toEqual({ adds: 5, removals: 30 });
  });

  it('keeps both halves within pending and summing to it when the counts disagree', () => {
    expect(splitPending(0, 30, 25)).toEqual({ adds: 0, removals: 0 });
    expect(splitPending(3, 130, 100)).toEqual({ adds: 3, removals: 0 });
    expect(splitPending(3, 70, 100)).toEqual({ adds: 0, removals: 3 });
    const odd = splitPending(249_981, 30, 250_000);
    expect(odd.adds + odd.removals).toBe(249_981);
    expect(odd.removals).toBeGreaterThan(249_970);
  });
});

describe('reportedPending', () => {
  it('leaves out listed users no call can reach (not in the server, deleted accounts), never below 0', () => {
    // 10 listed, 5 hold the role; 2 are not in the server and 1 account is deleted: 2 changes left.
    expect(reportedPending({ syncBehind: false, pendingCount: 5, appliedCount: 5 }, 10, 3)).toBe(2);
    expect(reportedPending({ syncBehind: true, pendingCount: 0, appliedCount: 5 }, 10, 3)).toBe(2);
    expect(reportedPending({ syncBehind: false, pendingCount: 3, appliedCount: 7 }, 10, 3)).toBe(0);
    expect(reportedPending({ syncBehind: false, pendingCount: 1, appliedCount: 9 }, 10, 3)).toBe(0);
  });
});
