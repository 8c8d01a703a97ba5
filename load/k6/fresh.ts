// The head-chasing scenario (issue 22; counting rules and what it asks: shared/freshness.ts). Each iteration of its one
// VU per instance asks `latest` (eth_blockNumber, eth_getBlockByNumber, and TAGGED_ASKS: the methods whose answer names its block):
// a higher block than any answer has shown is a new announcement (an eth_blockNumber's without its hash until the
// block asked by number shows it). Then it asks the objects of the newest announced block by number and by hash (the
// time until each is first seen is the announcement-to-visible figure) and of the newest block whose grace has passed:
// a null, an error or a failed request for those is a stale read, unless the endpoint's block at that height has
// another hash (a reorg, counted apart); another block's objects for a hash asked are wrong at once. judgeTagged holds
// the method scenarios' `latest` entries to the same rule, against their own VU's announced head. A reorg the answers
// show (noticeFork) turns the blocks it replaced into orphans: past the grace from it, an orphan served by number or for
// `latest`, or an orphaned transaction still naming its block, is wrong (a cache, an index that kept the old fork).
import { sleep } from 'k6';
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import { bucketOf, groupOf, HISTOGRAM_GROUPS } from '../shared/histogram.ts';
import { type AskedBy, type Fill, FRESH_COUNTERS, FRESH_METHODS, FRESH_REORG_DEPTH, freshConsistentMetric, type FreshCounter, type FreshMethod, freshBoundsMetric, freshVisibleMetric, OBJECT_ASKS, READABLE_RESULTS, TAGGED_ASKS } from '../shared/freshness.ts';

interface Announced {
  number: number;
  /** Its hash: unknown while only eth_blockNumber has named it (asking it by number learns it). */
  hash?: string;
  /** Its transactions' hashes, once an answer listed them (a by-number or `latest` block). */
  txs?: string[];
  /** Its receipts' log counts, once eth_getBlockReceipts answered them whole. */
  logs?: number[];
  /** When an answer first showed it (ms since the epoch). */
  at: number;
  /** Methods that have seen its objects (announcement-to-visible is recorded once each). */
  seen: Set<FreshMethod>;
  /** Its objects were asked at least once. */
  asked?: boolean;
  /** Its parent's hash, once an answer showed it (a `latest` or by-number block). */
  parentHash?: string;
  /** When a reorg put this block at its height in place of the one announced (ms since the epoch), and the methods
   * that have answered consistently since (time to consistency is recorded once each). */
  reorg?: { noticed: number; consistent: Set<FreshMethod>; judged?: boolean };
}

/** A block a reorg took away, as the endpoint showed it, and the one its own chain has at that height now. */
interface Orphan {
  number: number;
  hash: string;
  canonical: string;
  txs?: string[];
  /** When the reorg was noticed (ms since the epoch). */
  noticed: number;
  /** Methods whose answer for its transactions no longer names it (null, or another block). */
  settled: Set<FreshMethod>;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
/** Announcements kept: enough to find the newest past the grace at a block a second. */
const KEPT = 16;
/** The pause between iterations: a few rounds a second, light next to the method scenarios. */
const PAUSE_S = 0.25;
/** How far above the announced head a round looks for blocks served by number (doubling from 1). */
const PROBE_MAX = 64;

interface FreshMetrics {
  counters: Record<FreshCounter, Counter>;
  visible: Record<FreshMethod, Counter[]>;
  visibleBounds: Record<FreshMethod, Trend>;
  /** Time from a reorg noticed to the method's first answer consistent with the new fork. */
  consistent: Record<FreshMethod, Trend>;
  /** The depth of each reorg noticed (blocks replaced). */
  reorgDepth: Trend;
}
let metrics: FreshMetrics | undefined;

/** The fresh reads' metrics, created in the init context of a run with fresh reads only: ~200 metric objects a VU
 * (a histogram per method), which every VU would otherwise start with, the scenario's VUs too. */
export function initFresh(): void {
  metrics = {
    counters: Object.fromEntries((Object.keys(FRESH_COUNTERS) as FreshCounter[]).map((c) => [c, new Counter(FRESH_COUNTERS[c])])) as Record<FreshCounter, Counter>,
    visible: Object.fromEntries(FRESH_METHODS.map((m) => [m, Array.from({ length: HISTOGRAM_GROUPS }, (_, g) => new Counter(freshVisibleMetric(m, g)))])) as Record<FreshMethod, Counter[]>,
    // A Trend, not a Gauge: k6's OpenTelemetry output exports a gauge's last value only, a Trend's min and max (a few samples a second).
    visibleBounds: Object.fromEntries(FRESH_METHODS.map((m) => [m, new Trend(freshBoundsMetric(m))])) as Record<FreshMethod, Trend>,
    consistent: Object.fromEntries(FRESH_METHODS.map((m) => [m, new Trend(freshConsistentMetric(m))])) as Record<FreshMethod, Trend>,
    reorgDepth: new Trend(FRESH_REORG_DEPTH),
  };
}

function fresh(): FreshMetrics {
  if (!metrics) throw new Error('fresh reads judged in a run without them (initFresh was not called)');
  return metrics;
}
const methodTags = Object.fromEntries(FRESH_METHODS.map((m) => [m, { m }])) as Record<FreshMethod, { m: FreshMethod }>;


const announced: Announced[] = [];
const orphans: Orphan[] = [];
/** Orphans whose transactions are asked again for this long after the reorg. */
const ORPHAN_ASKED_MS = 30_000;
/** Transactions of an orphaned block asked again (by hash, and their receipts). */
const ORPHAN_TXS = 2;
const logged = new Set<FreshMethod>();
let nextId = 1;

/**
 * One answer's result, its JSON-RPC error's code and message, or why no answer came (`failed`: an HTTP status other
 * than 200, a timeout, a transport error, a body that is no answer to this call). A failure is counted (`failed`)
 * and, for an announced block's object past the grace, judged like a null: never dropped.
 */
type Answer = { result: unknown } | { error: string } | { failed: string; limited?: true };
function answer(url: string, timeout: string, method: FreshMethod, params: unknown[], judged = true): Answer {
  const id = nextId++;
  const res = http.post(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }), { headers: JSON_HEADERS, tags: { name: method }, timeout });
  const fail = (why: string): Answer => {
    fresh().counters.failed.add(1, methodTags[method]);
    return { failed: why };
  };
  // A null is what is judged here, so the answer is read whatever the class sorting expects (classify keeps no null's envelope).
  if (res.status === 0) return fail(`no answer (${res.error || 'transport error'})`);
  let envelope: { id?: unknown; result?: unknown; error?: unknown } | undefined;
  try {
    envelope = typeof res.body === 'string' ? (JSON.parse(res.body) as typeof envelope) : undefined;
  } catch {
    envelope = undefined;
  }
  const e = envelope && typeof envelope === 'object' && envelope.error !== undefined ? (envelope.error as { code?: unknown; message?: unknown } | null) : undefined;
  const rpcError = e !== undefined ? `error ${String(e?.code)} ${JSON.stringify(String(e?.message ?? '')).slice(0, 80)}` : undefined;
  // A rate limit (HTTP 429, or the -32005 "limit exceeded" some services answer with 200) says nothing about freshness:
  // counted failed, never judged a stale read.
  if (res.status === 429 || String(e?.code) === '-32005') return { ...fail(`rate limited (HTTP ${res.status}${rpcError ? ` ${rpcError}` : ''})`), limited: true };
  if (res.status !== 200) return fail(`HTTP ${res.status}${rpcError ? ` ${rpcError}` : ''}`);
  if (!envelope || typeof envelope !== 'object' || envelope.id !== id) return fail('a body that is no answer to this call');
  if (rpcError) return { error: rpcError };
  if (!('result' in envelope)) return fail('an answer with neither result nor error');
  if (judged) fresh().counters.requests.add(1, methodTags[method]);
  return { result: envelope.result };
}

/** One answer's result; undefined when there was none to judge (an error, a timeout: counted `failed`, and the method scenarios count those).
 * `judged`: counted as a fresh request here (a `latest` answer is counted by judgeTagged, once it names a block). */
function ask(url: string, timeout: string, method: FreshMethod, params: unknown[], judged = true): { result: unknown } | undefined {
  const a = answer(url, timeout, method, params, judged);
  return 'result' in a ? a : undefined;
}

const quantity = (v: unknown): number | undefined => (typeof v === 'string' && /^0x[0-9a-f]+$/i.test(v) ? parseInt(v, 16) : undefined);
const hexOf = (n: number) => `0x${n.toString(16)}`;
const head = () => announced[announced.length - 1];
const pastGrace = (a: Announced, now: number, graceMs: number) => now - a.at > graceMs;

function stale(method: FreshMethod, why: string): void {
  fresh().counters.stale.add(1, methodTags[method]);
  if (!logged.has(method)) console.warn(`rpc-certify stale ${method} ${why}`);
  logged.add(method);
}

/** A wrong answer (another block's objects): a stale read at once, whatever the grace, and counted apart too. */
function wrong(method: FreshMethod, why: string): void {
  fresh().counters.wrong.add(1, methodTags[method]);
  stale(method, `wrong: ${why}`);
}

/** What an answer's block shows: its hash, and its transactions' hashes when it lists them. */
interface Shown {
  hash?: unknown;
  parentHash?: unknown;
  transactions?: unknown;
}

/** Learns what an answer showed of an announced block: its hash (when only eth_blockNumber had named it) and its transactions. */
function learn(a: Announced, block: Shown): void {
  if (a.hash === undefined && typeof block.hash === 'string') a.hash = block.hash;
  if (block.hash !== a.hash) return;
  if (a.txs === undefined && Array.isArray(block.transactions)) a.txs = block.transactions.filter((t): t is string => typeof t === 'string');
  if (a.parentHash === undefined && typeof block.parentHash === 'string') a.parentHash = block.parentHash;
}

/** A block a reorg took away at this height, if the hash is one. */
const orphanAt = (number: number, hash: unknown): Orphan | undefined => orphans.find((o) => o.number === number && o.hash === hash);

/** "block 12 0xab12…, which a reorg took away 3400 ms before (the endpoint's own chain has 0xcd34… there)". */
const orphanText = (o: Orphan, now: number) => `block ${o.number} ${o.hash.slice(0, 18)}…, which a reorg took away ${now - o.noticed} ms before (the endpoint's own chain has ${o.canonical.slice(0, 18)}… there)`;

/**
 * A block `latest` showed (with its parent's hash) against the blocks announced: another hash at an announced height
 * is a reorg, and so is a parent hash that is not the announced block below; the parent chain is followed down by
 * hash until it meets an announced block. Each announced block replaced becomes an orphan; the new one is asked again.
 */
function noticeFork(url: string, timeout: string, shown: { number: number; hash: string; parentHash?: string; transactions?: unknown }): void {
  const now = Date.now();
  let depth = 0;
  let cur: typeof shown | undefined = shown;
  for (let k = 0; cur && k < KEPT; k++) {
    const a = announced.find((x) => x.number === cur!.number);
    if (a?.hash !== undefined && a.hash !== cur.hash) {
      orphans.push({ number: a.number, hash: a.hash, canonical: cur.hash, ...(a.txs ? { txs: a.txs } : {}), noticed: now, settled: new Set() });
      if (orphans.length > KEPT) orphans.shift();
      // Asked again as the block now at that height; its time to visible is the first block's (recorded once).
      a.hash = cur.hash;
      delete a.txs;
      delete a.logs;
      delete a.parentHash;
      a.asked = false;
      a.reorg = { noticed: now, consistent: new Set() };
      learn(a, cur);
      depth++;
    } else if (k > 0) break;
    const below = announced.find((x) => x.number === cur!.number - 1);
    if (below?.hash === undefined || typeof cur.parentHash !== 'string' || below.hash === cur.parentHash) break;
    const parent = ask(url, timeout, 'eth_getBlockByHash', [cur.parentHash, false], false)?.result as { number?: unknown; hash?: unknown; parentHash?: unknown; transactions?: unknown } | null | undefined;
    const n = quantity(parent?.number);
    cur = parent && n === cur.number - 1 && typeof parent.hash === 'string' ? { number: n, hash: parent.hash, ...(typeof parent.parentHash === 'string' ? { parentHash: parent.parentHash } : {}), transactions: parent.transactions } : undefined;
  }
  if (depth === 0) return;
  fresh().counters.reorgs.add(1, methodTags.eth_getBlockByNumber);
  fresh().reorgDepth.add(depth);
}

/** The first answer consistent with a reorg's new fork, for a method: its time from the reorg, once. */
function consistentAfter(reorg: { noticed: number; consistent: Set<FreshMethod> } | undefined, method: FreshMethod, now: number): void {
  if (!reorg || reorg.consistent.has(method)) return;
  reorg.consistent.add(method);
  fresh().consistent[method].add(now - reorg.noticed);
}

/**
 * The block inside a `latest` answer, or an eth_blockNumber, against the announced head: newer announces (an
 * eth_blockNumber without its hash, which asking the block by number then learns), older past the grace is stale.
 */
function judgeLatest(method: FreshMethod, number: number, block: Shown | undefined, graceMs: number, url?: string, timeout?: string): void {
  const now = Date.now();
  // A block a reorg took away, named for `latest` past the grace: the orphaned fork, served by tag.
  const orphan = orphanAt(number, block?.hash);
  if (orphan) {
    if (now - orphan.noticed > graceMs) wrong(method, `answered ${orphanText(orphan, now)} for latest (grace ${graceMs} ms)`);
    return;
  }
  if (url && timeout && typeof block?.hash === 'string') noticeFork(url, timeout, { number, hash: block.hash, ...(typeof block.parentHash === 'string' ? { parentHash: block.parentHash } : {}), transactions: block.transactions });
  const top = head();
  if (top && number <= top.number) {
    const known = announced.find((a) => a.number === number);
    if (known && block) learn(known, block);
  }
  if (top && number < top.number) {
    // The newest announced block whose grace has passed: a `latest` below it lags.
    const due = [...announced].reverse().find((a) => pastGrace(a, now, graceMs));
    if (due && number < due.number) {
      fresh().counters.latestBehind.add(1, methodTags[method]);
      stale(method, `answered block ${number} for latest, below block ${due.number} announced ${now - due.at} ms before (grace ${graceMs} ms; announced head ${top.number})`);
    }
    return;
  }
  if (top && number <= top.number) return;
  const a: Announced = { number, at: now, seen: new Set() };
  if (block) learn(a, block);
  announced.push(a);
  if (announced.length > KEPT) announced.shift();
}

/** A receipt's or transaction's block, as it names it. */
const blockNamed = (o: unknown): { hash?: unknown; number?: number } => {
  const x = o as { blockHash?: unknown; blockNumber?: unknown } | null | undefined;
  return { hash: x?.blockHash, number: quantity(x?.blockNumber) };
};

/**
 * How one answer for an announced block's object reads: seen; missing (null, an error, a failure, fewer receipts
 * than the block's transactions: stale past the grace unless reorged); another block at that height (`other`: the
 * reorg rule); or `wrong` (another block's objects for a hash asked, or one named at another height): stale at once.
 */
type Reading = { seen: true } | { missing: string } | { other: string; hash: unknown } | { wrong: string } | { torn: string } | { unjudgeable: true };


/** An answer whose objects each name the block they are from (receipts, transactions), against the announced one. */
function namedBlock(a: Announced, objects: unknown[], by: AskedBy): Reading | undefined {
  for (const o of objects) {
    const { hash, number } = blockNamed(o);
    if (hash === a.hash && number === a.number) continue;
    const what = `answered an object of block ${String(number)} ${String(hash).slice(0, 18)}…`;
    if (by === 'own' || (by === 'number' && number === a.number && a.hash !== undefined)) return { other: what, hash };
    return { wrong: what };
  }
  return undefined;
}

function readBlock(a: Announced, result: unknown, byHash: boolean): Reading {
  if (result === null || typeof result !== 'object') return { missing: 'null' };
  const b = result as { hash?: unknown; number?: unknown; transactions?: unknown };
  if (quantity(b.number) !== a.number) return { wrong: `answered block ${String(quantity(b.number))}` };
  if (a.hash === undefined) {
    learn(a, b);
    return { seen: true };
  }
  if (b.hash !== a.hash) return byHash ? { wrong: `answered block hash ${String(b.hash).slice(0, 18)}…` } : { other: `answered another block ${String(b.hash).slice(0, 18)}… at that height`, hash: b.hash };
  learn(a, b);
  return { seen: true };
}

function readReceipts(a: Announced, result: unknown, by: AskedBy): Reading {
  if (!Array.isArray(result)) return { missing: 'null' };
  const named = namedBlock(a, result, by);
  if (named) return named;
  // `[]` (or fewer receipts) for a block whose transactions the VU holds is no sight of it.
  if (a.txs === undefined) return result.length ? { seen: true } : { unjudgeable: true };
  // An answer (not a null) that contradicts the block the endpoint itself listed: a torn read (a block published before its
  // receipts were indexed), wrong at any time, inside the grace too; asked by number, unless a reorg put another block there.
  const torn = result.length !== a.txs.length ? `answered ${result.length} receipts for a block of ${a.txs.length} transactions` : result.map(tornReceipt).find((x) => x !== undefined);
  if (torn) return by === 'hash' ? { wrong: `torn read: ${torn}` } : { torn: `torn read: ${torn}` };
  a.logs ??= result.map((r) => ((r as { logs?: unknown }).logs as unknown[]).length);
  return { seen: true };
}

const ZERO_BLOOM = /^0x0{512}$/i;
/** A receipt that contradicts itself as one read before its logs were indexed does: logs and a logsBloom that disagree on whether there are any. */
function tornReceipt(r: unknown, k: number): string | undefined {
  const x = r as { logs?: unknown; logsBloom?: unknown } | null;
  if (!Array.isArray(x?.logs) || typeof x.logsBloom !== 'string') return `receipt ${k} without its logs or logsBloom`;
  if (x.logs.length === 0 && !ZERO_BLOOM.test(x.logsBloom)) return `receipt ${k} has no logs but a logsBloom that is not empty`;
  if (x.logs.length > 0 && ZERO_BLOOM.test(x.logsBloom)) return `receipt ${k} has ${x.logs.length} logs but an empty logsBloom`;
  return undefined;
}

/** A transaction or receipt of the block's first transaction: its hash and its block's. */
function readTx(a: Announced, result: unknown, by: AskedBy): Reading {
  if (result === null || typeof result !== 'object') return { missing: 'null' };
  const o = result as { hash?: unknown; transactionHash?: unknown; blockHash?: unknown };
  // Still pending (no block yet): this endpoint does not know the block that holds it.
  if (o.blockHash === null || o.blockHash === undefined) return { missing: 'a transaction in no block' };
  const named = namedBlock(a, [o], by);
  if (named) return named;
  const tx = o.hash ?? o.transactionHash;
  if (a.txs?.[0] !== undefined && tx !== a.txs[0]) return { wrong: `answered transaction ${String(tx).slice(0, 18)}…, not ${a.txs[0].slice(0, 18)}…` };
  // A receipt (the block's first) against itself and against the block's receipts the endpoint already gave.
  if ('logsBloom' in o || 'logs' in o) {
    const logs = (o as { logs?: unknown }).logs;
    const torn = tornReceipt(o, 0) ?? (a.logs?.[0] !== undefined && Array.isArray(logs) && logs.length !== a.logs[0] ? `receipt 0 has ${logs.length} logs, eth_getBlockReceipts gave it ${a.logs[0]}` : undefined);
    if (torn) return by === 'hash' || by === 'own' ? { wrong: `torn read: ${torn}` } : { torn: `torn read: ${torn}` };
  }
  return { seen: true };
}

/**
 * Asks an announced block's objects, by number and by hash: a null (an error, a failed request, too few receipts)
 * past the grace is stale (or reorged), another block's objects are wrong, the first sight is its time to visible.
 */
function askObjects(url: string, timeout: string, a: Announced, graceMs: number): void {
  a.asked = true;
  // In OBJECT_ASKS' order: by number first, which learns the hash of a block only eth_blockNumber named, and its
  // transactions; an ask whose parameter the block cannot fill yet (no hash, no transaction) is left for a later round.
  for (const o of OBJECT_ASKS) {
    const params = o.fills.map((f) => fill(a, f));
    if (params.includes(undefined)) continue;
    judgeObject(url, timeout, a, graceMs, o.method, params, (r) => READERS[o.result as ReadableResult](a, r, o.by));
  }
}

/** A parameter as the announced block fills it; undefined when it cannot yet (its hash unknown, no transaction to index). */
function fill(a: Announced, f: Fill): unknown {
  switch (f) {
    case 'number':
      return hexOf(a.number);
    case 'hash':
      return a.hash;
    case 'firstTx':
      return a.txs?.[0];
    case 'index0':
      return a.txs?.[0] === undefined ? undefined : '0x0';
    case 'noDetails':
      return false;
  }
}

type ReadableResult = (typeof READABLE_RESULTS)[number];
/** A reader for each answer an ask can get (freshness.ts refuses a chased row whose result has none). */
const READERS: Record<ReadableResult, (a: Announced, result: unknown, by: AskedBy) => Reading> = {
  block: (a, r, by) => readBlock(a, r, by === 'hash'),
  'block-receipts': readReceipts,
  transaction: readTx,
  receipt: readTx,
};

function judgeObject(url: string, timeout: string, a: Announced, graceMs: number, method: FreshMethod, params: unknown[], read: (result: unknown) => Reading, again = false): void {
  const got = answer(url, timeout, method, params);
  if ('limited' in got) return;
  const now = Date.now();
  const reading: Reading = 'result' in got ? read(got.result) : { missing: 'error' in got ? got.error : got.failed };
  const of = `for ${params.map(String).join(', ')} of block ${a.number}, announced ${now - a.at} ms before (grace ${graceMs} ms)`;
  if ('unjudgeable' in reading) return;
  if ('wrong' in reading) return wrong(method, `${reading.wrong} ${of}`);
  // The block a reorg took away at this height, served by number: the orphaned fork, wrong past the grace from the reorg.
  const orphan = 'other' in reading ? orphanAt(a.number, reading.hash) : undefined;
  if (orphan) {
    if (now - orphan.noticed > graceMs) wrong(method, `answered ${orphanText(orphan, now)}, for ${params.map(String).join(', ')} (grace ${graceMs} ms)`);
    return;
  }
  if ('torn' in reading) {
    if (!reorged(url, timeout, a)) return wrong(method, `${reading.torn} ${of}`);
    fresh().counters.reorged.add(1, methodTags[method]);
    return;
  }
  if ('seen' in reading) {
    consistentAfter(a.reorg, method, now);
    if (!a.seen.has(method)) {
      a.seen.add(method);
      const ms = now - a.at;
      const b = bucketOf(ms);
      fresh().visible[method][groupOf(b)]?.add(1, { b: String(b) });
      fresh().visibleBounds[method].add(ms);
    }
    return;
  }
  // Within the grace a missing object is not judged (an error or a failure is not counted a fresh request either).
  if (!pastGrace(a, now, graceMs)) return;
  if (!('result' in got)) fresh().counters.requests.add(1, methodTags[method]);
  // Reorged out: the endpoint's block at that height is another one. Counted apart, never stale.
  if (reorged(url, timeout, a)) {
    fresh().counters.reorged.add(1, methodTags[method]);
    return;
  }
  if ('other' in reading) return wrong(method, `${reading.other} ${of}, while block ${a.number} is still the endpoint's`);
  // Asked once more a moment later before it is stale: a node applying a reorg answers null for a height for a moment
  // (anvil does); a backend that lacks the block past the grace lacks it then too.
  if (!again) {
    sleep(AGAIN_S);
    return judgeObject(url, timeout, a, graceMs, method, params, read, true);
  }
  stale(method, `answered ${reading.missing} ${of}`);
}

/** The pause before a missing object past the grace is asked once more. */
const AGAIN_S = 0.3;

/** The endpoint's block at the announced height has another hash (the announced one was reorged out). */
function reorged(url: string, timeout: string, a: Announced): boolean {
  if (a.hash === undefined) return false;
  const there = ask(url, timeout, 'eth_getBlockByNumber', [hexOf(a.number), false], false)?.result as { hash?: unknown } | null | undefined;
  return !!there && typeof there.hash === 'string' && there.hash !== a.hash;
}

/** A `latest`-tagged answer that names no block it was read at: counted apart, never as a fresh ok (freshness.ts). */
export function notJudgeable(method: FreshMethod): void {
  fresh().counters.notJudgeable.add(1, methodTags[method]);
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
  fresh().counters.requests.add(1, methodTags[method]);
  // Receipts at `latest` whose count disagrees with the block they name (when the VU holds its transactions).
  const txs = announced.find((a) => a.number === n && a.hash === o?.blockHash)?.txs;
  if (Array.isArray(result) && txs !== undefined && result.length !== txs.length) {
    wrong(method, `answered ${result.length} receipts for latest, block ${n} of ${txs.length} transactions`);
  }
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
    const above = ask(url, timeout, 'eth_getBlockByNumber', [hexOf(top.number + k), false])?.result as Shown & { number?: unknown } | null | undefined;
    const number = quantity(above?.number);
    if (!above || number === undefined || number <= top.number) return;
    judgeLatest('eth_getBlockByNumber', number, above, graceMs, url, timeout);
  }
}

export function freshRound(url: string, timeout: string, graceMs: number): void {
  const n = quantity(ask(url, timeout, 'eth_blockNumber', [])?.result);
  if (n !== undefined) judgeLatest('eth_blockNumber', n, undefined, graceMs);
  const latest = ask(url, timeout, 'eth_getBlockByNumber', ['latest', false])?.result as Shown & { number?: unknown } | null | undefined;
  const number = quantity(latest?.number);
  if (latest && number !== undefined) judgeLatest('eth_getBlockByNumber', number, latest, graceMs, url, timeout);
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
  // A block a reorg put in place is asked once more past the grace from the reorg: its by-number objects must be its own then.
  for (const a of announced) {
    if (a.reorg && !a.reorg.judged && a !== top && a !== due && now - a.reorg.noticed > graceMs) {
      a.reorg.judged = true;
      askObjects(url, timeout, a, graceMs);
    }
  }
  for (const o of orphans) if (now - o.noticed < ORPHAN_ASKED_MS) askOrphaned(url, timeout, o, graceMs);
  sleep(PAUSE_S);
}

/**
 * The transactions of a block a reorg took away, asked again by hash (and their receipts): an answer naming that block
 * past the grace from the reorg is a transaction index that was not rolled back (wrong); null (dropped) or another
 * block (mined again) is consistent.
 */
function askOrphaned(url: string, timeout: string, o: Orphan, graceMs: number): void {
  const txs = (o.txs ?? []).slice(0, ORPHAN_TXS);
  for (const method of ['eth_getTransactionByHash', 'eth_getTransactionReceipt'] as const) {
    if (o.settled.has(method) || txs.length === 0) continue;
    let answered = 0;
    let named = false;
    for (const tx of txs) {
      const got = answer(url, timeout, method, [tx]);
      if (!('result' in got)) continue;
      answered++;
      if (blockNamed(got.result).hash !== o.hash) continue;
      named = true;
      const now = Date.now();
      if (now - o.noticed > graceMs) {
        wrong(method, `answered ${tx.slice(0, 18)}… as in ${orphanText(o, now)} (grace ${graceMs} ms)`);
        o.settled.add(method);
      }
      break;
    }
    if (!named && answered === txs.length) {
      o.settled.add(method);
      fresh().consistent[method].add(Date.now() - o.noticed);
    }
  }
}
