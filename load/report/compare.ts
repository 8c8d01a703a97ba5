// The regression gate: for each method, the ratio of its p95 and p99 to the baseline's and the rise of its failure
// rate, each as an interval (intervals.ts) that counts the sampling error of both runs, how much each run wandered
// within itself, and how much the baseline's runs differed from each other. A comparison regressed when its interval
// lies above the tolerance, held when it lies below, and is named unclear or unjudgeable otherwise. Used by
// `load --baseline` and offline by `compare`. Pure.
import { mergeHistograms, quantile } from '../shared/histogram.ts';
import { round } from '../shared/summary.ts';
import type { GateOutcome, GateSample, LoadReport, MethodReport, RegressionCheck } from '../shared/load-report.ts';
import { CONFIDENCE, logStandardError, normalQuantile, percentileBounds, percentileInterval, wilson } from './intervals.ts';

/** The smallest slowdown that is a regression: 15% (why: docs/load.md, "How the gate decides"). */
export const DEFAULT_TOLERANCE = 0.15;
/** False alarms a run may raise, over all its comparisons together (Bonferroni: each is tested at FAMILY_ALPHA / m). */
export const FAMILY_ALPHA = 0.05;
/** A comparison holds when its interval's upper bound, at this one-sided level, is within the tolerance: a regression
 * the size of the tolerance passes a comparison at most 1 time in 20. */
export const HELD_ALPHA = 0.05;
/** Baselines of fewer than 5 runs see their spread between runs through few samples: it is multiplied by this. */
export const SPREAD_WIDENING: Readonly<Record<number, number>> = { 2: 3, 3: 2, 4: 1.5 };
/** Latency differences under this are loopback noise, not regressions. */
const LATENCY_FLOOR_MS = 2;
/** The smallest failure-rate rise that counts (half a percent). */
const FAILURE_FLOOR = 0.005;
const PERCENTILES = { p95: 0.95, p99: 0.99 } as const;

/** The runs a comparison rests on: one report, or a baseline of several (baseline add). */
export interface BaselineRuns {
  file: string;
  runs: LoadReport[];
}

export function compareReports(baseline: BaselineRuns, current: LoadReport, tolerance = DEFAULT_TOLERANCE): RegressionCheck[] {
  const pairs = Object.entries(current.methods).flatMap(([method, cur]) => {
    const base = baseline.runs.map((r) => r.methods[method]).filter((m): m is MethodReport => m !== undefined);
    return base.length === baseline.runs.length ? [{ method, cur, base }] : [];
  });
  // Bonferroni over every comparison the run makes: a regression may be declared in any of them.
  const m = pairs.length * 3;
  const zFamily = normalQuantile(1 - FAMILY_ALPHA / Math.max(1, m));
  const zHeld = normalQuantile(1 - HELD_ALPHA);
  const checks: RegressionCheck[] = [];
  for (const { method, cur, base } of pairs) {
    for (const metric of ['p95', 'p99'] as const) {
      const b = pooledPercentile(base, metric);
      const c = cur.latencyMs?.[metric];
      if (b === undefined || c === undefined) {
        // Nothing to compare is said, never skipped: the method then has no held percentile, and is inconclusive.
        const why = c === undefined ? 'this run has no successful answer to time' : "the baseline's runs have no successful answer to time, or one lacks its histogram";
        checks.push({ method, metric, baseline: b ?? 0, current: c ?? 0, limit: round(1 + tolerance, 4), ok: true, judgement: 'unjudgeable', why });
        continue;
      }
      checks.push(latencyCheck(method, metric, base, cur, b, c, tolerance, m, zFamily, zHeld));
    }
    checks.push(failureCheck(method, base, cur, tolerance, zFamily, zHeld));
  }
  return checks;
}

/** A baseline's percentile: its runs' histograms added up (one run: its own figure). */
function pooledPercentile(runs: readonly MethodReport[], metric: keyof typeof PERCENTILES): number | undefined {
  if (runs.length === 1) return runs[0]?.latencyMs?.[metric];
  const samples = runs.map((r) => r.gate);
  if (samples.some((s) => s === undefined)) return undefined;
  const pooled = mergeHistograms(samples.map((s) => (s as GateSample).histogram));
  return pooled.count ? round(quantile(pooled, PERCENTILES[metric]), 3) : undefined;
}

/** ln(percentile)'s standard error in one sample, or why there is none. */
function sampleError(s: GateSample | undefined, metric: keyof typeof PERCENTILES): number | string {
  if (!s) return 'no histogram (a report written before the gate kept one): run it again';
  const se = logStandardError(percentileInterval(s.histogram, PERCENTILES[metric], s.designEffect[metric]));
  return se ?? `too few answers above ${metric} to bound it (${s.histogram.count} successes, ${round(s.designEffect[metric], 2)}x their variance as independent samples)`;
}

/** The baseline's variance of ln(percentile): its pooled sampling error, and the spread between its runs beyond that. */
function baselineVariance(runs: readonly MethodReport[], metric: keyof typeof PERCENTILES): { sampling: number; drift: number } | string {
  const samples = runs.map((r) => r.gate);
  const errors = samples.map((s) => sampleError(s, metric));
  const failed = errors.find((e): e is string => typeof e === 'string');
  if (failed) return `the baseline's: ${failed}`;
  const se = errors as number[];
  if (runs.length === 1) return { sampling: (se[0] ?? 0) ** 2, drift: 0 };
  // The pooled histogram's error: the runs' errors as if one sample of all their answers.
  const pooled = 1 / se.reduce((a, e) => a + 1 / (e * e), 0);
  const figures = runs.map((r) => r.latencyMs?.[metric] ?? 0);
  if (figures.some((v) => !(v > 0))) return `the baseline's: a run with no ${metric} of this method (no successful answer)`;
  const logs = figures.map(Math.log);
  const mean = logs.reduce((a, v) => a + v, 0) / logs.length;
  const spread = logs.reduce((a, v) => a + (v - mean) ** 2, 0) / (logs.length - 1);
  const withinRuns = se.reduce((a, e) => a + e * e, 0) / se.length;
  const widen = SPREAD_WIDENING[runs.length] ?? 1;
  // The current run drifts from the baseline's runs as they drift from each other; their mean itself carries 1/k of it.
  const drift = Math.max(0, spread - withinRuns) * widen * widen * (1 + 1 / runs.length);
  return { sampling: pooled, drift };
}

function latencyCheck(method: string, metric: keyof typeof PERCENTILES, base: readonly MethodReport[], cur: MethodReport, b: number, c: number, tolerance: number, m: number, zFamily: number, zHeld: number): RegressionCheck {
  // The limit on the ratio: the tolerance, or the loopback floor where that is larger.
  const limit = round(Math.max(1 + tolerance, (b + LATENCY_FLOOR_MS) / b), 4);
  const common = { method, metric, baseline: b, current: c, limit, ratio: round(c / b, 4) };
  const current = sampleError(cur.gate, metric);
  const baseline = baselineVariance(base, metric);
  const missing = typeof current === 'string' ? `this run's: ${current}` : typeof baseline === 'string' ? baseline : undefined;
  if (missing !== undefined || typeof current === 'string' || typeof baseline === 'string') {
    // No two-sided interval; a slowdown too large for any doubt is still one: this run's lower bound over the baseline's upper.
    const floor = oneSidedRatio(base, cur, metric, m, zFamily);
    if (floor !== undefined && floor > limit) return { ...common, ok: false, judgement: 'regressed', interval: [round(floor, 4), null], why: `one-sided: ${missing ?? ''}` };
    // What it would take: runs whose percentile has an upper bound at all, by the design effect of the run that lacked one.
    const lacking = typeof current === 'string' ? [cur] : base;
    return { ...common, ok: true, judgement: 'unjudgeable', why: missing ?? '', ...needed(lacking, metric) };
  }
  const se = Math.sqrt(current ** 2 + baseline.sampling + baseline.drift);
  const r = Math.log(c / b);
  const low = Math.exp(r - zFamily * se);
  const high = Math.exp(r + zHeld * se);
  const interval: [number, number] = [round(low, 4), round(high, 4)];
  if (low > limit) return { ...common, ok: false, judgement: 'regressed', interval };
  const reach = Math.log(limit) / zHeld;
  if (se > reach) {
    const samplingShare = current ** 2 + baseline.sampling;
    const room = reach ** 2 - baseline.drift;
    const why = room <= 0
      ? `the baseline's runs differ by more than the tolerance: no run of this size can tell a ${round(tolerance * 100, 1)}% change from none against it`
      : `the ratio's interval (${interval[0]}-${interval[1]}) is wider than the tolerance: too few answers to tell whether it grew by ${round(tolerance * 100, 1)}%`;
    const requests = room > 0 ? Math.ceil((cur.requests * samplingShare) / room) : undefined;
    return { ...common, ok: true, judgement: 'unjudgeable', interval, why, ...(requests ? { needRequests: requests } : {}) };
  }
  return { ...common, ok: true, judgement: high <= limit ? 'held' : 'unclear', interval };
}

/**
 * The least the ratio can be, at the family's level, from bounds alone: this run's lower bound over the baseline's
 * upper (each at half the level), the latter stretched by the spread between the baseline's runs (their sample
 * deviation, sampling error and all, widened as in baselineVariance). Undefined where either bound is missing.
 */
function oneSidedRatio(base: readonly MethodReport[], cur: MethodReport, metric: keyof typeof PERCENTILES, m: number, zFamily: number): number | undefined {
  const q = PERCENTILES[metric];
  // Each bound errs on its side at most half the comparison's share of the family's alpha: their ratio, at most all of it.
  const confidence = 1 - FAMILY_ALPHA / m;
  const samples = base.map((r) => r.gate);
  if (!cur.gate || samples.some((s) => s === undefined)) return undefined;
  const pooled = mergeHistograms(samples.map((s) => (s as GateSample).histogram));
  const deff = Math.max(...samples.map((s) => (s as GateSample).designEffect[metric]));
  const low = percentileBounds(cur.gate.histogram, q, cur.gate.designEffect[metric], confidence).low;
  const high = percentileBounds(pooled, q, deff, confidence).high;
  if (low === undefined || high === undefined || !(high > 0)) return undefined;
  const logs = base.map((r) => Math.log(r.latencyMs?.[metric] ?? 0)).filter(Number.isFinite);
  const mean = logs.reduce((a, v) => a + v, 0) / (logs.length || 1);
  const sd = logs.length > 1 ? Math.sqrt(logs.reduce((a, v) => a + (v - mean) ** 2, 0) / (logs.length - 1)) : 0;
  const widen = SPREAD_WIDENING[base.length] ?? 1;
  return low / (high * Math.exp(zFamily * sd * widen * Math.sqrt(1 + 1 / base.length)));
}

/** The requests a run needs before its percentile has an upper bound at all: n(1-q) − z√(q(1-q)·deff·n) ≥ 1, with the
 * largest design effect among `runs`; none where a run has no histogram (no run of any size mends that one). */
function needed(runs: readonly MethodReport[], metric: keyof typeof PERCENTILES): { needRequests?: number } {
  const samples = runs.map((r) => r.gate);
  if (samples.some((s) => s === undefined)) return {};
  const q = PERCENTILES[metric];
  const deff = Math.max(1, ...samples.map((s) => s?.designEffect[metric] ?? 1));
  const b = normalQuantile(1 - (1 - CONFIDENCE) / 2) * Math.sqrt(q * (1 - q) * deff);
  const root = (b + Math.sqrt(b * b + 4 * (1 - q))) / (2 * (1 - q));
  return { needRequests: Math.ceil(root * root) };
}

function failureCheck(method: string, base: readonly MethodReport[], cur: MethodReport, tolerance: number, zFamily: number, zHeld: number): RegressionCheck {
  // The baseline's runs pooled: their failures over their requests.
  const baseRequests = base.reduce((a, r) => a + r.requests, 0);
  const baseFailures = base.reduce((a, r) => a + Math.round(r.failureRate * r.requests), 0);
  const pb = baseRequests ? baseFailures / baseRequests : 0;
  const margin = Math.max(FAILURE_FLOOR, pb * tolerance);
  const limit = round(pb + margin, 4);
  const common = { method, metric: 'failureRate' as const, baseline: round(pb, 4), current: cur.failureRate, limit };
  const deff = (r: MethodReport) => r.gate?.designEffect.failureRate ?? 1;
  const curN = cur.requests / deff(cur);
  const baseN = base.reduce((a, r) => a + r.requests / deff(r), 0);
  const pc = cur.failureRate;
  // Newcombe's interval for a difference of shares, from each share's Wilson interval on its effective sample.
  const bound = (z: number, side: 'low' | 'high'): number => {
    const [cl, ch] = wilson(pc * curN, curN, z);
    const [bl, bh] = wilson(pb * baseN, baseN, z);
    return side === 'low' ? pc - pb - Math.hypot(pc - cl, bh - pb) : pc - pb + Math.hypot(ch - pc, pb - bl);
  };
  const low = bound(zFamily, 'low');
  const high = bound(zHeld, 'high');
  const interval: [number, number] = [round(low, 4), round(high, 4)];
  if (low > margin) return { ...common, ok: false, judgement: 'regressed', interval };
  if (high <= margin) return { ...common, ok: true, judgement: 'held', interval };
  // Could a run of this size, on an endpoint failing as often as the baseline, show a rise within the margin at all?
  const reach = (n: number) => {
    const [, up] = wilson(pb * n, n, zHeld);
    const [down] = wilson(pb * n, n, zHeld);
    return Math.hypot(up - pb, pb - down);
  };
  if (reach(Math.min(curN, baseN)) > margin) {
    // The effective sample (in both runs) at which it could, found by doubling then bisection; as requests of this run.
    let hi = Math.max(1, curN);
    while (reach(hi) > margin && hi < 1e9) hi *= 2;
    let lo = hi / 2;
    while (hi - lo > 1) {
      const mid = (lo + hi) / 2;
      if (reach(mid) > margin) lo = mid;
      else hi = mid;
    }
    return { ...common, ok: true, judgement: 'unjudgeable', interval, why: `too few requests to tell a failure rate ${round(margin * 100, 2)} points higher than the baseline's from none`, needRequests: Math.ceil(hi * deff(cur)) };
  }
  return { ...common, ok: true, judgement: 'unclear', interval };
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
  if (c.metric === 'failureRate') {
    const interval = c.interval ? `, rise ${c.interval[0]} to ${c.interval[1]}` : '';
    return `${c.method} failureRate: ${c.current} (baseline ${c.baseline}${interval}, limit ${c.limit})${because(c)}`;
  }
  const ratio = c.ratio === undefined ? '' : `, ratio ${c.ratio}${c.interval ? ` in ${c.interval[0]}-${c.interval[1] ?? '∞'}` : ''}`;
  return `${c.method} ${c.metric}: ${c.current} ms (baseline ${c.baseline} ms${ratio}, limit x${c.limit})${because(c)}`;
}

function because(c: RegressionCheck): string {
  if (c.judgement !== 'unjudgeable') return '';
  return `: not judged, ${c.why ?? 'no interval'}${needs(c)}`;
}

/** What a comparison would take: more requests (at least, when the percentile has no bound yet; about, when it has). */
function needs(c: RegressionCheck): string {
  return c.needRequests ? `; needs ${c.interval ? 'about' : 'at least'} ${c.needRequests} requests` : '';
}

/** One comparison in a few words: "p95 x1.04 in 0.93-1.11 held", "p99 unjudgeable (needs at least 955 requests)". */
export function briefCheck(c: RegressionCheck): string {
  const what = c.metric === 'failureRate' ? `failure rate ${c.current} (baseline ${c.baseline})` : `${c.metric} x${c.ratio ?? round(c.current / c.baseline, 4)}${c.interval ? ` in ${c.interval[0]}-${c.interval[1] ?? '∞'}` : ''}`;
  const more = c.judgement === 'unjudgeable' ? (c.needRequests ? ` (${needs(c).slice(2)})` : c.why ? ` (${c.why})` : '') : '';
  return `${what} ${c.judgement ?? (c.ok ? 'ok' : 'regressed')}${more}`;
}

export function gateOutcome(checks: readonly RegressionCheck[]): GateOutcome {
  const methods: GateOutcome['methods'] = {};
  for (const method of new Set(checks.map((c) => c.method))) {
    const of = checks.filter((c) => c.method === method);
    const latency = of.filter((c) => c.metric !== 'failureRate');
    const worse = of.filter(leansWorse);
    if (of.some((c) => c.judgement === 'regressed')) methods[method] = { verdict: 'regressed' };
    else if (worse.length) methods[method] = { verdict: 'inconclusive', why: `worse than the baseline, not shown within the tolerance: ${worse.map(briefCheck).join('; ')}` };
    else if (latency.some((c) => c.judgement === 'held')) methods[method] = { verdict: 'held' };
    else methods[method] = { verdict: 'inconclusive', why: `neither p95 nor p99 shown to hold (${latency.map(briefCheck).join('; ') || 'no latency to compare'})` };
  }
  const verdicts = Object.values(methods).map((m) => m.verdict);
  const verdict = verdicts.includes('regressed') ? 'regressed' : verdicts.length && verdicts.every((v) => v === 'held') ? 'held' : 'inconclusive';
  return { verdict, methods };
}

/**
 * A comparison neither held nor regressed that still shows the run got worse: its figure past the limit, and its
 * interval excluding no change (its lower bound, at the family's level, above a ratio of 1 or a rise of 0). A method
 * with one is inconclusive however its other figures held: a p95 that held says nothing of a p99 that grew by half.
 * (Either alone is not enough: a point past the limit inside an interval holding no change is noise in about half an
 * unchanged endpoint's runs, and a shared machine's drift between runs makes a few percent significant.)
 */
function leansWorse(c: RegressionCheck): boolean {
  if (c.judgement !== 'unclear' && c.judgement !== 'unjudgeable') return false;
  const low = c.interval?.[0];
  if (c.metric === 'failureRate') return low !== undefined && low > 0 && c.current > c.limit;
  return low !== undefined && low > 1 && (c.ratio ?? 0) > c.limit;
}
