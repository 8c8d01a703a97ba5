// What an answer must hold whatever the chain did since sampling: a lookup by block number answers that
// block (and that index), whatever a reorg near the head put there; an estimate is at least its call's
// intrinsic gas and at most the gas cap. A lookup of a block too recent to be final is also anchored to the
// hash of the block sampling saw (`@<hash>`): an answer from that same block must be the sampled one (the
// hash commits to the block's content), and only an answer from another block (a reorg) is held to its
// bounds alone. An estimate at a final block (a replay at its parent's state, which no longer changes) is
// also held near the estimate sampled: clients' searches differ by a few percent, not more.
// Recorded at sampling as a short text, checked under load on answers that are not the one
// sampling saw (a recognised answer needs no check). Pure: Node and k6.
import type { Json } from '../../core/invariants/encoding.ts';
import { intrinsicGas } from '../../core/invariants/intrinsic.ts';
import { factsOf } from '../../core/methods.ts';

/** The spec's cap on an estimate, as conformance checks it (eth_estimateGas gas-cap): 10x the block gas limit. */
export const GAS_CAP_BLOCKS = 10n;
const NUMBER = /^0x[0-9a-fA-F]+$/;

/**
 * The bounds of a hit's answer, as text: `n:<block>[:<index>]` for a lookup by number (every item's blockNumber,
 * and transactionIndex, are the request's), `g:<least>:<most>` for an estimate. None where nothing is fixed.
 */
export function boundsOf(method: string, params: readonly unknown[], gasCap: bigint | undefined): string | undefined {
  const f = factsOf(method);
  const [first, second] = params;
  const number = (v: unknown): v is string => typeof v === 'string' && NUMBER.test(v);
  // From the method's row: a call object is an estimate; a lookup by block number whose answer names its block
  // (an uncle's number is its own, not its block's) is held to that block, and to the index asked when it takes one.
  if (f?.params[0] === 'call') return first !== null && typeof first === 'object' && gasCap !== undefined ? `g:${intrinsicGas(first as Json)}:${gasCap}` : undefined;
  if (f?.params[0] !== 'block' || !f.namesItsBlock || !number(first)) return undefined;
  if (f.params[1] !== 'index') return `n:${first}`;
  return number(second) ? `n:${first}:${second}` : undefined;
}

/** The bounds anchored to the block sampling saw answer it: `@<blockHash>` of its items, when they share one (an empty list has none). */
export function anchored(bounds: string, sampled: unknown): string {
  const hashes = new Set(itemsOf(sampled).map(blockHashOf));
  const [hash] = hashes;
  return hashes.size === 1 && typeof hash === 'string' && NUMBER.test(hash) ? `${bounds}@${hash.toLowerCase()}` : bounds;
}

/**
 * How far an estimate at a final block may stray from the one sampled, either way: more than clients' searches differ
 * (geth stops within 1.5% of the least gas that works), far less than an answer made up or taken from another call.
 */
export const ESTIMATE_SPREAD = 0.2;

/** An estimate's bounds (`g:<least>:<most>`) narrowed to ESTIMATE_SPREAD around the estimate sampled at a final block: `g:<least>:<most>:s`. */
export function aroundSampled(bounds: string, sampled: unknown): string {
  const [kind, least = '', most = ''] = bounds.split(':');
  if (kind !== 'g' || typeof sampled !== 'string' || !NUMBER.test(sampled)) return bounds;
  const gas = Number.parseInt(sampled, 16);
  return `g:${Math.max(Number(least), Math.floor(gas / (1 + ESTIMATE_SPREAD)))}:${Math.min(Number(most), Math.ceil(gas * (1 + ESTIMATE_SPREAD)))}:s`;
}

/** Whether the bounds hold the answer to the one sampled: an estimate within ESTIMATE_SPREAD of it. */
export const heldToSampled = (bounds: string | undefined): boolean => bounds?.startsWith('g:') === true && bounds.endsWith(':s');

/** Whether the answer must be the sampled one: always, unless the bounds are anchored and the answer is from another block. */
export function sameAnswerDue(bounds: string | undefined, result: unknown): boolean {
  const anchor = anchorOf(bounds);
  if (anchor === undefined) return true;
  const items = itemsOf(result);
  return items.length > 0 && items.every((item) => String(blockHashOf(item)).toLowerCase() === anchor);
}

/** The block hash the bounds are anchored to (`…@<hash>`), if any. */
export function anchorOf(bounds: string | undefined): string | undefined {
  const at = bounds?.indexOf('@') ?? -1;
  return at < 0 ? undefined : bounds?.slice(at + 1);
}

const itemsOf = (result: unknown): unknown[] => (Array.isArray(result) ? result : [result]);
const blockHashOf = (item: unknown): unknown => (item as { blockHash?: unknown } | null)?.blockHash;

/** Why an answer breaks its bounds, or undefined when it keeps them. */
export function boundsFault(bounds: string, result: unknown): string | undefined {
  const [kind, a = '', b, around] = (bounds.split('@')[0] ?? '').split(':');
  if (kind === 'g') {
    const gas = typeof result === 'string' && NUMBER.test(result) ? Number.parseInt(result, 16) : Number.NaN;
    const sampled = `the estimate sampled at the same final block within ${ESTIMATE_SPREAD * 100}%`;
    if (!(gas >= Number(a))) return `an estimate of ${String(result)} is below ${around ? `${a}, the least of its intrinsic gas and ${sampled}` : `the call's intrinsic gas ${a}`}`;
    return gas > Number(b) ? `an estimate of ${result as string} is above ${around ? `${b}, the most of the gas cap and ${sampled}` : `the gas cap ${b}`}` : undefined;
  }
  const block = Number.parseInt(a, 16);
  for (const item of itemsOf(result)) {
    const o = (item ?? {}) as { blockNumber?: unknown; transactionIndex?: unknown };
    if (typeof o.blockNumber !== 'string' || Number.parseInt(o.blockNumber, 16) !== block) return `an answer of block ${String(o.blockNumber)} to a lookup of block ${a}`;
    if (b !== undefined && (typeof o.transactionIndex !== 'string' || Number.parseInt(o.transactionIndex, 16) !== Number.parseInt(b, 16))) {
      return `the transaction at index ${String(o.transactionIndex)} answered for index ${b}`;
    }
  }
  return undefined;
}
