import type { Queryable } from '@rolelink/db/client';
import type { TokenKeyring } from '@rolelink/domain';
import type { Logger, Metrics } from '@rolelink/runtime';
import type { Backoff } from '@rolelink/wire-types/backoff';
import type { ConfigCache } from './config-cache';
import type { PluginHttp } from '@rolelink/plugin-http';

/** Plugin timeouts of spec 4.2 / 8.5; tests shorten them. */
export type PluginTimeouts = {
  register: number;
  fetchConfig: number;
  submitConfig: number;
  deleteConfig: number;
  health: number;
};
export const DEFAULT_PLUGIN_TIMEOUTS: PluginTimeouts = {
  register: 5_000,
  fetchConfig: 5_000,
  submitConfig: 10_000,
  deleteConfig: 5_000,
  health: 5_000,
};

export type PluginCallName = 'register' | 'fetch-config' | 'submit-config' | 'delete-config' | 'health' | 'events';

/**
 * Event delivery (docs/api.md "Events to plugins"): retry `n` waits min(maxMs, baseMs·2^(n-1)) plus up
 * to 10 % jitter; an event still failing `windowMs` after it was recorded (or re-sent) is dropped.
 * Configurable by env (EVENT_RETRY_*) so tests can use milliseconds.
 */
export type EventDeliveryOptions = {
  baseMs: number;
  maxMs: number;
  windowMs: number;
  timeoutMs: number;
  sweepEveryMs: number;
  /** Finished events (delivered, dropped) older than this many days are deleted (EVENT_RETENTION_DAYS). */
  retentionDays: number;
};
export const DEFAULT_EVENT_DELIVERY: EventDeliveryOptions = {
  baseMs: 10_000,
  maxMs: 3_600_000,
  windowMs: 24 * 3_600_000,
  timeoutMs: 5_000,
  sweepEveryMs: 5_000,
  retentionDays: 14,
};
/** Event delivery's backoff (retry `n` is its step n-1): the jitter spreads the retries of events that failed together. */
export const eventBackoff = (o: Pick<EventDeliveryOptions, 'baseMs' | 'maxMs'>): Backoff => ({
  firstMs: o.baseMs,
  maxMs: o.maxMs,
  jitter: 0.1,
});

/** Everything a broker job needs, built once in main.ts (or by a test) and passed in. */
export type BrokerContext = {
  /** The database pool (packages/db's repositories take it). */
  db: Queryable;
  /**
   * Session-bound work: the per-link event locks are session advisory locks, held on one connection for
   * as long as a delivery lasts, so they need PostgreSQL's own session, not a transaction pooler's.
   * Unset, `db`.
   */
  sessionDb?: Queryable;
  http: PluginHttp;
  cache: ConfigCache;
  /** Decrypts token_ciphertext (ROLELINK_SECRET_KEY). */
  secretKey: Buffer | TokenKeyring;
  /** ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS, also applied to iframe embed URLs. */
  allowHosts: readonly string[];
  timeouts: PluginTimeouts;
  /** Event delivery's backoff and window; DEFAULT_EVENT_DELIVERY when absent. */
  events?: EventDeliveryOptions;
  logger: Logger;
  metrics?: Metrics;
  now: () => number;
};
