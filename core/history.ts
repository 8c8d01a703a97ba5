// History by depth: how deep an endpoint serves each kind of history (blocks, transactions, receipts, the state
// eth_estimateGas runs on), found by a bounded search over heights, and what eth_capabilities declares it keeps.
// Pure: conformance's history checks search with it, the load's sampling draws its corpus by its depth strata.
import { q } from './hex.ts';

export const HISTORY_RESOURCES = ['blocks', 'transactions', 'receipts', 'state'] as const;
export type HistoryResource = (typeof HISTORY_RESOURCES)[number];

/** Each resource's name among eth_capabilities' (execution-apis #755, as geth 1.17.8 serves it). */
const CAPABILITY_KEY: Record<HistoryResource, string> = { blocks: 'blocks', transactions: 'tx', receipts: 'receipts', state: 'state' };

/** What eth_capabilities declares of one resource. */
export interface DeclaredKeep {
  /** Not served at all (`disabled: true`). */
  disabled: boolean;
  oldestBlock: bigint;
  /** A window that moves with the head (`deleteStrategy.type` "window"), of this many blocks. */
  window?: bigint;
}

export interface Capabilities {
  /** The head the declaration was made at. */
  head: bigint;
  resources: Partial<Record<HistoryResource, DeclaredKeep>>;
}

const num = (v: unknown): bigint | undefined => (typeof v === 'string' ? q(v) : undefined);

/** eth_capabilities' result read for the four resources; undefined when it is not that object. */
export function capabilitiesOf(result: unknown): Capabilities | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as Record<string, unknown>;
  const head = num((r['head'] as Record<string, unknown> | undefined)?.['number']);
  if (head === undefined) return undefined;
  const resources: Capabilities['resources'] = {};
  for (const resource of HISTORY_RESOURCES) {
    const entry = r[CAPABILITY_KEY[resource]];
    if (typeof entry !== 'object' || entry === null) continue;
    const e = entry as Record<string, unknown>;
    const oldestBlock = num(e['oldestBlock']);
    if (oldestBlock === undefined && e['disabled'] !== true) continue;
    const strategy = e['deleteStrategy'] as Record<string, unknown> | undefined;
    const window = strategy?.['type'] === 'window' ? num(strategy['retentionBlocks']) : undefined;
    resources[resource] = { disabled: e['disabled'] === true, oldestBlock: oldestBlock ?? 0n, ...(window === undefined ? {} : { window }) };
  }
  return { head, resources };
}

/** The oldest block a declaration keeps at `head`: a window keeps the latest `window` blocks (as it moves up with the head),
 * and never less than its oldestBlock said when it was declared. */
export function declaredOldest(keep: DeclaredKeep, head: bigint): bigint {
  if (keep.window === undefined) return keep.oldestBlock;
  const edge = head - keep.window + 1n;
  return edge > keep.oldestBlock ? edge : keep.oldestBlock;
}

/**
 * The load's depth strata: blocks back from the head where each begins (head, 128, 1k, 10k, 100k, 1M back). 128 is
 * the state a full node keeps; the rest are decades of cold history.
 */
export const DEPTH_STRATA = [0, 128, 1_000, 10_000, 100_000, 1_000_000] as const;

/** The strata's names, shallowest first. */
export const STRATA: readonly string[] = DEPTH_STRATA.map((s) => stratumName(s));

/** The stratum of a depth: its name ("head", "128+", "1k+" …). */
export function stratumOf(depth: number): string {
  let at: number = DEPTH_STRATA[0];
  for (const s of DEPTH_STRATA) if (depth >= s) at = s;
  return stratumName(at);
}

export function stratumName(start: number): string {
  if (start === 0) return 'head';
  return start >= 1_000_000 ? `${start / 1_000_000}M+` : start >= 1_000 ? `${start / 1_000}k+` : `${start}+`;
}

/** The oldest height served of one resource, found by a search over heights, and what declares it kept. */
export interface HistoryDepth {
  resource: HistoryResource;
  /** The head the search measured from. */
  head: number;
  /** The oldest height answered served (absent: none was). */
  oldestServed?: number;
  /** The newest height answered pruned (below oldestServed, or above it: a hole; absent: all asked were served), and what it answered. */
  newestPruned?: number;
  prunedAnswer?: string;
  /** oldestServed is newestPruned + 1 (or nothing was pruned); else the boundary lies between them. */
  exact: boolean;
  /** Re-probes of the boundary answered otherwise: a pool of nodes keeping different history. */
  moving?: string;
  /** The strictest declaration (the oldest block it keeps) and what made it. */
  declared?: { oldestBlock: number; from: string };
  /** Heights the search asked, re-probes included (one may take several requests: the walk to a transaction). */
  probes: number;
}

/** The depth as the report states it: "the latest 64 blocks (oldest served 137; 136 pruned: error 4444 …)". */
export function depthText(d: HistoryDepth): string {
  if (d.oldestServed === undefined) return d.newestPruned === undefined ? 'not known: nothing to ask at the heights searched' : `none served (block ${d.newestPruned}: ${d.prunedAnswer ?? 'pruned'})`;
  if (d.newestPruned !== undefined && d.newestPruned > d.oldestServed) return `HOLES: block ${d.oldestServed} served, but block ${d.newestPruned} above it ${d.prunedAnswer ?? 'pruned'}`;
  const span = `${d.head - d.oldestServed + 1} blocks`;
  if (d.newestPruned === undefined) return `the whole chain (from block ${d.oldestServed} to the head ${d.head}: nothing asked was pruned)`;
  const pruned = `block ${d.newestPruned}: ${d.prunedAnswer ?? 'pruned'}`;
  if (d.exact) return `the latest ${span} (oldest served ${d.oldestServed}; ${pruned})`;
  return `at least the latest ${span} (served at ${d.oldestServed}; ${pruned}; the boundary lies between, where there was nothing to ask or the search stopped)`;
}

/** What one height answered: served, pruned (an error saying so, or null for what exists), or nothing there to ask (a block without transactions). */
export interface ProbeAnswer {
  kind: 'served' | 'pruned' | 'empty';
  /** The height the answer is about (a probe may walk up from the height it was given to find something to ask). */
  at: bigint;
  /** What the endpoint answered, as the report names it ("error 4444: pruned history unavailable", "null"). */
  detail: string;
  /** Asks the same call again (the re-probes of the boundary); absent for `empty`. */
  again?: () => Promise<'served' | 'pruned'>;
}

/** Asks one resource at one height (walking up at most `walk` blocks, below `below`, for something to ask). */
export type Probe = (height: bigint, walk: number, below: bigint) => Promise<ProbeAnswer>;

export interface ServedDepth {
  /** The head the search measured from. */
  head: bigint;
  /** The oldest height answered served; undefined when none was. */
  oldestServed?: bigint;
  /** The newest height answered pruned (below the oldest served, or above it: a hole); undefined when everything asked was served. */
  newestPruned?: bigint;
  /** What the pruned height answered. */
  prunedAnswer?: string;
  /** The boundary is exact (oldestServed = newestPruned + 1, or nothing pruned at all); else it lies between them. */
  exact: boolean;
  /** A re-probe of the boundary answered otherwise: a pool whose nodes keep different history. */
  moving?: string;
  /** The served side's height when a re-probe of it was answered pruned (a node of the pool keeps less). */
  servedThenPruned?: bigint;
  /** No height searched had anything to ask (no transaction there): the depth is not known. */
  nothingToAsk?: true;
  /** Heights asked, re-probes included (each may take several requests: the probe's own). */
  probes: number;
}

/** Re-asks of each side of the boundary: a pool mixing archive and full nodes answers at random. */
export const REPROBES = 3;
/** Blocks a probe walks up from a height for something to ask (a transaction). */
export const WALK = 8;
/** At most this many heights a search asks: log2 of a chain of 2^30 blocks, and room for empty stretches. */
const MAX_PROBES = 40;

/**
 * The oldest height served, by a bounded search: block 1 first (served: the whole chain), then halving the span between
 * the newest pruned and the oldest served height until it is exact (or within 1% of the depth, for deep chains). The
 * boundary is then asked REPROBES times more on each side; `headNow` shifts the served side's re-probe up by the blocks
 * mined since, so a window moving with the head is not taken for a pool answering at random.
 */
export async function findServedDepth(head: bigint, probe: Probe, headNow: () => Promise<bigint>): Promise<ServedDepth> {
  let probes = 0;
  let served: ProbeAnswer | undefined;
  let pruned: ProbeAnswer | undefined;
  const ask = async (n: bigint, below: bigint): Promise<ProbeAnswer> => {
    probes++;
    const a = await probe(n, WALK, below);
    if (a.kind === 'served' && (!served || a.at < served.at)) served = a;
    if (a.kind === 'pruned' && (!pruned || a.at > pruned.at)) pruned = a;
    return a;
  };
  // Block 1, not genesis: a node that expired its history may still serve genesis (geth keeps it), and a search that
  // began there would call the whole chain served.
  const first = await ask(head > 0n ? 1n : 0n, head + 1n);
  if (first.kind !== 'served') {
    // The head itself: a resource served nowhere has no boundary to find.
    const top = await ask(head, head + 1n);
    let lo = first.kind === 'pruned' ? first.at : first.at + BigInt(WALK) - 1n;
    let hi = top.kind === 'served' ? top.at : head + 1n;
    while (hi - lo > 1n && probes < MAX_PROBES && hi - lo > (head - hi) / 100n) {
      const mid = lo + (hi - lo) / 2n;
      const a = await ask(mid, hi);
      if (a.kind === 'served') hi = a.at;
      else if (a.kind === 'pruned') lo = a.at;
      // Nothing to ask from mid up to hi (or the walk's end): the boundary is looked for below it.
      else if (a.at + BigInt(WALK) >= hi) hi = mid;
      else lo = mid;
    }
  }
  // The search takes history to be served from one height up. Spot checks above the oldest served (each stratum's
  // depth, and half way to the head) find a node that serves block 1 but expired the middle: a hole is a pruned height
  // above it.
  const low = served?.at;
  if (low !== undefined) {
    const spots = [...DEPTH_STRATA.slice(1).map((d) => head - BigInt(d)), low + (head - low) / 2n].filter((n) => n > low + BigInt(WALK));
    for (const n of [...new Set(spots)].sort((a, b) => (a < b ? -1 : 1))) await ask(n, head + 1n);
  }
  const { moving, servedThenPruned } = await reprobe(served, pruned, head, headNow);
  return {
    head,
    ...(served ? { oldestServed: served.at } : {}),
    ...(pruned ? { newestPruned: pruned.at, prunedAnswer: pruned.detail } : {}),
    exact: !pruned || (served !== undefined && served.at - pruned.at === 1n),
    ...(!served && !pruned ? { nothingToAsk: true } : {}),
    ...(moving ? { moving } : {}),
    ...(servedThenPruned !== undefined ? { servedThenPruned } : {}),
    probes: probes + (served ? REPROBES : 0) + (pruned ? REPROBES : 0),
  };
}

async function reprobe(served: ProbeAnswer | undefined, pruned: ProbeAnswer | undefined, head: bigint, headNow: () => Promise<bigint>): Promise<{ moving?: string; servedThenPruned?: bigint }> {
  const changed: string[] = [];
  let servedThenPruned: bigint | undefined;
  for (let i = 0; i < REPROBES; i++) {
    if (pruned?.again && (await pruned.again()) !== 'pruned') changed.push(`block ${pruned.at}, answered ${pruned.detail} first, was served on re-probe ${i + 1}`);
    if (served?.again && (await served.again()) !== 'served') {
      // A window kept by the head moves up with it: the oldest served height may leave it as blocks are mined, by as
      // many heights as were mined, above the newest pruned one. Any other served height answered pruned is a node
      // keeping less (with nothing pruned seen, there is no window edge to have moved past it).
      const moved = (await headNow()) - head;
      if (!pruned || served.at > pruned.at + moved) {
        changed.push(`block ${served.at}, served first, was answered pruned on re-probe ${i + 1}`);
        servedThenPruned = served.at;
      }
    }
  }
  if (!changed.length) return {};
  const moving = `${changed[0]}${changed.length > 1 ? ` (and ${changed.length - 1} more re-probe(s) answered otherwise)` : ''}: the endpoint answers from nodes that keep different history`;
  return { moving, ...(servedThenPruned !== undefined ? { servedThenPruned } : {}) };
}
