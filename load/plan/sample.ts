// Samples the load corpus from the endpoint: blocks spread over recent and older history, their
// transactions of every type, in-range indexes, eth_estimateGas replays of real transactions at their
// parent block, a plain transfer and a deliberately reverting contract creation, and misses. Every
// distinct entry is tried once against the target first. What it must answer follows from its kind
// (corpus.ts), never from what the endpoint said: an answer that contradicts its kind is a finding and the
// entry stays in the corpus as what it is (so the load measures it failing); history the endpoint prunes,
// a replay that fails at its parent state and a request that got no answer are left out, counted by
// reason. A method none of whose entries (none of whose hits, when it had any) answered right is not served.
// Lateness is judged by the fresh-read rules (shared/freshness.ts), in the open: a hit the target does not know
// although the head it itself announced covers it is asked again once the grace has passed since that announcement,
// and a finding if still unknown (unless its block was reorged out); one above the target's own head is target lag,
// recorded (blocks behind the reference, entries affected) and left out, never counted correct.
import { type Exchange, RpcClient, RpcError, TransportError } from '../../core/node/rpc-client.ts';
import { otherGenesis } from '../../core/node/same-chain.ts';
import { EndpointError } from '../../core/node/errors.ts';
import { sha256Hex } from '../../core/node/fingerprint.ts';
import { q, toQuantity } from '../../core/hex.ts';
import { redact } from '../../core/redact.ts';
import { clip } from '../../core/inert.ts';
import { errorStringPayload, HARNESS_REVERT_REASON, revertingInitCode } from '../../core/revert.ts';
import type { Targets } from '../../core/targets.ts';
import { answerDigest, IMMUTABLE_LOOKUPS } from '../shared/answer.ts';
import { anchored, anchorOf, aroundSampled, boundsFault, boundsOf, GAS_CAP_BLOCKS } from '../shared/bounds.ts';
import { type Classification, classify } from '../shared/classify.ts';
import { type Corpus, type CorpusEntry, composeEntries, type DepthSampled, type EntryKind, expectationOf, type Finding, type MethodSampling, onMissSide, type TargetHead } from '../shared/corpus.ts';
import { DEFAULT_GRACE_MS } from '../shared/freshness.ts';
import { type MethodFacts, METHODS, METHOD_FACTS, type RpcMethod } from '../../core/methods.ts';
import { nearHeadWindowOf } from '../../core/networks.ts';
import { windowEdge, windowMargin } from '../../core/near-head-window.ts';
import { createRng, type Rng } from '../shared/rng.ts';
import { shapeFault } from '../shared/shapes.ts';
import { notKept } from '../../core/not-kept.ts';
import { DEPTH_STRATA, STRATA, stratumOf } from '../../core/history.ts';
import { type NamedBlock, namedBlockFault, namedHash, namesLatest, noneNamedFault } from '../shared/named-block.ts';

export interface SampleOptions {
  url: string;
  /** Where to walk the chain, when not the target itself (a node that may serve history the target prunes). */
  referenceUrl?: string;
  seed: number;
  missShare: number;
  methods: readonly RpcMethod[];
  /** Fixture targets (uncles, seeded reverts) that a walk back from the head cannot reach. */
  targets?: Partial<Pick<Targets, 'reverts' | 'uncleBlock'>>;
  /** Ctrl-C: every call in flight ends at once. */
  signal?: AbortSignal;
  /** How long after the target announced a block it may still not know it (default: the fresh reads' grace). */
  graceMs?: number;
  /** --near-head-window N (§8): wins over the network's own (fixtures/networks.json). */
  nearHeadWindow?: number;
}

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
  gasLimit?: string;
  transactions: RawTx[];
}

/** Blocks fetched (with their transactions): the most recent ones, then older ones. */
const MAX_BLOCKS = 32;
const RECENT_BLOCKS = 12;
/** Entries per method: enough for the miss share to be exact to the percent, small enough to stay shared in k6. */
export const ENTRIES_PER_METHOD = 200;
const MAX_DISTINCT_HITS = 48;
const MAX_DISTINCT_MISSES = 6;
/** Far enough past the head that a live chain does not reach it during a run. */
const PAST_HEAD = 1_000_000n;
/** Blocks this deep are final whatever the endpoint's "finalized" tag says: no reorg this deep happens on the chains
 * served; nearer the head an answer by number may change, and only its bounds (bounds.ts) are checked. */
const REORG_DEPTH = 3n;
/** Two addresses no key controls: a plain transfer between them estimates on any EVM chain. */
const TRANSFER = { from: '0x000000000000000000000000000000000000dEaD', to: '0x0000000000000000000000000000000000000001', value: '0x0' };

/** The answer time a corpus records of its target (Corpus.latencyMs): the 90th percentile of the answers' times, to 0.1 ms. */
export function answerTimeMs(times: readonly number[]): number | undefined {
  const p90 = [...times].sort((x, y) => x - y)[Math.floor(times.length * 0.9)];
  return p90 === undefined ? undefined : Math.round(p90 * 10) / 10;
}

export async function sampleCorpus(opts: SampleOptions): Promise<Corpus> {
  // The target answers the pre-flight, whose answers' fingerprints the corpus keeps.
  const stop = opts.signal ? { signal: opts.signal } : {};
  // Each answer's time, for the plan's VUs (profiles.ts): one number a request of sampling, a few hundred.
  const times: number[] = [];
  const target = new RpcClient({ url: opts.url, timeoutMs: 30_000, fingerprints: true, onAnswer: (_ex, askedAt, answeredAt) => void times.push(answeredAt - askedAt), ...stop });
  const reference = opts.referenceUrl ? new RpcClient({ url: opts.referenceUrl, timeoutMs: 30_000, ...stop }) : target;
  try {
    const chainId = await usable(target, 'eth_chainId', []);
    if (reference !== target && (await usable(reference, 'eth_chainId', [])) !== chainId) {
      throw new EndpointError('the reference endpoint serves a different chain than the target');
    }
    const other = reference !== target ? await otherGenesis(target, reference) : undefined;
    if (other) throw new EndpointError(other);
    const head = q(await usable<string>(reference, 'eth_blockNumber', [])) ?? 0n;
    // The target's own announced head, read after the reference's: an honest target on the same chain is not below it.
    const heads = new TargetHeads();
    heads.add(reference === target ? head : q(await usable<string>(target, 'eth_blockNumber', [])));
    const finalBlock = await finalBlockOf(reference, head);
    const rng = createRng(opts.seed);
    const { blocks, pruned } = await fetchBlocks(reference, chainSpread(head, MAX_BLOCKS, rng));
    // A declared near-head window (§8): the methods it limits are sampled inside it, a quarter clear of its edge,
    // so the chain moving during the run does not carry their hits out (archive the endpoint need not serve).
    const window = nearHeadWindowOf(chainId, opts.nearHeadWindow);
    const windowFloor = window ? windowEdge(head, window.blocks) + BigInt(windowMargin(window.blocks)) : undefined;
    const candidates = buildCandidates(blocks, { head, finalBlock }, rng, opts.targets, windowFloor);
    const hashes = new Map(blocks.map((b) => [q(b.number) ?? -1n, b.hash]));

    const headLimit = q(blocks.find((b) => q(b.number) === head)?.gasLimit);
    const gasCap = headLimit === undefined ? undefined : headLimit * GAS_CAP_BLOCKS;

    const corpus: Corpus = {
      version: 3,
      seed: opts.seed,
      missShare: opts.missShare,
      chainId,
      head: toQuantity(head),
      ...(finalBlock === undefined ? {} : { finalBlock: toQuantity(finalBlock) }),
      blocksSampled: blocks.length,
      depth: depthOf(head, blocks, pruned),
      ...(window ? { nearHeadWindow: window.blocks } : {}),
      entries: Object.fromEntries(METHODS.map((m) => [m, []])) as unknown as Corpus['entries'],
      sampling: {},
    };
    for (const method of opts.methods) {
      const pool = candidates[method];
      const tried = [...rng.shuffle(pool.hits).slice(0, MAX_DISTINCT_HITS), ...rng.shuffle(pool.misses).slice(0, MAX_DISTINCT_MISSES)];
      // Re-read before each method: the chain moves during sampling, and a head going back is a node behind another.
      heads.add(q(await target.call<string>('eth_blockNumber', []).catch(() => undefined)));
      const { kept, sampling } = await preflight(target, method, tried, { head, finalBlock, gasCap, heads, hashes, graceMs: opts.graceMs ?? DEFAULT_GRACE_MS });
      corpus.entries[method] = composeEntries(
        kept.filter((e) => !onMissSide(e.kind)),
        kept.filter((e) => onMissSide(e.kind)),
        ENTRIES_PER_METHOD,
        opts.missShare,
        rng,
      );
      corpus.sampling[method] = sampling;
    }
    const targetHead = heads.record(head);
    if (targetHead) corpus.targetHead = targetHead;
    const p90 = answerTimeMs(times);
    if (p90 !== undefined) corpus.latencyMs = p90;
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

/** The target's eth_blockNumber readings during sampling, each with when it was read: the heads it announced. */
class TargetHeads {
  private readonly readings: Array<{ number: bigint; at: number }> = [];
  add(n: bigint | undefined): void {
    if (n !== undefined) this.readings.push({ number: n, at: Date.now() });
  }
  /** The highest head it announced so far. */
  top(): bigint | undefined {
    return this.readings.reduce<bigint | undefined>((a, r) => (a === undefined || r.number > a ? r.number : a), undefined);
  }
  /** When it first announced a head at or above `block` (ms since the epoch). */
  announcedAt(block: bigint): number | undefined {
    return this.readings.find((r) => r.number >= block)?.at;
  }
  /** What it announced, against the reference's head when sampling began. */
  record(referenceHead: bigint): TargetHead | undefined {
    const first = this.readings[0];
    const top = this.top();
    if (!first || top === undefined) return undefined;
    let high = first.number;
    let wentBack = 0n;
    for (const r of this.readings) {
      if (high - r.number > wentBack) wentBack = high - r.number;
      if (r.number > high) high = r.number;
    }
    const behind = referenceHead > first.number ? referenceHead - first.number : 0n;
    return { head: toQuantity(top), behindReference: Number(behind), wentBack: Number(wentBack) };
  }
}

/** The highest block no reorg moves: the endpoint's "finalized" block, or the head less a margin where that is deeper; none on a short chain. */
async function finalBlockOf(client: RpcClient, head: bigint): Promise<bigint | undefined> {
  const finalized = await client.call<{ number?: unknown } | null>('eth_getBlockByNumber', ['finalized', false]).catch(() => null);
  const tagged = typeof finalized?.number === 'string' ? q(finalized.number) : undefined;
  const deep = head >= REORG_DEPTH ? head - REORG_DEPTH : undefined;
  const candidates = [tagged !== undefined && tagged <= head ? tagged : undefined, deep].filter((n): n is bigint => n !== undefined);
  return candidates.length ? candidates.reduce((a, b) => (a > b ? a : b)) : undefined;
}

/**
 * The most recent blocks, then blocks drawn evenly within each depth stratum the chain reaches (128, 1k, 10k, 100k, 1M
 * blocks back: core/history.ts), each stratum an equal share: the load measures cold history beside the head.
 */
function chainSpread(head: bigint, maxBlocks: number, rng: Rng): bigint[] {
  const numbers = new Set<bigint>();
  for (let n = head; n >= 0n && head - n < BigInt(RECENT_BLOCKS) && numbers.size < maxBlocks; n--) numbers.add(n);
  const strata = DEPTH_STRATA.map((from, i) => ({ from: Math.max(from, RECENT_BLOCKS), to: Math.min(DEPTH_STRATA[i + 1] ?? Infinity, Number(head) + 1) })).filter((s) => s.from < s.to);
  const share = Math.floor((maxBlocks - numbers.size) / Math.max(1, strata.length));
  for (const s of strata) {
    const goal = numbers.size + Math.min(share, s.to - s.from);
    for (let tries = 0; numbers.size < goal && tries < share * 4; tries++) numbers.add(head - BigInt(s.from + rng.int(s.to - s.from)));
  }
  return [...numbers];
}

/** The blocks served, and the numbers answered as pruned history: error 4444 and its kin, or null (the numbers are at
 * or below the head, so null is a block the endpoint does not serve). Any other failure is neither. */
async function fetchBlocks(client: RpcClient, numbers: bigint[]): Promise<{ blocks: RawBlock[]; pruned: bigint[] }> {
  const PRUNED = Symbol('pruned');
  const answers = await Promise.all(
    numbers.map((n) =>
      client.call<RawBlock | null>('eth_getBlockByNumber', [toQuantity(n), true]).then(
        (b) => b ?? PRUNED,
        (e: unknown) => (e instanceof RpcError && notKept(e.code, e.rpcMessage) ? PRUNED : undefined),
      ),
    ),
  );
  return {
    blocks: answers.filter((b): b is RawBlock => typeof b === 'object' && b !== null && Array.isArray(b.transactions)),
    pruned: numbers.filter((_, i) => answers[i] === PRUNED),
  };
}

/** The blocks sampled per depth stratum, and those answered pruned (Corpus.depth). */
function depthOf(head: bigint, blocks: RawBlock[], pruned: bigint[]): DepthSampled[] {
  const out = new Map<string, DepthSampled>();
  const at = (n: bigint) => {
    const stratum = stratumOf(Number(head - n));
    return out.get(stratum) ?? (out.set(stratum, { stratum, blocks: 0, pruned: 0 }).get(stratum) as DepthSampled);
  };
  for (const b of blocks) at(q(b.number) ?? 0n).blocks++;
  for (const n of pruned) at(n).pruned++;
  return STRATA.flatMap((s) => out.get(s) ?? []);
}

/** A candidate entry, with the block whose data it looks up, and whether it names that block by number. */
interface Candidate extends CorpusEntry {
  block?: bigint;
  byNumber?: boolean;
}
/** Where the chain stood at sampling. */
interface ChainPoint {
  head: bigint;
  finalBlock: bigint | undefined;
  /** The most an estimate may be: the cap the spec puts on gas (bounds.ts), from the head's gas limit. */
  gasCap: bigint | undefined;
  /** The heads the target itself announced, and the sampled blocks' hashes by number (to tell a reorg). */
  heads: TargetHeads;
  hashes: ReadonlyMap<bigint, string>;
  graceMs: number;
}
type Pools = Record<RpcMethod, { hits: Candidate[]; misses: Candidate[] }>;

function buildCandidates(blocks: RawBlock[], chain: Pick<ChainPoint, 'head' | 'finalBlock'>, rng: Rng, targets: SampleOptions['targets'], windowFloor?: bigint): Pools {
  const { head, finalBlock } = chain;
  const pools = Object.fromEntries(METHODS.map((m) => [m, { hits: [], misses: [] }])) as unknown as Pools;
  // Below the window's floor, a method the window limits gets no hit (its misses are unknown hashes: anywhere).
  const outside = (m: RpcMethod, at?: { block: string }) => windowFloor !== undefined && METHOD_FACTS[m].windowed && at !== undefined && (q(at.block) ?? 0n) < windowFloor;
  const add = (m: RpcMethod, kind: EntryKind, params: unknown[], note: string, at?: { block: string; byNumber?: boolean }) =>
    outside(m, at) ||
    pools[m][onMissSide(kind) ? 'misses' : 'hits'].push({
      params,
      note: kind === 'miss' ? `miss: ${note}` : note,
      kind,
      ...(at ? { block: q(at.block) ?? 0n, byNumber: at.byNumber === true } : {}),
      // The depth stratum a hit reads from (the head for `latest`): the load's figures per depth.
      ...(kind !== 'hit' ? {} : at ? { depth: stratumOf(Number(head - (q(at.block) ?? 0n))) } : params.includes('latest') ? { depth: stratumOf(0) } : {}),
      // Under load, such a hit answered null or an error once its block has left the window is archive, not judged.
      ...(windowFloor !== undefined && METHOD_FACTS[m].windowed && kind === 'hit' && at ? { windowBlock: at.block } : {}),
    });
  const pastHead = toQuantity(head + PAST_HEAD);
  // Hits with equal notes form a stratum composeEntries puts first: one per depth stratum.
  const age = (b: RawBlock) => {
    const depth = Number(head - (q(b.number) ?? 0n));
    return depth < RECENT_BLOCKS ? 'recent block' : `older block (${stratumOf(depth)} deep)`;
  };

  // Every method from its row (core/methods.ts): what its first parameter names says where its hits and misses come
  // from; a call object (eth_estimateGas) is the one recipe the table cannot give (replays, a transfer, reverts).
  const rows = METHODS.map((m) => ({ m, f: METHOD_FACTS[m] }));
  // The parameters after the first: the index given, the details flag given or at random (hits ask both ways).
  const rest = (f: MethodFacts, index?: string, flag?: boolean) => f.params.slice(1).map((k) => (k === 'index' ? index : k === 'flag' ? (flag ?? rng.next() < 0.5) : undefined));
  for (const b of blocks) {
    const txs = b.transactions.filter((t) => typeof t === 'object');
    // A null due by number (no uncle there, an index past the last transaction) holds only while the block at that
    // number stays the one sampled: a value is `wrong` and fails the run, so only final blocks give such entries.
    const final = finalBlock !== undefined && (q(b.number) ?? head) <= finalBlock;
    for (const { m, f } of rows) {
      const [anchor] = f.params;
      if (anchor === 'txHash') {
        for (const tx of txs) add(m, 'hit', [tx.hash, ...rest(f)], `tx type ${tx.type ?? '0x0'}`, { block: b.number });
        continue;
      }
      if (anchor !== 'block' && anchor !== 'blockHash') continue;
      const byNumber = anchor === 'block';
      const ref = byNumber ? b.number : b.hash;
      const at = { block: b.number, byNumber };
      if (!f.params.includes('index')) {
        add(m, 'hit', [ref, ...rest(f)], age(b), at);
        continue;
      }
      // The collection an index runs over: a block's uncles for an uncle, its transactions otherwise.
      const [items, what] = f.result === 'uncle' ? [b.uncles.length, 'uncle'] : [txs.length, 'transaction'];
      const nullDue = !byNumber || final;
      // Post-merge blocks have no uncles: the realistic uncle query then answers null.
      if (items === 0 && nullDue) add(m, 'empty', [ref, ...rest(f, '0x0')], `block without ${what}s`);
      for (const i of indexes(items, rng)) add(m, 'hit', [ref, ...rest(f, toQuantity(i))], f.result === 'uncle' ? 'uncle' : age(b), at);
      if (items > 0 && nullDue) add(m, 'miss', [ref, ...rest(f, toQuantity(items))], `${what} index out of range`);
    }
    for (const tx of txs) {
      const blockNumber = q(tx.blockNumber) ?? 0n;
      const parent = toQuantity(blockNumber - 1n);
      if (blockNumber === 0n) continue;
      for (const { m } of rows.filter(({ f }) => f.params[0] === 'call')) add(m, 'hit', [replayCall(tx), parent], tx.to === null ? REPLAY_OF_CREATION : `${REPLAY} tx type ${tx.type ?? '0x0'}`, { block: parent, byNumber: true });
    }
  }
  for (const { m, f } of rows) {
    const [anchor] = f.params;
    if (anchor === 'call') {
      add(m, 'hit', [TRANSFER, 'latest'], 'plain transfer');
      // A revert needs no deployed contract: a creation whose init code reverts with a chosen Error(string).
      add(m, 'revert', [{ data: revertingInitCode(errorStringPayload(HARNESS_REVERT_REASON)) }, 'latest'], 'init code reverts');
      for (const r of targets?.reverts ?? []) add(m, 'revert', [{ ...(r.to ? { to: r.to } : {}), data: r.data }, 'latest'], `${r.kind} revert`);
      continue;
    }
    if (anchor === 'block') {
      if (f.tags.includes('latest') && !f.params.includes('index')) add(m, 'hit', ['latest', ...rest(f)], 'latest');
      add(m, 'miss', [pastHead, ...rest(f, '0x0', false)], 'block past head');
    } else {
      for (let i = 0; i < MAX_DISTINCT_MISSES; i++) add(m, 'miss', [rng.hex(32), ...rest(f, '0x0', false)], anchor === 'txHash' ? 'unknown tx hash' : 'unknown block hash');
    }
    // Uncles a walk back from the head does not meet (a pre-merge fixture): asked by the fixture block's number or hash.
    const uncleBlock = targets?.uncleBlock;
    if (f.result !== 'uncle' || !uncleBlock) continue;
    for (let i = 0; i < uncleBlock.uncleCount; i++) add(m, 'hit', [anchor === 'block' ? uncleBlock.number : uncleBlock.hash, toQuantity(i)], 'fixture uncle', anchor === 'block' ? { block: uncleBlock.number, byNumber: true } : undefined);
  }
  return pools;
}

/** The indexes sampled in a collection of `n`: each of a small one, three at random of a larger one. */
function indexes(n: number, rng: Rng): number[] {
  return n <= 3 ? Array.from({ length: n }, (_, i) => i) : [rng.int(n), rng.int(n), rng.int(n)];
}

const REPLAY = 'replay of';
/** How sampling names a hit left out because the endpoint answered it as pruned history. */
const NOT_KEPT_REJECT = 'history not kept';
const REPLAY_OF_CREATION = `${REPLAY} a creation`;

/** The call object of a real transaction; `data` is the service spec's name for the input. */
function replayCall(tx: RawTx): Record<string, string> {
  return { from: tx.from, ...(tx.to ? { to: tx.to } : {}), value: tx.value, data: tx.input, gas: tx.gas };
}

/** What one sampled answer makes of its entry. */
type Judged = { keep: CorpusEntry } | { reject: string } | { finding: Omit<Finding, 'count'> } | { lag: string };

/** Answers that do not know what was asked: the target may not have the block (yet). */
const UNKNOWN: ReadonlySet<string> = new Set(['null_unexpected', 'rpc_error']);

/** Tries each entry once and judges its answer against the entry's kind. */
async function preflight(client: RpcClient, method: RpcMethod, candidates: Candidate[], chain: ChainPoint): Promise<{ kept: CorpusEntry[]; sampling: MethodSampling }> {
  const announced = chain.heads.top();
  const tried = await Promise.all(candidates.map((c) => askJudged(client, method, c, announced, chain)));
  const kept: CorpusEntry[] = [];
  const sampling: MethodSampling = { status: 'served', tried: {}, correct: {}, rejected: {}, findings: [] };
  let lateWithinGrace = 0;
  for (const { c, ex, verdict, late, reorged } of tried) {
    const { block, byNumber, ...entry } = c;
    const judged: Judged = reorged
      ? { reject: 'block reorged out at sampling (another hash at its height)' }
      : judge(method, entry, verdict, ex, chain.gasCap, {
          final: byNumber === true && block !== undefined && chain.finalBlock !== undefined && block <= chain.finalBlock,
          nearHead: block !== undefined && chain.head - block < REORG_DEPTH,
          aboveTargetHead: block !== undefined && announced !== undefined && block > announced,
        });
    sampling.tried[entry.kind] = (sampling.tried[entry.kind] ?? 0) + 1;
    if (entry.depth !== undefined) {
      const d = ((sampling.depth ??= {})[entry.depth] ??= { tried: 0, pruned: 0 });
      d.tried++;
      if ('reject' in judged && judged.reject.startsWith(NOT_KEPT_REJECT)) d.pruned++;
    }
    if ('reject' in judged) sampling.rejected[judged.reject] = (sampling.rejected[judged.reject] ?? 0) + 1;
    else if ('lag' in judged) {
      const above = (sampling.aboveTargetHead ??= { count: 0, example: judged.lag });
      above.count++;
    } else if ('keep' in judged) {
      if (late) lateWithinGrace++;
      sampling.correct[entry.kind] = (sampling.correct[entry.kind] ?? 0) + 1;
      kept.push(judged.keep);
    } else {
      const f = judged.finding;
      const same = sampling.findings.find((x) => x.kind === f.kind && x.cls === f.cls && x.code === f.code);
      if (same) same.count++;
      else sampling.findings.push({ ...f, count: 1 });
      // It stays what it is: under load it is measured failing as it did here.
      kept.push(entry);
    }
  }
  if (lateWithinGrace) sampling.lateWithinGrace = lateWithinGrace;
  // Hits above the target's own head are its lag (recorded above), not hits it failed to serve.
  const hitsTried = (sampling.tried.hit ?? 0) + (sampling.tried.empty ?? 0) - (sampling.aboveTargetHead?.count ?? 0);
  const served = hitsTried > 0 ? (sampling.correct.hit ?? 0) + (sampling.correct.empty ?? 0) > 0 : Object.values(sampling.correct).some((n) => n > 0);
  if (!served) {
    const answers = [...sampling.findings.map((f) => `${f.count} ${f.kind} ${answerName(f)}`), ...Object.entries(sampling.rejected).map(([why, n]) => `${n} left out: ${why}`)];
    Object.assign(sampling, { status: 'not served', reason: `no ${hitsTried > 0 ? 'hit' : 'entry'} answered as due: ${answers.join('; ')}` });
  }
  return { kept, sampling };
}

/**
 * One candidate asked, under the fresh-read rules: a hit of a block the target had announced that it does not know is
 * asked again once the grace has passed since that announcement (`late` when it then knows it), and when it still
 * does not, the target's block at that height tells a reorg (`reorged`: the hash sampled is not the target's there).
 */
async function askJudged(client: RpcClient, method: RpcMethod, c: Candidate, announced: bigint | undefined, chain: ChainPoint): Promise<{ c: Candidate; ex: Exchange; verdict: Classification; late?: true; reorged?: true }> {
  if (namesLatest(method, JSON.stringify(c.params))) return { c, ...(await askLatest(client, method, c)) };
  const ask = async () => {
    const ex = await client.exchange(method, c.params);
    return { ex, verdict: classify(outcomeOf(ex), expectationOf(c.kind)) };
  };
  const first = await ask();
  const covered = c.kind === 'hit' && c.block !== undefined && announced !== undefined && c.block <= announced;
  if (!covered || c.block === undefined || !UNKNOWN.has(first.verdict.cls)) return { c, ...first };
  const wait = (chain.heads.announcedAt(c.block) ?? 0) + chain.graceMs - Date.now();
  const again = wait >= 0 ? (await new Promise((r) => setTimeout(r, wait + 1)), await ask()) : first;
  if (!UNKNOWN.has(again.verdict.cls)) return { c, ...again, late: true };
  const sampled = chain.hashes.get(c.block);
  const there = sampled ? await client.call<{ hash?: unknown } | null>('eth_getBlockByNumber', [toQuantity(c.block), false]).catch(() => undefined) : undefined;
  return { c, ...again, ...(there && typeof there.hash === 'string' && there.hash !== sampled ? { reorged: true as const } : {}) };
}

/**
 * A `latest` entry whose answer names its block, judged as under load (named-block.ts) against the block read by the hash
 * it names, so an endpoint that always drops a receipt is not sampled as right (and its answer fingerprinted). An answer
 * that names no block ([], null) is judged against the latest block read before and after it, when both are one block.
 */
async function askLatest(client: RpcClient, method: RpcMethod, c: Candidate): Promise<{ ex: Exchange; verdict: Classification }> {
  type Block = NamedBlock & { hash?: unknown };
  const latest = () => client.call<Block | null>('eth_getBlockByNumber', ['latest', false]).catch(() => null);
  const before = await latest();
  const ex = await client.exchange(method, c.params);
  const verdict = classify(outcomeOf(ex), expectationOf(c.kind));
  const result = verdict.envelope?.result;
  if (verdict.cls !== 'ok' && verdict.cls !== 'null_unexpected') return { ex, verdict };
  const hash = namedHash(result);
  const after = hash === undefined ? await latest() : undefined;
  const block = hash !== undefined ? await client.call<Block | null>('eth_getBlockByHash', [hash, false]).catch(() => null) : before && after && before.hash === after.hash ? before : null;
  if (!block) return { ex, verdict };
  const fault = hash !== undefined ? namedBlockFault(method, c.params, result, block) : noneNamedFault(method, c.params, result ?? null, block);
  return { ex, verdict: fault === undefined ? verdict : { cls: 'wrong', why: fault } };
}

/**
 * Met its kind: kept (with its fingerprint, and the digest of a final answer); or left out for a reason that is
 * not the endpoint's fault; or a finding; or target lag. `final`: a lookup by the number of a final block; `nearHead`: of
 * a block a reorg may still replace; `aboveTargetHead`: of a block above the head the target itself had announced.
 */
function judge(method: RpcMethod, entry: CorpusEntry, verdict: Classification, ex: Exchange, gasCap: bigint | undefined, block: { final: boolean; nearHead: boolean; aboveTargetHead: boolean }): Judged {
  const { cls, code } = verdict;
  if (cls === 'ok' || cls === 'ok_null' || cls === 'ok_error') {
    const result = verdict.envelope?.result;
    const lookup = cls === 'ok' ? boundsOf(method, entry.params, gasCap) : undefined;
    const broken = lookup && boundsFault(lookup, result);
    if (broken) return { finding: { kind: entry.kind, cls: 'wrong', example: example(entry, broken) } };
    // A lookup by number of a block not yet final: its answer is due again as long as that block is (red team A10).
    // An estimate at a final block: near the one sampled, not equal (clients' searches differ; red team A8).
    const estimate = method === 'eth_estimateGas';
    const bounds = lookup?.startsWith('n:') && !block.final ? anchored(lookup, result) : estimate && lookup && block.final ? aroundSampled(lookup, result) : lookup;
    const compared = cls === 'ok' && !estimate && (IMMUTABLE_LOOKUPS.includes(method) || block.final || anchorOf(bounds) !== undefined);
    return {
      keep: {
        ...entry,
        ...(compared ? { answer: answerDigest(result, sha256Hex) } : {}),
        ...(bounds ? { bounds } : {}),
        ...(ex.replyFingerprint ? { reply: ex.replyFingerprint } : {}),
        // A null for it would be a finding here (below): under load too, whatever its rate.
        ...(cls === 'ok' && entry.kind === 'hit' && !block.nearHead ? { settled: true as const } : {}),
        // The schemas' verdict on these bytes, which recognition under load tells again (the same bytes but the id).
        ...(ex.replyFingerprint && verdict.envelope && !shapeFault(method, verdict.envelope) ? { shaped: true as const } : {}),
      },
    };
  }
  if (cls === 'timeout' || cls === 'http_error' || cls === 'rate_limited') return { reject: `no answer at sampling (${cls}${code === undefined ? '' : ` ${code}`})` };
  // Not known, and the target never said it had the block: its lag, in the open (its reference is ahead of it).
  if (entry.kind === 'hit' && block.aboveTargetHead && UNKNOWN.has(cls)) return { lag: example(entry, `${describeAnswer(ex)} (the block is above the target's own head)`) };
  const message = errorMessage(ex);
  if (cls === 'rpc_error' && entry.kind === 'hit') {
    // A replay runs at its parent block's state: a transaction that failed, or depended on an earlier one in its block, fails there too.
    if (entry.note.startsWith(REPLAY)) return { reject: `replay fails at its parent state (error ${code ?? '?'})` };
    if (notKept(code, message)) return { reject: `${NOT_KEPT_REJECT} (error ${code ?? '?'})` };
  }
  return { finding: { kind: entry.kind, cls, ...(code === undefined ? {} : { code }), example: example(entry, `${describeAnswer(ex)}${verdict.why ? `: ${verdict.why}` : ''}`) } };
}

/** A finding's example: the request's params and what it was answered, clipped and redacted. */
const example = (entry: CorpusEntry, answered: string) => redact(`${clip(JSON.stringify(entry.params), 120)} answered ${clip(answered, 160)}`);

function answerName(f: Pick<Finding, 'cls' | 'code'>): string {
  return `${f.cls}${f.code === undefined ? '' : ` ${f.code}`}`;
}

function errorMessage(ex: Exchange): string {
  const error = (ex.body as { error?: { message?: unknown } } | undefined)?.error;
  return typeof error?.message === 'string' ? error.message : '';
}

function describeAnswer(ex: Exchange): string {
  if (ex.fault) return ex.faultDetail ?? ex.fault;
  const body = ex.body as { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
  if (body?.error) return `error ${String(body.error.code)} "${String(body.error.message)}"`;
  if (body && 'result' in body) return `${body.result === null ? 'null' : 'a value'} (id ${JSON.stringify(body.id)})`;
  return (ex.bodyText ?? '').slice(0, 100);
}

export function outcomeOf(ex: Exchange): { status: number; body: string | null; timedOut: boolean; id?: number } {
  const status = ex.fault === 'unreachable' || ex.fault === 'timeout' ? 0 : (ex.httpStatus ?? 0);
  const body = ex.body !== undefined ? JSON.stringify(ex.body) : (ex.bodyText ?? null);
  const id = Array.isArray(ex.request) ? undefined : ex.request.id;
  return { status, body, timedOut: ex.fault === 'timeout', ...(id === undefined ? {} : { id }) };
}
