// Latency and throughput over time, from the cumulative totals k6's OpenTelemetry output exports once a period
// (load/run/otlp.ts): each period is the difference of two exports, read as the shard reads the whole run
// (subjectCounts), so the timeline holds one point a period whatever the request count, and k6 keeps no sample
// for it. Pure.
import { bucketQuantile } from '../shared/histogram.ts';
import { freshPeriodOf, type FreshMethod, type FreshPeriod, mergeFreshPeriods } from '../shared/freshness.ts';
import { CLASSES, metricName, type RpcClass, type Subject } from '../shared/answer-classes.ts';
import { requestsOf } from '../shared/shard.ts';
import { type ScenarioPlan, targetRpsAt } from '../shared/profiles.ts';
import { type MetricReader, round, type SubjectCounts, subjectCounts } from '../shared/summary.ts';
import type { PeriodCounts, PeriodStats, Timeline, TimelinePoint } from '../shared/measurement.ts';

/** One export: when it was collected (epoch ms), each subject's cumulative counts then and, with fresh reads on,
 * the head-chasing scenario's cumulative counters (by k6 name, those not 0). */
export interface TotalsAt {
  timeMs: number;
  subjects: Partial<Record<Subject, SubjectCounts>>;
  fresh?: Map<string, number>;
}

/** What one export says of the subjects (kept per period: a few numbers per subject, not per request). */
export function totalsAt(read: MetricReader, timeMs: number, methods: readonly Subject[], fresh = false): TotalsAt {
  const at: TotalsAt = { timeMs, subjects: Object.fromEntries(methods.map((m) => [m, subjectCounts(read, m)])) };
  if (fresh) {
    // The counters a period's freshness figures read (freshPeriodOf), as read now.
    const counts = new Map<string, number>();
    freshPeriodOf((name, stat) => {
      const n = read(name, stat);
      if (n) counts.set(name, n);
      return n;
    });
    at.fresh = counts;
  }
  return at;
}

/**
 * The periods between consecutive exports. `startMs`: when the totals started (k6's output starting, before the VUs'
 * init code: seconds with a big corpus); `testStartMs`: when k6 started the test (epoch ms, load/run/k6.ts), the
 * origin of the points' t. Periods before the test are dropped, and the first one's rate counts only its time since the
 * test start. Without it, the totals' start is the origin.
 */
export function timelineOf(exports: readonly TotalsAt[], methods: readonly Subject[], startMs: number | undefined, testStartMs?: number): Pick<Timeline, 'points' | 'counts'> {
  const points: TimelinePoint[] = [];
  const counts: NonNullable<Timeline['counts']> = [];
  let previous: TotalsAt | undefined;
  let previousMs = startMs ?? exports[0]?.timeMs;
  const origin = testStartMs ?? previousMs;
  for (const e of exports) {
    if (previousMs === undefined || origin === undefined || e.timeMs <= previousMs) continue;
    const from = Math.max(previousMs, origin);
    // Periods are not exactly periodSec long (exports jitter): rates use the real interval. A period before any answer
    // was recorded (a slow first export) is left out: the points keep their time from the start, so the gap shows.
    if (e.timeMs > from) {
      const [point, count] = periodPoint(e, previous, (e.timeMs - origin) / 1000, (e.timeMs - from) / 1000, methods);
      if (points.length || recorded(point)) {
        points.push(point);
        counts.push(count);
      }
    } else {
      // A period that ended before the test started, while k6 ran the VUs' init code: nothing sent, unless the start was seen late.
      const [early, count] = periodPoint(e, previous, 0, (e.timeMs - previousMs) / 1000, methods);
      if (recorded(early)) {
        points.push(early);
        counts.push(count);
      }
    }
    previous = e;
    previousMs = e.timeMs;
  }
  return { points, counts };
}

/** A period in which something was recorded: a method's answers or the head-chasing scenario's reads. */
const recorded = (p: TimelinePoint): boolean => Object.keys(p.methods).length > 0 || p.fresh !== undefined;

function periodPoint(now: TotalsAt, before: TotalsAt | undefined, t: number, seconds: number, methods: readonly Subject[]): [TimelinePoint, Partial<Record<Subject, PeriodCounts>>] {
  const point: TimelinePoint = { t: round(t, 1), methods: {} };
  const counts: Partial<Record<Subject, PeriodCounts>> = {};
  for (const m of methods) {
    const at = now.subjects[m];
    if (!at) continue;
    const was = before?.subjects[m];
    const classes = Object.fromEntries(CLASSES.map((c) => [c, at.classes[c] - (was?.classes[c] ?? 0)])) as Record<RpcClass, number>;
    const buckets: Record<string, number> = {};
    for (const [b, n] of Object.entries(at.buckets)) {
      const d = n - (was?.buckets[b] ?? 0);
      if (d > 0) buckets[b] = d;
    }
    const successes = at.successes - (was?.successes ?? 0);
    const requests = requestsOf(classes);
    if (requests <= 0) continue;
    counts[m] = { requests, successes, buckets };
    const p = (q: number) => round(bucketQuantile(buckets, successes, q), 3);
    point.methods[m] = {
      rps: round(requests / seconds, 2),
      failureRate: round((requests - successes) / requests, 4),
      ...(successes > 0 ? { p50: p(0.5), p95: p(0.95), p99: p(0.99) } : {}),
    };
  }
  // The head-chasing scenario's counters, split by method (tag m) and bucket (tag b) the same way.
  if (now.fresh) {
    const fresh = freshPeriodOf((name) => (now.fresh?.get(name) ?? 0) - (before?.fresh?.get(name) ?? 0));
    if (Object.keys(fresh).length) point.fresh = fresh;
  }
  return [point, counts];
}

/** The error codes of the final totals: the class counters' `code` tag (`calls_rpc_error_eth_estimateGas{code:-32000}`). */
export function errorCodes(read: MetricReader, tagValues: (metric: string, tag: string) => string[], methods: readonly Subject[]): Timeline['codes'] {
  const out: Timeline['codes'] = {};
  for (const m of methods) {
    for (const c of CLASSES) {
      const name = metricName.calls(m, c);
      for (const code of tagValues(name, 'code')) {
        const n = read(`${name}{code:${code}}`, 'count');
        if (n > 0) ((out[m] ??= {})[c] ??= {})[code] = n;
      }
    }
  }
  return out;
}

/**
 * The timelines of several instances of one test, period by period: rates and error codes add up, failure
 * rates are weighted by requests; a period's percentiles are the highest instance's (an upper bound:
 * percentiles do not merge; the run's totals, from histograms, do).
 */
export function mergeTimelines(timelines: readonly Timeline[]): Timeline {
  if (timelines.length === 1 && timelines[0]) return timelines[0];
  const points: TimelinePoint[] = [];
  const length = Math.max(0, ...timelines.map((t) => t.points.length));
  for (let i = 0; i < length; i++) {
    const at = timelines.map((t) => t.points[i]).filter((p): p is TimelinePoint => p !== undefined);
    const point: TimelinePoint = { t: Math.max(...at.map((p) => p.t)), methods: {} };
    const fresh = at.map((p) => p.fresh).filter((f): f is Partial<Record<FreshMethod, FreshPeriod>> => f !== undefined);
    if (fresh.length) point.fresh = mergeFreshPeriods(fresh);
    for (const subject of new Set(at.flatMap((p) => Object.keys(p.methods) as Subject[]))) {
      const stats = at.map((p) => p.methods[subject]).filter((s): s is PeriodStats => s !== undefined);
      const rps = stats.reduce((a, s) => a + s.rps, 0);
      const highest = (key: 'p50' | 'p95' | 'p99') => {
        const values = stats.map((s) => s[key]).filter((v): v is number => v !== undefined);
        return values.length ? { [key]: Math.max(...values) } : {};
      };
      point.methods[subject] = {
        rps: round(rps, 2),
        failureRate: rps ? round(stats.reduce((a, s) => a + s.failureRate * s.rps, 0) / rps, 4) : 0,
        ...highest('p50'),
        ...highest('p95'),
        ...highest('p99'),
      };
    }
    points.push(point);
  }
  const codes: Timeline['codes'] = {};
  for (const t of timelines) {
    for (const [subject, byClass] of Object.entries(t.codes) as Array<[Subject, Record<string, Record<string, number>>]>) {
      for (const [cls, byCode] of Object.entries(byClass)) {
        for (const [code, n] of Object.entries(byCode)) {
          const into = ((codes[subject] ??= {})[cls] ??= {});
          into[code] = (into[code] ?? 0) + n;
        }
      }
    }
  }
  const starts = timelines.map((t) => t.startMs).filter((v): v is number => v !== undefined);
  return { ...(starts.length ? { startMs: Math.min(...starts) } : {}), points, codes, ...mergeCounts(timelines, length) };
}

/** The instances' counts of each period added up, when every instance kept them. */
function mergeCounts(timelines: readonly Timeline[], length: number): Pick<Timeline, 'counts'> {
  if (timelines.some((t) => !t.counts)) return {};
  const counts: NonNullable<Timeline['counts']> = [];
  for (let i = 0; i < length; i++) {
    const into: Partial<Record<Subject, PeriodCounts>> = {};
    for (const period of timelines.map((t) => t.counts?.[i] ?? {})) {
      for (const [subject, c] of Object.entries(period) as Array<[Subject, PeriodCounts]>) {
        const sum = (into[subject] ??= { requests: 0, successes: 0, buckets: {} });
        sum.requests += c.requests;
        sum.successes += c.successes;
        for (const [b, n] of Object.entries(c.buckets)) sum.buckets[b] = (sum.buckets[b] ?? 0) + n;
      }
    }
    counts.push(into);
  }
  return { counts };
}

/** Adds to each period the rate the plan asked for (at the period's middle), for achieved vs target. */
export function withTargets(points: TimelinePoint[], scenarios: readonly ScenarioPlan[]): TimelinePoint[] {
  return points.map((p, i) => ({
    ...p,
    methods: Object.fromEntries(
      Object.entries(p.methods).map(([name, stats]) => {
        const scenario = scenarios.find((s) => s.name === name);
        const from = points[i - 1]?.t ?? 0;
        return [name, scenario ? { ...stats, targetRps: round(targetRpsAt(scenario, (from + p.t) / 2), 2) } : stats];
      }),
    ),
  }));
}
