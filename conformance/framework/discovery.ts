// Finds the suite's targets on the endpoint itself: walks back from the head (bounded) until it has a
// block with several transactions, each transaction type, a contract creation, a transaction with
// logs, a failed and a successful one, and an empty block. Nothing is hard-coded to one chain.
import { readFile } from 'node:fs/promises';
import type { BlockRef, Targets } from '../../core/targets.ts';
import { isObject, q, toQuantity } from '../../core/hex.ts';
import type { RpcClient } from './rpc-client.ts';

interface RawTx {
  hash: string;
  type?: string;
  to: string | null;
}
interface RawBlock {
  number: string;
  hash: string;
  transactions: RawTx[];
}
interface RawReceipt {
  transactionHash: string;
  status?: string;
  logs: unknown[];
}

export interface DiscoveryOptions {
  /** How many blocks at most to walk back from the head. */
  depth: number;
  /** The chain and head the preflight read: discovery walks back from there. */
  chainId: string;
  head: BlockRef;
}

export const KNOWN_TYPES = ['0x0', '0x1', '0x2', '0x3', '0x4'];

export async function discoverTargets(client: RpcClient, opts: DiscoveryOptions): Promise<Targets> {
  const { chainId, head } = opts;
  const headNumber = q(head.number) ?? 0n;
  const t: Targets = {
    chainId,
    head,
    scanned: { from: head.number, to: head.number, blocks: 0 },
    txByType: {},
    reverts: [],
    sources: {},
  };
  const found = (key: string) => (t.sources[key] = 'discovery');

  for (let n = headNumber; n >= 0n && headNumber - n < BigInt(opts.depth); n--) {
    // Discovery reads what an untrusted endpoint says: a block it cannot make sense of is passed over
    // (the checks will judge that endpoint), never a crash of the run.
    // Full transaction objects only while something still needs them: on a busy chain the rest of the
    // walk (for an empty block) then costs a hash list a block instead of every transaction.
    const full = !fullTargetsFound(t);
    const block = await client.call<RawBlock | null>('eth_getBlockByNumber', [toQuantity(n), full]).catch(() => null);
    if (!isObject(block) || typeof block.hash !== 'string' || typeof block.number !== 'string' || !Array.isArray(block.transactions)) continue;
    t.scanned = { from: block.number, to: head.number, blocks: t.scanned.blocks + 1 };
    const count = block.transactions.length;
    const txs = full ? (block.transactions.filter(isObject) as unknown as RawTx[]) : [];
    const ref: BlockRef = { number: block.number, hash: block.hash };

    if (count === 0 && !t.emptyBlock) {
      t.emptyBlock = ref;
      found('emptyBlock');
    }
    if (count >= 2 && count > (t.multiTxBlock?.txCount ?? 1) && count <= 500) {
      t.multiTxBlock = { ...ref, txCount: count };
      found('multiTxBlock');
    }
    for (const tx of txs) {
      if (typeof tx.hash !== 'string') continue;
      const type = typeof tx.type === 'string' ? tx.type : '0x0';
      if (!t.txByType[type]) {
        t.txByType[type] = tx.hash;
        found(`txByType.${type}`);
      }
      if (tx.to === null && !t.contractCreation) {
        t.contractCreation = tx.hash;
        found('contractCreation');
      }
    }
    if (full && txs.length > 0 && (!t.failedTx || !t.txWithLogs || !t.successTx)) await scanReceipts(client, block, t, found);
    if (complete(t)) break;
  }
  return t;
}

async function scanReceipts(client: RpcClient, block: RawBlock, t: Targets, found: (key: string) => void): Promise<void> {
  let receipts: unknown;
  try {
    receipts = await client.call<unknown>('eth_getBlockReceipts', [block.number]);
  } catch {
    // A provider without eth_getBlockReceipts still gets its receipts one by one (bounded).
    const one: unknown[] = [];
    for (const tx of block.transactions.slice(0, 16)) one.push(await client.call<unknown>('eth_getTransactionReceipt', [tx.hash]).catch(() => null));
    receipts = one;
  }
  if (!Array.isArray(receipts)) return;
  for (const r of receipts.filter(isObject) as unknown as RawReceipt[]) {
    if (typeof r.transactionHash !== 'string') continue;
    if (r.status === '0x0' && !t.failedTx) {
      t.failedTx = r.transactionHash;
      found('failedTx');
    }
    if (r.status === '0x1' && !t.successTx) {
      t.successTx = r.transactionHash;
      found('successTx');
    }
    if (Array.isArray(r.logs) && r.logs.length > 0 && !t.txWithLogs) {
      t.txWithLogs = r.transactionHash;
      found('txWithLogs');
    }
  }
}

/** What only full transaction objects and receipts can reveal. */
function fullTargetsFound(t: Targets): boolean {
  return ['0x0', '0x1', '0x2'].every((k) => t.txByType[k]) && Boolean(t.contractCreation && t.failedTx && t.successTx && t.txWithLogs);
}

function complete(t: Targets): boolean {
  return fullTargetsFound(t) && Boolean(t.multiTxBlock && t.emptyBlock);
}

/** Adds fixture targets (pre-merge uncles, pre-Byzantium receipts, seeded reverts) that discovery cannot reach. */
export function mergeFixtures(t: Targets, fixture: Partial<Targets>, source: 'fixture' | 'seed'): Targets {
  const merged: Targets = { ...t, txByType: { ...t.txByType }, reverts: [...t.reverts, ...(fixture.reverts ?? [])], sources: { ...t.sources } };
  for (const [key, value] of Object.entries(fixture) as Array<[keyof Targets, unknown]>) {
    if (key === 'reverts' || key === 'sources' || key === 'chainId' || value === undefined) continue;
    if (key === 'txByType') {
      for (const [type, hash] of Object.entries(value as Record<string, string>)) {
        if (!merged.txByType[type]) {
          merged.txByType[type] = hash;
          merged.sources[`txByType.${type}`] = source;
        }
      }
      continue;
    }
    if (merged[key] === undefined) {
      (merged as unknown as Record<string, unknown>)[key] = value;
      merged.sources[key] = source;
    }
  }
  return merged;
}

/** A lockfile written by an earlier run, reused with --targets. */
export async function loadTargets(path: string): Promise<Targets> {
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => Promise.reject(new Error(`${path}: cannot read it (${e.code ?? e.message})`)));
  let parsed: Targets;
  try {
    parsed = JSON.parse(text) as Targets;
  } catch (e) {
    throw new Error(`${path}: not JSON, so not a targets lockfile (${(e as Error).message.replace(/\s+/g, " ")})`);
  }
  if (!parsed || typeof parsed.chainId !== 'string' || !isObject(parsed.txByType)) throw new Error(`${path} is not a targets lockfile`);
  return { ...parsed, reverts: parsed.reverts ?? [], sources: Object.fromEntries(Object.keys(parsed.sources ?? {}).map((k) => [k, 'lockfile'])) };
}

