/**
 * The embedded default endpoint: with no URL given, the harness runs against a real local chain.
 * startDevnet() spawns anvil (npm @foundry-rs/anvil), seeds it with real signed transactions
 * (every tx type, creations, logs, a failed tx, a multi-tx block, an empty block; see seed.ts)
 * and serves it through a reference gateway at http://127.0.0.1:<port>/v3/<API_KEY> that
 * normalises anvil's deviations from the service spec (see gateway.ts). The key is random per run.
 *
 * startDevnet({ node: 'geth' }) does the same with geth --dev (built by `npm run setup`), behind the
 * gateway in its raw mode: only the /v3/<key> shape is added, every answer is geth's own.
 *
 * startDevnet({ blockTimeS }) makes the chain move: once seeded, the node mines a block every blockTimeS seconds
 * and background traffic (traffic.ts) fills the blocks until stop(). anvil switches to interval mining; geth's
 * period is fixed at start, so it is seeded on demand, stopped and started again on its datadir with
 * --dev.period blockTimeS. Without it the chain stands still after the seed: the head is the seed's
 * multi-transaction block.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interrupted } from '../core/node/errors.ts';
import { toQuantity } from '../core/hex.ts';
import { startAnvil } from './anvil.ts';
import { startGeth } from './geth.ts';
import { startGateway } from './gateway.ts';
import { type NodeProcess, rpcCall } from './process.ts';
import { type SeedInfo, type SeedNode, seedChain } from './seed.ts';
import { type Omittable, REORG_NEEDS } from './moving.ts';
import { type Reorgs, startReorgs } from './reorg.ts';
import { ReorgLock } from './reorg-lock.ts';
import { startTraffic, type Traffic, type TrafficOptions } from './traffic.ts';

export type { SeedInfo, SeedNode } from './seed.ts';
export type { Omittable } from './moving.ts';

export interface Devnet {
  node: SeedNode;
  url: string; // gateway URL including the key
  baseUrl: string;
  apiKey: string;
  /** The node itself, without the gateway. */
  nodeUrl: string;
  seed: SeedInfo;
  /** The background traffic of a moving devnet (blockTimeS given); undefined on a standing one. */
  traffic?: Traffic;
  /** The reorgs done so far, on a devnet that reorganises. */
  reorgs?: Reorgs;
  stop(): Promise<void>;
}

export interface DevnetOptions {
  port?: number;
  apiKey?: string;
  node?: SeedNode;
  /** Mine a block every so many seconds, with background traffic in it. */
  blockTimeS?: number;
  /** The traffic's rate and where it logs a send error (traffic.ts). */
  traffic?: Omit<TrafficOptions, 'blockTimeS' | 'without'>;
  /** Transaction kinds neither the seed nor the traffic sends: a chain that holds none of them. */
  without?: readonly Omittable[];
  /** A chain that reorganises (anvil, moving): a reorg every so many seconds, 1 to maxDepth blocks deep in turn (reorg.ts). */
  reorgs?: { everyS: number; maxDepth: number; log?: (line: string) => void };
  /** Pruned mode (anvil): history older than the latest N blocks answered error 4444 (pruned.ts); 2N empty blocks
   * come before the seed, so that there is history to prune and the seed's activity is served. */
  serveLatest?: number;
  /** A stop asked for while the devnet starts: the node is stopped at once and the start throws Interrupted. */
  signal?: AbortSignal;
}

export async function startDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const apiKey = opts.apiKey ?? randomBytes(16).toString('hex');
  const node = opts.node ?? 'anvil';
  const { blockTimeS } = opts;
  if (blockTimeS !== undefined && (!MOVING_NODES.includes(node) || !Number.isInteger(blockTimeS) || blockTimeS < 1)) {
    throw new Error(`a moving devnet takes ${MOVING_NODES.join(' or ')} and a whole number of seconds per block, got ${node} and ${blockTimeS}`);
  }
  if (opts.reorgs && (node !== 'anvil' || blockTimeS === undefined)) throw new Error(REORG_NEEDS);
  if (opts.serveLatest !== undefined && (node !== 'anvil' || !Number.isInteger(opts.serveLatest) || opts.serveLatest < 1)) throw new Error(`a pruned devnet takes anvil and a whole number of blocks to keep (at least 1), got ${node} and ${opts.serveLatest}`);
  // A moving geth keeps its chain across its restart: the datadir is this function's, removed when the node stops.
  const gethDir = node === 'geth' && blockTimeS !== undefined ? await mkdtemp(join(tmpdir(), 'rpc-certify-geth-')) : undefined;
  const { signal } = opts;
  const started = (p: NodeProcess): NodeProcess => ((upstreamNow = p), p);
  let upstreamNow: NodeProcess | undefined;
  let traffic: Traffic | undefined;
  let reorgs: Reorgs | undefined;
  /** Shared by the reorgs and the gateway: no answer shows the node halfway through a reorg. */
  const reorgLock = new ReorgLock();
  // Stopping the node fails the seed's next call at once (its transport does not retry): the start ends within a second.
  const onAbort = (): void => void (traffic?.stop() ?? Promise.resolve()).finally(() => upstreamNow?.stop());
  signal?.addEventListener('abort', onAbort, { once: true });
  let upstream: NodeProcess;
  try {
    upstream = started(node === 'geth' ? await startGeth({ ...(gethDir ? { datadir: gethDir } : {}), ...(signal ? { signal } : {}) }) : await startAnvil(signal ? { signal } : {}));
  } catch (e) {
    signal?.removeEventListener('abort', onAbort);
    if (gethDir) await rm(gethDir, { recursive: true, force: true });
    throw e;
  }
  try {
    const without = opts.without ?? [];
    // History to prune: empty blocks before the seed, so that its activity stays among the latest blocks served.
    if (opts.serveLatest !== undefined) await rpcCall(upstream.url, 'anvil_mine', [toQuantity(BigInt(2 * opts.serveLatest))]);
    const seed = await seedChain(upstream.url, node, without);
    if (blockTimeS !== undefined && gethDir) {
      await upstream.stop();
      const moving = started(await startGeth({ datadir: gethDir, periodS: blockTimeS, ...(signal ? { signal } : {}) }));
      upstream = { ...moving, stop: () => moving.stop().then(() => rm(gethDir, { recursive: true, force: true })) };
      await indexed(upstream.url, seed.txs.creation, signal);
      traffic = await startTraffic(upstream.url, seed, { ...opts.traffic, blockTimeS, node: 'geth', without });
    } else if (blockTimeS !== undefined) {
      // The seed leaves automine on (evm_setAutomine(true) after each block it assembles); interval mining
      // replaces it, so the traffic's transactions wait in the mempool for the next block.
      await rpcCall(upstream.url, 'evm_setIntervalMining', [blockTimeS]);
      traffic = await startTraffic(upstream.url, seed, { ...opts.traffic, blockTimeS, without });
      if (opts.reorgs) reorgs = startReorgs(upstream.url, { ...opts.reorgs, seedHead: BigInt(seed.blocks.multiTx.number), traffic, lock: reorgLock });
    }
    const gateway = await startGateway({ upstream: upstream.url, apiKey, port: opts.port, raw: node === 'geth', ...(opts.serveLatest === undefined ? {} : { serveLatest: opts.serveLatest }), ...(reorgs ? { reorgLock } : {}) });
    let stopping: Promise<void> | undefined;
    return {
      node,
      url: gateway.url,
      baseUrl: gateway.baseUrl,
      apiKey,
      nodeUrl: upstream.url,
      seed,
      ...(traffic ? { traffic } : {}),
      ...(reorgs ? { reorgs } : {}),
      // The reorgs and the traffic first, so no call meets a node going away.
      stop: () => (stopping ??= Promise.all([reorgs?.stop(), traffic?.stop()]).then(() => Promise.all([gateway.stop(), upstream.stop()])).then(() => undefined)),
    };
  } catch (e) {
    await reorgs?.stop();
    await traffic?.stop();
    await upstream.stop();
    if (gethDir) await rm(gethDir, { recursive: true, force: true });
    throw signal?.aborted && !(e instanceof Interrupted) ? new Interrupted(`interrupted by ${String(signal.reason)} while the embedded default was being seeded`) : e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The nodes a moving devnet runs on. */
const MOVING_NODES: readonly SeedNode[] = ['anvil', 'geth'];
/** How long a restarted geth may take to index the seed's transactions again. */
const INDEX_WAIT_MS = 30_000;

/**
 * Waits until geth serves a seeded transaction's receipt: after a start its transaction indexer answers "transaction
 * indexing is in progress" for a moment, which a conformance run or a load's sampling would take for the endpoint's.
 */
async function indexed(url: string, tx: string, signal: AbortSignal | undefined): Promise<void> {
  const deadline = Date.now() + INDEX_WAIT_MS;
  for (;;) {
    signal?.throwIfAborted();
    const receipt = await rpcCall(url, 'eth_getTransactionReceipt', [tx]).catch(() => null);
    if (receipt) return;
    if (Date.now() > deadline) throw new Error(`geth restarted with a block period does not serve the seeded transaction ${tx} within ${INDEX_WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
