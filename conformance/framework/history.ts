// Targets only old history holds: uncles (before the merge) and receipts with `root` (before Byzantium). A chain
// that never had that era cannot hold them: its check is left out of the judged share (t.notOnThisChain), listed
// with the reason, rather than counted as a skip, which a chain that has the era but no such target gets.
import { isObject } from '../../core/hex.ts';
import type { Json } from '../../core/invariants/encoding.ts';
import { headerHash } from '../../core/invariants/header.ts';
import type { CheckContext } from './check.ts';

type Era = 'pre-merge' | 'pre-byzantium';

/** The target, or a skip: "not on this chain" when its genesis shows the chain began after the era, else missing. */
export async function needHistory<T>(t: CheckContext, value: T | undefined, what: string, era: Era): Promise<T> {
  if (value !== undefined && value !== null) return value;
  const why = await laterThan(t, era);
  if (why) t.notOnThisChain('history-era', `no ${what}: ${why}`);
  // Uncles after the merge: a chain past it holds none from there on, and a walk from its head cannot reach its
  // proof-of-work blocks. Without a fixture naming one (mainnet's), the checks are not on this chain.
  if (era === 'pre-merge' && (await pastTheMerge(t))) t.notOnThisChain('history-era', `no ${what}: the chain is past the merge (its head ${t.targets.head.number} has difficulty 0, its header hashing to its hash), so no block from there on has uncles, and no fixture names a pre-merge block with uncles on it`);
  return t.need(value, what);
}

/** Whether the head discovery started from is proof of stake (difficulty 0), by a header that hashes to its hash. */
async function pastTheMerge(t: CheckContext): Promise<boolean> {
  const head = (await t.exchange('eth_getBlockByHash', [t.targets.head.hash, false])).body;
  const header = isObject(head) && isObject(head['result']) ? head['result'] : undefined;
  if (!header || header['difficulty'] !== '0x0') return false;
  try {
    return headerHash(header) === header['hash'];
  } catch {
    return false;
  }
}

/** Why the chain cannot have had the era, read off its genesis header; undefined when it may have (or genesis is not served). */
async function laterThan(t: CheckContext, era: Era): Promise<string | undefined> {
  const genesis = (await t.exchange('eth_getBlockByNumber', ['0x0', false])).body;
  const header = isObject(genesis) && isObject(genesis['result']) ? genesis['result'] : undefined;
  if (!header || !(await trusted(t, header))) return undefined;
  // Proof of work never has difficulty 0: a genesis with it is proof of stake from the start, after every pre-merge fork.
  if (header['difficulty'] === '0x0') return `the chain is proof of stake from its genesis (difficulty 0): it has no ${era} era`;
  // A base fee in genesis is London at genesis, long after Byzantium (uncles may still come before the merge).
  if (era === 'pre-byzantium' && typeof header['baseFeePerGas'] === 'string') return 'the chain starts at London or later (its genesis has a base fee): it has no pre-Byzantium era';
  return undefined;
}

/**
 * A genesis header is believed only when it is the chain's: its fields hash to its hash, and block 1 (when there is
 * one) names that hash as its parent. A header the endpoint made up would otherwise shrink the judged share.
 */
async function trusted(t: CheckContext, header: Json): Promise<boolean> {
  let hash: string;
  try {
    hash = headerHash(header);
  } catch {
    return false;
  }
  if (hash !== header['hash']) return false;
  const child = (await t.exchange('eth_getBlockByNumber', ['0x1', false])).body;
  const next = isObject(child) ? child['result'] : undefined;
  return next === null || (isObject(next) && next['parentHash'] === hash);
}
