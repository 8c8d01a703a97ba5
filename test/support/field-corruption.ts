// One field of the spec's objects (or one block tag) corrupted consistently (issue 43): the same wrong value in every
// answer of every method that returns it, hashes and roots not recomputed, so that no comparison between methods can
// see it; only a check that ties the value to something recomputed or to the chain does.
import { isObject, toQuantity } from '../../core/hex.ts';
import { FIELDS, type FieldEntry, type Tie } from '../../core/fields.ts';
import { headerHash } from '../../core/invariants/header.ts';
import { txHash } from '../../core/invariants/tx.ts';
import { receiptEnvelope } from '../../core/invariants/receipt.ts';
import { orderedTrieRoot } from '../../core/invariants/trie.ts';
import type { Json as Encodable } from '../../core/invariants/encoding.ts';
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

/** The one field changed in every object of its kind. */
const fieldChange = (kind: Kind, field: string) => (k: Kind, o: Json): Json => (k === kind && field in o && o[field] !== null ? { ...o, [field]: changed(k, field, o[field]) } : o);

/** The fault that corrupts one row of the field table consistently. */
export function corruptField(tie: Tie): Fault {
  const [kind, field] = tie.split('.') as [Kind | 'tag', string];
  const rewrite: NonNullable<Fault['rewrite']> =
    kind === 'tag'
      ? tagFault(field)
      : (req, res) => {
          if (!('result' in res) || res.result === null) return res;
          return { ...res, result: rewriteResult(req.method, res.result, fieldChange(kind, field)) };
        };
  return { name: `${tie} corrupted consistently`, kills: [], rewrite };
}

/** What an honest-looking liar recomputes after changing a field: the hash or root that commits to it (fields.ts flags). */
export function liarRecomputes(tie: Tie): Tie | undefined {
  const [kind, field] = tie.split('.') as [keyof typeof FIELDS, string];
  const entry = (FIELDS[kind] as Record<string, FieldEntry>)[field];
  if (tie === 'block.hash' || tie === 'transaction.hash') return undefined;
  return entry?.header ? 'block.hash' : entry?.signed ? 'transaction.hash' : entry?.committed ? 'block.receiptsRoot' : undefined;
}

/** The hash recomputed, or the old one where the changed object cannot be encoded (a type the signature no longer fits): no liar can make that one consistent. */
function orSame(old: string, recompute: () => string): string {
  try {
    return recompute();
  } catch {
    return old;
  }
}

/** Every string of a value that `map` holds replaced by its image. */
function substituted(v: unknown, map: ReadonlyMap<string, string>): unknown {
  if (typeof v === 'string') return map.get(v) ?? v;
  if (Array.isArray(v)) return v.map((x) => substituted(x, map));
  return isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substituted(x, map)])) : v;
}

/**
 * The field changed as corruptField does, and what commits to it recomputed as an honest-looking liar would (issue 43's
 * second variant): a header field's block hash (header.ts), a signed field's transaction hash (tx.ts), a receipt's or
 * log's committed field's receiptsRoot (receipt.ts, trie.ts); every answer then names the new hash where the old one
 * stood, and a call naming the new hash is answered as the old one would be. Worked out from the clean chain before the
 * run (`blocks`: every block with full transactions, `receipts`: each block's receipts by its hash).
 */
export async function liarField(tie: Tie, chain: { blocks: Json[]; receipts: Map<string, Json[]> }): Promise<Fault> {
  const [kind, field] = tie.split('.') as [Kind, string];
  const change = fieldChange(kind, field);
  const recomputed = liarRecomputes(tie);
  const forward = new Map<string, string>();
  const roots = new Map<string, string>();
  for (const block of chain.blocks) {
    const hash = String(block['hash']);
    if (recomputed === 'block.hash') forward.set(hash, orSame(hash, () => headerHash(change('block', block) as Encodable)));
    if (recomputed === 'transaction.hash') for (const tx of (block['transactions'] as unknown[]).filter(isObject)) forward.set(String(tx['hash']), orSame(String(tx['hash']), () => txHash(change('transaction', tx) as Encodable)));
    if (recomputed === 'block.receiptsRoot') {
      const receipts = (chain.receipts.get(hash) ?? []).map((r) => rewriteResult('eth_getTransactionReceipt', r, change) as Encodable);
      roots.set(hash, await orderedTrieRoot(receipts.map((r) => receiptEnvelope(r))));
    }
  }
  for (const [from, to] of [...forward]) if (from === to) forward.delete(from);
  const back = new Map([...forward].map(([from, to]) => [to, from]));
  const rewrite: NonNullable<Fault['rewrite']> = async (req, res, ctx) => {
    const params = substituted(req.params, back) as unknown[];
    const asked = JSON.stringify(params) === JSON.stringify(req.params) ? res : { ...(await ctx.upstream(req.method, params)), id: res.id };
    if (!('result' in asked) || asked.result === null) return asked;
    const visit = (k: Kind, o: Json): Json => {
      const c = change(k, o);
      return k === 'block' && roots.has(String(o['hash'])) ? { ...c, receiptsRoot: roots.get(String(o['hash'])) } : c;
    };
    return { ...asked, result: substituted(rewriteResult(req.method, asked.result, visit), forward) };
  };
  return { name: `${tie} corrupted, ${recomputed ?? 'nothing'} recomputed`, kills: [], rewrite };
}
