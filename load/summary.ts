// Reads k6's end-of-test data (written by the scenario's handleSummary): per-method counts, classes,
// latency percentiles, and every threshold with the value it was judged on. Pure.
import { CLASSES, metricName, type RpcClass, SUCCESS_CLASSES, type Subject } from './methods.ts';
import { BOOKKEEPING } from './profiles.ts';

export interface K6Metric {
  type: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface K6Summary {
  metrics: Record<string, K6Metric>;
  state?: { testRunDurationMs?: number };
}

export interface Latency {
  avg: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export interface MethodCounts {
  requests: number;
  classes: Record<RpcClass, number>;
  /** Share of requests outside the success classes. */
  failureRate: number;
  /** Over the success classes; null when none succeeded. */
  latencyMs: Latency | null;
}

export interface ThresholdResult {
  metric: string;
  expression: string;
  ok: boolean;
  /** The statistic the expression tests, as k6 measured it. */
  value?: number;
}

export function methodCounts(summary: K6Summary, subject: Subject): MethodCounts {
  const classes = Object.fromEntries(CLASSES.map((c) => [c, summary.metrics[metricName.calls(subject, c)]?.values['count'] ?? 0])) as Record<RpcClass, number>;
  const requests = CLASSES.reduce((a, c) => a + classes[c], 0);
  const succeeded = SUCCESS_CLASSES.reduce((a, c) => a + classes[c], 0);
  const v = summary.metrics[metricName.latency(subject)]?.values;
  const latencyMs =
    v && (v['count'] ?? 0) > 0
      ? { avg: round(v['avg']), p50: round(v['med']), p90: round(v['p(90)']), p95: round(v['p(95)']), p99: round(v['p(99)']), max: round(v['max']) }
      : null;
  return { requests, classes, failureRate: requests === 0 ? 0 : (requests - succeeded) / requests, latencyMs };
}

/** Every threshold k6 judged, except the bookkeeping ones that only expose sub-metrics. */
export function thresholdResults(summary: K6Summary): ThresholdResult[] {
  const out: ThresholdResult[] = [];
  for (const [metric, m] of Object.entries(summary.metrics).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [expression, { ok }] of Object.entries(m.thresholds ?? {})) {
      if (expression === BOOKKEEPING) continue;
      const stat = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*[<>=!]/.exec(expression)?.[1];
      const value = stat === undefined ? undefined : m.values[stat === 'p(50)' ? 'med' : stat];
      out.push({ metric, expression, ok, ...(value === undefined ? {} : { value: round(value) }) });
    }
  }
  return out;
}

/** Iterations k6 could not start for lack of a free VU, per scenario (exposed by bookkeeping thresholds). */
export function droppedIterations(summary: K6Summary, scenario: string): number {
  return summary.metrics[`dropped_iterations{scenario:${scenario}}`]?.values['count'] ?? 0;
}

export function round(n: number | undefined, digits = 3): number {
  const f = 10 ** digits;
  return Math.round((n ?? 0) * f) / f;
}
