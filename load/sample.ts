// Samples the load corpus from the endpoint: blocks spread over recent and older history, their
// transactions of every type, in-range indexes, eth_estimateGas replays of real transactions at their
// parent block, a deliberately reverting contract creation, and misses. Every distinct entry is tried
// once against the target first, so the corpus expects what the endpoint answers (history it prunes
// is left out, a miss it answers with an error is recorded as a deviation).
import { type Exchange, RpcClient, RpcError, TransportError } from '../conformance/framework/rpc-client.ts';
import { sha256Hex } from '../core/fingerprint.ts';
import { q, toQuantity } from '../core/hex.ts';
import { redact } from '../core/redact.ts';
import { errorStringPayload, HARNESS_REVERT_REASON, revertingInitCode } from '../core/revert.ts';
import type { Targets } from '../core/targets.ts';
import { answerDigest, IMMUTABLE_LOOKUPS } from './answer.ts';
import { type Classification, classify, type Expectation, metVerdict } from './classify.ts';
import { type Corpus, type CorpusEntry, composeEntries } from './corpus.ts';
import { METHODS, type RpcMethod } from './methods.ts';
import { createRng, type Rng } from './rng.ts';

export interface SampleOptions {
  url: string;
  /** Where to walk the chain, when not the target itself (a node that may serve history the target prunes). */
  referenceUrl?: string;
  seed: number;
  missShare: number;
  methods: readonly RpcMethod[];
  /** Fixture targets (uncles, seeded reverts) that a walk back from the head cannot reach. */
  targets?: Partial<Pick<Targets, 'reverts' | 'uncleBlock'>>;
}

/** The endpoint cannot be load-tested (unreachable, refuses the key, not JSON-RPC). */
export class EndpointError extends Error {}

interface RawTx {
  hash: string;
  type?: string;
  from: string;
  to: string | null;
  value: string;
  input: string;
  gas: string;
  blockNumber: string;
}
interface RawBlock {
  number: string;
  hash: string;
  uncles: string[];
  transactions: RawTx[];
}

/** Blocks fetched (with their transactions): the most recent ones, then older ones. */
const MAX_BLOCKS = 32;
const RECENT_BLOCKS = 12;
/** Entries per method: enough for the miss share to be exact to the percent, small enough to stay shared in k6. */
const ENTRIES_PER_METHOD = 200;
const MAX_DISTINCT_HITS = 48;
const MAX_DISTINCT_MISSES = 6;
/** Far enough past the head that a live chain does not reach it during a run. */
const PAST_HEAD = 1_000_000n;

export async function sampleCorpus(opts: SampleOptions): Promise<Corpus> {
  // The target answers the pre-flight, whose answers' fingerprints the corpus keeps.
  const target = new RpcClient({ url: opts.url, timeoutMs: 30_000, fingerprints: true });
  const reference = opts.referenceUrl ? new RpcClient({ url: opts.referenceUrl, timeoutMs: 30_000 }) : target;
  try {
    const chainId = await usable(target, 'eth_chainId', []);
    if (reference !== target && (await usable(reference, 'eth_chainId', [])) !== chainId) {
      throw new EndpointError('the reference endpoint serves a different chain than the target');
    }
    const head = q(await usable<string>(reference, 'eth_blockNumber', [])) ?? 0n;
    const rng = createRng(opts.seed);
    const blocks = await fetchBlocks(reference, chainSpread(head, MAX_BLOCKS, rng));
    const candidates = buildCandidates(blocks, head, rng, opts.targets);

    const corpus: Corpus = {
      version: 2,
      seed: opts.seed,
      missShare: opts.missShare,
      chainId,
      head: toQuantity(head),
      blocksSampled: blocks.length,
      entries: Object.fromEntries(METHODS.map((m) => [m, []])) as unknown as Corpus['entries'],
      deviations: [],
      dropped: {},
    };
    for (const method of opts.methods) {
      const pool = candidates[method];
      const hits = await preflight(target, method, rng.shuffle(pool.hits).slice(0, MAX_DISTINCT_HITS), corpus);
      const misses = await preflight(target, method, rng.shuffle(pool.misses).slice(0, MAX_DISTINCT_MISSES), corpus);
      corpus.entries[method] = composeEntries(hits, misses, ENTRIES_PER_METHOD, opts.missShare, rng);
    }
    return corpus;
  } finally {
    target.close();
    if (reference !== target) reference.close();
  }
}

async function usable<T = string>(client: RpcClient, method: string, params: unknown[]): Promise<T> {
  try {
    return await client.call<T>(method, params);
  } catch (e) {
    if (e instanceof TransportError) throw new EndpointError(redact(`${method}: ${e.message}${e.exchange.httpStatus ? ` (HTTP ${e.exchange.httpStatus})` : ''}`));
    if (e instanceof RpcError) throw new EndpointError(redact(`${method}: ${e.message}`));
    throw e;
  }
}

/** The most recent blocks, then older ones at log-uniform distances from the head: recent history weighs more. */
function chainSpread(head: bigint, maxBlocks: number, rng: Rng): bigint[] {
  const numbers = new Set<bigint>();
  for (let n = head; n >= 0n && head - n < BigInt(RECENT_BLOCKS) && numbers.size < maxBlocks; n--) numbers.add(n);
  const span = Number(head);
  for (let tries = 0; numbers.size < maxBlocks && span > RECENT_BLOCKS && tries < maxBlocks * 4; tries++) {
    const distance = Math.floor(Math.exp(Math.log(RECENT_BLOCKS) + rng.next() * (Math.log(span + 1) - Math.log(RECENT_BLOCKS))));
    numbers.add(head - BigInt(Math.min(distance, span)));
  }
  return [...numbers];
}

async function fetchBlocks(client: RpcClient, numbers: bigint[]): Promise<RawBlock[]> {
  const blocks = await Promise.all(numbers.map((n) => client.call<RawBlock | null>('eth_getBlockByNumber', [toQuantity(n), true]).catch(() => null)));
  return blocks.filter((b): b is RawBlock => b !== null && typeof b === 'object' && Array.isArray(b.transactions));
}

type Pools = Record<RpcMethod, { hits: CorpusEntry[]; misses: CorpusEntry[] }>;

function buildCandidates(blocks: RawBlock[], head: bigint, rng: Rng, targets: SampleOptions['targets']): Pools {
  const pools = Object.fromEntries(METHODS.map((m) => [m, { hits: [], misses: [] }])) as unknown as Pools;
  const hit = (m: RpcMethod, params: unknown[], note: string, expect: Expectation['expect'] = 'value') => pools[m].hits.push({ params, note, expect, miss: false });
  const miss = (m: RpcMethod, params: unknown[], note: string, expectation: Expectation = { expect: 'null' }) =>
    pools[m].misses.push({ params, note: `miss: ${note}`, ...expectation, miss: true });
  const pastHead = toQuantity(head + PAST_HEAD);
  const age = (b: RawBlock) => (head - (q(b.number) ?? 0n) < BigInt(RECENT_BLOCKS) ? 'recent block' : 'older block');

  for (const b of blocks) {
    const txs = b.transactions.filter((t) => typeof t === 'object');
    hit('eth_getBlockByHash', [b.hash, rng.next() < 0.5], age(b));
    hit('eth_getBlockReceipts', [b.number], age(b));
    for (const [m, ref] of [['eth_getUncleByBlockNumberAndIndex', b.number], ['eth_getUncleByBlockHashAndIndex', b.hash]] as const) {
      // Post-merge blocks have no uncles: the realistic uncle query then answers null.
      if (b.uncles.length === 0) hit(m, [ref, '0x0'], 'block without uncles', 'null');
      b.uncles.forEach((_, i) => hit(m, [ref, toQuantity(i)], 'uncle'));
      miss(m, [ref, toQuantity(b.uncles.length + 1)], 'uncle index out of range');
    }
    if (txs.length > 0) {
      for (let i = 0; i < Math.min(3, txs.length); i++) hit('eth_getTransactionByBlockNumberAndIndex', [b.number, toQuantity(rng.int(txs.length))], age(b));
      miss('eth_getTransactionByBlockNumberAndIndex', [b.number, toQuantity(txs.length)], 'index out of range');
    }
    for (const tx of txs) {
      const type = `tx type ${tx.type ?? '0x0'}`;
      hit('eth_getTransactionByHash', [tx.hash], type);
      hit('eth_getTransactionReceipt', [tx.hash], type);
      const blockNumber = q(tx.blockNumber) ?? 0n;
      if (blockNumber > 0n) hit('eth_estimateGas', [replayCall(tx), toQuantity(blockNumber - 1n)], tx.to === null ? 'replay of a creation' : `replay of ${type}`);
    }
  }
  hit('eth_getBlockReceipts', ['latest'], 'latest');
  for (let i = 0; i < MAX_DISTINCT_MISSES; i++) {
    const unknown = rng.hex(32);
    miss('eth_getBlockByHash', [unknown, false], 'unknown block hash');
    miss('eth_getUncleByBlockHashAndIndex', [unknown, '0x0'], 'unknown block hash');
    miss('eth_getTransactionByHash', [unknown], 'unknown tx hash');
    miss('eth_getTransactionReceipt', [unknown], 'unknown tx hash');
  }
  miss('eth_getUncleByBlockNumberAndIndex', [pastHead, '0x0'], 'block past head');
  miss('eth_getTransactionByBlockNumberAndIndex', [pastHead, '0x0'], 'block past head');
  miss('eth_getBlockReceipts', [pastHead], 'block past head');
  // A revert needs no deployed contract: a creation whose init code reverts with a chosen Error(string).
  miss('eth_estimateGas', [{ data: revertingInitCode(errorStringPayload(HARNESS_REVERT_REASON)) }, 'latest'], 'init code reverts', { expect: 'error', errorCode: 3 });

  for (const r of targets?.reverts ?? []) {
    miss('eth_estimateGas', [{ ...(r.to ? { to: r.to } : {}), data: r.data }, 'latest'], `${r.kind} revert`, { expect: 'error', errorCode: 3 });
  }
  const uncleBlock = targets?.uncleBlock;
  for (let i = 0; uncleBlock && i < uncleBlock.uncleCount; i++) {
    hit('eth_getUncleByBlockNumberAndIndex', [uncleBlock.number, toQuantity(i)], 'fixture uncle');
    hit('eth_getUncleByBlockHashAndIndex', [uncleBlock.hash, toQuantity(i)], 'fixture uncle');
  }
  return pools;
}

/** The call object of a real transaction; `data` is the service spec's name for the input. */
function replayCall(tx: RawTx): Record<string, string> {
  return { from: tx.from, ...(tx.to ? { to: tx.to } : {}), value: tx.value, data: tx.input, gas: tx.gas };
}

/** Tries each entry once; keeps it with the expectation the endpoint meets (and the fingerprint of that answer), or leaves it out. */
async function preflight(client: RpcClient, method: RpcMethod, entries: CorpusEntry[], corpus: Corpus): Promise<CorpusEntry[]> {
  const tried = await Promise.all(entries.map(async (entry) => ({ entry, ex: await client.exchange(method, entry.params) })));
  const kept: CorpusEntry[] = [];
  for (const { entry, ex } of tried) {
    const outcome = outcomeOf(ex);
    const keep = keptAs(method, entry, classify(outcome, entry), corpus);
    if (!keep) corpus.dropped[method] = (corpus.dropped[method] ?? 0) + 1; // e.g. history or state the endpoint does not serve
    // Under load, the fingerprint stands for the verdict this answer gets under the kept expectation.
    else if (ex.replyFingerprint && sameVerdict(classify(outcome, keep), metVerdict(keep))) kept.push({ ...keep, reply: ex.replyFingerprint });
    else kept.push(keep);
  }
  return kept;
}

/** The entry as the corpus keeps it, given how the endpoint answered it; undefined to leave it out. */
function keptAs(method: RpcMethod, entry: CorpusEntry, verdict: Classification, corpus: Corpus): CorpusEntry | undefined {
  const code = verdict.code;
  if (verdict.cls === 'ok' && IMMUTABLE_LOOKUPS.includes(method)) return { ...entry, answer: answerDigest(verdict.envelope?.result, sha256Hex) };
  if (verdict.cls === 'ok' || verdict.cls === 'ok_null' || verdict.cls === 'ok_error') return entry;
  if (verdict.cls === 'rpc_error' && code !== undefined && entry.miss) {
    // A miss answered with an error instead of null, or a revert with another code: a deviation, kept as measured.
    note(corpus, `${method}: ${entry.note} answered with JSON-RPC error ${code}, expected ${entry.expect === 'null' ? 'null' : `error ${entry.errorCode}`}`);
    return { ...entry, expect: 'error', errorCode: code };
  }
  // A replay that reverts at its parent state (a failed tx, or one that depended on earlier txs of its block).
  if (verdict.cls === 'rpc_error' && code === 3 && method === 'eth_estimateGas') return { ...entry, expect: 'error', errorCode: code, note: `${entry.note} (reverts)` };
  return undefined;
}

const sameVerdict = (a: Classification, b: Classification) => a.cls === b.cls && a.code === b.code;

function note(corpus: Corpus, deviation: string): void {
  if (!corpus.deviations.includes(deviation)) corpus.deviations.push(deviation);
}

function outcomeOf(ex: Exchange): { status: number; body: string | null; timedOut: boolean } {
  const status = ex.fault === 'unreachable' || ex.fault === 'timeout' ? 0 : (ex.httpStatus ?? 0);
  const body = ex.body !== undefined ? JSON.stringify(ex.body) : (ex.bodyText ?? null);
  return { status, body, timedOut: ex.fault === 'timeout' };
}
