// The regression gate: a method regresses when its p95 or p99 grows beyond a tolerance over the
// baseline's, or its failure rate rises beyond it. Used by `load --baseline` and offline by `compare`. Pure.
import { round } from '../shared/summary.ts';
import type { LoadReport, RegressionCheck } from '../shared/load-report.ts';

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

/** What makes two runs the same test: a regression means something only between runs of the same shape. */
export interface RunShape {
  profile: string;
  rate: number;
  durationSec: number;
  methods: string[];
  /** Redacted. */
  endpoint: string;
  chainId: string;
}

export function shapeOf(r: Pick<LoadReport, 'profile' | 'plan' | 'methods' | 'endpoint' | 'corpus'>): RunShape {
  return { profile: r.profile, rate: r.plan.rate, durationSec: r.plan.durationSec, methods: Object.keys(r.methods), endpoint: r.endpoint, chainId: r.corpus.chainId };
}

/** How two runs differ in what they tested; empty when a comparison of their figures is like for like. */
export function shapeDifferences(baseline: RunShape, current: RunShape): string[] {
  const out: string[] = [];
  const differ = (what: string, a: string | number, b: string | number, unit = '') => {
    if (a !== b) out.push(`${what} ${a}${unit} in the baseline, ${b}${unit} now`);
  };
  differ('profile', baseline.profile, current.profile);
  differ('rate', baseline.rate, current.rate, ' rps per method');
  differ('duration', baseline.durationSec, current.durationSec, ' s');
  const missing = baseline.methods.filter((m) => !current.methods.includes(m));
  const added = current.methods.filter((m) => !baseline.methods.includes(m));
  if (missing.length || added.length) out.push(`methods differ (${[...missing.map((m) => `${m} only in the baseline`), ...added.map((m) => `${m} only now`)].join(', ')})`);
  if (sameEndpoint(baseline.endpoint) !== sameEndpoint(current.endpoint)) out.push(`endpoint ${baseline.endpoint} in the baseline, ${current.endpoint} now`);
  differ('chain id', baseline.chainId, current.chainId);
  return out;
}

/** The name of the embedded default in load reports: its gateway listens on another free port each run, yet it is one endpoint. */
export { EMBEDDED_ENDPOINT } from '../../core/report-files.ts';

/** An endpoint is its scheme, host, port and path, as reports keep them: the key is redacted out of both sides. */
function sameEndpoint(endpoint: string): string {
  try {
    return new URL(endpoint).href;
  } catch {
    return endpoint;
  }
}

/** Why a report cannot take part in a regression verdict, if it cannot: a run stopped early measured only part of its test. */
export function incompleteness(r: Pick<LoadReport, 'verdict' | 'incompleteReason'>, which: string): string | undefined {
  return r.verdict === 'incomplete' ? `${which} is an incomplete run (${r.incompleteReason ?? 'stopped early'}): its figures cover only part of the test, so no regression verdict rests on it` : undefined;
}

export function describeCheck(c: RegressionCheck): string {
  const unit = c.metric === 'failureRate' ? '' : ' ms';
  return `${c.method} ${c.metric}: ${c.current}${unit} (baseline ${c.baseline}${unit}, limit ${c.limit}${unit})`;
}
