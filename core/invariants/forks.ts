// The forks a header can tell apart and the fields each appends: data only, so code bundled for k6 (the
// estimate bounds) can be fork-aware without the hashing header.ts brings.

/** Fields each fork appends to the header, in RLP order, after the 15 of the original (Frontier) header. */
export const FORK_FIELDS = [
  { fork: 'london', fields: ['baseFeePerGas'] },
  { fork: 'shanghai', fields: ['withdrawalsRoot'] },
  { fork: 'cancun', fields: ['blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot'] },
  { fork: 'prague', fields: ['requestsHash'] },
] as const;

export type Fork = 'frontier' | (typeof FORK_FIELDS)[number]['fork'];

/** The forks a header can tell apart, oldest first ('frontier' = anything before London). */
export const FORKS: readonly Fork[] = ['frontier', ...FORK_FIELDS.map((s) => s.fork)];

/** Whether `fork` is `since` or later. */
export const reached = (fork: Fork, since: Fork): boolean => FORKS.indexOf(fork) >= FORKS.indexOf(since);
