// What the suite and the load corpus exercise on an endpoint: found by discovery on the endpoint
// itself, completed by per-network fixtures, written to reports/ as a lockfile (schemas/targets.json).

export interface BlockRef {
  number: string;
  hash: string;
}

/** A block the block-level invariants judge: its fork era (read off its header fields) and why it was picked. */
export interface JudgedBlock extends BlockRef {
  era: string;
  /** Unknown for a fixture's block, which the walk did not fetch. */
  txCount?: number;
  why: string[];
}

/**
 * Per target class: found (and where), found only in a block that fails its shape (a failed check, never
 * "absent"), not on the chain within the blocks walked, not reached before the request budget ran out, or
 * not looked for because the run was stopped (deadline, Ctrl-C) during the walk.
 */
export interface CoverageEntry {
  status: 'found' | 'malformed' | 'absent' | 'out-of-budget' | 'not-looked-for';
  source?: 'discovery' | 'fixture' | 'seed' | 'lockfile';
  /** Blocks walked when the class was judged absent or out of budget. */
  within?: number;
  note?: string;
}

export interface Targets {
  chainId: string;
  /** Head when discovery ran, and the range it walked back over. */
  head: BlockRef;
  scanned: {
    from: string;
    to: string;
    blocks: number;
    /** Why the walk ended: every class found, the range (--discovery-depth or genesis) walked, or the request budget spent. */
    stoppedBy?: 'all-found' | 'range' | 'budget' | 'interrupted';
    requests?: number;
  };
  /** A block with several transactions (the most found), and one with none. */
  multiTxBlock?: BlockRef & { txCount: number };
  emptyBlock?: BlockRef;
  /** One transaction hash per EIP-2718 type seen ('0x0', '0x1', ...; types beyond 0x4 are kept and reported as unknown). */
  txByType: Record<string, string>;
  contractCreation?: string;
  /** The newest successful contract creation the walk met (status 0x1, a contractAddress): the state-dependent estimate's premise. */
  deployment?: string;
  txWithLogs?: string;
  failedTx?: string;
  successTx?: string;
  /** A successful call (type 0x0-0x2) whose execution ran code at its `to` (gasUsed above the intrinsic gas). */
  callToCode?: string;
  /** A successful transaction (type 0x0-0x2) first in its block: replayed at the parent block it sees the state it ran on. */
  firstInBlockTx?: string;
  /** A failed transaction (type 0x0-0x2) first in its block: one that did not use all its gas (a REVERT) if the walk met one. */
  revertedTx?: string;
  /** A block whose withdrawals list is not empty (EIP-4895). */
  withdrawalsBlock?: BlockRef & { withdrawals: number };
  /** Pre-merge history: found by a walk over an old enough chain, or named by a per-network fixture. */
  uncleBlock?: BlockRef & { uncleCount: number };
  preByzantiumTx?: string;
  /** One block per fork era met ('frontier' = pre-London, 'london', 'shanghai', 'cancun', 'prague'). */
  eraBlocks?: Record<string, BlockRef>;
  /** Blocks the walk fetched that fail the block shape (schemas/rpc/block.json), with the classes they held: eth_getBlockByHash/walked-shape fails on them. */
  malformedBlocks?: MalformedBlock[];
  /** The blocks every block-level invariant judges (capped, spread over the eras found). */
  judgedBlocks?: JudgedBlock[];
  /** Per target class, what the walk and the fixtures made of it. */
  coverage?: Record<string, CoverageEntry>;
  /** Calls known to revert, with the payload they revert with (seeded contracts on the embedded default). */
  reverts: RevertTarget[];
  /** Where each entry came from, for the report. */
  sources: Record<string, 'discovery' | 'fixture' | 'seed' | 'lockfile'>;
}

export interface MalformedBlock {
  /** The number asked for (eth_getBlockByNumber), whatever the answer says. */
  number: string;
  hash?: string;
  /** Whether full transactions were asked for. */
  full: boolean;
  /** The schema faults, "pointer message". */
  faults: string[];
  /** The target classes the walk took from this block. */
  classes: string[];
}

export interface RevertTarget {
  kind: 'require' | 'custom' | 'panic' | 'initcode';
  to?: string;
  data: string;
  reason?: string;
  /** The ABI-encoded revert payload the call must report as error.data. */
  expectedData: string;
}
