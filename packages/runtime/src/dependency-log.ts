import type { EventEmitter } from 'node:events';
import type { Logger } from './logger';

/**
 * One log line per change of a shared dependency's state (PostgreSQL, Redis), not one per attempt: during
 * one Redis outage each bot worker logged 144 error lines a minute (every reconnect attempt of every
 * BullMQ worker), burying the one line that mattered. The first failure logs `… down` (warn)
 * with its error, the first success after it `… back up` (info) with how long it was away; every report
 * in between is counted, not logged.
 */
export class DependencyLog {
  private readonly state = new Map<string, { up: boolean; since: number; failures: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  up(dependency: string): void {
    const s = this.state.get(dependency);
    if (s?.up !== false) {
      if (!s) this.state.set(dependency, { up: true, since: this.now(), failures: 0 });
      return;
    }
    this.logger.info(`${dependency} back up`, {
      dependency,
      downForMs: this.now() - s.since,
      failedAttempts: s.failures,
    });
    this.state.set(dependency, { up: true, since: this.now(), failures: 0 });
  }

  down(dependency: string, err: unknown): void {
    const s = this.state.get(dependency);
    if (s?.up === false) {
      s.failures += 1;
      return;
    }
    this.logger.warn(`${dependency} down`, { dependency, error: err instanceof Error ? err.message : String(err) });
    this.state.set(dependency, { up: false, since: this.now(), failures: 1 });
  }

  /**
   * An 'error' listener for a client of `dependency` (a BullMQ worker or queue, an ioredis connection):
   * a lost connection counts towards the dependency's state; any other error is logged as `what`.
   */
  listener(dependency: string, what: string): (err: Error) => void {
    return (err) =>
      isConnectionError(err) ? this.down(dependency, err) : this.logger.error(what, { error: err.message });
  }

  /**
   * Follows a long-lived client of `dependency` (an ioredis connection): its 'error' events through
   * `listener` (logged as `<dependency> error` unless a lost connection), its 'ready' as the dependency up.
   * Every service's main wires its shared Redis connection with this.
   */
  watch(dependency: string, client: Pick<EventEmitter, 'on'>): void {
    client.on('error', this.listener(dependency, `${dependency} error`));
    client.on('ready', () => this.up(dependency));
  }

  isDown(dependency: string): boolean {
    return this.state.get(dependency)?.up === false;
  }
}

/**
 * Whether an error is a lost connection rather than a fault of the work itself: what a client library
 * reports on every reconnect attempt while its server is away (ECONNREFUSED and friends, ioredis's
 * "Connection is closed", BullMQ's wrappers of them).
 */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  return (
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|ENETUNREACH)$/.test(code) ||
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection is closed|connect ETIMEDOUT|Stream isn't writeable|getaddrinfo/.test(
      message,
    )
  );
}
