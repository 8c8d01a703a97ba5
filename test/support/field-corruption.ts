// One field of the spec's objects (or one block tag) corrupted consistently (issue 43): the same wrong value in every
// answer of every method that returns it, hashes and roots not recomputed, so that no comparison between methods can
// see it; only a check that ties the value to something recomputed or to the chain does.
import { isObject, toQuantity } from '../../core/hex.ts';
import type { Tie } from '../../conformance/framework/fields.ts';
import type { Fault, RpcRequest, RpcResponse } from './fault-proxy.ts';

type Json = Record<string, unknown>;
type Kind = 'block' | 'transaction' | 'receipt' | 'log';

const BLOCK_METHODS = ['eth_getBlockByHash', 'eth_getBlockByNumber', 'eth_getUncleByBlockHashAndIndex', 'eth_getUncleByBlockNumberAndIndex'];
const TX_METHODS = ['eth_getTransactionByHash', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByBlockHashAndIndex'];
const hashOf = (byte: string) => `0x${byte.repeat(32)}`;

/** A value changed, still well formed: a hex digit flipped (empty data made one byte), a list one item shorter or longer. */
function changed(kind: Kind, field: string, v: unknown): unknown {
  if (field === 'uncles' && Array.isArray(v)) return [...v, hashOf('22')];
  if (field === 'accessList' && Array.isArray(v)) return [...v, { address: `0x${'11'.repeat(20)}`, storageKeys: [] }];
  if (Array.isArray(v)) return v.length ? v.slice(0, -1) : kind === 'block' ? [hashOf('33')] : field === 'topics' ? [hashOf('44')] : v;
  if (typeof v === 'boolean') return !v;
  if (typeof v !== 'string' || !v.startsWith('0x')) return v;
  if (v === '0x') return '0x00';
  return `${v.slice(0, -1)}${v.endsWith('0') ? '1' : '0'}`;
}

/** Every object of the kind in a method's result, passed through `visit` (a block's transactions, a receipt's logs too). */
function rewriteResult(method: string, result: unknown, visit: (kind: Kind, o: Json) => Json): unknown {
  const receipt = (r: unknown) => (isObject(r) ? visit('receipt', Array.isArray(r['logs']) ? { ...r, logs: r['logs'].map((l) => (isObject(l) ? visit('log', l) : l)) } : r) : r);
  if (BLOCK_METHODS.includes(method) && isObject(result)) {
    const txs = Array.isArray(result['transactions']) ? result['transactions'].map((tx) => (isObject(tx) ? visit('transaction', tx) : tx)) : result['transactions'];
    return visit('block', { ...result, transactions: txs });
  }
  if (TX_METHODS.includes(method) && isObject(result)) return visit('transaction', result);
  if (method === 'eth_getTransactionReceipt') return receipt(result);
  if (method === 'eth_getBlockReceipts' && Array.isArray(result)) return result.map(receipt);
  return result;
}

/**
 * A block tag resolved to another block in every method that takes it (eth_blockNumber too, for latest): latest and
 * pending one block below the head, earliest, finalized and safe at the head.
 */
function tagFault(tag: string): NonNullable<Fault['rewrite']> {
  return async (req: RpcRequest, res: RpcResponse, ctx) => {
    const at = req.params.indexOf(tag);
    const head = BigInt(String((await ctx.upstream('eth_blockNumber', [])).result));
    const moved = tag === 'latest' || tag === 'pending' ? head - 1n : head;
    if (tag === 'latest' && req.method === 'eth_blockNumber') return { ...res, result: toQuantity(moved) };
    if (at < 0) return res;
    return { ...(await ctx.upstream(req.method, req.params.map((p, i) => (i === at ? toQuantity(moved) : p)))), id: res.id };
  };
}

/** The fault that corrupts one row of the field table consistently. */
export function corruptField(tie: Tie): Fault {
  const [kind, field] = tie.split('.') as [Kind | 'tag', string];
  const rewrite: NonNullable<Fault['rewrite']> =
    kind === 'tag'
      ? tagFault(field)
      : (req, res) => {
          if (!('result' in res) || res.result === null) return res;
          const visit = (k: Kind, o: Json): Json => (k === kind && field in o && o[field] !== null ? { ...o, [field]: changed(k, field, o[field]) } : o);
          return { ...res, result: rewriteResult(req.method, res.result, visit) };
        };
  return { name: `${tie} corrupted consistently`, kills: [], rewrite };
}
