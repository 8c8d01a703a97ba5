// Turns k6's end-of-test data into this instance's shard (shard.ts): class counts, dropped iterations,
// validated answers, the head sampler's findings and the latency histogram, whose buckets k6 counts as
// sub-metrics of tagged Counters. Pure: runs inside k6, in the scenario's handleSummary.
import { BUCKETS, groupOf } from './histogram.ts';
import { CLASSES, metricName, type RpcClass, type Subject } from './methods.ts';
import { BOOKKEEPING, type Plan } from './profiles.ts';
import type { Percentile, Shard } from './shard.ts';

export interface K6Metric {
  type: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface K6Summary {
  metrics: Record<string, K6Metric>;
  state?: { testRunDurationMs?: number };
}

/** The sub-metric k6 counts the samples of one histogram bucket in. */
const bucketMetric = (s: Subject, bucket: number) => `${metricName.histogram(s, groupOf(bucket))}{b:${bucket}}`;

/** Bookkeeping thresholds that make k6 count every histogram bucket (k6 reports only sub-metrics with one). */
export function histogramThresholds(subjects: readonly Subject[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of subjects) for (let b = 0; b < BUCKETS; b++) out[bucketMetric(s, b)] = [BOOKKEEPING];
  return out;
}

export function shardOf(summary: K6Summary, plan: Plan, planDigest: string, segment: string | null): Shard {
  const value = (metric: string, stat: string) => summary.metrics[metric]?.values[stat] ?? 0;
  const subjects: Shard['subjects'] = {};
  for (const { name } of plan.scenarios) {
    const buckets: Record<string, number> = {};
    for (let b = 0; b < BUCKETS; b++) {
      const n = value(bucketMetric(name, b), 'count');
      if (n > 0) buckets[b] = n;
    }
    const latency = metricName.latency(name);
    const count = value(latency, 'count');
    subjects[name] = {
      classes: Object.fromEntries(CLASSES.map((c) => [c, value(metricName.calls(name, c), 'count')])) as Record<RpcClass, number>,
      dropped: value(`dropped_iterations{scenario:${name}}`, 'count'),
      validated: value(metricName.validated(name), 'count'),
      parsed: value(metricName.parsed(name), 'count'),
      latency: { count, sum: value(latency, 'avg') * count, min: value(latency, 'min'), max: value(latency, 'max'), buckets },
      ...(count > 0 ? { exact: exactPercentiles(summary.metrics[latency]?.values ?? {}) } : {}),
    };
  }
  return {
    kind: 'rpc-certify-load-shard',
    version: 1,
    plan: planDigest,
    segment: segment ?? '0:1',
    durationMs: summary.state?.testRunDurationMs ?? 0,
    subjects,
    head: {
      checks: value(metricName.headChecks, 'count'),
      regressions: value(metricName.headRegressions, 'count'),
      deepest: value(metricName.headRegressionDepth, 'max'),
    },
  };
}

/** The k6 Trend statistic behind each percentile of the report. */
const K6_STAT: Record<Percentile, string> = { p50: 'med', p90: 'p(90)', p95: 'p(95)', p99: 'p(99)', 'p99.9': 'p(99.9)' };

function exactPercentiles(values: Record<string, number>): Partial<Record<Percentile, number>> {
  return Object.fromEntries(Object.entries(K6_STAT).flatMap(([name, stat]) => (values[stat] === undefined ? [] : [[name, values[stat]]])));
}

export function round(n: number | undefined, digits = 3): number {
  const f = 10 ** digits;
  return Math.round((n ?? 0) * f) / f;
}
