// The plan's thresholds judged on the merged result of every instance. k6 judges each instance on its own
// share of the test, which says nothing about the whole (a p95 of p95s is no p95), so k6 is given none. Pure.
import { metricName, type Subject } from '../shared/answer-classes.ts';
import { DROPPED } from '../shared/profiles.ts';
import { failureRate, type Merged, percentileOf } from '../shared/shard.ts';
import { round } from '../shared/summary.ts';
import type { ThresholdResult } from '../shared/load-report.ts';

const COMPARE: Record<string, (a: number, b: number) => boolean> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

export function judgeThresholds(thresholds: Record<string, string[]>, merged: Merged): ThresholdResult[] {
  const out: ThresholdResult[] = [];
  for (const [metric, expressions] of Object.entries(thresholds).sort(([a], [b]) => a.localeCompare(b))) {
    for (const expression of expressions) {
      const m = /^\s*([a-z]+(?:\((\d+(?:\.\d+)?)\))?)\s*(<=|>=|==|!=|<|>)\s*(-?[\d.]+)\s*$/.exec(expression);
      const value = m?.[1] === undefined ? undefined : statistic(merged, metric, m[1]);
      const compare = COMPARE[m?.[3] ?? ''];
      if (value === undefined || !compare) throw new Error(`threshold ${metric} ${expression}: not a statistic this harness measures`);
      // A latency of no successful answer is not a latency within the limit.
      out.push(value === null ? { metric, expression, ok: false } : { metric, expression, ok: compare(value, Number(m?.[4])), value: round(value) });
    }
  }
  return out;
}

/** A statistic of a metric the plan thresholds: latency_<s> p(x)/avg/max (null without a successful answer), failed_<s> rate, dropped_iterations count. */
function statistic(merged: Merged, metric: string, stat: string): number | null | undefined {
  if (metric === DROPPED && stat === 'count') return Object.values(merged.subjects).reduce((a, s) => a + s.dropped, 0);
  for (const [name, s] of Object.entries(merged.subjects)) {
    if (metric === metricName.latency(name as Subject)) {
      if (s.latency.count === 0) return null;
      const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(stat)?.[1];
      if (p !== undefined) return percentileOf(s, Number(p) / 100);
      if (stat === 'avg') return s.latency.sum / s.latency.count;
      if (stat === 'max') return s.latency.max;
    }
    if (metric === metricName.failed(name as Subject) && stat === 'rate') return failureRate(s.classes);
  }
  return undefined;
}
