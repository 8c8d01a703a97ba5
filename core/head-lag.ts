// How far an endpoint's head may trail a trusted reference node's, in seconds of chain time: one fact, shared by
// conformance (reference/head-lag-*) and whatever else judges a head against a reference.

/**
 * The default allowance: 2 s, the grace an honest load-balanced node gets to serve a block it announced
 * (load/shared/freshness.ts DEFAULT_GRACE_MS, measured on the moving devnet: docs/load.md "Fresh reads"). A lag is
 * counted from the oldest block the endpoint lacks (lagSeconds), so one block of propagation is never a lag.
 */
export const DEFAULT_MAX_HEAD_LAG_S = 2;

/**
 * A lag in blocks as seconds of chain time: from the timestamp of the first block the endpoint lacks (its head + 1)
 * to the reference's head. A lower bound of how long the endpoint has been missing blocks the reference served: a
 * block is served no earlier than its timestamp, and the reference's head existed when it was read.
 */
export function lagSeconds(firstMissingTimestamp: bigint, referenceHeadTimestamp: bigint): number {
  const s = Number(referenceHeadTimestamp - firstMissingTimestamp);
  return s > 0 ? s : 0;
}
