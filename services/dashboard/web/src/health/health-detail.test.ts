import { lastSeen, readHealthDetail, upSummary } from './health-detail';

describe('readHealthDetail', () => {
  it('reads checks and services of a full report', () => {
    const detail = readHealthDetail({
      timestamp: '2025-01-01T00:00:00Z',
      checks: { db: { status: 'up', latency_ms: 3 }, cache: { status: 'down', message: 'timeout' } },
      services: [{ name: 'Steam', status: 'up', latency_ms: 120 }],
    });
    expect(detail).toEqual({
      timestamp: '2025-01-01T00:00:00Z',
      reason: null,
      checks: [
        { name: 'db', status: 'up', latency_ms: 3, message: null },
        { name: 'cache', status: 'down', latency_ms: null, message: 'timeout' },
      ],
      services: [{ name: 'Steam', status: 'up', latency_ms: 120 }],
    });
  });

  it('reads the reason of an unreachable plugin and tolerates junk', () => {
    expect(readHealthDetail({ reason: 'ECONNREFUSED' }).reason).toBe('ECONNREFUSED');
    expect(readHealthDetail(null)).toEqual({ timestamp: null, reason: null, checks: [], services: [] });
    expect(readHealthDetail({ checks: [1, 2], services: { a: 1 } })).toEqual({
      timestamp: null,
      reason: null,
      checks: [],
      services: [],
    });
    expect(readHealthDetail({ checks: { x: 'up' }, services: [null, { status: 'sideways' }] })).toEqual({
      timestamp: null,
      reason: null,
      checks: [{ name: 'x', status: 'unknown', latency_ms: null, message: null }],
      services: [{ name: '(unnamed)', status: 'unknown', latency_ms: null }],
    });
  });
});

describe('upSummary and lastSeen', () => {
  it('counts rows that are up', () => {
    expect(upSummary([{ status: 'up' }, { status: 'down' }])).toBe('1 of 2 up');
    expect(upSummary([])).toBeNull();
  });

  it('finds the newest answered check', () => {
    const at = (status: 'healthy' | 'unreachable', checked_at: string) => ({
      status,
      checked_at,
      latency_ms: null,
      detail: null,
    });
    expect(
      lastSeen([
        at('unreachable', '2025-01-03T00:00:00Z'),
        at('healthy', '2025-01-02T00:00:00Z'),
        at('healthy', '2025-01-01T00:00:00Z'),
      ]),
    ).toBe('2025-01-02T00:00:00Z');
    expect(lastSeen([at('unreachable', '2025-01-03T00:00:00Z')])).toBeNull();
  });
});
