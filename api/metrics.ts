import type { Client as TemporalClient } from '@temporalio/client';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Orm } from '../db/orm.js';
import { ENDORSEMENT_STATUSES, ENDORSEMENT_TYPES } from '../domain/enums.js';
import {
  countEndorsementsByTypeAndStatus,
  readDecisionTimesBetween,
  readDecisionWatermarks,
  type EndorsementCount,
} from '../data/metrics.js';
import { SystemScope } from '../data/scope.js';

/**
 * The API's Prometheus metrics, in a registry of their own per app (no module-level state, so two
 * apps in one process never share counts). Request metrics are recorded as requests end; the
 * database-derived ones are read when Prometheus scrapes.
 */
export interface Metrics {
  registry: Registry;
  /** `route` is the matched pattern (`/v1/policy/:policy_id`), never the raw path. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  tokenIssued(): void;
  tokenRateLimited(): void;
}

export interface MetricsSource {
  orm: Orm;
  /** For the count of workflows flagged EndorsementStuck (visibility); omitted, that series is absent. */
  temporal?: TemporalClient;
  /** Process metrics (CPU, memory, event loop); off in tests, where many apps share one process. */
  processMetrics?: boolean;
  /** How far behind PostgreSQL's clock decisions are read, so a commit in flight is not skipped. */
  decisionLagMs?: number;
}

/** How long a scrape reuses the endorsement counts: a grouped count over the table is not free. */
const COUNT_CACHE_MS = 10_000;

const DECISION_BUCKETS_S = [1, 10, 60, 300, 1_800, 3_600, 21_600, 86_400, 259_200, 604_800, 1_209_600];

export function createMetrics(source: MetricsSource): Metrics {
  const registry = new Registry();
  if (source.processMetrics) collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, matched route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, matched route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'ghi_token_issues_total',
    help: 'Access tokens issued (POST /v1/auth/token answered 200)',
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'ghi_token_rate_limited_total',
    help: 'Token requests refused with 429 A4290 (over 100 per client in a rolling hour, D4)',
    registers: [registry],
  });
  // A scrape while PostgreSQL or Temporal is down still answers (request metrics matter most then):
  // the series read from them keep their last values and this counter says they are stale.
  const failures = new Counter({
    name: 'ghi_metrics_collect_errors_total',
    help: 'Scrapes whose PostgreSQL- or Temporal-derived series could not be refreshed',
    registers: [registry],
  });
  registerPoolGauge(registry, source.orm);
  registerEndorsementMetrics(registry, source, failures);
  if (source.temporal) registerStuckGauge(registry, source.temporal, failures);

  return {
    registry,
    observeRequest(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    tokenIssued: () => tokens.inc(),
    tokenRateLimited: () => rateLimited.inc(),
  };
}

interface PoolLike {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max: number;
}

/** The knex (tarn) pool under MikroORM: connections in use, idle, and requests waiting for one. */
function registerPoolGauge(registry: Registry, orm: Orm): void {
  new Gauge({
    name: 'ghi_db_pool_connections',
    help: 'PostgreSQL pool of this process: used, free, pending (waiting to acquire) and max',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = (orm.em.getConnection().getKnex().client as { pool?: PoolLike }).pool;
      if (!pool) return;
      this.set({ state: 'used' }, pool.numUsed());
      this.set({ state: 'free' }, pool.numFree());
      this.set({ state: 'pending' }, pool.numPendingAcquires());
      this.set({ state: 'max' }, pool.max);
    },
  });
}

/**
 * Endorsements by type and status (all clients; no tenant label keeps the series bounded), and the
 * time from create to decision of the endorsements decided since the previous scrape. Both come
 * from PostgreSQL, the source of truth (D7); every API copy reports the same values, so aggregate
 * across instances with max, not sum.
 */
function registerEndorsementMetrics(registry: Registry, source: MetricsSource, failures: Counter): void {
  const system = SystemScope.of(source.orm.em);
  const guarded = (collect: () => Promise<void>) => () => collect().catch(() => failures.inc());
  let cached: { at: number; rows: EndorsementCount[] } | null = null;
  const refreshCounts = guarded(async () => {
    const now = performance.now();
    if (cached && now - cached.at <= COUNT_CACHE_MS) return;
    const rows = await countEndorsementsByTypeAndStatus(system);
    cached = { at: now, rows };
  });

  new Gauge({
    name: 'ghi_endorsements',
    help: 'Endorsements by type and status (counted in PostgreSQL, cached for 10 s)',
    labelNames: ['type', 'status'] as const,
    registers: [registry],
    async collect() {
      await refreshCounts();
      if (!cached) return;
      for (const type of ENDORSEMENT_TYPES)
        for (const status of ENDORSEMENT_STATUSES) this.set({ type, status }, 0);
      for (const row of cached.rows) this.set({ type: row.type, status: row.status }, Number(row.n));
    },
  });

  // Watermarks in PostgreSQL's clock, which stamps decided_at. The first scrape looks back to the
  // moment the metrics were created, so a restarted API does not observe old decisions again; a lag
  // (decisionLagMs, two seconds) lets a decision whose transaction began before the mark commit first.
  const createdAt = performance.now();
  const lagMs = source.decisionLagMs ?? 2_000;
  let since: Date | null = null;
  let previous: Promise<unknown> = Promise.resolve();
  const observeNewDecisions = async () => {
    const uptimeMs = Math.round(performance.now() - createdAt);
    const mark = await readDecisionWatermarks(system, lagMs, uptimeMs);
    const rows = await readDecisionTimesBetween(system, since ?? mark.start, mark.until);
    since = mark.until;
    for (const row of rows) decisions.observe({ type: row.type, status: row.status }, row.seconds);
  };
  const decisions = new Histogram({
    name: 'ghi_endorsement_decision_seconds',
    help: 'Time from create to decision (approved, rejected or cancelled) of endorsements, by outcome',
    labelNames: ['type', 'status'] as const,
    buckets: DECISION_BUCKETS_S,
    registers: [registry],
    async collect() {
      // Concurrent scrapes take turns, so none observes a decision twice.
      const run = previous.then(guarded(observeNewDecisions));
      previous = run.catch(() => undefined);
      await run;
    },
  });
}

/** Visibility is Temporal's to serve: counted at most every 30 s, waiting at most 2 s for an answer. */
const STUCK_CACHE_MS = 30_000;
const STUCK_QUERY =
  "WorkflowType = 'endorsementWorkflow' AND ExecutionStatus = 'Running' AND EndorsementStuck = true";

/**
 * Running endorsement workflows flagged EndorsementStuck (no insurer decision within
 * ENDORSEMENT_STUCK_AFTER, D7): the number the stuck-endorsement alert watches.
 */
function registerStuckGauge(registry: Registry, temporal: TemporalClient, failures: Counter): void {
  let cached: { at: number; count: number } | null = null;
  new Gauge({
    name: 'ghi_endorsements_stuck',
    help: 'Running endorsement workflows flagged EndorsementStuck (Temporal visibility, cached for 30 s)',
    registers: [registry],
    async collect() {
      const now = performance.now();
      if (!cached || now - cached.at > STUCK_CACHE_MS) {
        try {
          const { count } = await temporal.withDeadline(Date.now() + 2_000, () =>
            temporal.workflow.count(STUCK_QUERY),
          );
          cached = { at: now, count };
        } catch {
          failures.inc();
        }
      }
      if (cached) this.set(cached.count);
    },
  });
}
