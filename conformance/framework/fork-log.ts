// The run's log of every block it was shown (the runner's client feeds it; CheckContext carries it): a height answered
// under two hashes is a reorg the run saw. The runner runs its checks again on deeper targets when one took a target
// away; service/after-reorg judges what the endpoint serves once it has reorganised (after-reorg.ts).
import { isObject } from '../../core/hex.ts';
import type { Exchange } from '../../core/node/rpc-client.ts';

/** One block as an answer showed it: its hash, and its transactions' hashes when the answer listed them. */
export interface ShownBlock {
  number: bigint;
  hash: string;
  txs?: string[];
  /** performance.now() when an answer first showed it. */
  at: number;
}

/** Methods whose answer is a canonical block (the uncle getters answer blocks that are not on the chain). */
const BLOCK_METHODS = new Set(['eth_getBlockByNumber', 'eth_getBlockByHash']);

export class ForkLog {
  /** Per height, the blocks shown at it by hash. */
  private readonly heights = new Map<bigint, Map<string, ShownBlock>>();
  /** Blocks read in all. */
  shown = 0;

  observe(ex: Exchange): void {
    if (Array.isArray(ex.request) || !isObject(ex.body) || ex.fault || !BLOCK_METHODS.has(ex.request.method)) return;
    const b = ex.body['result'];
    if (!isObject(b) || typeof b['hash'] !== 'string' || typeof b['number'] !== 'string' || !/^0x[0-9a-f]{1,16}$/i.test(b['number'])) return;
    const number = BigInt(b['number']);
    const at = this.heights.get(number) ?? new Map<string, ShownBlock>();
    this.heights.set(number, at);
    this.shown++;
    const known = at.get(b['hash']) ?? { number, hash: b['hash'], at: performance.now() };
    const txs = Array.isArray(b['transactions']) ? b['transactions'].map((t) => (isObject(t) ? t['hash'] : t)).filter((t): t is string => typeof t === 'string') : undefined;
    if (txs && !known.txs) known.txs = txs;
    at.set(b['hash'], known);
  }

  /** The newest `n` heights the run was shown blocks at, newest first. */
  newest(n: number): bigint[] {
    return [...this.heights.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(0, n);
  }

  /** The heights the run saw under more than one hash, lowest first, each with the blocks shown there. */
  reorged(): Array<{ number: bigint; blocks: ShownBlock[] }> {
    return [...this.heights]
      .filter(([, at]) => at.size > 1)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([number, at]) => ({ number, blocks: [...at.values()] }));
  }
}
