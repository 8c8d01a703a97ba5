// How far an endpoint's head may trail a trusted reference node's, in seconds: one fact, shared by load's gate and
// conformance's reference/head-lag-* checks.

/**
 * The default limit on the head lag, in seconds, for load (--max-head-lag, docs/load.md "Head lag against a reference")
 * and conformance (reference/head-lag-*): above the time two honest nodes receive the same block apart (a mainnet block
 * must reach validators within the 4 s attestation deadline of its slot), below one mainnet slot (12 s). A limit in
 * blocks would race on fast chains.
 */
export const DEFAULT_MAX_HEAD_LAG_S = 5;

/**
 * The allowance in blocks beside the seconds (--max-head-lag-blocks): 5 one-second blocks behind are not "within 5 s"
 * of an honest pool, whose nodes are 1 or 2 blocks apart. It holds only where blocks come BLOCK_ALLOWANCE_FROM_S or more
 * apart: on a 0.25 s chain an honest spread is many blocks, and seconds alone judge it.
 */
export const DEFAULT_MAX_HEAD_LAG_BLOCKS = 3;
/** "A block time of 1 s or more", as measured: a 1 s chain's interval read over a few blocks comes out 0.95 to 1.05 s. */
export const BLOCK_ALLOWANCE_FROM_S = 0.9;

/** How far a head may trail: seconds of chain time, and blocks on a chain of BLOCK_ALLOWANCE_FROM_S or slower. */
export interface LagAllowance {
  seconds: number;
  blocks: number;
}

/** Whether the block allowance applies to a chain of this block time (undefined: not measured, seconds alone). */
export function blocksJudged(blockTimeS: number | undefined): boolean {
  return blockTimeS !== undefined && blockTimeS >= BLOCK_ALLOWANCE_FROM_S;
}

/** Why a lag is over the allowance (in the allowance's words), or undefined when it is within. */
export function lagOver(lag: { blocks: number; seconds: number }, allowance: LagAllowance, blockTimeS: number | undefined): string | undefined {
  if (lag.seconds > allowance.seconds) return `${lag.seconds} s of chain time, over the allowance of ${allowance.seconds} s, --max-head-lag`;
  if (blocksJudged(blockTimeS) && lag.blocks > allowance.blocks) return `${lag.seconds} s of chain time, within ${allowance.seconds} s but over the allowance of ${allowance.blocks} blocks on a chain of ${Math.round((blockTimeS ?? 0) * 100) / 100} s blocks, --max-head-lag-blocks`;
  return undefined;
}

/**
 * A lag in blocks as seconds of chain time: from the timestamp of the first block the endpoint lacks (its head + 1)
 * to the reference's head. A lower bound of how long the endpoint has been missing blocks the reference served: a
 * block is served no earlier than its timestamp, and the reference's head existed when it was read.
 */
export function lagSeconds(firstMissingTimestamp: bigint, referenceHeadTimestamp: bigint): number {
  const s = Number(referenceHeadTimestamp - firstMissingTimestamp);
  return s > 0 ? s : 0;
}
