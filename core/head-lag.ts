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
 * A lag in blocks as seconds of chain time: from the timestamp of the first block the endpoint lacks (its head + 1)
 * to the reference's head. A lower bound of how long the endpoint has been missing blocks the reference served: a
 * block is served no earlier than its timestamp, and the reference's head existed when it was read.
 */
export function lagSeconds(firstMissingTimestamp: bigint, referenceHeadTimestamp: bigint): number {
  const s = Number(referenceHeadTimestamp - firstMissingTimestamp);
  return s > 0 ? s : 0;
}
