// The regression gate: a method regresses when its p95 or p99 grows beyond a tolerance over the
// baseline's, or its failure rate rises beyond it. Used by `load --baseline` and offline by `compare`. Pure.
import type { LoadReport } from './report.ts';
import { round } from './summary.ts';

export interface RegressionCheck {
  method: string;
  metric: 'p95' | 'p99' | 'failureRate';
  baseline: number;
  current: number;
  /** The largest current value that passes. */
  limit: number;
  ok: boolean;
}

export const DEFAULT_TOLERANCE = 0.25;
/** Latency differences under this are loopback noise, not regressions. */
const LATENCY_FLOOR_MS = 2;
/** The smallest failure-rate rise that counts (half a percent). */
const FAILURE_FLOOR = 0.005;

export function compareReports(baseline: LoadReport, current: LoadReport, tolerance = DEFAULT_TOLERANCE): RegressionCheck[] {
  const checks: RegressionCheck[] = [];
  for (const [method, cur] of Object.entries(current.methods)) {
    const base = baseline.methods[method];
    if (!base) continue;
    for (const metric of ['p95', 'p99'] as const) {
      const b = base.latencyMs?.[metric];
      const c = cur.latencyMs?.[metric];
      if (b === undefined || c === undefined) continue;
      const limit = round(Math.max(b * (1 + tolerance), b + LATENCY_FLOOR_MS));
      checks.push({ method, metric, baseline: b, current: c, limit, ok: c <= limit });
    }
    const limit = round(base.failureRate + Math.max(FAILURE_FLOOR, base.failureRate * tolerance), 4);
    checks.push({ method, metric: 'failureRate', baseline: base.failureRate, current: cur.failureRate, limit, ok: cur.failureRate <= limit });
  }
  return checks;
}

export function describeCheck(c: RegressionCheck): string {
  const unit = c.metric === 'failureRate' ? '' : ' ms';
  return `${c.method} ${c.metric}: ${c.current}${unit} (baseline ${c.baseline}${unit}, limit ${c.limit}${unit})`;
}
