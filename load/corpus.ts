// The request corpus: real parameters sampled from the endpoint, with a configurable share of misses
// so null paths are measured too. Written to a file and replayed exactly (same file, same order).
import type { Expectation } from './classify.ts';
import type { RpcMethod } from './methods.ts';
import type { Rng } from './rng.ts';

export interface CorpusEntry extends Expectation {
  params: unknown[];
  /** What the entry exercises ("tx type 0x2", "older block", "miss: unknown hash"); hits with equal notes form a stratum. */
  note: string;
  miss: boolean;
  /** For a hit on an immutable lookup: the digest of the answer seen at sampling (answer.ts). */
  answer?: string;
  /** The fingerprint of the answer seen at sampling (core/reply.ts): under load, the same bytes are not parsed again. */
  reply?: string;
}

export interface Corpus {
  /** 2: answer digests are sha256 (version 1's were a 53-bit hash, and are not compared). */
  version: 2;
  seed: number;
  missShare: number;
  chainId: string;
  /** Head block number when the corpus was sampled. */
  head: string;
  blocksSampled: number;
  entries: Record<RpcMethod, CorpusEntry[]>;
  /** Misses the endpoint answered with an error instead of null (spec §7); those entries expect that error. */
  deviations: string[];
  /** Candidates left out because the endpoint did not answer them as expected at sampling (e.g. pruned history). */
  dropped: Partial<Record<RpcMethod, number>>;
}

/**
 * `size` entries in a seeded order: round(size × missShare) misses and hits for the rest, every stratum of
 * hits at least once (every tx type, recent and older blocks), the remainder drawn at random.
 */
export function composeEntries(hits: CorpusEntry[], misses: CorpusEntry[], size: number, missShare: number, rng: Rng): CorpusEntry[] {
  if (hits.length === 0 && misses.length === 0) return [];
  const missCount = hits.length === 0 ? size : misses.length === 0 ? 0 : Math.round(size * missShare);
  const strata = [...new Map(rng.shuffle(hits).map((h) => [h.note, h])).values()];
  const hitCount = size - missCount;
  const chosenHits = [...strata.slice(0, hitCount), ...draw(hits, hitCount - Math.min(strata.length, hitCount), rng)];
  return rng.shuffle([...chosenHits, ...draw(misses, missCount, rng)]);
}

function draw(pool: CorpusEntry[], count: number, rng: Rng): CorpusEntry[] {
  return Array.from({ length: count }, () => rng.pick(pool));
}
