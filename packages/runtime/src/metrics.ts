import type { RequestHandler } from 'express';
import { buildInfo } from './build-info';
import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';
import { boundedSample, COLLECT_TIMEOUT_MS, joinScrape, type Reading } from './bounded-sample';
import type { DependencyLog } from './dependency-log';
import type { ReadinessCheck } from './health';
import type { RequestObserver } from './http';
import { trackRoute } from './route-template';

export { UNMATCHED_ROUTE, presetRoute } from './route-template';

/**
 * Metric names in one place: dashboards and alerts (docs/operations.md) refer to these, so they are
 * never renamed. Owning services create them through the `Metrics` factories below.
 */
export const MetricName = {
  buildInfo: 'rolelink_build_info',
  httpRequests: 'http_requests_total',
  httpDuration: 'http_request_duration_seconds',
  queueJobs: 'rolelink_queue_jobs',
  jobDuration: 'rolelink_job_duration_seconds',
  roleChanges: 'rolelink_role_changes_total',
  platformRateLimited: 'rolelink_platform_rate_limited_total',
  platformInvalidRequests: 'rolelink_platform_invalid_requests_total',
  platformEdgeBans: 'rolelink_platform_edge_bans_total',
  platformShapeErrors: 'rolelink_platform_shape_errors_total',
  platformEdgeBanSeconds: 'rolelink_platform_edge_ban_seconds',
  pluginCalls: 'rolelink_plugin_calls_total',
  pluginCallDuration: 'rolelink_plugin_call_duration_seconds',
  pluginHealth: 'rolelink_plugin_health_links',
  dependencyUp: 'rolelink_dependency_up',
  syncLinksBehind: 'rolelink_sync_links_behind',
  syncPendingChanges: 'rolelink_sync_pending_changes',
  syncMaxLinkPendingChanges: 'rolelink_sync_link_pending_changes_max',
  syncOldestUnapplied: 'rolelink_sync_oldest_unapplied_seconds',
  collectorStale: 'rolelink_metrics_stale',
  membersListingBlocked: 'rolelink_members_listing_blocked',
  guildsUnavailable: 'rolelink_guilds_unavailable',
  linksBlocked: 'rolelink_links_blocked',
  repairBlocked: 'rolelink_repair_blocked_total',
  driftPollAge: 'rolelink_drift_poll_age_seconds',
  driftPollCoverage: 'rolelink_drift_poll_coverage_ratio',
  driftPollGuilds: 'rolelink_drift_poll_guilds',
} as const;

/** Up to 2 minutes: a 100,000-ID PUT may legitimately take that long (spec 8.5). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Jobs range from a few ms (one role change) to many minutes (a page of a first sync). */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];
/** Plugin calls time out at 5 s (10 s for POST /config). */
const PLUGIN_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type QueueDepthSample = { queue: string; state: string; count: number };
/** What the platform refuses for a whole application, guild or link, read from PostgreSQL at scrape time. */
export type RefusalSample = {
  membersListingBlocked: number;
  guildsUnavailable: number;
  linksBlocked: { reason: string; count: number }[];
};
/** The drift poll's coverage, over all guilds it may read and over the changed ones (packages/db readDriftCoverage). */
type DriftCoverageFigures = { guilds: number; oldestAgeSeconds: number; shareWithin: number };
export type DriftCoverageSample = { all: DriftCoverageFigures; changed: DriftCoverageFigures };
type SyncLagSample = {
  linksBehind: number;
  pendingChanges: number;
  maxLinkPendingChanges: number;
  oldestUnappliedSeconds: number;
};

export type Metrics = {
  readonly service: string;
  readonly registry: Registry;
  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L>;
  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L>;
  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L>;
  /** Middleware (a RequestObserver) recording http_requests_total and http_request_duration_seconds by route pattern. */
  httpMiddleware(): RequestObserver;
  /** `GET /metrics` handler in the Prometheus text format. */
  handler(): RequestHandler;
  /**
   * rolelink_queue_jobs{queue,state}: read at scrape time from `sample` (e.g. BullMQ getJobCounts), within
   * COLLECT_TIMEOUT_MS; when Redis is away, the last counts read, with rolelink_metrics_stale{collector="queue_jobs"} = 1.
   */
  queueDepth(sample: () => Promise<QueueDepthSample[]>): Gauge<'queue' | 'state'>;
  /**
   * The sync lag gauges, read at scrape time from one `sample` shared by the four (one query per scrape):
   * rolelink_sync_links_behind, rolelink_sync_pending_changes (sum over links),
   * rolelink_sync_link_pending_changes_max, rolelink_sync_oldest_unapplied_seconds. No per-link label.
   * Within COLLECT_TIMEOUT_MS; when PostgreSQL is away, the last figures (NaN before the first), with
   * rolelink_metrics_stale{collector="sync_lag"} = 1.
   */
  syncLag(sample: () => Promise<SyncLagSample>): void;
  /**
   * The platform's standing refusals (docs/sync-engine.md "When the platform refuses"), read at scrape
   * time from one `sample`: rolelink_members_listing_blocked (1 while the bot application lacks the Server
   * Members intent), rolelink_guilds_unavailable (guilds with enabled links the bot is out of) and
   * rolelink_links_blocked{reason} (links whose role the bot may not change). Within COLLECT_TIMEOUT_MS,
   * as syncLag: the last figures, with rolelink_metrics_stale{collector="refusals"} = 1, while PostgreSQL is away.
   */
  refusals(sample: () => Promise<RefusalSample>): void;
  /**
   * The drift poll's coverage (docs/sync-engine.md "Which guild next"), read at scrape time from one
   * `sample`, each with guilds="all" (every guild with active links whose audit log the bot may read) and
   * guilds="changed" (those with a linked role changed or a hand edit seen within the hour):
   * rolelink_drift_poll_age_seconds (since the least recently read one was read; 0 with none),
   * rolelink_drift_poll_coverage_ratio (the share read within the last 2 minutes; 1 with none) and
   * rolelink_drift_poll_guilds. Bounded as syncLag (rolelink_metrics_stale{collector="drift_poll"}).
   */
  driftCoverage(sample: () => Promise<DriftCoverageSample>): void;
  /** rolelink_repair_blocked_total{job,reason}: a reconcile or drift poll that could not read a guild; job: reconcile | drift; reason: members_intent | guild_unavailable. */
  repairBlocked(): Counter<'job' | 'reason'>;
  /** rolelink_job_duration_seconds{queue,job,outcome}; outcome: completed | failed | rate_limited. */
  jobDuration(): Histogram<'queue' | 'job' | 'outcome'>;
  /** rolelink_role_changes_total{action,result}; action: add | remove; result: applied | not_in_guild | missing_permission | failed. */
  roleChanges(): Counter<'action' | 'result'>;
  /** rolelink_platform_rate_limited_total{scope}: 429s seen from the platform; scope: user | global | shared. */
  platformRateLimited(): Counter<'scope'>;
  /** rolelink_platform_invalid_requests_total{status}: 401/403/429 answers (count towards the platform's ban threshold). */
  platformInvalidRequests(): Counter<'status'>;
  /**
   * rolelink_platform_edge_bans_total: bans by the platform's edge (429 without rate-limit headers), each
   * counted once by the process whose answer began it; every request of the application then waits.
   */
  platformEdgeBans(): Counter;
  /**
   * rolelink_platform_shape_errors_total{route}: platform answers of the wrong shape (a field the product
   * reads missing or of another type, or no JSON), refused at the client boundary; route: `GET /guilds/{guild.id}`.
   */
  platformShapeErrors(): Counter<'route'>;
  /** rolelink_platform_edge_ban_seconds: seconds of edge ban left (0: none), read at scrape time from the shared limiter. */
  platformEdgeBanSeconds(sample: () => Promise<number>): Gauge;
  /** rolelink_plugin_calls_total{call,outcome}; call: register | fetch-config | submit-config | delete-config | health | events; outcome: ok | http_4xx | http_5xx | timeout | network | blocked | invalid_response. */
  pluginCalls(): Counter<'call' | 'outcome'>;
  /** rolelink_plugin_call_duration_seconds{call}. */
  pluginCallDuration(): Histogram<'call'>;
  /** rolelink_plugin_health_links{status}: how many links' plugins are in each state (healthy | degraded | unhealthy | unreachable). */
  pluginHealth(): Gauge<'status'>;
  /**
   * rolelink_dependency_up{dependency}: 1 when the probe answers within COLLECT_TIMEOUT_MS, else 0, run at
   * scrape time (one probe per dependency in flight, however many scrapes wait on it). Where shared
   * dependencies (PostgreSQL, Redis) are watched; readiness deliberately ignores them. With `log`, each
   * change of state is one line (DependencyLog).
   */
  dependencies(probes: Record<string, ReadinessCheck>, log?: DependencyLog): Gauge<'dependency'>;
};

/**
 * A registry of its own per process, with Node's default metrics and a `service` label on every series.
 * Call once in main.ts and pass it to the app (tests build their own).
 */
export function createMetrics(service: string, options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });

  // Factories are idempotent: asking twice for the same name returns the first metric, so an app built
  // twice in one process (tests) does not throw "already registered".
  function once<M>(name: string, make: () => M): M {
    return (registry.getSingleMetric(name) as M | undefined) ?? make();
  }
  const counter = <L extends string>(c: Omit<CounterConfiguration<L>, 'registers'>) =>
    once(c.name, () => new Counter<L>({ ...c, registers: [registry] }));
  const histogram = <L extends string>(c: Omit<HistogramConfiguration<L>, 'registers'>) =>
    once(c.name, () => new Histogram<L>({ ...c, registers: [registry] }));
  const gauge = <L extends string>(c: Omit<GaugeConfiguration<L>, 'registers'>) =>
    once(c.name, () => new Gauge<L>({ ...c, registers: [registry] }));

  const build = buildInfo();
  gauge({
    name: MetricName.buildInfo,
    help: 'Always 1; its labels say which release (version), source revision and Node.js this process runs',
    labelNames: ['version', 'revision', 'node'],
  }).set(build, 1);

  // rolelink_metrics_stale{collector}: each bounded collector's reading of this scrape, joined (not read
  // again) by the stale gauge, whose collect prom-client runs concurrently with the collector's own.
  const readings = new Map<string, () => Promise<Reading<unknown>>>();
  const scrapeReading = <T>(collector: string, sample: () => Promise<T>): (() => Promise<Reading<T>>) => {
    const read = joinScrape(boundedSample(sample));
    readings.set(collector, read);
    gauge({
      name: MetricName.collectorStale,
      help: 'Whether a collector reports its last value because its source (PostgreSQL, Redis) did not answer at scrape time: 1 stale, 0 fresh',
      labelNames: ['collector'],
      async collect() {
        // All at once, in this tick: each joins its collector's reading of this scrape. Awaited one by one,
        // a reading asked after an earlier one's timeout would find its scrape's join over and start a second
        // bounded wait (a /metrics of 2 × COLLECT_TIMEOUT_MS with PostgreSQL and Redis down).
        const fresh = await Promise.all(
          [...readings].map(async ([name, reading]) => [name, (await reading()).fresh] as const),
        );
        for (const [name, ok] of fresh) this.set({ collector: name }, ok ? 0 : 1);
      },
    });
    return read;
  };
  const httpRequests = () =>
    counter({
      name: MetricName.httpRequests,
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
    });
  const httpDuration = () =>
    histogram({
      name: MetricName.httpDuration,
      help: 'HTTP request duration by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
    });

  return {
    service,
    registry,
    counter,
    histogram,
    gauge,
    httpMiddleware() {
      const requests = httpRequests();
      const duration = httpDuration();
      return (req, res, next) => {
        const started = performance.now(); // not hrtime.bigint(): two BigInts per request for the same microseconds
        const routeOf = trackRoute(req);
        res.once('finish', () => {
          const labels = { method: req.method, route: routeOf(), status: String(res.statusCode) };
          requests.inc(labels);
          duration.observe(labels, (performance.now() - started) / 1e3);
        });
        next?.();
      };
    },
    handler() {
      return async (_req, res) => {
        res.set('Content-Type', registry.contentType).set('Cache-Control', 'no-store');
        res.end(await registry.metrics());
      };
    },
    queueDepth(sample) {
      const read = scrapeReading('queue_jobs', sample);
      return gauge({
        name: MetricName.queueJobs,
        help: 'Jobs in each queue by state (waiting, active, delayed, failed, prioritized); the last counts read while Redis is away (rolelink_metrics_stale)',
        labelNames: ['queue', 'state'],
        async collect() {
          const { value, fresh } = await read();
          if (!fresh) return; // the last counts stay
          this.reset();
          for (const { queue, state, count } of value ?? []) this.set({ queue, state }, count);
        },
      });
    },
    syncLag(sample) {
      // prom-client collects the metrics of one scrape concurrently: the four share the scrape's one query
      // (boundedSample keeps one in flight). A failed or late read (PostgreSQL down) keeps the last figures,
      // marked stale, rather than failing or holding the whole scrape; NaN (unknown, which no alert
      // compares as above its threshold) until a first read succeeds.
      const UNKNOWN: SyncLagSample = {
        linksBehind: NaN,
        pendingChanges: NaN,
        maxLinkPendingChanges: NaN,
        oldestUnappliedSeconds: NaN,
      };
      const read = scrapeReading('sync_lag', sample);
      const lagGauge = (name: string, help: string, pick: (s: SyncLagSample) => number) =>
        gauge({
          name,
          help,
          async collect() {
            this.set(pick((await read()).value ?? UNKNOWN));
          },
        });
      lagGauge(
        MetricName.syncLinksBehind,
        'Links with list changes the bot worker has not finished applying',
        (s) => s.linksBehind,
      );
      lagGauge(
        MetricName.syncPendingChanges,
        'Role changes still to make, summed over links (pending_count)',
        (s) => s.pendingChanges,
      );
      lagGauge(
        MetricName.syncMaxLinkPendingChanges,
        'Role changes still to make on the link with the most',
        (s) => s.maxLinkPendingChanges,
      );
      lagGauge(
        MetricName.syncOldestUnapplied,
        'Age in seconds of the oldest list change not yet applied to the platform (0: none waiting)',
        (s) => s.oldestUnappliedSeconds,
      );
    },
    refusals(sample) {
      // Three small counts read together, bounded like the sync lag: the last figures, marked stale
      // (rolelink_metrics_stale{collector="refusals"}), while PostgreSQL does not answer; NaN before the first.
      const read = scrapeReading('refusals', sample);
      gauge({
        name: MetricName.membersListingBlocked,
        help: 'The bot application cannot list guild members (Server Members intent off): 1, else 0',
        async collect() {
          this.set((await read()).value?.membersListingBlocked ?? NaN);
        },
      });
      gauge({
        name: MetricName.guildsUnavailable,
        help: 'Guilds with enabled role links that the bot cannot reach (removed from the guild, or the guild is gone)',
        async collect() {
          this.set((await read()).value?.guildsUnavailable ?? NaN);
        },
      });
      gauge({
        name: MetricName.linksBlocked,
        help: 'Role links whose role the bot may not change, by reason (no_manage_roles, above_bot, managed, unknown_role, mfa_required, refused)',
        labelNames: ['reason'],
        async collect() {
          const { value, fresh } = await read();
          if (!fresh && value) return; // the last counts stay
          this.reset();
          for (const r of value?.linksBlocked ?? []) this.set({ reason: r.reason }, r.count);
        },
      });
    },
    driftCoverage(sample) {
      // One query per scrape for the three gauges; the last figures, marked stale, while PostgreSQL does
      // not answer; NaN (which no alert compares as above its threshold) before the first.
      const read = scrapeReading('drift_poll', sample);
      const coverageGauge = (name: string, help: string, pick: (f: DriftCoverageFigures) => number) =>
        gauge({
          name,
          help,
          labelNames: ['guilds'],
          async collect() {
            const value = (await read()).value;
            for (const guilds of ['all', 'changed'] as const) this.set({ guilds }, value ? pick(value[guilds]) : NaN);
          },
        });
      coverageGauge(
        MetricName.driftPollAge,
        'Seconds since the drift poll last read the audit log of its least recently read guild (guilds: all | changed within the hour)',
        (f) => f.oldestAgeSeconds,
      );
      coverageGauge(
        MetricName.driftPollCoverage,
        'Share of guilds whose audit log the drift poll read within the last 2 minutes (guilds: all | changed within the hour)',
        (f) => f.shareWithin,
      );
      coverageGauge(
        MetricName.driftPollGuilds,
        'Guilds with active links whose audit log the drift poll may read (guilds: all | changed within the hour)',
        (f) => f.guilds,
      );
    },
    repairBlocked: () =>
      counter({
        name: MetricName.repairBlocked,
        help: 'Reconcile or drift-poll reads of a guild that the platform refused, by job and reason',
        labelNames: ['job', 'reason'],
      }),
    jobDuration: () =>
      histogram({
        name: MetricName.jobDuration,
        help: 'Job processing time by queue, job name and outcome',
        labelNames: ['queue', 'job', 'outcome'],
        buckets: JOB_BUCKETS,
      }),
    roleChanges: () =>
      counter({
        name: MetricName.roleChanges,
        help: 'Role changes sent to the platform, by action and result',
        labelNames: ['action', 'result'],
      }),
    platformRateLimited: () =>
      counter({
        name: MetricName.platformRateLimited,
        help: '429 answers from the chat platform, by scope',
        labelNames: ['scope'],
      }),
    platformInvalidRequests: () =>
      counter({
        name: MetricName.platformInvalidRequests,
        help: 'Platform answers 401/403/429 (the platform bans at 10,000 per 10 minutes)',
        labelNames: ['status'],
      }),
    platformEdgeBans: () =>
      counter({
        name: MetricName.platformEdgeBans,
        help: "Bans by the platform's edge (429 without rate-limit headers): every platform request waits",
      }),
    platformShapeErrors: () =>
      counter({
        name: MetricName.platformShapeErrors,
        help: 'Platform answers of the wrong shape (a field the product reads missing or mistyped), by route',
        labelNames: ['route'],
      }),
    platformEdgeBanSeconds(sample) {
      // Bounded like the other scrape-time reads: the last value, marked stale
      // (rolelink_metrics_stale{collector="edge_ban"}), while Redis does not answer; NaN before the first.
      const read = scrapeReading('edge_ban', sample);
      return gauge({
        name: MetricName.platformEdgeBanSeconds,
        help: 'Seconds left of the platform edge ban holding every platform request (0: none)',
        async collect() {
          this.set((await read()).value ?? NaN);
        },
      });
    },
    pluginCalls: () =>
      counter({
        name: MetricName.pluginCalls,
        help: 'Calls to plugin servers, by call and outcome',
        labelNames: ['call', 'outcome'],
      }),
    pluginCallDuration: () =>
      histogram({
        name: MetricName.pluginCallDuration,
        help: 'Plugin call duration by call',
        labelNames: ['call'],
        buckets: PLUGIN_BUCKETS,
      }),
    pluginHealth: () =>
      gauge({
        name: MetricName.pluginHealth,
        help: 'Links whose plugin is in each health state',
        labelNames: ['status'],
      }),
    dependencies(probes, log) {
      const readers = Object.entries(probes).map(([dependency, probe]) => {
        // Why it is down, for the log: the probe's own error, or its silence.
        const silent = new Error(`no answer within ${COLLECT_TIMEOUT_MS} ms`);
        let error: unknown = silent;
        const read = boundedSample(() =>
          Promise.resolve()
            .then(probe)
            .then(
              () => void (error = silent),
              (err: unknown) => {
                error = err;
                throw err;
              },
            ),
        );
        return async (): Promise<[string, boolean, unknown]> => [dependency, (await read()).fresh, error];
      });
      return gauge({
        name: MetricName.dependencyUp,
        help: 'Whether a shared dependency (db, redis) answered its probe at scrape time: 1 up, 0 down',
        labelNames: ['dependency'],
        async collect() {
          for (const [dependency, up, error] of await Promise.all(readers.map((r) => r()))) {
            this.set({ dependency }, up ? 1 : 0);
            if (up) log?.up(dependency);
            else log?.down(dependency, error);
          }
        },
      });
    },
  };
}
