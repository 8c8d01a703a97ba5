// A chain that reorganises (`devnet --block-time S --reorg-every T`): every T seconds anvil replaces its newest blocks
// (anvil_reorg) with a fork of its own, as a real chain's head does now and then. The new fork's blocks differ (each
// holds a marker transfer, and anvil gives them the fork parent's timestamp); the orphaned blocks' transactions go
// back into the new fork as a real chain's pool would mine them again, save blob transactions (their sidecar is not
// kept: they are dropped, and answer null by hash). Only the traffic's blocks are replaced, never the seed's.
import { type Hex, toHex } from 'viem';
import { rpcCall as rpc } from './process.ts';
import { devAccount } from './seed.ts';
import type { Traffic } from './traffic.ts';
import type { ReorgLock } from './reorg-lock.ts';

export interface ReorgOptions {
  everyS: number;
  /** The deepest reorg: depths go round 1, 2, ..., maxDepth. */
  maxDepth: number;
  /** The seed's head: no reorg reaches it or below. */
  seedHead: bigint;
  /** The traffic whose senders' nonces are read again after a reorg (a dropped transaction leaves a gap). */
  traffic?: Traffic;
  /** The gateway's: each reorg is made while no call through it is being answered (reorg-lock.ts). */
  lock?: ReorgLock;
  log?: (line: string) => void;
}

/** One reorg done: the height it replaced from, its depth, the hashes before and after at each height, and when. */
export interface ReorgDone {
  depth: number;
  from: bigint;
  orphaned: string[];
  replacedBy: string[];
  at: number;
}

export interface Reorgs {
  readonly done: readonly ReorgDone[];
  /** One reorg of this depth now, after any in flight (a test that needs one at a given moment). */
  now(depth: number): Promise<void>;
  stop(): Promise<void>;
}

/** The account whose transfers mark each new fork's blocks: a dev account anvil signs for, which the seed and the traffic never use. */
const MARKER = devAccount(9).address;

export function startReorgs(nodeUrl: string, opts: ReorgOptions): Reorgs {
  const done: ReorgDone[] = [];
  const log = opts.log ?? ((line: string) => console.error(line));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const said = new Set<string>();

  const reorgOnce = async (depth = (done.length % opts.maxDepth) + 1): Promise<void> => {
    const head = blockOf(await rpc(nodeUrl, 'eth_getBlockByNumber', ['latest', true]));
    if (head.number - BigInt(depth) < opts.seedHead) return;
    const orphaned: Array<{ hash: string; txs: Array<{ hash: string; type: string; from: string }> }> = [];
    for (let n = head.number - BigInt(depth) + 1n; n <= head.number; n++) orphaned.push(blockOf(await rpc(nodeUrl, 'eth_getBlockByNumber', [toHex(n), true])));
    const again: Array<[Hex | object, number]> = [];
    for (const [k, b] of orphaned.entries()) {
      for (const tx of b.txs) {
        // Blob transactions cannot be sent again (no sidecar kept); the old markers make way for the new ones, which
        // anvil gives the same nonces (at the fork point), so each new block differs from the one it replaces.
        if (tx.type === '0x3' || tx.from.toLowerCase() === MARKER.toLowerCase()) continue;
        again.push([(await rpc(nodeUrl, 'eth_getRawTransactionByHash', [tx.hash])) as Hex, k]);
      }
      again.push([{ from: MARKER, to: MARKER, value: toHex(done.length * 16 + k + 1) }, k]);
    }
    const reorg = () => rpc(nodeUrl, 'anvil_reorg', [depth, again]);
    await (opts.lock ? opts.lock.write(reorg) : reorg());
    // The new blocks copy their fork parent's timestamp: the next one is mined at the wall clock again.
    await rpc(nodeUrl, 'evm_setNextBlockTimestamp', [Math.max(Math.floor(Date.now() / 1000), Number(head.timestamp) + 1)]);
    opts.traffic?.resync();
    const replacedBy: string[] = [];
    for (let n = head.number - BigInt(depth) + 1n; n <= head.number; n++) replacedBy.push(blockOf(await rpc(nodeUrl, 'eth_getBlockByNumber', [toHex(n), false])).hash);
    done.push({ depth, from: head.number - BigInt(depth) + 1n, orphaned: orphaned.map((b) => b.hash), replacedBy, at: Date.now() });
  };

  // One reorg at a time, the scheduled and the asked-for alike: two at once would each replace blocks the other read.
  const queued = (depth?: number): Promise<void> =>
    (inFlight = inFlight.then(() => reorgOnce(depth)).catch((e: unknown) => {
      const message = (e as Error).message.split('\n')[0]!.slice(0, 300);
      if (!said.has(message)) log(`devnet reorg: ${message} (the reorgs go on; this error is not said again)`);
      said.add(message);
    }));
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => void queued().finally(schedule), opts.everyS * 1000);
  };
  schedule();
  return {
    done,
    now: (depth) => queued(depth),
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}

function blockOf(x: unknown): { number: bigint; hash: string; timestamp: bigint; txs: Array<{ hash: string; type: string; from: string }> } {
  const b = x as { number?: string; hash?: string; timestamp?: string; transactions?: Array<{ hash: string; type: string; from: string } | string> } | null;
  if (!b?.number || !b.hash || !b.timestamp) throw new Error(`anvil answered no block (${JSON.stringify(x)?.slice(0, 100)})`);
  return { number: BigInt(b.number), hash: b.hash, timestamp: BigInt(b.timestamp), txs: (b.transactions ?? []).filter((t): t is { hash: string; type: string; from: string } => typeof t === 'object') };
}
