// The fork era a run reports for its chain, and what a check's premise needs of it: a check judging an
// EIP-7702 authorization, a blob, a withdrawal or a base fee cannot hold on a chain before the fork that brought it.
import { FORKS, type Fork } from '../../core/invariants/header.ts';
import type { Targets } from '../../core/targets.ts';

/** The transaction types a fork brought that a header can date (type 0x1, Berlin, cannot be told from a header). */
export const TYPE_FORK: Readonly<Record<string, { fork: Fork; what: string }>> = {
  '0x2': { fork: 'london', what: 'EIP-1559 transactions (type 0x2)' },
  '0x3': { fork: 'cancun', what: 'EIP-4844 blob transactions (type 0x3)' },
  '0x4': { fork: 'prague', what: 'EIP-7702 set-code transactions (type 0x4)' },
};

/**
 * The chain's era as the run read it: the newest era among the blocks discovery walked (eraBlocks, from each
 * block's header fields). The walk starts at the head and eras only go forward, so that is the head's era.
 * Undefined when no walked block told its era: then no premise is refuted.
 */
export function chainEra(targets: Targets): Fork | undefined {
  const met = Object.keys(targets.eraBlocks ?? {});
  return [...FORKS].reverse().find((f) => met.includes(f));
}

/** The era's name as a reader knows it. */
export function eraName(era: Fork): string {
  return era === 'frontier' ? 'pre-London' : era[0]!.toUpperCase() + era.slice(1);
}

/** Why a premise needing `fork` cannot hold on this chain, or undefined when it can (or the era is unknown). */
export function beforeFork(targets: Targets, fork: Fork, what: string): string | undefined {
  const era = chainEra(targets);
  if (era === undefined || FORKS.indexOf(era) >= FORKS.indexOf(fork)) return undefined;
  return `${what} came with ${eraName(fork)}; this chain is in the ${eraName(era)} era (its head's header fields), so the premise cannot hold here`;
}
