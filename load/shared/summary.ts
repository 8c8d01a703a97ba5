// Turns k6's end-of-test data into this instance's shard (shard.ts): class counts, dropped iterations,
// validated answers, the head sampler's findings and the latency histogram, whose buckets k6 counts as
// sub-metrics of tagged Counters. Pure: runs inside k6, in the scenario's handleSummary (k6-operator pods), and in
// Node on what k6's OpenTelemetry output exported (load/run/otlp.ts); the timeline reads each period the same way
// (subjectCounts).
import { BUCKETS, bucketValue, groupOf } from './histogram.ts';
import { CLASSES, metricName, type RpcClass, SUCCESS_CLASSES, type Subject } from './answer-classes.ts';
import { BOOKKEEPING, type Plan } from './profiles.ts';
import type { DepthShard, Shard } from './shard.ts';
import { STRATA } from '../../core/history.ts';
import { freshnessOf } from './freshness.ts';
import type { Recognition } from './recognition.ts';

export interface K6Metric {
  type: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface K6Summary {
  metrics: Record<string, K6Metric>;
  state?: { testRunDurationMs?: number };
}

/** The sub-metric k6 counts the samples of one histogram bucket in (of one depth stratum's hits: their samples' tag `d`). */
export const bucketMetric = (s: Subject, bucket: number, depth?: string) => `${metricName.histogram(s, groupOf(bucket))}{b:${bucket}${depth ? `,d:${depth}` : ''}}`;

/** A metric's statistic as k6 shows it, 0 when absent. */
export type MetricReader = (metric: string, stat: string) => number;

export interface SubjectCounts {
  classes: Record<RpcClass, number>;
  /** Bucket index -> successful answers in it (histogram.ts), empty buckets left out. */
  buckets: Record<string, number>;
  /** Successful answers: the buckets' total. */
  successes: number;
}

/** One subject's class counts and latency buckets from k6's metrics (the end-of-test summary, the OpenTelemetry export, a timeline
 * period). k6 counts no `ok`: every successful answer has its one histogram sample, so `ok` is their count less the other successes. */
export function subjectCounts(read: MetricReader, s: Subject, depth?: string): SubjectCounts {
  const buckets: Record<string, number> = {};
  let successes = 0;
  for (let b = 0; b < BUCKETS; b++) {
    const n = read(bucketMetric(s, b, depth), 'count');
    if (n > 0) {
      buckets[b] = n;
      successes += n;
    }
  }
  const classes = Object.fromEntries(CLASSES.map((c) => [c, c === 'ok' ? 0 : read(`${metricName.calls(s, c)}${depth ? `{d:${depth}}` : ''}`, 'count')])) as Record<RpcClass, number>;
  classes.ok = successes - SUCCESS_CLASSES.reduce((a, c) => a + classes[c], 0);
  return { classes, buckets, successes };
}

/** Set by a local run (load/run/instances.ts), which reads k6's metrics from its OpenTelemetry export: the script then
 * builds none of the thresholds that only serve the end-of-test summary (histogramThresholds). */
export const METRICS_ENV = 'RPC_CERTIFY_METRICS';
export const METRICS_VIA_OTLP = 'otlp';

/** Bookkeeping thresholds that make k6 count every histogram bucket (k6 reports only sub-metrics with one). */
export function histogramThresholds(subjects: readonly Subject[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of subjects) for (let b = 0; b < BUCKETS; b++) out[bucketMetric(s, b)] = [BOOKKEEPING];
  return out;
}

/** The shard from k6's end-of-test summary (handleSummary: k6-operator pods, which keep k6's summary). */
export function shardOf(summary: K6Summary, plan: Plan, planDigest: string, segment: string | null, recognition: Recognition): Shard {
  return shardFrom((metric, stat) => summary.metrics[metric]?.values[stat] ?? 0, summary.state?.testRunDurationMs ?? 0, plan, planDigest, segment, recognition);
}

/** The shard from any reader of k6's metrics by name (the summary's, or the OpenTelemetry export's: load/run/otlp.ts). */
export function shardFrom(value: MetricReader, durationMs: number, plan: Plan, planDigest: string, segment: string | null, recognition: Recognition): Shard {
  const subjects: Shard['subjects'] = {};
  for (const { name } of plan.scenarios) {
    const { classes, buckets, successes } = subjectCounts(value, name);
    const bounds = metricName.bounds(name);
    subjects[name] = {
      classes,
      dropped: value(`dropped_iterations{scenario:${name}}`, 'count'),
      validated: value(metricName.validated(name), 'count'),
      parsed: value(metricName.parsed(name), 'count'),
      // The sum is the buckets' (within 1%, as the percentiles); min and max are exact.
      latency: { count: successes, sum: sumOf(buckets), min: value(bounds, 'min'), max: value(bounds, 'max'), buckets },
      ...((depth) => (depth ? { depth } : {}))(depthCounts(value, name)),
    };
  }
  return {
    kind: 'rpc-certify-load-shard',
    version: 1,
    plan: planDigest,
    segment: segment ?? '0:1',
    durationMs,
    subjects,
    head: {
      checks: value(metricName.headChecks, 'count'),
      regressions: value(metricName.headRegressions, 'count'),
      deepest: value(metricName.headRegressionDepth, 'max'),
    },
    ...(plan.fresh ? { freshness: freshnessOf(value) } : {}),
    recognition,
    ...(recognition === 'go' ? { inGo: value(metricName.inGo, 'count') } : {}),
    scriptErrors: value(metricName.scriptErrors, 'count'),
  };
}

const sumOf = (buckets: Record<string, number>) => Object.entries(buckets).reduce((a, [b, n]) => a + n * bucketValue(Number(b)), 0);

/** A subject's hits per depth stratum (their samples' tag `d`), strata no hit of it read left out; undefined for none. The
 * extremes are the buckets' (within 1%): k6's min/max Trend is not tagged. */
function depthCounts(read: MetricReader, s: Subject): Record<string, DepthShard> | undefined {
  const out: Record<string, DepthShard> = {};
  for (const d of STRATA) {
    const { classes, buckets, successes } = subjectCounts(read, s, d);
    if (Object.values(classes).every((n) => n === 0) && successes === 0) continue;
    const held = Object.keys(buckets).map(Number);
    out[d] = { classes, latency: { count: successes, sum: sumOf(buckets), min: held.length ? bucketValue(Math.min(...held)) : 0, max: held.length ? bucketValue(Math.max(...held)) : 0, buckets } };
  }
  return Object.keys(out).length ? out : undefined;
}

export function round(n: number | undefined, digits = 3): number {
  const f = 10 ** digits;
  return Math.round((n ?? 0) * f) / f;
}
