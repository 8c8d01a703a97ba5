// Fresh reads under load (issue 22): what a head-chasing client asks, and how its answers are counted. A VU's
// announced head is the highest block any answer to it has shown; a stale read is a later answer that does not
// know an announced block or its objects (null, or an older block for `latest`) once the grace has passed since the
// announcement. Objects of a block reorged out are counted apart. Pure: the k6 scenario counts, Node merges.
import { METHOD_FACTS, METHODS, type MethodFacts, type ParamKind, type RpcMethod } from '../../core/methods.ts';
import type { ShapeName } from '../../core/schemas.ts';
import { BUCKETS, bucketQuantile, bucketValue, emptyHistogram, groupOf, type Histogram, mergeHistograms } from './histogram.ts';

/** What the head-chasing client asks beside the spec's methods: the head, and an announced block's transaction by its hash and index. */
const HEAD_READS = ['eth_blockNumber', 'eth_getBlockByNumber'] as const;
const BY_BLOCK_HASH = 'eth_getTransactionByBlockHashAndIndex';
/** The spec's methods the head-chasing scenario asks for each announced block's objects (core/methods.ts). */
const CHASED = METHODS.filter((m) => METHOD_FACTS[m].chased);
/** The corpus's `latest`-tagged lookups whose answer names the block it was read at: judged against the head too. */
export const TAGGED_METHODS = METHODS.filter((m) => METHOD_FACTS[m].namesItsBlock);
/**
 * The methods that take `latest` but whose answer names no block it was read at: an estimate is a number; an uncle's
 * number is below the block that holds it, a lower bound that cannot show that block older than the announced head
 * (and a null, every post-merge block's answer, names nothing). Their `latest` answers are counted "not judgeable
 * against the head", never as fresh ok.
 */
export const UNJUDGEABLE_METHODS = METHODS.filter((m) => METHOD_FACTS[m].tags.includes('latest') && !METHOD_FACTS[m].namesItsBlock);
export type FreshMethod = (typeof HEAD_READS)[number] | typeof BY_BLOCK_HASH | RpcMethod;
/** Every method with freshness figures, in the order the reports list them. */
export const FRESH_METHODS: readonly FreshMethod[] = [...new Set<FreshMethod>([...HEAD_READS, ...CHASED, BY_BLOCK_HASH, ...TAGGED_METHODS, ...UNJUDGEABLE_METHODS])];
/** Those whose answers can show an announced block, so have an announcement-to-visible figure. */
const VISIBLE_METHODS = FRESH_METHODS.filter((m) => !(UNJUDGEABLE_METHODS as readonly FreshMethod[]).includes(m));
/**
 * Asked for every announced block, whatever it holds (the head, the block, its receipts; its transaction only when it
 * holds one): one of them never judged means the client saw nothing fresh, which is no pass.
 */
export const ALWAYS_ASKED: readonly FreshMethod[] = [...HEAD_READS, ...CHASED.filter((m) => METHOD_FACTS[m].result === 'block' || METHOD_FACTS[m].result === 'block-receipts')];

/**
 * How an object was asked: by its block's hash (another block's object is wrong whatever the chain did), by its
 * block's number (another hash at that height may be a reorg), or by its own hash (after a reorg a transaction may
 * sit in another block, at another height).
 */
export type AskedBy = 'hash' | 'number' | 'own';

/** What fills a parameter of an ask about an announced block: its number, its hash, its first transaction, index 0, no details. */
export type Fill = 'number' | 'hash' | 'firstTx' | 'index0' | 'noDetails';

/** One ask of an announced block's object: the method, what fills each parameter, how it names the block, what it answers. */
export interface ObjectAsk<M extends string = FreshMethod> {
  method: M;
  fills: readonly Fill[];
  by: AskedBy;
  result: ShapeName;
}

/** The answers the head-chasing client can read against an announced block (load/k6/fresh.ts has a reader for each). */
export const READABLE_RESULTS = ['block', 'block-receipts', 'transaction', 'receipt'] as const satisfies readonly ShapeName[];

/** Each parameter kind (core/methods.ts) as an announced block fills it; a call object it cannot fill. */
const FILLS: Record<ParamKind, Fill | undefined> = { call: undefined, block: 'number', blockHash: 'hash', txHash: 'firstTx', index: 'index0', flag: 'noDetails' };
const ASKED_BY: Partial<Record<ParamKind, AskedBy>> = { block: 'number', blockHash: 'hash', txHash: 'own' };
/** What an ask needs known of the block first: asks by number go first (they learn its hash and transactions). */
const NEED: Record<Fill, number> = { number: 0, index0: 0, noDetails: 0, hash: 1, firstTx: 2 };

/**
 * Beyond the table: asks no spec method's row gives but a client following the head makes, each showing a block:
 * the block by number first (it learns the hash and the transactions), a transaction by block hash and index, the
 * receipts by block hash (clients take a hash where a block number goes, EIP-1898).
 */
const EXTRA_ASKS: readonly ObjectAsk<FreshMethod>[] = [
  { method: 'eth_getBlockByNumber', fills: ['number', 'noDetails'], by: 'number', result: 'block' },
  { method: BY_BLOCK_HASH, fills: ['hash', 'index0'], by: 'hash', result: 'transaction' },
  ...CHASED.filter((m) => METHOD_FACTS[m].result === 'block-receipts').map((method): ObjectAsk<FreshMethod> => ({ method, fills: ['hash'], by: 'hash', result: 'block-receipts' })),
];

/**
 * The asks of an announced block's objects, from the chased methods' rows (their parameter kinds and result) and the
 * extras above, in the order they can be made. A chased row whose parameters an announced block cannot fill, or whose
 * answer no reader reads, is a mistake in the table: thrown at once (the k6 bundle imports this at init).
 */
export function objectAsks<M extends string>(table: Readonly<Record<M, MethodFacts>>, extras: readonly ObjectAsk<FreshMethod>[] = []): Array<ObjectAsk<M | FreshMethod>> {
  const chased = (Object.keys(table) as M[]).filter((m) => table[m].chased).map((method): ObjectAsk<M> => {
    const f = table[method];
    const fills = f.params.map((k) => FILLS[k]);
    const by = f.params[0] === undefined ? undefined : ASKED_BY[f.params[0]];
    if (fills.some((x) => x === undefined) || !by) throw new Error(`${method} is chased, but an announced block cannot fill its parameters (${f.params.join(', ')})`);
    if (!(READABLE_RESULTS as readonly ShapeName[]).includes(f.result)) throw new Error(`${method} is chased, but no reader reads a ${f.result} against an announced block`);
    return { method, fills: fills as Fill[], by, result: f.result };
  });
  const need = (a: ObjectAsk<string>) => Math.max(...a.fills.map((x) => NEED[x]));
  // An extra a row already gives (the same method, filled the same) is asked once.
  const key = (a: ObjectAsk<string>) => `${a.method}(${a.fills.join()})`;
  const rows = new Set(chased.map(key));
  return [...extras.filter((a) => !rows.has(key(a))), ...chased].map((a, i) => ({ a, i })).sort((x, y) => need(x.a) - need(y.a) || x.i - y.i).map(({ a }) => a);
}

export const OBJECT_ASKS: readonly ObjectAsk[] = objectAsks(METHOD_FACTS, EXTRA_ASKS);

/** The `latest` asks of the methods whose answer names its block: the block parameter `latest`, an index 0. */
export function taggedAsks<M extends string>(table: Readonly<Record<M, MethodFacts>>): Array<[M, unknown[]]> {
  const filled: Partial<Record<ParamKind, unknown>> = { block: 'latest', index: '0x0', flag: false };
  return (Object.keys(table) as M[])
    .filter((m) => table[m].namesItsBlock)
    .map((m) => {
      const params = table[m].params.map((k) => filled[k]);
      if (params.includes(undefined)) throw new Error(`${m} names its block, but its parameters (${table[m].params.join(', ')}) cannot be asked at latest`);
      return [m, params];
    });
}

export const TAGGED_ASKS: ReadonlyArray<[FreshMethod, unknown[]]> = taggedAsks(METHOD_FACTS);

/** The k6 scenario that chases the head (one VU per instance, so each instance's announcements come in order). */
export const FRESH_SCENARIO = 'fresh';

/**
 * How long after an announcement an honest endpoint may still not know the block (a load-balanced node may serve
 * N-1 for a moment after publishing N). Measured on the moving devnet: docs/load.md, "Fresh reads".
 */
export const DEFAULT_GRACE_MS = 2000;

/** The counters a fresh read feeds, each tagged with its method (`m`). */
export const FRESH_COUNTERS = {
  requests: 'fresh_requests',
  stale: 'fresh_stale',
  latestBehind: 'fresh_latest_behind',
  reorged: 'fresh_reorged',
  notJudgeable: 'fresh_not_judgeable',
  failed: 'fresh_failed',
  wrong: 'fresh_wrong',
  /** Reorgs the fresh reads noticed (a height under another hash, a parent hash not the block announced below), tagged with the method that showed it. */
  reorgs: 'fresh_reorgs',
} as const;
export type FreshCounter = keyof typeof FRESH_COUNTERS;

/** The histogram (histogram.ts) of the time from announcement to visible, a Counter per group of buckets, tag `b`. */
export const freshVisibleMetric = (m: FreshMethod, group: number) => `fresh_visible_${m}_${group}`;
export const freshBucketMetric = (m: FreshMethod, bucket: number) => `${freshVisibleMetric(m, groupOf(bucket))}{b:${bucket}}`;
/** A Trend of the same times, fed a few times a second (its min and max are exact). */
export const freshBoundsMetric = (m: FreshMethod) => `fresh_visible_bounds_${m}`;
/** A Trend of the time from a reorg noticed to the method's first answer consistent with the new fork, ms. */
export const freshConsistentMetric = (m: FreshMethod) => `fresh_consistent_${m}`;
/** A Trend of the depth of each reorg noticed, in blocks. */
export const FRESH_REORG_DEPTH = 'fresh_reorg_depth';
export const freshCounterMetric = (c: FreshCounter, m: FreshMethod) => `${FRESH_COUNTERS[c]}{m:${m}}`;

export interface FreshMethodShard {
  /** Answers judged for freshness (errors and timeouts are the method scenarios' business). */
  requests: number;
  /** Answers past the grace that did not know an announced block or its objects. */
  stale: number;
  /** Of them, `latest`-tagged answers (and eth_blockNumber) older than the announced head. */
  latestBehind: number;
  /** Nulls for objects of a block the endpoint no longer has at its height: counted apart, never stale. */
  reorged: number;
  /** `latest`-tagged answers that name no block (an estimate, an uncle lookup, an empty block's receipts): not in `requests`. */
  notJudgeable: number;
  /** Requests that got no answer to judge (an HTTP status other than 200, a timeout, a transport error): past the grace also stale. */
  failed: number;
  /** Of the stale reads, wrong answers: another block's objects for an announced block (receipts, a transaction), a receipt count that disagrees with its block. */
  wrong: number;
  /** Time from announcement to the first answer that knew the object, ms. */
  visible: Histogram;
  /** Reorgs noticed through this method's answers (eth_getBlockByNumber's: `latest`), and the deepest, in blocks. Absent from shards written before they were counted. */
  reorgs?: number;
  reorgDepth?: number;
  /** Time from a reorg noticed to this method's first answer consistent with the new fork, ms: how many and the longest. */
  consistent?: { count: number; max: number };
}
export type FreshnessShard = Partial<Record<FreshMethod, FreshMethodShard>>;

/** Bookkeeping thresholds that make k6 report each tagged sub-metric the fresh scenario feeds. */
export function freshThresholds(bookkeeping: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of FRESH_METHODS) {
    for (const c of Object.keys(FRESH_COUNTERS) as FreshCounter[]) out[freshCounterMetric(c, m)] = [bookkeeping];
  }
  for (const m of VISIBLE_METHODS) for (let b = 0; b < BUCKETS; b++) out[freshBucketMetric(m, b)] = [bookkeeping];
  return out;
}

/** A statistic of a k6 metric, 0 when absent: the end-of-test summary's, an OpenTelemetry export's, or one timeline period's (two exports apart). */
type Read = (metric: string, stat: string) => number;

/** A method's announcement-to-visible bucket counts (no exact bounds: the caller reads them where it has them). */
function visibleBuckets(read: Read, m: FreshMethod): Histogram {
  const visible = emptyHistogram();
  for (let b = 0; b < BUCKETS; b++) {
    const n = read(freshBucketMetric(m, b), 'count');
    if (n > 0) visible.buckets[b] = n;
    visible.count += n;
  }
  visible.sum = Object.entries(visible.buckets).reduce((a, [b, n]) => a + n * bucketValue(Number(b)), 0);
  return visible;
}

/** One instance's freshness figures from k6's metrics (read: a statistic of a metric, 0 when absent). */
export function freshnessOf(read: Read): FreshnessShard {
  const out: FreshnessShard = {};
  for (const m of FRESH_METHODS) {
    const requests = read(freshCounterMetric('requests', m), 'count');
    const notJudgeable = read(freshCounterMetric('notJudgeable', m), 'count');
    const failed = read(freshCounterMetric('failed', m), 'count');
    if (requests === 0 && notJudgeable === 0 && failed === 0) continue;
    const reorgs = read(freshCounterMetric('reorgs', m), 'count');
    const consistent = read(freshConsistentMetric(m), 'count');
    const visible = visibleBuckets(read, m);
    if (visible.count > 0) Object.assign(visible, { min: read(freshBoundsMetric(m), 'min'), max: read(freshBoundsMetric(m), 'max') });
    out[m] = {
      requests,
      stale: read(freshCounterMetric('stale', m), 'count'),
      latestBehind: read(freshCounterMetric('latestBehind', m), 'count'),
      reorged: read(freshCounterMetric('reorged', m), 'count'),
      notJudgeable,
      failed,
      wrong: read(freshCounterMetric('wrong', m), 'count'),
      visible,
      ...(reorgs ? { reorgs, reorgDepth: read(FRESH_REORG_DEPTH, 'max') } : {}),
      ...(consistent ? { consistent: { count: consistent, max: read(freshConsistentMetric(m), 'max') } } : {}),
    };
  }
  return out;
}

export function mergeFreshness(parts: ReadonlyArray<FreshnessShard | undefined>): FreshnessShard | undefined {
  const present = parts.filter((p): p is FreshnessShard => p !== undefined);
  if (present.length === 0) return undefined;
  const out: FreshnessShard = {};
  for (const m of FRESH_METHODS) {
    const mine = present.map((p) => p[m]).filter((x): x is FreshMethodShard => x !== undefined);
    if (mine.length === 0) continue;
    // A shard written before `notJudgeable` (or `failed`) was counted has none.
    const add = (k: Exclude<FreshCounter, 'reorgs'>) => mine.reduce((a, x) => a + (x[k] ?? 0), 0);
    const most = (f: (x: FreshMethodShard) => number | undefined) => Math.max(0, ...mine.map((x) => f(x) ?? 0));
    // Each instance chases the same head: a reorg is seen by each, so the most any saw is the count, not their sum.
    const reorgs = most((x) => x.reorgs);
    const consistent = mine.filter((x) => x.consistent);
    out[m] = {
      requests: add('requests'), stale: add('stale'), latestBehind: add('latestBehind'), reorged: add('reorged'), notJudgeable: add('notJudgeable'), failed: add('failed'), wrong: add('wrong'), visible: mergeHistograms(mine.map((x) => x.visible)),
      ...(reorgs ? { reorgs, reorgDepth: most((x) => x.reorgDepth) } : {}),
      ...(consistent.length ? { consistent: { count: consistent.reduce((a, x) => a + x.consistent!.count, 0), max: most((x) => x.consistent?.max) } } : {}),
    };
  }
  return out;
}

/** One method's fresh reads in one timeline period. */
export interface FreshPeriod {
  requests: number;
  stale: number;
  /** Announcement to visible of the objects first seen in the period, ms. */
  visible?: { count: number; p50: number; p95: number; max: number };
}

/**
 * One timeline period's freshness figures per method (the difference of two exports of the same counters):
 * fresh requests, stale reads, and announcement-to-visible from the bucket counts (p50, p95 and max within the
 * histogram's 1%: a period has no exact bounds). Methods with nothing in the period are left out.
 */
export function freshPeriodOf(read: Read): Partial<Record<FreshMethod, FreshPeriod>> {
  const out: Partial<Record<FreshMethod, FreshPeriod>> = {};
  const ms = (v: number) => Math.round(v * 10) / 10;
  for (const m of FRESH_METHODS) {
    const requests = read(freshCounterMetric('requests', m), 'count');
    const stale = read(freshCounterMetric('stale', m), 'count');
    const h = visibleBuckets(read, m);
    if (requests === 0 && stale === 0 && h.count === 0) continue;
    const top = Math.max(...Object.keys(h.buckets).map(Number));
    out[m] = {
      requests,
      stale,
      ...(h.count > 0 ? { visible: { count: h.count, p50: ms(bucketQuantile(h.buckets, h.count, 0.5)), p95: ms(bucketQuantile(h.buckets, h.count, 0.95)), max: ms(bucketValue(top)) } } : {}),
    };
  }
  return out;
}

/**
 * The same period of several instances: counts add up; a percentile is the highest instance's (an upper bound, as
 * the latency timeline's), the max the highest.
 */
export function mergeFreshPeriods(parts: ReadonlyArray<Partial<Record<FreshMethod, FreshPeriod>>>): Partial<Record<FreshMethod, FreshPeriod>> {
  const out: Partial<Record<FreshMethod, FreshPeriod>> = {};
  for (const m of FRESH_METHODS) {
    const mine = parts.map((p) => p[m]).filter((x): x is FreshPeriod => x !== undefined);
    if (mine.length === 0) continue;
    const seen = mine.map((x) => x.visible).filter((v): v is NonNullable<FreshPeriod['visible']> => v !== undefined);
    const highest = (k: 'p50' | 'p95' | 'max') => Math.max(...seen.map((v) => v[k]));
    out[m] = {
      requests: mine.reduce((a, x) => a + x.requests, 0),
      stale: mine.reduce((a, x) => a + x.stale, 0),
      ...(seen.length ? { visible: { count: seen.reduce((a, v) => a + v.count, 0), p50: highest('p50'), p95: highest('p95'), max: highest('max') } } : {}),
    };
  }
  return out;
}
