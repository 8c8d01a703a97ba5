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
 * startDevnet({ blockTimeS }) makes the chain move (anvil only): once seeded, anvil mines a block every
 * blockTimeS seconds and background traffic (traffic.ts) fills the blocks until stop(). Without it the
 * chain stands still after the seed: the head is the seed's multi-transaction block.
 */
import { randomBytes } from 'node:crypto';
import { startAnvil } from './anvil.ts';
import { startGeth } from './geth.ts';
import { startGateway } from './gateway.ts';
import type { NodeProcess } from './process.ts';
import { type SeedInfo, type SeedNode, seedChain } from './seed.ts';
import { startTraffic, type Traffic, type TrafficOptions } from './traffic.ts';

export type { SeedInfo, SeedNode } from './seed.ts';

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
  stop(): Promise<void>;
}

export interface DevnetOptions {
  port?: number;
  apiKey?: string;
  node?: SeedNode;
  /** Mine a block every so many seconds, with background traffic in it (anvil only). */
  blockTimeS?: number;
  /** The traffic's rate and where it logs a send error (traffic.ts). */
  traffic?: Omit<TrafficOptions, 'blockTimeS'>;
}

export async function startDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const apiKey = opts.apiKey ?? randomBytes(16).toString('hex');
  const node = opts.node ?? 'anvil';
  const { blockTimeS } = opts;
  if (blockTimeS !== undefined && (node !== 'anvil' || !Number.isInteger(blockTimeS) || blockTimeS < 1)) {
    throw new Error(`a moving devnet takes anvil and a whole number of seconds per block, got ${node} and ${blockTimeS}`);
  }
  const upstream: NodeProcess = node === 'geth' ? await startGeth() : await startAnvil();
  let traffic: Traffic | undefined;
  try {
    const seed = await seedChain(upstream.url, node);
    if (blockTimeS !== undefined) {
      // The seed leaves automine on (evm_setAutomine(true) after each block it assembles); interval mining
      // replaces it, so the traffic's transactions wait in the mempool for the next block.
      await rpcCall(upstream.url, 'evm_setIntervalMining', [blockTimeS]);
      traffic = await startTraffic(upstream.url, seed, { ...opts.traffic, blockTimeS });
    }
    const gateway = await startGateway({ upstream: upstream.url, apiKey, port: opts.port, raw: node === 'geth' });
    let stopping: Promise<void> | undefined;
    return {
      node,
      url: gateway.url,
      baseUrl: gateway.baseUrl,
      apiKey,
      nodeUrl: upstream.url,
      seed,
      ...(traffic ? { traffic } : {}),
      // The traffic first, so no send meets a node going away.
      stop: () => (stopping ??= (traffic?.stop() ?? Promise.resolve()).then(() => Promise.all([gateway.stop(), upstream.stop()])).then(() => undefined)),
    };
  } catch (e) {
    await traffic?.stop();
    await upstream.stop();
    throw e;
  }
}

async function rpcCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
  return body.result;
}
