/**
 * The embedded default endpoint: with no URL given, the harness runs against a real local chain.
 * startDevnet() spawns anvil (npm @foundry-rs/anvil), seeds it with real signed transactions
 * (every tx type, creations, logs, a failed tx, a multi-tx block, an empty block; see seed.ts)
 * and serves it through a reference gateway at http://127.0.0.1:<port>/v3/<API_KEY> that
 * normalises anvil's deviations from the service spec (see gateway.ts). The key is random per run.
 *
 * startDevnet({ node: 'geth' }) does the same with geth --dev (built by `npm run setup`), behind the
 * gateway in its raw mode: only the /v3/<key> shape is added, every answer is geth's own.
 */
import { randomBytes } from 'node:crypto';
import { startAnvil } from './anvil.ts';
import { startGeth } from './geth.ts';
import { startGateway } from './gateway.ts';
import type { NodeProcess } from './process.ts';
import { type SeedInfo, type SeedNode, seedChain } from './seed.ts';

export type { SeedInfo, SeedNode } from './seed.ts';

export interface Devnet {
  node: SeedNode;
  url: string; // gateway URL including the key
  baseUrl: string;
  apiKey: string;
  /** The node itself, without the gateway. */
  nodeUrl: string;
  seed: SeedInfo;
  stop(): Promise<void>;
}

export async function startDevnet(opts: { port?: number; apiKey?: string; node?: SeedNode } = {}): Promise<Devnet> {
  const apiKey = opts.apiKey ?? randomBytes(16).toString('hex');
  const node = opts.node ?? 'anvil';
  const upstream: NodeProcess = node === 'geth' ? await startGeth() : await startAnvil();
  try {
    const seed = await seedChain(upstream.url, node);
    const gateway = await startGateway({ upstream: upstream.url, apiKey, port: opts.port, raw: node === 'geth' });
    let stopping: Promise<void> | undefined;
    return {
      node,
      url: gateway.url,
      baseUrl: gateway.baseUrl,
      apiKey,
      nodeUrl: upstream.url,
      seed,
      stop: () => (stopping ??= Promise.all([gateway.stop(), upstream.stop()]).then(() => undefined)),
    };
  } catch (e) {
    await upstream.stop();
    throw e;
  }
}
