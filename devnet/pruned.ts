// The gateway's pruned mode (devnet --serve-latest N): history older than the latest N blocks is answered as a node
// that expired it does (EIP-4444): error 4444, naming the block asked and the earliest one kept, as reth does. The
// block a call reaches is read from its block parameter (a number, "earliest") or from the answer (the block, the
// transaction or the receipts it names), so lookups by hash are pruned too. The state of eth_estimateGas and eth_call
// goes with it.
import { factsOf } from '../core/methods.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const PRUNED_CODE = 4444;

/** The error a pruned node answers for block `asked` when it keeps `earliest` on. */
export function prunedError(asked: bigint, earliest: bigint): JsonObject {
  return { code: PRUNED_CODE, message: `pruned history unavailable: block ${asked} is older than the earliest available block ${earliest}`, data: { requested: `0x${asked.toString(16)}`, earliest: `0x${earliest.toString(16)}` } };
}

/** The blocks with a block parameter beside the eight methods, at that position. */
const BLOCK_PARAM: Record<string, number> = { eth_getBlockByNumber: 0, eth_call: 1, eth_getBalance: 1, eth_getCode: 1, eth_getTransactionCount: 1, eth_getStorageAt: 2 };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function numberOf(v: Json | undefined): bigint | undefined {
  if (v === 'earliest') return 0n;
  // A quantity, not a 32-byte block hash (eth_getBlockReceipts takes either).
  return typeof v === 'string' && /^0x[0-9a-f]{1,16}$/i.test(v) ? BigInt(v) : undefined;
}

/** The block a call reaches: its block parameter's number, else the block its answer names; undefined for neither. */
export function blockReached(call: Json, answer: Json): bigint | undefined {
  if (!isObject(call) || typeof call.method !== 'string' || !Array.isArray(call.params)) return undefined;
  const facts = factsOf(call.method);
  const at = facts ? facts.params.indexOf('block') : BLOCK_PARAM[call.method] ?? -1;
  const param = at >= 0 ? numberOf(call.params[at]) : undefined;
  if (param !== undefined) return param;
  const result = isObject(answer) ? answer.result : undefined;
  const named = Array.isArray(result) ? result[0] : result;
  if (!isObject(named)) return undefined;
  // A transaction or a receipt names its block; a block (or an uncle) is its own.
  return numberOf(named.blockNumber ?? named.number);
}

/** State the gateway declares kept: anvil keeps some thousands of blocks of it in memory (3,610 measured, then "block
 * height is N but requested was M"), a full node 128; the gateway promises a full node's. */
export const STATE_KEPT = 128;

/**
 * The gateway's eth_capabilities (execution-apis #755, as geth serves it): anvil keeps its blocks, transactions and
 * receipts from genesis, and state for a window of STATE_KEPT blocks; in pruned mode all of them for the latest `keep`.
 */
export function capabilities(head: bigint, hash: string, keep: number | undefined): JsonObject {
  const hex = (n: bigint) => `0x${n.toString(16)}`;
  const resource = (window: number | undefined): JsonObject => ({
    disabled: false,
    oldestBlock: hex(window === undefined || head < BigInt(window) ? 0n : head - BigInt(window) + 1n),
    ...(window === undefined ? {} : { deleteStrategy: { type: 'window', retentionBlocks: hex(BigInt(window)) } }),
  });
  const state = resource(Math.min(keep ?? STATE_KEPT, STATE_KEPT));
  return { head: { number: hex(head), hash }, state, tx: resource(keep), logs: resource(keep), receipts: resource(keep), blocks: resource(keep) };
}

/** The answer as a node keeping only the latest `keep` blocks gives it at `head`. */
export function pruneAnswer(call: Json, answer: Json, head: bigint, keep: number): Json {
  const earliest = head - BigInt(keep) + 1n;
  const reached = blockReached(call, answer);
  if (reached === undefined || earliest <= 0n || reached >= earliest || !isObject(answer)) return answer;
  return { jsonrpc: '2.0', id: answer.id ?? null, error: prunedError(reached, earliest) };
}
