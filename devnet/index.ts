/**
 * The embedded default endpoint: with no URL given, the harness runs against a real local chain.
 * startDevnet() spawns anvil (npm @foundry-rs/anvil), seeds it with real signed transactions
 * (every tx type, creations, logs, a failed tx, a multi-tx block, an empty block; see seed.ts)
 * and serves it through a reference gateway at http://127.0.0.1:<port>/v3/<API_KEY> that
 * normalises anvil's deviations from the service spec (see gateway.ts). The key is random per run.
 */
import { randomBytes } from 'node:crypto';
import { startAnvil } from './anvil.ts';
import { startGateway } from './gateway.ts';
import { type SeedInfo, seedChain } from './seed.ts';

export type { SeedInfo } from './seed.ts';

export interface Devnet {
  url: string; // gateway URL including the key
  baseUrl: string;
  apiKey: string;
  anvilUrl: string;
  seed: SeedInfo;
  stop(): Promise<void>;
}

export async function startDevnet(opts: { port?: number; apiKey?: string } = {}): Promise<Devnet> {
  const apiKey = opts.apiKey ?? randomBytes(16).toString('hex');
  const anvil = await startAnvil();
  try {
    const seed = await seedChain(anvil.url);
    const gateway = await startGateway({ upstream: anvil.url, apiKey, port: opts.port });
    let stopping: Promise<void> | undefined;
    return {
      url: gateway.url,
      baseUrl: gateway.baseUrl,
      apiKey,
      anvilUrl: anvil.url,
      seed,
      stop: () => (stopping ??= Promise.all([gateway.stop(), anvil.stop()]).then(() => undefined)),
    };
  } catch (e) {
    await anvil.stop();
    throw e;
  }
}
