import { Router } from 'express';
import { AppError } from './app-error';
import { withDeadline } from './deadline';

/** One probe: returns (or resolves) when the thing answers or holds, throws (or rejects) when not. */
export type ReadinessCheck = () => unknown;

export type CheckResult = { status: 'up' | 'down'; latency_ms: number; error?: string };
export type ReadinessReport = { status: 'ready' | 'not_ready'; checks: Record<string, CheckResult> };

export type HealthOptions = {
  /**
   * Conditions of this process only, e.g. `{ worker: () => worker.isRunning() || Promise.reject(…) }`.
   * Never a shared dependency (PostgreSQL, Redis): every replica would fail it at once and the load
   * balancer would be left with no backend, while the services already answer a clear 503 with
   * Retry-After per request during an outage. Dependency state is `rolelink_dependency_up` in /metrics.
   */
  checks?: Record<string, ReadinessCheck>;
  /** Per-check deadline; a check slower than this counts as down (default 2000 ms). */
  timeoutMs?: number;
  /**
   * True once the process is shutting down: /readyz then answers 503 at once so a load balancer or
   * Kubernetes stops sending traffic while in-flight work finishes (liveness stays 200).
   */
  draining?: () => boolean;
};

const DEFAULT_TIMEOUT_MS = 2000;

/** Error text for a failed check: first line only and bounded, so a probe never echoes a whole payload. */
function describe(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? '').slice(0, 200) || 'failed';
}

/** Runs every check concurrently, each under its own deadline; never throws. */
export async function runReadinessChecks(
  checks: Record<string, ReadinessCheck>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
      const started = performance.now();
      try {
        await withDeadline(Promise.resolve().then(check), timeoutMs);
        return [name, { status: 'up', latency_ms: Math.round(performance.now() - started) }];
      } catch (err) {
        return [name, { status: 'down', latency_ms: Math.round(performance.now() - started), error: describe(err) }];
      }
    }),
  );
  const results = Object.fromEntries(entries);
  const ready = entries.every(([, r]) => r.status === 'up');
  return { status: ready ? 'ready' : 'not_ready', checks: results };
}

/** What /readyz answers while draining: the spec's error body (section 7). */
export const DRAINING_MESSAGE = 'Shutting down';

/**
 * `/healthz` (liveness: the process serves HTTP, 200 `{status:'ok'}` always) and `/readyz` (readiness:
 * this process can take traffic — it is not draining and its own checks hold; 200, or 503 with the
 * spec's error body). Both deliberately ignore shared dependencies: restarting a pod because PostgreSQL
 * is down only adds load to the recovery, and taking every pod out of the load balancer turns a short
 * outage into refused connections instead of the per-request 503 with Retry-After.
 */
export function healthRouter(options: HealthOptions = {}): Router {
  const { checks = {}, timeoutMs = DEFAULT_TIMEOUT_MS, draining = () => false } = options;
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    if (draining()) {
      res.status(503).json(new AppError(503, DRAINING_MESSAGE, 'draining').toBody());
      return;
    }
    const report = await runReadinessChecks(checks, timeoutMs);
    if (report.status === 'ready') {
      res.json(report);
      return;
    }
    const down = Object.keys(report.checks).filter((name) => report.checks[name]?.status === 'down');
    // The error body plus the checks, for the operator reading why (the probe only reads the status).
    res
      .status(503)
      .json({ ...new AppError(503, `Not ready: ${down.join(', ')}`, 'not_ready').toBody(), checks: report.checks });
  });
  return router;
}
