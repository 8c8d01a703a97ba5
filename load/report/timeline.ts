// Latency and throughput over time, from the event file k6's web dashboard records
// (K6_WEB_DASHBOARD_RECORD). The dashboard already aggregates per period inside k6, which costs far
// less than k6's per-request JSON or CSV output (measured here: -37% and -16% throughput, 40+ MB per
// 8 s). Each "snapshot" event holds one period: one array per metric, in the sorted order of every
// metric name announced so far, each array holding that metric type's aggregates. Pure.
import { bucketQuantile } from '../shared/histogram.ts';
import { freshPeriodOf, type FreshMethod, type FreshPeriod, mergeFreshPeriods } from '../shared/freshness.ts';
import { CLASSES, metricName, type Subject } from '../shared/methods.ts';
import { requestsOf } from '../shared/shard.ts';
import { type ScenarioPlan, targetRpsAt } from '../shared/profiles.ts';
import { round, subjectCounts } from '../shared/summary.ts';
import type { PeriodStats, Timeline, TimelinePoint } from '../shared/measurement.ts';

interface RecordEvent {
  event: string;
  data: unknown;
}

/**
 * `testStartMs`: when k6 started the test (epoch ms, load/run/k6.ts), the origin of the points' t. The dashboard's own
 * start event comes before k6 runs the VUs' init code (seconds with a big corpus): periods before the test are dropped,
 * and the first one's rate counts only its time since the test start. Without it, the dashboard's start is the origin.
 */
export function parseTimeline(lines: string[], methods: readonly Subject[], testStartMs?: number): Timeline {
  const names = new Set<string>();
  let aggregates: Record<string, string[]> = {};
  let sorted: string[] = [];
  let startMs: number | undefined;
  let lastCumulative: Map<string, number[]> | undefined;
  let previousMs: number | undefined;
  const points: TimelinePoint[] = [];

  for (const line of lines) {
    if (!line.trim()) continue;
    const e = JSON.parse(line) as RecordEvent;
    if (e.event === 'param') aggregates = (e.data as { aggregates?: Record<string, string[]> }).aggregates ?? {};
    else if (e.event === 'metric') {
      for (const name of Object.keys(e.data as object)) names.add(name);
      sorted = [...names].sort(); // Go's byte order, the same as JavaScript's for these ASCII names
    } else if (e.event === 'start' || e.event === 'snapshot' || e.event === 'cumulative') {
      const rows = e.data as number[][];
      if (!Array.isArray(rows) || rows.length !== sorted.length) continue; // not the layout this parser knows
      const byName = new Map(sorted.map((name, i) => [name, rows[i] ?? []]));
      const timeMs = byName.get('time')?.[0];
      if (e.event === 'start') startMs = previousMs = timeMs;
      else if (e.event === 'cumulative') lastCumulative = byName;
      else if (timeMs !== undefined && startMs !== undefined && previousMs !== undefined && timeMs > previousMs) {
        const origin = testStartMs ?? startMs;
        const from = Math.max(previousMs, origin);
        // Periods are not exactly periodSec long (flushes jitter): rates use the real interval. A period before any answer
        // was recorded (a slow first flush) is left out: the points keep their time from the start, so the gap shows.
        if (timeMs > from) {
          const point = periodPoint(byName, (timeMs - origin) / 1000, (timeMs - from) / 1000, methods, aggregates);
          if (points.length || recorded(point)) points.push(point);
        }
        else {
          // A period that ended before the test started, while k6 ran the VUs' init code: nothing sent, unless the start was seen late.
          const early = periodPoint(byName, 0, (timeMs - previousMs) / 1000, methods, aggregates);
          if (recorded(early)) points.push(early);
        }
        previousMs = timeMs;
      }
    }
  }
  const origin = testStartMs ?? startMs;
  return { ...(origin === undefined ? {} : { startMs: origin }), points, codes: lastCumulative ? errorCodes(lastCumulative, methods) : {} };
}

/** A period in which something was recorded: a method's answers or the head-chasing scenario's reads. */
const recorded = (p: TimelinePoint): boolean => Object.keys(p.methods).length > 0 || p.fresh !== undefined;

function periodPoint(byName: Map<string, number[]>, t: number, seconds: number, methods: readonly Subject[], aggregates: Record<string, string[]>): TimelinePoint {
  const stat = (name: string, type: string, key: string): number | undefined => {
    const i = (aggregates[type] ?? []).indexOf(key);
    return i < 0 ? undefined : byName.get(name)?.[i];
  };
  const point: TimelinePoint = { t: round(t, 1), methods: {} };
  for (const m of methods) {
    // The dashboard splits the histogram's counters by bucket (its tag b): the period's own histogram.
    const { classes, buckets, successes } = subjectCounts((name, key) => stat(name, 'counter', key) ?? 0, m);
    const requests = requestsOf(classes);
    if (requests === 0) continue;
    const p = (q: number) => round(bucketQuantile(buckets, successes, q), 3);
    point.methods[m] = {
      rps: round(requests / seconds, 2),
      failureRate: round((requests - successes) / requests, 4),
      ...(successes > 0 ? { p50: p(0.5), p95: p(0.95), p99: p(0.99) } : {}),
    };
  }
  // The head-chasing scenario's counters, split by method (tag m) and bucket (tag b) the same way.
  const fresh = freshPeriodOf((name, key) => stat(name, 'counter', key) ?? 0);
  if (Object.keys(fresh).length) point.fresh = fresh;
  return point;
}

/** Sub-metrics like `calls_rpc_error_eth_estimateGas{code:-32000}`: the dashboard splits counters by the `code` tag. */
function errorCodes(cumulative: Map<string, number[]>, methods: readonly Subject[]): Timeline['codes'] {
  const out: Timeline['codes'] = {};
  for (const m of methods) {
    for (const c of CLASSES) {
      const prefix = `${metricName.calls(m, c)}{code:`;
      for (const [name, values] of cumulative) {
        if (!name.startsWith(prefix)) continue;
        ((out[m] ??= {})[c] ??= {})[name.slice(prefix.length, -1)] = values[0] ?? 0;
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
  return { ...(starts.length ? { startMs: Math.min(...starts) } : {}), points, codes };
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
