// Mergeable latency histograms: log-linear buckets with a fixed layout, so the counts of several k6
// instances add up to exactly the histogram one instance would have recorded for the same samples.
// Percentiles cannot be averaged across instances; bucket counts can. Pure: k6 and Node share it.

/** Bucket 0 holds everything below MIN_MS (absolute error ≤ MIN_MS/2). */
export const MIN_MS = 0.01;
/** Each bucket is GROWTH times wider than the previous: a bucket's middle is within (GROWTH-1)/2 of any value in it. */
export const GROWTH = 1.02;
/** Up to 60 s (past the request timeout); larger values share the last bucket. */
export const BUCKETS = 1 + Math.ceil(Math.log(60_000 / MIN_MS) / Math.log(GROWTH));
/** The largest relative error of a percentile read from a histogram (1%). */
export const RELATIVE_ERROR = (GROWTH - 1) / 2;
/** k6 holds every sample of a metric against each of the metric's sub-metrics, so k6 counts the buckets (sub-metrics)
 * in groups of GROUP_BUCKETS, one Counter a group: ~30 comparisons a request instead of BUCKETS (~0.1 ms CPU). */
export const GROUP_BUCKETS = Math.ceil(Math.sqrt(BUCKETS));
export const HISTOGRAM_GROUPS = Math.ceil(BUCKETS / GROUP_BUCKETS);

export function groupOf(bucket: number): number {
  return Math.floor(bucket / GROUP_BUCKETS);
}

export interface Histogram {
  count: number;
  /** Sum of the samples, from the buckets (within the histogram's 1%); min and max are exact (k6 measures them; they merge exactly). */
  sum: number;
  min: number;
  max: number;
  /** Bucket index -> samples in it; empty buckets left out. */
  buckets: Record<string, number>;
}

export function bucketOf(ms: number): number {
  if (!(ms >= MIN_MS)) return 0;
  return Math.min(BUCKETS - 1, 1 + Math.floor(Math.log(ms / MIN_MS) / Math.log(GROWTH)));
}

/**
 * bucketOf as a table, for k6/x/rpccertify (k6ext/send.go), which buckets by it: lower[b] is the least latency bucketOf puts
 * in bucket b or above (b >= 1; lower[0] is not read), found by bisection on bucketOf itself, so the table is its rule.
 * Each edge lies within ~2e-14 (relative) of MIN_MS * GROWTH^(b-1), the rounding of the power and of two logs (1.8e-14 in
 * Sobek, whose Math.pow is Go's; 2.6e-15 in V8), so the bisection starts from the tightest of EDGE_BRACKETS that holds it:
 * ~10 calls of bucketOf an edge, not ~54. k6 builds the table once a run, in Sobek: ~25 ms of CPU, where the ±1% bracket
 * alone cost ~95 ms. bucketOf only grows with ms, so any bracket holding the edge finds the same one.
 */
export function bucketLowerBounds(): number[] {
  const lower = [0];
  for (let b = 1; b < BUCKETS; b++) {
    const near = MIN_MS * GROWTH ** (b - 1);
    const width = EDGE_BRACKETS.find((w) => bucketOf(near * (1 - w)) < b && bucketOf(near * (1 + w)) >= b);
    if (width === undefined) throw new Error(`bucket ${b}: its lower bound is not near ${near} ms`);
    let lo = near * (1 - width);
    let hi = near * (1 + width);
    for (;;) {
      const mid = lo + (hi - lo) / 2;
      if (mid === lo || mid === hi) break;
      if (bucketOf(mid) >= b) hi = mid;
      else lo = mid;
    }
    lower.push(hi);
  }
  return lower;
}

/** Relative half-widths of the brackets bucketLowerBounds tries, tightest first. */
const EDGE_BRACKETS = [4e-14, 1e-11, 0.01];

/** The value a bucket stands for: the middle of [lower, upper). */
export function bucketValue(index: number): number {
  if (index === 0) return MIN_MS / 2;
  const lower = MIN_MS * GROWTH ** (index - 1);
  return (lower * (1 + GROWTH)) / 2;
}

export function emptyHistogram(): Histogram {
  return { count: 0, sum: 0, min: 0, max: 0, buckets: {} };
}

export function mergeHistograms(histograms: readonly Histogram[]): Histogram {
  const out = emptyHistogram();
  for (const h of histograms.filter((x) => x.count > 0)) {
    out.min = out.count === 0 ? h.min : Math.min(out.min, h.min);
    out.max = Math.max(out.max, h.max);
    out.count += h.count;
    out.sum += h.sum;
    for (const [b, n] of Object.entries(h.buckets)) out.buckets[b] = (out.buckets[b] ?? 0) + n;
  }
  return out;
}

/** The q-quantile of bucket counts alone, with no exact bounds known (a period's or a live read's histogram). */
export function bucketQuantile(buckets: Record<string, number>, count: number, q: number): number {
  return quantile({ count, sum: 0, min: 0, max: Infinity, buckets }, q);
}

/**
 * The q-quantile (0..1) the way k6 computes a Trend's p(x): linear interpolation between the sorted
 * samples at ranks floor and ceil of q·(n-1); each sample read as its bucket's value, kept within [min, max].
 */
export function quantile(h: Histogram, q: number): number {
  if (h.count === 0) return 0;
  const position = q * (h.count - 1);
  const lower = Math.floor(position);
  const bucketAt = bucketAtRank(h.buckets);
  const valueAt = (rank: number): number => {
    const b = bucketAt(rank);
    return b === undefined ? h.max : Math.min(h.max, Math.max(h.min, bucketValue(b)));
  };
  const low = valueAt(lower);
  return low + (valueAt(Math.ceil(position)) - low) * (position - lower);
}

/** The bucket holding the sample of a rank (0-based, in ascending order); undefined past the last sample. */
export function bucketAtRank(buckets: Record<string, number>): (rank: number) => number | undefined {
  const ordered = Object.entries(buckets)
    .map(([b, n]): [number, number] => [Number(b), n])
    .sort((a, b) => a[0] - b[0]);
  return (rank) => {
    let seen = 0;
    for (const [b, n] of ordered) {
      seen += n;
      if (rank < seen) return b;
    }
    return undefined;
  };
}
