// A transaction type the discovery walk did not meet. It leaves a check out of the judged share ("not on this
// chain", NOT_HERE 'type-absent') only when that is known: the walk covered its whole range with full transactions
// and met other transactions there. With --reference-url the absence is the reference's, read over the same blocks:
// an endpoint that hides its blob transactions cannot shrink its own denominator, and a transaction the reference
// has there becomes the target the endpoint is judged on.
import { isObject, toQuantity } from '../../core/hex.ts';
import type { ReferenceState } from './reference.ts';
import type { CheckContext } from './check.ts';
import { KNOWN_TYPES } from './discovery.ts';

/** The transaction of `type` a check judges: the walk's, else the reference's over the walked range; else a skip that says why. */
export async function typeTarget(t: CheckContext, type: string): Promise<string> {
  const { txByType, scanned } = t.targets;
  const known = txByType[type];
  if (known) return known;
  const extent = `${scanned.blocks} block(s) walked (${BigInt(scanned.from)} to ${BigInt(scanned.to)})`;
  // Nothing at all, or a walk cut short, says nothing of this type: not judged, never left out.
  if (Object.keys(txByType).length === 0) t.skip(`no type ${type} transaction found: the walk met no transaction at all in the ${extent}`);
  if (scanned.stoppedBy !== 'range') t.skip(`no type ${type} transaction found in the ${extent}, a walk ${scanned.stoppedBy === 'budget' ? 'its request budget cut short' : 'that was stopped'} before its range`);
  const ref = t.referenceIfAny;
  if (!ref) t.notOnThisChain('type-absent', `not on this chain: no type ${type} transaction in the ${extent}`);
  const census = await referenceCensus(t, ref, BigInt(scanned.from), BigInt(scanned.to));
  const theirs = census[type];
  if (theirs) {
    t.note(`the walk met no type ${type} transaction; the reference has ${theirs} in the same blocks: judged on it`);
    return theirs;
  }
  return t.notOnThisChain('type-absent', `not on this chain: no type ${type} transaction in the ${extent}, nor at the reference (--reference-url) in the same blocks`);
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
