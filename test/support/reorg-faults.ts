// What a pool of nodes behind caches gets wrong on a chain that reorganises (issue 37), as project faults for the
// fault proxy over a reorganising devnet (devnet --reorg-every): a response cache that keeps its by-number entries
// across a reorg, a transaction index that is not rolled back, and torn head reads (a block published before its
// receipts' logs were indexed).
import type { Fault, RpcResponse } from './fault-proxy.ts';

/** A block number asked explicitly (not a tag, not a hash). */
const askedNumber = (p: unknown) => typeof p === 'string' && /^0x[0-9a-f]{1,16}$/.test(p);
const BY_NUMBER = ['eth_getBlockByNumber', 'eth_getBlockReceipts', 'eth_getTransactionByBlockNumberAndIndex'];

/**
 * Answers kept forever under `key(req)` once one held a result: what a cache that never hears of a reorg serves. A
 * block is kept by its number whatever the detail flag it was asked with: one asked with transaction hashes only is
 * served from a kept full block.
 */
function kept(name: string, key: (req: { method: string; params: unknown[] }) => string | undefined): Fault {
  const cache = new Map<string, RpcResponse>();
  const hashesOnly = (b: Record<string, unknown>) => ({ ...b, transactions: (b['transactions'] as Array<{ hash?: unknown } | string>).map((t) => (typeof t === 'string' ? t : t.hash)) });
  return {
    name,
    kills: [],
    rewrite: (req, res) => {
      const k = key(req);
      if (k === undefined) return res;
      const full = req.method === 'eth_getBlockByNumber' ? req.params[1] === true : undefined;
      const hit = full === true ? cache.get(`${k}:full`) : (cache.get(k) ?? (full === false ? cache.get(`${k}:full`) : undefined));
      if (hit) return { ...hit, id: res.id, ...(full === false && hit.result ? { result: hashesOnly(hit.result as Record<string, unknown>) } : {}) };
      if ('result' in res && res.result !== null && !(Array.isArray(res.result) && res.result.length === 0)) cache.set(full ? `${k}:full` : k, res);
      return res;
    },
  };
}

export const REORG_FAULTS = {
  /** Lookups by an explicit block number (blocks, block receipts, a transaction by index) cached for good: the orphaned fork by number. */
  byNumberCache: (): Fault => kept('a by-number cache that keeps its entries across reorgs', (req) => (BY_NUMBER.includes(req.method) && askedNumber(req.params[0]) ? JSON.stringify([req.method, req.method === 'eth_getBlockByNumber' ? req.params[0] : req.params]) : undefined)),
  /** Transactions and receipts by hash cached for good: a reorged-out transaction keeps naming the orphaned block. */
  staleIndex: (): Fault => kept('a transaction index that keeps reorged-out transactions', (req) => (req.method === 'eth_getTransactionByHash' || req.method === 'eth_getTransactionReceipt' ? JSON.stringify([req.method, req.params]) : undefined)),
  /** Receipts of a block first shown less than `ms` before answer with no logs (their logsBloom kept), as a head read before its logs were indexed. */
  tornLogs(ms: number): Fault {
    const shown = new Map<string, number>();
    const emptied = (r: unknown) => ({ ...(r as object), logs: [] });
    return {
      name: `receipts of blocks younger than ${ms} ms answer no logs`,
      kills: [],
      rewrite: (req, res) => {
        if (!('result' in res) || res.result === null || typeof res.result !== 'object') return res;
        const first = (Array.isArray(res.result) ? res.result[0] : res.result) as { hash?: unknown; blockHash?: unknown } | undefined;
        const block = req.method === 'eth_getBlockByNumber' || req.method === 'eth_getBlockByHash' ? first?.hash : first?.blockHash;
        if (typeof block !== 'string') return res;
        if (!shown.has(block)) shown.set(block, Date.now());
        if (Date.now() - shown.get(block)! >= ms) return res;
        if (req.method === 'eth_getTransactionReceipt') return { ...res, result: emptied(res.result) };
        if (req.method === 'eth_getBlockReceipts' && Array.isArray(res.result)) return { ...res, result: res.result.map(emptied) };
        return res;
      },
    };
  },
};
