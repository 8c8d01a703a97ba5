// Calls straight to a devnet's node (not through the gateway or a proxy), and a chain grown by blocks of one transfer each.
import { toQuantity } from '../../core/hex.ts';

export type NodeRpc = <T>(method: string, params?: unknown[]) => Promise<T>;

export function nodeRpc(url: () => string): NodeRpc {
  return async <T>(method: string, params: unknown[] = []): Promise<T> => {
    // Bounded, so a stalled node fails the test with its name rather than hanging it to the test's timeout.
    const res = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(CALL_MS) });
    const body = (await res.json()) as { result?: T; error?: unknown };
    if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
    return body.result as T;
  };
}

/** n blocks above the head, one transfer each (anvil automines), waited for: anvil answers a send before its block is the head. */
export async function transferBlocks(rpc: NodeRpc, n: number): Promise<void> {
  const [from, to] = await rpc<string[]>('eth_accounts');
  const start = BigInt(await rpc<string>('eth_blockNumber'));
  for (let i = 0; i < n; i++) await rpc('eth_sendTransaction', [{ from, to, value: toQuantity(i + 1) }]);
  const deadline = Date.now() + GROW_MS;
  for (;;) {
    const head = BigInt(await rpc<string>('eth_blockNumber'));
    if (head >= start + BigInt(n)) return;
    if (Date.now() > deadline) throw new Error(`the node's head is ${head} ${GROW_MS / 1000} s after ${n} transfers from ${start}: the blocks never came`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const CALL_MS = 10_000;
const GROW_MS = 30_000;
