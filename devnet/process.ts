// Spawns a local node (anvil, geth) on 127.0.0.1 and waits until it serves JSON-RPC; stops it on demand
// or when this process exits.
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { Interrupted } from '../core/node/errors.ts';
import { abortedAs } from '../core/node/interrupt.ts';

export interface NodeProcess {
  url: string;
  port: number;
  /** The node's pid, which also names its process group (it leads its own session). */
  pid: number;
  stop(): Promise<void>;
}

const STDERR_KEEP = 4096;
const STOP_GRACE_MS = 5_000;

/** A free loopback port, bound first so a taken one fails fast instead of reaching whatever listens there. */
export function bindable(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const bound = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(bound));
    });
  });
}

/** The node exited while starting: with a probed port, most likely taken in between; worth one more try. */
export class EarlyExit extends Error {}

/** Retries a start on a fresh port when the probed one was taken before the node bound it. */
export async function withFreePort<T>(port: number | undefined, start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await bindable(port ?? 0));
    } catch (e) {
      if (!(e instanceof EarlyExit) || port !== undefined || attempt === 3) throw e;
    }
  }
}

export interface SpawnOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  onStopped?: () => Promise<void>;
  /** Ends the start at once: the node is stopped and the start throws Interrupted. */
  signal?: AbortSignal;
}

export async function spawnNode(name: string, binary: string, args: string[], port: number, startTimeoutMs: number, opts: SpawnOptions = {}): Promise<NodeProcess> {
  const onStopped = opts.onStopped ?? (async () => {});
  // Its own session: Ctrl-C in a terminal or `timeout` signals the whole process group, and the node must keep
  // serving while k6 winds down and the reports are written; stop() (or this process's exit) ends it, and with
  // it the whole group it leads, so a node that runs helpers (a node.js one) leaves none behind.
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, cwd: opts.cwd, env: opts.env });
  const signal = (sig: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, sig);
    } catch {
      child.kill(sig); // the group is gone already
    }
  };
  const killOnExit = (): void => signal('SIGKILL');
  process.on('exit', killOnExit);

  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-STDERR_KEEP)));
  // 'error' (e.g. binary missing) comes without 'exit'.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) signal('SIGTERM');
      // A node too busy to shut down must not hold the caller (or a test run) forever.
      const kill = setTimeout(() => signal('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(kill);
      await onStopped();
    })());
  const failed = new Promise<never>((_, reject) => {
    child.once('exit', (code, signal) => reject(new EarlyExit(`${name} exited during start (code ${code}, signal ${signal})`)));
    child.once('error', reject);
  });
  failed.catch(() => {}); // only awaited while starting

  const url = `http://127.0.0.1:${port}`;
  const polling = new AbortController();
  const interrupted = abortedAs(opts.signal, `while ${name} was starting`);
  try {
    await Promise.race([waitForChainId(name, url, startTimeoutMs, polling.signal), failed, interrupted.promise]);
    if (child.exitCode !== null) throw new EarlyExit(`${name} exited during start`); // someone else answered
    return { url, port, pid: child.pid!, stop };
  } catch (e) {
    await stop();
    if (e instanceof Error && !(e instanceof Interrupted)) e.message += `; ${name} stderr: ${stderr.trim().slice(-1000) || '(empty)'}`;
    throw e;
  } finally {
    polling.abort();
    interrupted.release();
  }
}

async function waitForChainId(name: string, url: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
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
    if (Date.now() > deadline) throw new Error(`${name} at ${url} did not answer eth_chainId within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One JSON-RPC call to a node of ours; its error thrown as the node's message. */
export async function rpcCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
  return body.result;
}
