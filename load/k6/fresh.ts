// The head-chasing scenario (issue 22; counting rules: shared/freshness.ts). Each iteration of its one VU per instance
// asks `latest` (eth_blockNumber, eth_getBlockByNumber, eth_getBlockReceipts, eth_getTransactionByBlockNumberAndIndex):
// a higher block than any answer has shown is a new announcement, remembered with its hash and transactions. Then it
// asks the objects of the newest announced block (the time until each is first seen is the announcement-to-visible
// figure) and of the newest block whose grace has passed: a null for those is a stale read, unless the endpoint's block
// at that height has another hash (a reorg, counted apart). judgeTagged holds the method scenarios' `latest` entries
// to the same rule, against their own VU's announced head.
import { sleep } from 'k6';
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import { bucketOf, groupOf, HISTOGRAM_GROUPS } from '../shared/histogram.ts';
import { FRESH_COUNTERS, FRESH_METHODS, type FreshCounter, type FreshMethod, freshBoundsMetric, freshVisibleMetric } from '../shared/freshness.ts';

interface Announced {
  number: number;
  hash: string;
  /** Its first transaction's hash, when it has one. */
  tx?: string;
  /** When an answer first showed it (ms since the epoch). */
  at: number;
  /** Methods that have seen its objects (announcement-to-visible is recorded once each). */
  seen: Set<FreshMethod>;
  /** Its objects were asked at least once. */
  asked?: boolean;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
/** Announcements kept: enough to find the newest past the grace at a block a second. */
const KEPT = 16;
/** The pause between iterations: a few rounds a second, light next to the method scenarios. */
const PAUSE_S = 0.25;
/** How far above the announced head a round looks for blocks served by number (doubling from 1). */
const PROBE_MAX = 64;

const counters = Object.fromEntries((Object.keys(FRESH_COUNTERS) as FreshCounter[]).map((c) => [c, new Counter(FRESH_COUNTERS[c])])) as Record<FreshCounter, Counter>;
const visible = Object.fromEntries(FRESH_METHODS.map((m) => [m, Array.from({ length: HISTOGRAM_GROUPS }, (_, g) => new Counter(freshVisibleMetric(m, g)))])) as Record<FreshMethod, Counter[]>;
// A Trend, not a Gauge: k6's OpenTelemetry output exports a gauge's last value only, a Trend's min and max (a few samples a second).
const visibleBounds = Object.fromEntries(FRESH_METHODS.map((m) => [m, new Trend(freshBoundsMetric(m))])) as Record<FreshMethod, Trend>;
const methodTags = Object.fromEntries(FRESH_METHODS.map((m) => [m, { m }])) as Record<FreshMethod, { m: FreshMethod }>;

const TAGGED_ASKS: Array<[FreshMethod, unknown[]]> = [
  ['eth_getBlockReceipts', ['latest']],
  ['eth_getTransactionByBlockNumberAndIndex', ['latest', '0x0']],
];

const announced: Announced[] = [];
const logged = new Set<FreshMethod>();
let nextId = 1;

/**
 * One answer's result, or its JSON-RPC error's code and message; undefined when there was no answer to judge (an
 * HTTP failure, a timeout, a body that is no answer to this call).
 */
function answer(url: string, timeout: string, method: FreshMethod, params: unknown[], judged = true): { result: unknown } | { error: string } | undefined {
  const id = nextId++;
  const res = http.post(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }), { headers: JSON_HEADERS, tags: { name: method }, timeout });
  // A null is what is judged here, so the answer is read whatever the class sorting expects (classify keeps no null's envelope).
  if (res.status !== 200 || typeof res.body !== 'string') return undefined;
  let envelope: { id?: unknown; result?: unknown; error?: unknown } | undefined;
  try {
    envelope = JSON.parse(res.body) as typeof envelope;
  } catch {
    return undefined;
  }
  if (!envelope || typeof envelope !== 'object' || envelope.id !== id) return undefined;
  if (envelope.error !== undefined) {
    const e = envelope.error as { code?: unknown; message?: unknown } | null;
    return { error: `error ${String(e?.code)} ${JSON.stringify(String(e?.message ?? '')).slice(0, 80)}` };
  }
  if (!('result' in envelope)) return undefined;
  if (judged) counters.requests.add(1, methodTags[method]);
  return { result: envelope.result };
}

/** One answer's result; undefined when there was none to judge (an error, a timeout: the method scenarios count those).
 * `judged`: counted as a fresh request here (a `latest` answer is counted by judgeTagged, once it names a block). */
function ask(url: string, timeout: string, method: FreshMethod, params: unknown[], judged = true): { result: unknown } | undefined {
  const a = answer(url, timeout, method, params, judged);
  return a && 'result' in a ? a : undefined;
}

const quantity = (v: unknown): number | undefined => (typeof v === 'string' && /^0x[0-9a-f]+$/i.test(v) ? parseInt(v, 16) : undefined);
const head = () => announced[announced.length - 1];
const pastGrace = (a: Announced, now: number, graceMs: number) => now - a.at > graceMs;

function stale(method: FreshMethod, why: string): void {
  counters.stale.add(1, methodTags[method]);
  if (!logged.has(method)) console.warn(`rpc-certify stale ${method} ${why}`);
  logged.add(method);
}

/** The block inside a `latest` answer, or an eth_blockNumber, against the announced head: newer announces, older past the grace is stale. */
function judgeLatest(method: FreshMethod, number: number, block: { hash?: unknown; transactions?: unknown } | undefined, graceMs: number): void {
  const now = Date.now();
  const top = head();
  if (top && number < top.number) {
    // The newest announced block whose grace has passed: a `latest` below it lags.
    const due = [...announced].reverse().find((a) => pastGrace(a, now, graceMs));
    if (due && number < due.number) {
      counters.latestBehind.add(1, methodTags[method]);
      stale(method, `answered block ${number} for latest, below block ${due.number} announced ${now - due.at} ms before (grace ${graceMs} ms; announced head ${top.number})`);
    }
    return;
  }
  if (top && number <= top.number) return;
  if (!block || typeof block.hash !== 'string') return; // eth_blockNumber names a block without its hash: eth_getBlockByNumber announces it.
  const txs = Array.isArray(block.transactions) ? block.transactions : [];
  const tx = typeof txs[0] === 'string' ? txs[0] : undefined;
  announced.push({ number, hash: block.hash, ...(tx ? { tx } : {}), at: now, seen: new Set() });
  if (announced.length > KEPT) announced.shift();
}

/** Asks an announced block's objects; a null past the grace is stale (or reorged), the first value is its time to visible. */
function askObjects(url: string, timeout: string, a: Announced, graceMs: number): void {
  a.asked = true;
  const asks: Array<[FreshMethod, unknown[]]> = [
    ['eth_getBlockByHash', [a.hash, false]],
    ['eth_getBlockReceipts', [a.hash]],
    ...(a.tx
      ? ([
          ['eth_getTransactionByBlockHashAndIndex', [a.hash, '0x0']],
          ['eth_getTransactionByHash', [a.tx]],
          ['eth_getTransactionReceipt', [a.tx]],
        ] as Array<[FreshMethod, unknown[]]>)
      : []),
  ];
  for (const [method, params] of asks) {
    const got = answer(url, timeout, method, params);
    if (!got) continue;
    const now = Date.now();
    // An error for an object of an announced block ("header not found", "unknown block") is judged like a null: that
    // backend does not know it. Within the grace it is not judged (nor counted).
    if ('error' in got && !pastGrace(a, now, graceMs)) continue;
    if ('error' in got) counters.requests.add(1, methodTags[method]);
    else if (got.result !== null) {
      if (!a.seen.has(method)) {
        a.seen.add(method);
        const ms = now - a.at;
        const b = bucketOf(ms);
        visible[method][groupOf(b)]?.add(1, { b: String(b) });
        visibleBounds[method].add(ms);
      }
      continue;
    }
    if (!pastGrace(a, now, graceMs)) continue;
    // Reorged out: the endpoint's block at that height is another one. Counted apart, never stale.
    const there = ask(url, timeout, 'eth_getBlockByNumber', [`0x${a.number.toString(16)}`, false])?.result as { hash?: unknown } | null | undefined;
    if (there && typeof there.hash === 'string' && there.hash !== a.hash) {
      counters.reorged.add(1, methodTags[method]);
      continue;
    }
    stale(method, `answered ${'error' in got ? got.error : 'null'} for ${params.map(String).join(', ')} of block ${a.number}, announced ${now - a.at} ms before (grace ${graceMs} ms)`);
  }
}

/** A `latest`-tagged answer that names no block it was read at: counted apart, never as a fresh ok (freshness.ts). */
export function notJudgeable(method: FreshMethod): void {
  counters.notJudgeable.add(1, methodTags[method]);
}

/**
 * A `latest`-tagged answer of a corpus entry (a method scenario's VU): the block it names is judged against that VU's
 * announced head like eth_getBlockByNumber latest's, and announces a higher one.
 */
export function judgeTagged(method: FreshMethod, result: unknown, graceMs: number): void {
  const o = (Array.isArray(result) ? result[0] : result) as { blockNumber?: unknown; blockHash?: unknown } | null | undefined;
  const n = quantity(o?.blockNumber);
  // An empty block's receipts, no transaction at that index: no block named.
  if (n === undefined) return notJudgeable(method);
  counters.requests.add(1, methodTags[method]);
  judgeLatest(method, n, { hash: o?.blockHash }, graceMs);
}

/**
 * Blocks the endpoint serves by number above the announced head announce them too (a `latest` that lags while
 * lookups are current shows nothing newer otherwise): heads +1, +2, +4, ... while each is found. On an honest chain
 * +1 is null (or just mined, and `latest` catches up within the grace).
 */
function probeAbove(url: string, timeout: string, graceMs: number): void {
  for (let k = 1; k <= PROBE_MAX; k *= 2) {
    const top = head();
    if (!top) return;
    const above = ask(url, timeout, 'eth_getBlockByNumber', [`0x${(top.number + k).toString(16)}`, false])?.result as { number?: unknown; hash?: unknown; transactions?: unknown } | null | undefined;
    const number = quantity(above?.number);
    if (!above || number === undefined || number <= top.number) return;
    judgeLatest('eth_getBlockByNumber', number, above, graceMs);
  }
}

export function freshRound(url: string, timeout: string, graceMs: number): void {
  const n = quantity(ask(url, timeout, 'eth_blockNumber', [])?.result);
  if (n !== undefined) judgeLatest('eth_blockNumber', n, undefined, graceMs);
  const latest = ask(url, timeout, 'eth_getBlockByNumber', ['latest', false])?.result as { number?: unknown; hash?: unknown; transactions?: unknown } | null | undefined;
  const number = quantity(latest?.number);
  if (latest && number !== undefined) judgeLatest('eth_getBlockByNumber', number, latest, graceMs);
  probeAbove(url, timeout, graceMs);
  // The other `latest` lookups whose answer names its block, as a client following the head asks them.
  for (const [method, params] of TAGGED_ASKS) {
    const got = ask(url, timeout, method, params, false);
    if (got) judgeTagged(method, got.result, graceMs);
  }
  const now = Date.now();
  const top = head();
  // Every block announced since the last round is asked now, not only the newest: one the chain moved past within
  // the round would otherwise be first asked at its grace, and its announcement-to-visible figure be the grace.
  for (const a of announced) if (!a.asked && a !== top) askObjects(url, timeout, a, graceMs);
  if (top) askObjects(url, timeout, top, graceMs);
  const due = [...announced].reverse().find((a) => pastGrace(a, now, graceMs));
  if (due && due !== top) askObjects(url, timeout, due, graceMs);
  sleep(PAUSE_S);
}
