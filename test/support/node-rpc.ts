// Calls straight to a devnet's node (not through the gateway or a proxy), and a chain grown by blocks of one transfer each.
import { toQuantity } from '../../core/hex.ts';

export type NodeRpc = <T>(method: string, params?: unknown[]) => Promise<T>;

export function nodeRpc(url: () => string): NodeRpc {
  return async <T>(method: string, params: unknown[] = []): Promise<T> => {
    let body: { result?: T; error?: unknown };
    try {
      // Bounded, so a stalled node fails the test with the call's name rather than hanging it to the test's timeout.
      const res = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(CALL_MS) });
      body = (await res.json()) as typeof body;
    } catch (e) {
      throw new Error(`${method} to the node: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result as T;
  };
}

/**
 * At least n blocks above the head, one transfer each, waited for. anvil (automine) answers a send once the
 * transaction is in its pool, and may then put two in one block or leave one waiting: a transfer still without a
 * receipt after STUCK_MS gets a block mined for it, and blocks are mined until the head is n above where it was.
 */
export async function transferBlocks(rpc: NodeRpc, n: number): Promise<void> {
  const [from, to] = await rpc<string[]>('eth_accounts');
  const start = BigInt(await rpc<string>('eth_blockNumber'));
  const hashes: string[] = [];
  for (let i = 0; i < n; i++) hashes.push(await rpc<string>('eth_sendTransaction', [{ from, to, value: toQuantity(i + 1) }]));
  const deadline = Date.now() + GROW_MS;
  const late = (what: string) => {
    if (Date.now() > deadline) throw new Error(`${what} ${GROW_MS / 1000} s after ${n} transfers from block ${start}`);
  };
  for (const hash of hashes) {
    for (let waited = 0; (await rpc<unknown>('eth_getTransactionReceipt', [hash])) === null; waited += POLL_MS) {
      late(`transfer ${hash} has no receipt`);
      if (waited >= STUCK_MS) {
        await rpc('evm_mine');
        waited = 0;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  while (BigInt(await rpc<string>('eth_blockNumber')) < start + BigInt(n)) {
    late('the head is short');
    await rpc('evm_mine');
  }
}

const CALL_MS = 10_000;
const GROW_MS = 30_000;
const POLL_MS = 20;
const STUCK_MS = 1_000;
