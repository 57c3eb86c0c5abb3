export type WindowSpec = { limit: number; windowMs: number };

/** What a bucket says about itself after a request: the material of the X-RateLimit-* headers. */
export type WindowState = { limit: number; remaining: number; resetAt: number; resetAfterMs: number };
export type TakeResult = WindowState & { allowed: boolean };

/**
 * A fixed-window bucket as the platform runs them: the window opens at the first request after the
 * previous one closed (not on a wall-clock grid), allows `limit` requests, and resets all at once.
 */
export class FixedWindow {
  private remaining: number;
  private resetAt = 0;

  constructor(private readonly spec: WindowSpec) {
    this.remaining = spec.limit;
  }

  take(now: number): TakeResult {
    this.roll(now);
    const allowed = this.remaining > 0;
    if (allowed) this.remaining -= 1;
    return { allowed, ...this.state(now) };
  }

  /** The state without spending a request (for answers that never reach the bucket, like a 401). */
  peek(now: number): WindowState {
    if (this.expired(now))
      return {
        limit: this.spec.limit,
        remaining: this.spec.limit,
        resetAt: now + this.spec.windowMs,
        resetAfterMs: this.spec.windowMs,
      };
    return this.state(now);
  }

  expired(now: number): boolean {
    return this.resetAt <= now;
  }

  private roll(now: number): void {
    if (!this.expired(now)) return;
    this.remaining = this.spec.limit;
    this.resetAt = now + this.spec.windowMs;
  }

  private state(now: number): WindowState {
    return {
      limit: this.spec.limit,
      remaining: this.remaining,
      resetAt: this.resetAt,
      resetAfterMs: Math.max(0, this.resetAt - now),
    };
  }
}
