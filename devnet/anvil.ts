// Spawns a local anvil (npm @foundry-rs/anvil) on 127.0.0.1 and waits until it serves JSON-RPC.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

export interface Anvil {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const STDERR_KEEP = 4096;
const STOP_GRACE_MS = 5_000;

function anvilBinary(): string {
  const pkg = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json');
  return join(dirname(pkg), 'bin', 'anvil');
}

// anvil --port 0 would pick a port itself, but reports it only on stdout next to a log line per
// request; running it quiet (-q, stdout ignored) keeps that cost off a load test. Binding first
// also makes a taken port fail fast instead of reaching whatever already listens there.
function bindable(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const bound = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(bound));
    });
  });
}

class EarlyExit extends Error {}

export async function startAnvil(opts: { port?: number } = {}): Promise<Anvil> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnAnvil(await bindable(opts.port ?? 0));
    } catch (e) {
      // A probed port can be taken before anvil binds it: retry with a fresh one.
      if (!(e instanceof EarlyExit) || opts.port !== undefined || attempt === 3) throw e;
    }
  }
}

async function spawnAnvil(port: number): Promise<Anvil> {
  const child = spawn(anvilBinary(), ['--host', '127.0.0.1', '--port', String(port), '--quiet'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-STDERR_KEEP)));
  // 'error' (e.g. binary missing) comes without 'exit'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    // An anvil too busy to shut down must not hold the caller (or a test run) forever.
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(kill);
  };
  const failed = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => reject(new EarlyExit(`anvil exited during start (code ${code}, signal ${signal})`)));
    child.once('error', reject);
  });
  failed.catch(() => {}); // only awaited while starting

  const url = `http://127.0.0.1:${port}`;
  const polling = new AbortController();
  try {
    await Promise.race([waitForChainId(url, polling.signal), failed]);
    if (child.exitCode !== null) throw new EarlyExit('anvil exited during start'); // someone else answered
    return { url, port, stop };
  } catch (e) {
    await stop();
    if (e instanceof Error) e.message += `; anvil stderr: ${stderr.trim() || '(empty)'}`;
    throw e;
  } finally {
    polling.abort();
  }
}

async function waitForChainId(url: string, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!signal.aborted) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      const body = (await res.json()) as { result?: unknown };
      if (typeof body.result === 'string') return;
    } catch {
      // not accepting connections yet
    }
    if (Date.now() > deadline) throw new Error(`anvil at ${url} did not answer eth_chainId within ${START_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
