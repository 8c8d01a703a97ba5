// The request corpus: real parameters sampled from the endpoint, with a configurable share of misses
// so null paths are measured too. Written to a file and replayed exactly (same file, same order).
// What an entry must answer follows from what it is (its kind), never from what the endpoint said at
// sampling: an endpoint that answers a hit with "method not supported" is not served, whatever it
// answered. Pure: the k6 scenario packs entries with expectationOf.
import { heldToSampled } from './bounds.ts';
import type { Expectation } from './classify.ts';
import type { RpcMethod } from '../../core/methods.ts';
import type { RpcClass } from './answer-classes.ts';
import type { Rng } from './rng.ts';

/**
 * hit: data that exists (a value is due); empty: a realistic lookup of something that exists but holds
 * nothing there (uncle 0 of a block without uncles: null is due); miss: data that does not exist (null is
 * due, spec 7); revert: the harness's own reverting init code (error code 3 is due, spec 4.1 and 7).
 */
export type EntryKind = 'hit' | 'empty' | 'miss' | 'revert';
export const ENTRY_KINDS: readonly EntryKind[] = ['hit', 'empty', 'miss', 'revert'];

/** The JSON-RPC code the spec prescribes for a revert (section 7). */
export const REVERT_CODE = 3;

export function expectationOf(kind: EntryKind): Expectation {
  if (kind === 'hit') return { expect: 'value' };
  return kind === 'revert' ? { expect: 'error', errorCode: REVERT_CODE } : { expect: 'null' };
}

/**
 * A corpus file in parts (k6-operator: one ConfigMap each, within Kubernetes' object limits): part i of FILE is
 * FILE.i, and the corpus is their text in order. The k6 script reads them back (RPC_CERTIFY_CORPUS_PARTS).
 */
export const corpusPartPath = (file: string, part: number): string => `${file}.${part}`;

/** Misses and reverts make up the miss share; hits and empties the rest. */
export const onMissSide = (kind: EntryKind): boolean => kind === 'miss' || kind === 'revert';

export interface CorpusEntry {
  params: unknown[];
  /** What the entry exercises ("tx type 0x2", "older block", "miss: unknown hash"); hits with equal notes form a stratum. */
  note: string;
  kind: EntryKind;
  /** For a hit on immutable data (by hash, or by a number at or below the final block): the digest of the answer seen at sampling (answer.ts). */
  answer?: string;
  /** For a hit: what any answer must hold, however the chain moved since sampling (bounds.ts). */
  bounds?: string;
  /** The fingerprint of the answer seen at sampling, when it met the entry's kind (core/reply.ts): under load, the same bytes are not parsed again. */
  reply?: string;
  /**
   * For a hit answered with a value at sampling whose block was not within REORG_DEPTH of the head (or that names no
   * block): null is as wrong under load as it was at sampling (a finding there), not a rate-judged null_unexpected.
   */
  settled?: true;
  /** The answer seen at sampling (its `reply`) conforms to the schemas (load/shared/shapes.ts, run at sampling): under load, a
   * validated visit recognised as those bytes (but the id) is validated by that verdict. */
  shaped?: true;
  /**
   * For a hit of a method a declared near-head window limits (§8): the block of its transaction. Under load, null or
   * an error for it once that block has left the window is `archive` (not served, allowed), never judged.
   */
  windowBlock?: string;
  /** For a hit: the depth stratum of the block it reads (core/history.ts: "head", "128+", "1k+" …), the head's for
   * `latest`. The load's latency and failures are reported per stratum. */
  depth?: string;
}

/** Blocks sampling drew in one depth stratum: served, and answered as pruned history. */
export interface DepthSampled {
  stratum: string;
  blocks: number;
  pruned: number;
}

/** Sampled answers that contradicted their entry's kind: one line per kind, class and code. */
export interface Finding {
  kind: EntryKind;
  cls: RpcClass;
  code?: number;
  count: number;
  /** The first such answer's request and what came back (redacted). */
  example: string;
}

/** How sampling went for one method. */
export interface MethodSampling {
  /** served: at least one entry answered as its kind requires (a hit, when any hit was tried); not served otherwise. */
  status: 'served' | 'not served';
  /** Why, for a method not served: the answers its entries got. */
  reason?: string;
  /** Distinct candidates tried against the target, per kind. */
  tried: Partial<Record<EntryKind, number>>;
  /** Per kind, how many answered as their kind requires. */
  correct: Partial<Record<EntryKind, number>>;
  /** Candidates left out of the corpus, and why (history the endpoint prunes, a replay that reverts at its parent state, no answer). */
  rejected: Record<string, number>;
  findings: Finding[];
  /**
   * Hits of a block above the head the target itself had announced, that it did not know (null or an error): target
   * lag (its reference is ahead), left out of the corpus, never counted correct. The first as an example.
   */
  aboveTargetHead?: { count: number; example: string };
  /** Hits the target did not know at first although its head covered them, known when asked again past the grace (counted correct). */
  lateWithinGrace?: number;
  /** Per depth stratum: the hits tried, and those left out as pruned history (all of them: the stratum is not served). */
  depth?: Record<string, { tried: number; pruned: number }>;
}

/** What sampling saw of the target's own head (sample.ts), beside the reference's (`head`). */
export interface TargetHead {
  /** The highest block number the target announced (eth_blockNumber) during sampling. */
  head: string;
  /** How many blocks the reference's head was above the target's when sampling began (0 without a reference, or none ahead). */
  behindReference: number;
  /** How far the target's eth_blockNumber went back below the highest it had shown (one of its nodes behind another). */
  wentBack: number;
}

export interface Corpus {
  /** 3: entries carry their kind, and the expectation follows from it; 2 learned expectations from the endpoint. */
  version: 3;
  seed: number;
  missShare: number;
  chainId: string;
  /** Head block number when the corpus was sampled. */
  head: string;
  /** Lookups by a block number at or below this one are compared with the answer sampled, like lookups by hash (none on a short chain);
   * above it, an answer is compared when it comes from the block sampling saw (its hash: bounds.ts). */
  finalBlock?: string;
  blocksSampled: number;
  /** The target's own head at sampling: absent from corpora sampled before it was recorded. */
  targetHead?: TargetHead;
  entries: Record<RpcMethod, CorpusEntry[]>;
  /** Per sampled method. */
  sampling: Partial<Record<RpcMethod, MethodSampling>>;
  /** The 90th percentile of the target's answer times while sampling (ms): the plan pre-allocates k6's VUs for it
   * (profiles.ts). Absent in corpora written before it. */
  latencyMs?: number;
  /** The near-head window (§8) declared at sampling (--near-head-window, or the network's), in blocks. */
  nearHeadWindow?: number;
  /** The blocks sampled per depth stratum the chain reaches (absent from corpora sampled before strata). */
  depth?: DepthSampled[];
}

/** What a method's corpus holds: the entries per kind, the distinct requests, and how many are compared with a sampled answer. */
export interface Composition {
  entries: number;
  distinct: number;
  kinds: Record<EntryKind, number>;
  /** Entries whose answer is compared with the one recorded at sampling (an estimate: held within ESTIMATE_SPREAD of it, bounds.ts). */
  compared: number;
}

/** Figures resting on fewer distinct requests than this measure a cache, not a method. */
const FEW_DISTINCT = 3;
export const isDegenerate = (c: Composition): boolean => c.distinct < FEW_DISTINCT;

export function compositionOf(entries: readonly CorpusEntry[]): Composition {
  const kinds = Object.fromEntries(ENTRY_KINDS.map((k) => [k, 0])) as Record<EntryKind, number>;
  for (const e of entries) kinds[e.kind]++;
  return { entries: entries.length, distinct: new Set(entries.map((e) => JSON.stringify(e.params))).size, kinds, compared: entries.filter((e) => e.answer || heldToSampled(e.bounds)).length };
}

/**
 * Up to `size` entries in a seeded order: round(size × missShare) from the miss side and hits for the rest,
 * every stratum of hits first (every tx type, recent and older blocks). Each side cycles through its distinct
 * entries, so they recur evenly. A method with one distinct request gets it once, never `size` copies of it.
 */
export function composeEntries(hits: CorpusEntry[], misses: CorpusEntry[], size: number, missShare: number, rng: Rng): CorpusEntry[] {
  if (hits.length + misses.length <= 1) return [...hits, ...misses];
  const missCount = hits.length === 0 ? size : misses.length === 0 ? 0 : Math.round(size * missShare);
  const shuffled = rng.shuffle(hits);
  const strata = [...new Map(shuffled.map((h) => [h.note, h])).values()];
  const ordered = [...strata, ...shuffled.filter((h) => !strata.includes(h))];
  return rng.shuffle([...cycle(ordered, size - missCount), ...cycle(rng.shuffle(misses), missCount)]);
}

function cycle(pool: CorpusEntry[], count: number): CorpusEntry[] {
  return Array.from({ length: count }, (_, i) => pool[i % pool.length] as CorpusEntry);
}

/** An entry of a version 1 or 2 corpus, whose expectation was learned from the endpoint at sampling. */
export interface LearnedEntry {
  params: unknown[];
  note: string;
  expect: 'value' | 'null' | 'error';
  errorCode?: number;
  miss: boolean;
  answer?: string;
  reply?: string;
}
export type LearnedCorpus = Omit<Corpus, 'version' | 'entries' | 'sampling'> & { version: 1 | 2; entries: Record<string, LearnedEntry[]> };

/**
 * Versions 1 and 2 kept whatever error a miss got as its expectation, and a replay that reverted as one: each
 * entry gets the kind it was sampled as instead (a learned error is unlearned, a reverting replay is left out),
 * and keeps its fingerprint only where its expectation did not change. Version 1 digested answers with another
 * hash: its answers are not compared.
 */
export function fromLearnedCorpus(old: LearnedCorpus): Corpus {
  const kindOf = (e: LearnedEntry): EntryKind | undefined => {
    if (e.expect === 'value') return 'hit';
    if (e.expect === 'null') return e.miss ? 'miss' : 'empty';
    if (!e.miss) return undefined;
    return e.errorCode === REVERT_CODE && /revert/.test(e.note) ? 'revert' : 'miss';
  };
  const entries = Object.fromEntries(
    Object.entries(old.entries).map(([m, list]) => [
      m,
      list.flatMap(({ params, note, answer, reply, ...learned }): CorpusEntry[] => {
        const kind = kindOf({ params, note, ...learned });
        if (!kind) return [];
        const expected = expectationOf(kind);
        const unchanged = expected.expect === learned.expect && expected.errorCode === learned.errorCode;
        return [{ params, note, kind, ...(answer && old.version === 2 ? { answer } : {}), ...(reply && unchanged ? { reply } : {}) }];
      }),
    ]),
  );
  const { seed, missShare, chainId, head, blocksSampled } = old;
  return { version: 3, seed, missShare, chainId, head, blocksSampled, entries: entries as Corpus['entries'], sampling: {} };
}
