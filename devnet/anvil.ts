// Spawns a local anvil (npm @foundry-rs/anvil) on 127.0.0.1 and waits until it serves JSON-RPC.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type NodeProcess, spawnNode, withFreePort } from './process.ts';

export type Anvil = NodeProcess;

const START_TIMEOUT_MS = 10_000;

function anvilBinary(): string {
  const pkg = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json');
  return join(dirname(pkg), 'bin', 'anvil');
}

// anvil --port 0 would pick a port itself, but reports it only on stdout next to a log line per
// request; running it quiet (-q, stdout ignored) keeps that cost off a load test.
export function startAnvil(opts: { port?: number; signal?: AbortSignal } = {}): Promise<Anvil> {
  return withFreePort(opts.port, (port) => spawnNode('anvil', anvilBinary(), ['--host', '127.0.0.1', '--port', String(port), '--quiet'], port, START_TIMEOUT_MS, opts.signal ? { signal: opts.signal } : {}));
}
