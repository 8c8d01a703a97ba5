// The eight methods of the service spec (§4), one row each: the one table every other file reads a fact about a
// method from (the report and suite order, the shapes a check leans on, the robustness probes, the load mix, the
// answers that cannot change). Pure: the k6 bundle imports it. test/core/methods-table.test.ts fails when another
// source file lists the methods again.
import type { ShapeName } from './schemas.ts';

/** The block tags (§1), in the order the reports list them. */
export const BLOCK_TAGS = ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

/**
 * What a positional parameter is (§4's tables): a transaction call object (§2.1), a block number or tag, a block's
 * 32-byte hash, a transaction's 32-byte hash, an index position (hex quantity) into the collection the result is one of
 * (a block's uncles for an uncle, its transactions otherwise), the transaction details flag (boolean).
 */
export type ParamKind = 'call' | 'block' | 'blockHash' | 'txHash' | 'index' | 'flag';

/** The kinds that name a 32-byte hash: what an unknown hash misses with. */
export const HASH_KINDS: readonly ParamKind[] = ['blockHash', 'txHash'];

export interface MethodFacts {
  /** The spec section that defines it. */
  section: string;
  /** Its positional parameters, in order. */
  params: readonly ParamKind[];
  /** The shape of a non-null result (schemas/rpc/); eth_estimateGas answers a bare quantity. */
  result: ShapeName;
  /** Its key is a hash, not a height a reorg can move: an answer, once sampled, cannot change. */
  immutable: boolean;
  /** The block tags its block parameter takes (none without one). */
  tags: readonly BlockTag[];
  /** Its share of the capacity mix: lookups by hash dominate real read traffic. */
  weight: number;
  /** Under fresh reads (load/shared/freshness.ts): the head-chasing client asks it for each announced block's objects. */
  chased: boolean;
  /** Its `latest`-tagged answer names the block it was read at (the receipts' or transaction's blockNumber): judged against the head. */
  namesItsBlock: boolean;
  /** §8: on a network that declares a near-head window, it serves only the latest N blocks (core/near-head-window.ts). */
  windowed: boolean;
  /** Its block number may be written as a decimal integer too (§4.8's parameter table); elsewhere it is hex only (§1). */
  decimalNumber: boolean;
  /** The tag pending answers what latest does (§4.8 rule 1). */
  pendingIsLatest: boolean;
}

const NO_TAGS: readonly BlockTag[] = [];

/** The rows, in the order the reports and the suites list the methods (the spec's). */
const TABLE = {
  eth_estimateGas: { section: '4.1', params: ['call', 'block'], result: 'quantity', immutable: false, tags: BLOCK_TAGS, weight: 15, chased: false, namesItsBlock: false, windowed: false, decimalNumber: false, pendingIsLatest: false },
  eth_getBlockByHash: { section: '4.2', params: ['blockHash', 'flag'], result: 'block', immutable: true, tags: NO_TAGS, weight: 15, chased: true, namesItsBlock: false, windowed: false, decimalNumber: false, pendingIsLatest: false },
  eth_getUncleByBlockNumberAndIndex: { section: '4.3', params: ['block', 'index'], result: 'uncle', immutable: false, tags: BLOCK_TAGS, weight: 2.5, chased: false, namesItsBlock: false, windowed: false, decimalNumber: false, pendingIsLatest: false },
  eth_getUncleByBlockHashAndIndex: { section: '4.4', params: ['blockHash', 'index'], result: 'uncle', immutable: true, tags: NO_TAGS, weight: 2.5, chased: false, namesItsBlock: false, windowed: false, decimalNumber: false, pendingIsLatest: false },
  eth_getTransactionByBlockNumberAndIndex: { section: '4.5', params: ['block', 'index'], result: 'transaction', immutable: false, tags: BLOCK_TAGS, weight: 10, chased: true, namesItsBlock: true, windowed: false, decimalNumber: false, pendingIsLatest: false },
  eth_getTransactionByHash: { section: '4.6', params: ['txHash'], result: 'transaction', immutable: true, tags: NO_TAGS, weight: 20, chased: true, namesItsBlock: false, windowed: true, decimalNumber: false, pendingIsLatest: false },
  eth_getTransactionReceipt: { section: '4.7', params: ['txHash'], result: 'receipt', immutable: true, tags: NO_TAGS, weight: 25, chased: true, namesItsBlock: false, windowed: true, decimalNumber: false, pendingIsLatest: false },
  eth_getBlockReceipts: { section: '4.8', params: ['block'], result: 'block-receipts', immutable: false, tags: BLOCK_TAGS, weight: 10, chased: true, namesItsBlock: true, windowed: false, decimalNumber: true, pendingIsLatest: true },
} as const satisfies Record<string, MethodFacts>;

export type RpcMethod = keyof typeof TABLE;

/** The eight methods, in the table's order. */
export const METHODS = Object.keys(TABLE) as readonly RpcMethod[];

export const METHOD_FACTS: Readonly<Record<RpcMethod, MethodFacts>> = TABLE;

export function isRpcMethod(name: string): name is RpcMethod {
  return (METHODS as readonly string[]).includes(name);
}

/** The methods a near-head window (§8) limits. */
export const WINDOWED_METHODS: readonly RpcMethod[] = METHODS.filter((m) => TABLE[m].windowed);

/** A method's row, or undefined for a method outside the eight (eth_blockNumber, the service suite). */
export function factsOf(name: string): MethodFacts | undefined {
  return isRpcMethod(name) ? TABLE[name] : undefined;
}
