// How precise a run's figures are: distribution-free intervals for a percentile, read from the latency histogram by
// order statistics (bucket edges, not middles), and a binomial interval for a share, both widened for a run whose
// samples are not independent (its periods differ more than independent samples would). Pure.
import { bucketAtRank, bucketOf, GROWTH, type Histogram, MIN_MS, quantile } from '../shared/histogram.ts';
import type { GateSample } from '../shared/load-report.ts';
import type { PeriodCounts } from '../shared/measurement.ts';

/** The confidence of the intervals printed beside p95 and p99 (two-sided). */
export const CONFIDENCE = 0.95;
/** Blocks a run's periods are grouped into to see how much its latency wanders (batch means): 10 s each at the gate's 120 s. */
export const BLOCKS = 12;
/** The design effect assumed where a run kept no periods to measure it (k6-operator pods): twice the independent-sample variance. */
export const ASSUMED_DESIGN_EFFECT = 2;

/** The standard normal's p-quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: ${p} is not in (0, 1)`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const poly = (k: number[], x: number) => k.reduce((acc, v) => acc * x + v, 0);
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(c, q) / (poly(d, q) * q + 1);
  }
  if (p > 1 - 0.02425) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(a, r) * q) / (poly(b, r) * r + 1);
}

/** One block of a run: its samples and how many of them were "in" (above a latency, or failed). */
export interface Block {
  n: number;
  x: number;
}

/**
 * How many times the variance of a share measured over the whole run exceeds what independent samples would give
 * (batch means): the share's spread between blocks of time, against the binomial's. At least 1; ASSUMED_DESIGN_EFFECT
 * when fewer than 4 blocks hold samples. Latency within a run is autocorrelated (a slow second makes many slow
 * answers), so an interval that takes every answer as independent is too narrow by about its square root.
 */
export function designEffect(blocks: readonly Block[]): number {
  const used = blocks.filter((b) => b.n > 0);
  const k = used.length;
  if (k < 4) return ASSUMED_DESIGN_EFFECT;
  const n = used.reduce((a, b) => a + b.n, 0);
  const p = used.reduce((a, b) => a + b.x, 0) / n;
  if (p <= 0 || p >= 1) return 1;
  // The ratio estimator's variance from the blocks, k/(k-1) for the share estimated from them.
  const between = (used.reduce((a, b) => a + (b.x - p * b.n) ** 2, 0) / (n * n)) * (k / (k - 1));
  return Math.max(1, between / ((p * (1 - p)) / n));
}

/** Groups per-period samples into BLOCKS blocks of consecutive periods (the last ones may hold one period more). */
export function intoBlocks<T>(periods: readonly T[], merge: (of: T[]) => Block): Block[] {
  const k = Math.min(BLOCKS, periods.length);
  const out: Block[] = [];
  for (let i = 0; i < k; i++) out.push(merge(periods.slice(Math.floor((i * periods.length) / k), Math.floor(((i + 1) * periods.length) / k))));
  return out;
}

/**
 * What the gate keeps of a method's run: its histogram, and the design effect of each figure it compares, measured on
 * the run's periods (the share of answers above the percentile's bucket, and the share of failures, block by block);
 * ASSUMED_DESIGN_EFFECT where the run kept no periods.
 */
export function gateSample(histogram: Histogram, periods: ReadonlyArray<PeriodCounts | undefined> | undefined): GateSample {
  const kept = periods?.filter((p): p is PeriodCounts => p !== undefined) ?? [];
  if (kept.length < 4) return { histogram, designEffect: { p95: ASSUMED_DESIGN_EFFECT, p99: ASSUMED_DESIGN_EFFECT, failureRate: ASSUMED_DESIGN_EFFECT, assumed: true } };
  const above = (q: number) => {
    const bucket = bucketOf(quantile(histogram, q));
    return designEffect(
      intoBlocks(kept, (of) => ({
        n: of.reduce((a, p) => a + p.successes, 0),
        x: of.reduce((a, p) => a + Object.entries(p.buckets).reduce((sum, [b, n]) => sum + (Number(b) > bucket ? n : 0), 0), 0),
      })),
    );
  };
  const failures = designEffect(intoBlocks(kept, (of) => ({ n: of.reduce((a, p) => a + p.requests, 0), x: of.reduce((a, p) => a + p.requests - p.successes, 0) })));
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { histogram, designEffect: { p95: r(above(0.95)), p99: r(above(0.99)), failureRate: r(failures) } };
}

/** A percentile's interval: the latencies (ms) between which it lies at the stated confidence, and the effective sample. */
export interface PercentileInterval {
  low: number;
  high: number;
  /** The requests the interval counts as independent: the successes over the design effect. */
  effective: number;
}

/** Lower and upper edge of a histogram bucket (ms). */
function edges(bucket: number): [number, number] {
  if (bucket === 0) return [0, MIN_MS];
  return [MIN_MS * GROWTH ** (bucket - 1), MIN_MS * GROWTH ** bucket];
}

/**
 * The distribution-free interval of the q-quantile: the order statistics at ranks n(q ∓ z·√(q(1-q)/n_eff)), read as the
 * lower edge of the lower rank's bucket and the upper edge of the upper rank's (kept within the exact min and max).
 * Undefined when either rank lies past the sample (too few answers above the percentile to bound it from above):
 * such a percentile is the run's largest answers, not a figure to compare.
 */
export function percentileInterval(h: Histogram, q: number, designEffect: number, confidence = CONFIDENCE): PercentileInterval | undefined {
  const { low, high, effective } = percentileBounds(h, q, designEffect, confidence);
  return low === undefined || high === undefined ? undefined : { low, high: Math.max(low, high), effective };
}

/** Each bound of percentileInterval on its own: the one whose rank lies within the sample, where the other does not. */
export function percentileBounds(h: Histogram, q: number, designEffect: number, confidence: number): { low?: number; high?: number; effective: number } {
  const effective = h.count / Math.max(1, designEffect);
  if (h.count === 0) return { effective };
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const spread = z * Math.sqrt((q * (1 - q)) / effective);
  const lowRank = Math.floor(h.count * (q - spread));
  const highRank = Math.ceil(h.count * (q + spread));
  const at = bucketAtRank(h.buckets);
  const low = lowRank >= 0 ? at(lowRank) : undefined;
  const high = highRank <= h.count - 1 ? at(highRank) : undefined;
  return { effective, ...(low === undefined ? {} : { low: Math.max(h.min, edges(low)[0]) }), ...(high === undefined ? {} : { high: Math.min(h.max, edges(high)[1]) }) };
}

/** The standard error of ln(percentile), from the width of its 95% interval (McKean and Schrader's estimator, on the log scale). */
export function logStandardError(interval: PercentileInterval | undefined): number | undefined {
  if (!interval || interval.low <= 0) return undefined;
  return (Math.log(interval.high) - Math.log(interval.low)) / (2 * normalQuantile(1 - (1 - CONFIDENCE) / 2));
}

/** Wilson's score interval for a share x/n at the normal quantile z. */
export function wilson(x: number, n: number, z: number): [number, number] {
  if (n <= 0) return [0, 1];
  const p = x / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
