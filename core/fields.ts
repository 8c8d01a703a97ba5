// The spec's objects field by field (§2.2 block, §2.3 transaction, §2.4 receipt, §2.5 log) and its block tags (§1):
// what a check's `ties` may name (CheckSpec.ties), and, where it needs saying, how a field is tied or why nothing
// can tie it. docs/checks.md's field table is written from this table and the checks' `ties` (npm run docs);
// test/conformance/field-ties.test.ts holds it to the spec's field lists (schemas/rpc, x-origin) and every row to a
// check or a reason.

export interface FieldEntry {
  /** Why no check can tie the value to anything: the row names no check. A field with a tying check has none. */
  none?: string;
  /** How the checks tie it, where their names do not say (e.g. only through the hash that commits to it). */
  how?: string;
  /** Committed to by the block header: keccak256(rlp(header)) is the block's hash (core/invariants/header.ts). */
  header?: true;
  /** Rebuilt into the signed envelope whose keccak256 is the transaction's hash (core/invariants/tx.ts), for some type at least. */
  signed?: true;
  /** In the consensus encoding of a receipt, which receiptsRoot commits to (core/invariants/receipt.ts). */
  committed?: true;
  /**
   * Why no consistent corruption of it can be caught (test/conformance/field-proofs.test.ts): the table then says so
   * beside its checks, instead of the check a corruption was shown to fail.
   */
  unproven?: string;
}

const ONLY_IN_HASH = 'no method here states it otherwise: tied through the block hash, which commits to it and is recomputed';

export const FIELDS = {
  block: {
    number: { header: true },
    hash: {},
    parentHash: { header: true },
    nonce: { header: true, how: `after the merge it is 0 by protocol (EIP-3675); ${ONLY_IN_HASH}` },
    sha3Uncles: { header: true },
    logsBloom: { header: true },
    transactionsRoot: { header: true },
    stateRoot: { header: true, how: `cannot be recomputed without the state; ${ONLY_IN_HASH}` },
    receiptsRoot: { header: true },
    miner: { header: true, how: `the fee recipient the proposer chose; ${ONLY_IN_HASH}` },
    difficulty: { header: true, how: 'after the merge 0 by protocol (EIP-3675); committed to by the block hash, and added into the totalDifficulty sum' },
    totalDifficulty: { how: 'not in the header: judged as the sum over the chain (its parent\'s plus its difficulty) where served; uncles carry null (uncle-shape)' },
    extraData: { header: true, how: `free bytes the proposer chose; ${ONLY_IN_HASH}` },
    size: {},
    gasLimit: { header: true, how: `the limit the proposer voted for (its bounds against the parent's differ on L2s); ${ONLY_IN_HASH}` },
    gasUsed: { header: true },
    timestamp: { header: true },
    transactions: {},
    uncles: {},
    mixHash: { header: true, how: `after the merge the beacon chain's RANDAO mix (EIP-4399); ${ONLY_IN_HASH}` },
  },
  transaction: {
    accessList: { signed: true },
    blockHash: {},
    blockNumber: {},
    chainId: { signed: true, how: 'the spec\'s table spells it chainID, its sample response chainId (the key judged)' },
    from: {},
    gas: { signed: true },
    gasPrice: { signed: true, how: 'signed for types 0x0 and 0x1; from 0x2 on signed by nothing: the price paid, recomputed against the block\'s base fee' },
    hash: { signed: true },
    input: { signed: true },
    maxPriorityFeePerGas: { signed: true },
    maxFeePerGas: { signed: true },
    nonce: { signed: true },
    r: { signed: true },
    s: { signed: true },
    to: { signed: true },
    transactionIndex: {},
    type: { signed: true },
    v: { signed: true },
    value: { signed: true },
  },
  receipt: {
    blockHash: {},
    blockNumber: {},
    contractAddress: {},
    cumulativeGasUsed: { committed: true },
    effectiveGasPrice: {},
    from: {},
    gasUsed: {},
    logs: { committed: true },
    logsBloom: { committed: true },
    root: { committed: true, how: 'pre-Byzantium receipts only: judged where a pre-Byzantium block is (a per-network fixture)', unproven: 'no receipt of the seeded chain has one (post-Byzantium from genesis): there is nothing to corrupt; receiptsRoot commits to it where one is' },
    status: { committed: true },
    to: {},
    transactionHash: {},
    transactionIndex: {},
    type: { committed: true },
  },
  log: {
    address: { committed: true },
    topics: { committed: true },
    data: { committed: true },
    blockNumber: {},
    blockHash: {},
    transactionHash: {},
    transactionIndex: {},
    logIndex: {},
    removed: { how: 'a log of a canonical block\'s receipt is never removed: false is the only value it can have there' },
  },
  tag: {
    latest: {},
    earliest: {},
    pending: { how: 'the service\'s own rule (§4.8 rule 1): pending answers as latest' },
    safe: { unproven: 'resolved to another block at or below the head and at or above finalized, in every method alike, it breaks no rule the spec gives: which block is safe is the consensus layer\'s word (a reference, reference/*-agrees, tells); on the seeded chain finalized is the genesis and every block up to the head is such a block' },
    finalized: {},
  },
} as const satisfies Record<string, Record<string, FieldEntry>>;

export type FieldKind = keyof typeof FIELDS;

/** A field of the spec's objects or a block tag, as `block.stateRoot` or `tag.safe`: a misspelt one does not compile. */
export type Tie = { [K in FieldKind]: `${K}.${Extract<keyof (typeof FIELDS)[K], string>}` }[FieldKind];

/** Every field (or tag) of one kind, in the spec's order. */
export function fieldsOf(kind: FieldKind): Tie[] {
  return Object.keys(FIELDS[kind]).map((f) => `${kind}.${f}` as Tie);
}

/** Every row of the table, in order. */
export function allFields(): Array<{ tie: Tie; entry: FieldEntry }> {
  return (Object.keys(FIELDS) as FieldKind[]).flatMap((kind) => Object.entries(FIELDS[kind] as Record<string, FieldEntry>).map(([f, entry]) => ({ tie: `${kind}.${f}` as Tie, entry })));
}

const flagged = (flag: 'header' | 'signed' | 'committed'): Tie[] => allFields().filter(({ entry }) => entry[flag]).map(({ tie }) => tie);

/** The block fields the header commits to: what recomputing the block (or uncle) hash ties. */
export const HEADER_FIELDS = flagged('header');

/** The transaction fields its hash commits to, and the hash: what recomputing the hash (alone or in the root) ties. */
export const SIGNED = flagged('signed');

/** The receipt and log fields receiptsRoot commits to: what recomputing the root ties. */
export const COMMITTED = flagged('committed');

/** The log fields that point back at the receipt that holds it, and so at its transaction and block. */
export const LOG_PLACE: Tie[] = ['log.blockHash', 'log.blockNumber', 'log.transactionHash', 'log.transactionIndex'];

/**
 * What makes a receipt the one of its transaction at its place: its transaction's hash, type, from and to, its block,
 * its position, its logs' back-pointers. (contractAddress is only held to be set exactly when to is null there: its
 * value is recomputed by eth_getTransactionReceipt/contract-address.)
 */
export const PLACE: Tie[] = ['receipt.blockHash', 'receipt.blockNumber', 'receipt.transactionIndex', 'receipt.transactionHash', 'receipt.type', 'receipt.from', 'receipt.to', ...LOG_PLACE];
