// Gate runs drawn from known latency distributions, judged by the gate itself (compare.ts): how often an unchanged
// endpoint is flagged (false alarms), passes, or stays inconclusive, and how often a slower one is caught. Each run
// is a load.json's methods as report.ts writes them (histogram, periods' design effects, p95/p99), from samples drawn
// second by second, so within-run bursts reach the intervals the same way a real run's slow seconds do.
import { bucketOf, emptyHistogram, type Histogram, quantile } from '../../load/shared/histogram.ts';
import { gateSample } from '../../load/report/intervals.ts';
import { compareReports, gateOutcome } from '../../load/report/compare.ts';
import type { LoadReport, MethodReport } from '../../load/shared/load-report.ts';
import type { PeriodCounts } from '../../load/shared/measurement.ts';

/** How an endpoint's latency behaves: independent draws, drift between runs, or bursts of slow seconds within a run. */
export interface Behaviour {
  name: string;
  /** ln-latency's standard deviation within a second (log-normal answers). */
  sigma: number;
  /** Each run's latency multiplied by exp(N(0, runDrift)): a shared machine, a provider whose day goes by. */
  runDrift: number;
  /** Share of seconds that are slow, and by how much (×). */
  burstShare: number;
  burstFactor: number;
  /** Share of answers that fail (not timed). */
  failureShare: number;
}

export const BEHAVIOURS: Behaviour[] = [
  { name: 'independent', sigma: 0.4, runDrift: 0, burstShare: 0, burstFactor: 1, failureShare: 0.001 },
  { name: 'drift between runs (5%)', sigma: 0.4, runDrift: 0.05, burstShare: 0, burstFactor: 1, failureShare: 0.001 },
  { name: 'bursts (1 s in 50 at 3x)', sigma: 0.4, runDrift: 0, burstShare: 0.02, burstFactor: 3, failureShare: 0.001 },
];

/** The eight methods' medians (ms): a provider over a network, cheap lookups to receipts of big blocks (above the 2 ms floor). */
const MEDIANS = [10, 12, 15, 20, 25, 30, 40, 60];

/** A seeded generator (mulberry32), so every figure can be drawn again. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}

/** One method of one run: `seconds` periods of `rate` answers each. */
function methodRun(random: () => number, b: Behaviour, median: number, shift: number, runFactor: number, rate: number, seconds: number): MethodReport {
  const histogram: Histogram = emptyHistogram();
  const periods: PeriodCounts[] = [];
  let failures = 0;
  for (let s = 0; s < seconds; s++) {
    const slow = random() < b.burstShare ? b.burstFactor : 1;
    const period: PeriodCounts = { requests: rate, successes: 0, buckets: {} };
    for (let i = 0; i < rate; i++) {
      if (random() < b.failureShare) {
        failures++;
        continue;
      }
      const ms = median * shift * runFactor * slow * Math.exp(b.sigma * normal(random));
      const bucket = String(bucketOf(ms));
      period.successes++;
      period.buckets[bucket] = (period.buckets[bucket] ?? 0) + 1;
      histogram.buckets[bucket] = (histogram.buckets[bucket] ?? 0) + 1;
      histogram.min = histogram.count === 0 ? ms : Math.min(histogram.min, ms);
      histogram.max = Math.max(histogram.max, ms);
      histogram.count++;
      histogram.sum += ms;
    }
    periods.push(period);
  }
  const requests = rate * seconds;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  const latency = { avg: 0, p50: r(quantile(histogram, 0.5)), p90: r(quantile(histogram, 0.9)), p95: r(quantile(histogram, 0.95)), p99: r(quantile(histogram, 0.99)), 'p99.9': r(quantile(histogram, 0.999)), max: r(histogram.max) };
  return {
    requests,
    targetRps: rate,
    achievedRps: rate,
    dropped: 0,
    latencyMs: latency,
    classes: {} as MethodReport['classes'],
    errorCodes: {},
    failureRate: Math.round((failures / requests) * 10000) / 10000,
    validated: 0,
    parsed: 0,
    gate: gateSample(histogram, periods),
  };
}

/** One run of every method: the fields of load.json the gate reads. */
export function drawRun(random: () => number, b: Behaviour, shift: number, rate: number, seconds: number): LoadReport {
  const runFactor = Math.exp(b.runDrift * normal(random));
  const methods = Object.fromEntries(MEDIANS.map((median, i) => [`m${i}`, methodRun(random, b, median, shift, runFactor, rate, seconds)]));
  return { methods } as unknown as LoadReport;
}

export interface Tally {
  trials: number;
  /** Runs with at least one comparison regressed. */
  regressed: number;
  held: number;
  inconclusive: number;
  /** Comparisons regressed per method, over trials (for power per method). */
  methodsRegressed: number;
  methods: number;
}

/** `trials` gates of a fresh baseline of `baselineRuns` runs and one current run slowed by `shift`. */
export function simulate(opts: { behaviour: Behaviour; shift: number; trials: number; baselineRuns: number; rate: number; seconds: number; seed: number; tolerance?: number }): Tally {
  const random = rng(opts.seed);
  const tally: Tally = { trials: opts.trials, regressed: 0, held: 0, inconclusive: 0, methodsRegressed: 0, methods: 0 };
  for (let t = 0; t < opts.trials; t++) {
    const runs = Array.from({ length: opts.baselineRuns }, () => drawRun(random, opts.behaviour, 1, opts.rate, opts.seconds));
    const current = drawRun(random, opts.behaviour, opts.shift, opts.rate, opts.seconds);
    const outcome = gateOutcome(compareReports({ file: 'sim', runs }, current, opts.tolerance));
    tally[outcome.verdict]++;
    for (const m of Object.values(outcome.methods)) {
      tally.methods++;
      if (m.verdict === 'regressed') tally.methodsRegressed++;
    }
  }
  return tally;
}
