// A target the discovery walk did not meet. It leaves a check out of the judged share ("not on this chain", a premise
// of NOT_HERE) only when that is known: the walk covered its whole range with full transactions and met other
// transactions there. Nothing at all, or a walk cut short, says nothing of one kind: not judged, never left out.
// For a transaction type, with --reference-url the absence is the reference's, read over the same blocks: an
// endpoint that hides its blob transactions cannot shrink its own denominator, and a transaction the reference has
// there becomes the target the endpoint is judged on.
import { isObject, toQuantity } from '../../core/hex.ts';
import type { ReferenceState } from './reference.ts';
import type { CheckContext, NotHere } from './check.ts';
import { KNOWN_TYPES } from './discovery.ts';

/** The blocks the walk covered, as a reason names them. */
export function walkExtent(t: CheckContext): string {
  const { scanned } = t.targets;
  return `${scanned.blocks} block(s) walked (${BigInt(scanned.from)} to ${BigInt(scanned.to)})`;
}

/**
 * Returns when the walk covered its whole range and met transactions (so `what` is known to be absent from it);
 * otherwise skips, not judged, saying why.
 */
export function walkedWhole(t: CheckContext, what: string): void {
  const { txByType, scanned } = t.targets;
  if (Object.keys(txByType).length === 0) t.skip(`no ${what} found: the walk met no transaction at all in the ${walkExtent(t)}`);
  if (scanned.stoppedBy !== 'range') t.skip(`no ${what} found in the ${walkExtent(t)}, a walk ${scanned.stoppedBy === 'budget' ? 'its request budget cut short' : 'that was stopped'} before its range`);
}

/** `what` is not on this chain (`premise`) when the walk covered its whole range and met transactions, else not judged. */
export function absentFromWalk(t: CheckContext, what: string, premise: NotHere): never {
  walkedWhole(t, what);
  return t.notOnThisChain(premise, `not on this chain: no ${what} in the ${walkExtent(t)}`);
}

/** The transaction of `type` a check judges: the walk's, else the reference's over the walked range; else a skip that says why. */
export async function typeTarget(t: CheckContext, type: string): Promise<string> {
  const { txByType, scanned } = t.targets;
  const known = txByType[type];
  if (known) return known;
  const what = `type ${type} transaction`;
  const ref = t.referenceIfAny;
  if (!ref) return absentFromWalk(t, what, 'type-absent');
  walkedWhole(t, what);
  const census = await referenceCensus(t, ref, BigInt(scanned.from), BigInt(scanned.to));
  const theirs = census[type];
  if (theirs) {
    t.note(`the walk met no type ${type} transaction; the reference has ${theirs} in the same blocks: judged on it`);
    return theirs;
  }
  return t.notOnThisChain('type-absent', `not on this chain: no ${what} in the ${walkExtent(t)}, nor at the reference (--reference-url) in the same blocks`);
}

/**
 * The reference's first transaction of each type over the walked blocks, read once a run (newest block first, until
 * every known type is met). A reference that gives no block leaves the check inconclusive, never a type "absent".
 */
async function referenceCensus(t: CheckContext, ref: ReferenceState, from: bigint, to: bigint): Promise<Record<string, string>> {
  ref.typeCensus ??= (async () => {
    const found: Record<string, string> = {};
    for (let n = to; n >= from && !KNOWN_TYPES.every((k) => found[k]); n--) {
      const block = await ref.client.call<unknown>('eth_getBlockByNumber', [toQuantity(n), true]).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      if (block instanceof Error || !isObject(block) || !Array.isArray(block['transactions'])) {
        ref.failed ??= `eth_getBlockByNumber(${toQuantity(n)}): ${block instanceof Error ? block.message : 'no block'}`;
        return undefined;
      }
      for (const tx of block['transactions'].filter(isObject)) {
        const type = typeof tx['type'] === 'string' ? tx['type'] : '0x0';
        if (typeof tx['hash'] === 'string') found[type] ??= tx['hash'];
      }
    }
    return found;
  })();
  const census = await ref.typeCensus;
  if (!census) return t.inconclusive(`the reference failed during the run (${ref.failed ?? 'no block'}): whether a transaction type is on this chain cannot be read from it`);
  return census;
}
