import { humanizeEta, relativeTime } from './duration';

describe('humanizeEta', () => {
  it('says "up to date" at zero', () => {
    expect(humanizeEta(0)).toBe('up to date');
  });

  it('rounds to minutes, hours and days', () => {
    expect(humanizeEta(12)).toBe('less than a minute');
    expect(humanizeEta(300)).toBe('about 5 min');
    expect(humanizeEta(3600)).toBe('about 1 h');
    expect(humanizeEta(3 * 3600 + 20 * 60)).toBe('about 3 h 20 min');
    expect(humanizeEta(86_400)).toBe('about 1 day');
    expect(humanizeEta(2 * 86_400 + 4 * 3600)).toBe('about 2 days 4 h');
  });
});

describe('relativeTime', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');

  it('describes past and future times', () => {
    expect(relativeTime('2025-01-01T11:59:50Z', now)).toBe('just now');
    expect(relativeTime('2025-01-01T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2025-01-01T12:42:00Z', now)).toBe('in 42 min');
    expect(relativeTime('2024-12-30T12:00:00Z', now)).toBe('2 d ago');
  });

  it('returns unparseable input unchanged', () => {
    expect(relativeTime('yesterday', now)).toBe('yesterday');
  });
});
