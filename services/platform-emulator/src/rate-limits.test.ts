import { DEFAULT_CONFIG, type EmulatorConfig } from './options';
import { RateLimits } from './rate-limits';

const config = (over: Partial<EmulatorConfig> = {}): EmulatorConfig => ({ ...DEFAULT_CONFIG, ...over });

describe('RateLimits', () => {
  it('gives every guild its own role bucket, shared by all members and both methods', () => {
    const limits = new RateLimits(() => config({ roleBucket: { limit: 2, windowMs: 1000 } }));
    const a = limits.bucket('roles', 'member-roles', '1', 0);
    expect(limits.bucket('roles', 'member-roles', '1', 0)).toBe(a);
    // Another guild: its own window, under the same hash (the hash leaves out the major parameter).
    expect(limits.bucket('roles', 'member-roles', '2', 0)).not.toBe(a);
    expect(limits.bucket('roles', 'member-roles', '2', 0).hash).toBe(a.hash);
    expect(limits.bucket('route', 'GET /guilds/:guild/roles', '1', 0).hash).not.toBe(a.hash);
    expect(limits.admit('t', a, 0).allowed).toBe(true);
    expect(limits.admit('t', a, 1).allowed).toBe(true);
    expect(limits.admit('t', a, 2)).toMatchObject({ allowed: false, scope: 'user', retryAfterMs: 998 });
    expect(limits.admit('t', limits.bucket('roles', 'member-roles', '2', 2), 2).allowed).toBe(true);
  });

  it('refuses past the global per-second limit before touching the route bucket', () => {
    const limits = new RateLimits(() => config({ globalPerSecond: 2 }));
    const b = limits.bucket('route', 'GET /x', '', 0);
    limits.admit('t', b, 0);
    limits.admit('t', b, 10);
    expect(limits.admit('t', b, 400)).toMatchObject({ allowed: false, scope: 'global', retryAfterMs: 600 });
    expect(b.window.peek(400).remaining).toBe(DEFAULT_CONFIG.routeBucket.limit - 2);
    expect(limits.admit('t', b, 1000).allowed).toBe(true);
  });

  it('answers scope shared for a resource under a shared limit without spending its bucket, then lets it through', () => {
    const limits = new RateLimits(() => config({ roleBucket: { limit: 10, windowMs: 10_000 } }));
    const a = limits.bucket('roles', 'member-roles', '1', 0);
    const other = limits.bucket('roles', 'member-roles', '2', 0);
    limits.admit('t', a, 0);
    limits.limitShared('roles', '1', 60_000, 100);
    expect(limits.admit('t', a, 200)).toMatchObject({
      allowed: false,
      scope: 'shared',
      retryAfterMs: 59_900,
      bucket: { remaining: 9, resetAfterMs: 9_800 },
    });
    expect(limits.admit('t', other, 200).allowed).toBe(true);
    expect(limits.admit('t', a, 60_100)).toMatchObject({ allowed: true, bucket: { remaining: 9 } });
    limits.limitShared('roles', '2', 5_000, 60_100);
    limits.limitShared('roles', '2', 0, 60_200);
    expect(limits.admit('t', other, 60_200).allowed).toBe(true);
  });

  it('bans once the invalid requests in the window reach the threshold, for the configured time', () => {
    const limits = new RateLimits(() => config({ invalidThreshold: 3, banMs: 5000 }));
    limits.recordInvalid(0);
    limits.recordInvalid(100);
    expect(limits.banRemaining(100)).toBe(0);
    limits.recordInvalid(200);
    expect(limits.banRemaining(1200)).toBe(4000);
    expect(limits.banRemaining(5200)).toBe(0);
  });

  it('does not ban when the invalid requests are spread wider than ten minutes', () => {
    const limits = new RateLimits(() => config({ invalidThreshold: 2 }));
    limits.recordInvalid(0);
    limits.recordInvalid(601_000);
    expect(limits.banRemaining(601_000)).toBe(0);
    expect(limits.invalidCount(601_000)).toBe(1);
  });
});
