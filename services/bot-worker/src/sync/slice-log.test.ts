import { memoryLogger } from '@rolelink/runtime';
import { countingChanges, newSliceTally, noteRateLimited, withSliceTally, writeSliceLine } from './slice-log';

const ids = { jobId: '7', linkId: '42' };

describe('sync slice log line', () => {
  it('counts adds, removes and failures by outcome and still feeds the metrics', () => {
    const tally = newSliceTally();
    const seen: string[] = [];
    const changes = countingChanges(tally, { change: (action, result) => seen.push(`${action}:${result}`) });
    changes.change('add', 'applied');
    changes.change('add', 'not_in_guild');
    changes.change('remove', 'applied');
    changes.change('remove', 'missing_permission');
    expect(tally).toMatchObject({
      adds: 1,
      removes: 1,
      failures: { not_in_guild: 1, missing_permission: 1, failed: 0 },
    });
    expect(seen).toHaveLength(4);
  });

  it('counts a 429 towards the slice whose call it answered and no other', async () => {
    const mine = newSliceTally();
    const other = newSliceTally();
    await Promise.all([
      withSliceTally(mine, async () => {
        await Promise.resolve();
        noteRateLimited(1_250);
      }),
      withSliceTally(other, () => Promise.resolve()),
    ]);
    noteRateLimited(500); // outside any slice (the reconcile): ignored
    expect(mine.http429).toEqual({ count: 1, retry_after_ms: 1_250 });
    expect(other.http429).toEqual({ count: 0, retry_after_ms: 0 });
  });

  it('writes a slice that changed roles at info and one that found nothing to do at debug', () => {
    const { logger, lines } = memoryLogger('bot-worker', 'debug');
    const busy = { ...newSliceTally(), adds: 3, pass: { calls: 3, adds: 3, duration_ms: 20 } };
    writeSliceLine(logger, ids, busy, { kind: 'done' }, 12.4);
    writeSliceLine(
      logger,
      ids,
      { ...newSliceTally(), pass: { calls: 0, adds: 0, duration_ms: 5 } },
      { kind: 'done' },
      3,
    );
    writeSliceLine(
      logger,
      ids,
      { ...newSliceTally(), skipped: { result: 'inactive', reason: 'paused' } },
      { kind: 'done' },
      1,
    );
    writeSliceLine(logger, ids, newSliceTally(), { kind: 'yield', delayMs: 1_000, reason: 'link_busy' }, 1);
    expect(lines.map((l) => [l.level, l.result, l.reason])).toEqual([
      ['info', 'finished', undefined],
      ['debug', 'finished', undefined],
      ['debug', 'inactive', 'paused'],
      ['debug', 'yielded', 'link_busy'],
    ]);
    expect(lines[0]).toMatchObject({ message: 'sync slice', jobId: '7', linkId: '42', adds: 3, duration_ms: 12 });
  });

  it('writes a slice that waits for the platform at info with the reason and delay', () => {
    const { logger, lines } = memoryLogger('bot-worker', 'info');
    writeSliceLine(logger, ids, newSliceTally(), { kind: 'yield', delayMs: 640.2, reason: 'rate_limited' }, 5);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'info', result: 'yielded', reason: 'rate_limited', delay_ms: 640 }),
    ]);
  });

  it('writes a slice that threw at warn with what it had done so far', () => {
    const { logger, lines } = memoryLogger('bot-worker', 'info');
    writeSliceLine(logger, ids, { ...newSliceTally(), removes: 2 }, undefined, 5);
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', result: 'failed', removes: 2 })]);
  });
});
