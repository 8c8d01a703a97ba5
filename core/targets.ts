// What the suite and the load corpus exercise on an endpoint: found by discovery on the endpoint
// itself, completed by per-network fixtures, written to reports/ as a lockfile (schemas/targets.json).

export interface BlockRef {
  number: string;
  hash: string;
}

export interface Targets {
  chainId: string;
  /** Head when discovery ran, and the range it walked back over. */
  head: BlockRef;
  scanned: { from: string; to: string; blocks: number };
  /** A block with several transactions (the most found), and one with none. */
  multiTxBlock?: BlockRef & { txCount: number };
  emptyBlock?: BlockRef;
  /** One transaction hash per EIP-2718 type seen ('0x0', '0x1', ...). */
  txByType: Record<string, string>;
  contractCreation?: string;
  txWithLogs?: string;
  failedTx?: string;
  successTx?: string;
  /** Fixture-only targets: history a walk from the head cannot reach. */
  uncleBlock?: BlockRef & { uncleCount: number };
  preByzantiumTx?: string;
  /** Calls known to revert, with the payload they revert with (seeded contracts on the embedded default). */
  reverts: RevertTarget[];
  /** Where each entry came from, for the report. */
  sources: Record<string, 'discovery' | 'fixture' | 'seed' | 'lockfile'>;
}

export interface RevertTarget {
  kind: 'require' | 'custom' | 'panic' | 'initcode';
  to?: string;
  data: string;
  reason?: string;
  /** The ABI-encoded revert payload the call must report as error.data. */
  expectedData: string;
}
