// A `latest`-tagged answer names its block by hash (eth_getBlockReceipts' receipts, the transaction at an index): it is
// judged against that block's content read by that hash, never by number (a reorg changes what a number names). A
// cache that dropped the last receipt, or a torn read that answered a receipt's logs as [] while its logsBloom says it
// has some, is `wrong`, whatever the tag. Only what needs no hashing is recomputed (a bloom's OR, not its keccaks:
// ~17 ms a log in k6). Pure: k6 fetches the block (scenario.ts), Node tests this.
import { orBlooms } from '../../core/invariants/bloom.ts';
import { METHOD_FACTS, type RpcMethod } from '../../core/methods.ts';

/** The block a `latest` answer names, as eth_getBlockByHash(hash, false) gives it. */
export interface NamedBlock {
  number?: unknown;
  transactions?: unknown;
  logsBloom?: unknown;
}

const BLOOM_ZERO = `0x${'0'.repeat(512)}`;
const BLOOM = /^0x[0-9a-fA-F]{512}$/;

/** Whether an entry (its params as JSON text) asks `latest` of a method whose answer names its block. */
export function namesLatest(method: RpcMethod, params: string): boolean {
  return METHOD_FACTS[method].namesItsBlock && params.includes('"latest"');
}

/** The hash of the block an answer names (the first receipt's, the transaction's); undefined when it names none ([], null). */
export function namedHash(result: unknown): string | undefined {
  const o = Array.isArray(result) ? result[0] : result;
  const hash = o !== null && typeof o === 'object' ? (o as { blockHash?: unknown }).blockHash : undefined;
  return typeof hash === 'string' ? hash : undefined;
}

/** What in the answer contradicts the block it names; undefined when nothing does (or nothing can be told). */
export function namedBlockFault(method: RpcMethod, params: unknown[], result: unknown, block: NamedBlock): string | undefined {
  const txs = Array.isArray(block.transactions) ? (block.transactions as unknown[]) : undefined;
  if (txs === undefined) return undefined;
  const where = `block ${String(block.number)} (read by the hash the answer names)`;
  if (method === 'eth_getTransactionByBlockNumberAndIndex') {
    const index = typeof params[1] === 'string' ? parseInt(params[1], 16) : NaN;
    const hash = result !== null && typeof result === 'object' ? (result as { hash?: unknown }).hash : undefined;
    return Number.isInteger(index) && hash !== txs[index] ? `the transaction at index ${index} of latest is ${String(hash)}, ${where} holds ${String(txs[index] ?? 'none')} there` : undefined;
  }
  if (method !== 'eth_getBlockReceipts' || !Array.isArray(result)) return undefined;
  if (result.length !== txs.length) return `${result.length} receipt(s) for latest, ${where} holds ${txs.length} transaction(s)`;
  const blooms: string[] = [];
  for (const [i, r] of result.entries()) {
    const receipt = (r ?? {}) as { transactionHash?: unknown; logs?: unknown; logsBloom?: unknown };
    if (receipt.transactionHash !== txs[i]) return `receipt ${i} of latest is of ${String(receipt.transactionHash)}, transaction ${i} of ${where} is ${String(txs[i])}`;
    if (typeof receipt.logsBloom !== 'string' || !BLOOM.test(receipt.logsBloom) || !Array.isArray(receipt.logs)) continue;
    const logs = receipt.logs.length;
    const bits = receipt.logsBloom.toLowerCase() !== BLOOM_ZERO;
    if (logs === 0 && bits) return `receipt ${i} of latest has no logs, while its logsBloom says it has some (logs dropped)`;
    if (logs > 0 && !bits) return `receipt ${i} of latest has ${logs} log(s) and an empty logsBloom`;
    blooms.push(receipt.logsBloom);
  }
  if (typeof block.logsBloom === 'string' && BLOOM.test(block.logsBloom) && blooms.length === result.length && orBlooms(blooms as `0x${string}`[]).toLowerCase() !== block.logsBloom.toLowerCase()) {
    return `the receipts of latest do not make the logsBloom of ${where}: logs or blooms dropped or altered`;
  }
  return undefined;
}

/** What an answer that names no block ([] receipts, a null transaction) contradicts in the latest block read around it. */
export function noneNamedFault(method: RpcMethod, params: unknown[], result: unknown, block: NamedBlock): string | undefined {
  const txs = Array.isArray(block.transactions) ? (block.transactions as unknown[]) : undefined;
  if (txs === undefined || txs.length === 0) return undefined;
  const where = `block ${String(block.number)}, latest before and after it, holds ${txs.length} transaction(s)`;
  if (method === 'eth_getBlockReceipts' && Array.isArray(result) && result.length === 0) return `no receipts for latest, while ${where}`;
  const index = typeof params[1] === 'string' ? parseInt(params[1], 16) : NaN;
  if (method === 'eth_getTransactionByBlockNumberAndIndex' && result === null && Number.isInteger(index) && index < txs.length) return `null at index ${index} of latest, while ${where}`;
  return undefined;
}
