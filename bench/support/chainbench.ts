// chainbench (Locust based, PyPI), a peer generator for the overhead figure: installed with pip into a venv in the tools
// dir on first use (like vegeta, only for the bench; the harness itself never runs it), and run headless against the
// bench's loopback responder on the bench's one method. Run as a script to install it ahead: `npx tsx bench/support/chainbench.ts`.
import { execFile, spawn } from 'node:child_process';
import { readdir, readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { toolsDir } from '../../core/node/tools/go-install.ts';
import { METHOD, TEST_DATA } from './endpoint.ts';
import type { Responder } from './lib.ts';

export const CHAINBENCH_VERSION = '0.8.8';
const run = promisify(execFile);

export interface Chainbench {
  /** The venv's bin folder: chainbench starts `locust` from PATH. */
  bin: string;
  /** Locust's version, which chainbench's requirement leaves open (>=2.39, <3): said beside the figure. */
  locust: string;
}

/** The venv chainbench is installed in. */
const venv = () => join(toolsDir(), 'chainbench');

/** The pinned chainbench in its venv in the tools dir, installed with pip first when it is not there. */
export async function ensureChainbench(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<Chainbench> {
  const bin = join(venv(), 'bin');
  const version = () => run(join(bin, 'chainbench'), ['--version']).then((o) => o.stdout.trim(), () => undefined);
  if ((await version()) !== `chainbench-${CHAINBENCH_VERSION}`) {
    log(`installing chainbench ${CHAINBENCH_VERSION} with pip into ${venv()} (for the bench's peer row)`);
    await run('python3', ['-m', 'venv', venv()]).catch((e: unknown) => {
      throw new Error(`chainbench needs python3 (3.10 or later) with venv to install: ${e instanceof Error ? e.message : String(e)}`);
    });
    await run(join(bin, 'pip'), ['install', '--quiet', '--disable-pip-version-check', `chainbench==${CHAINBENCH_VERSION}`], { maxBuffer: 16 << 20 });
    const got = await version();
    if (got !== `chainbench-${CHAINBENCH_VERSION}`) throw new Error(`installed chainbench, but it reports ${got ?? 'nothing'}, not ${CHAINBENCH_VERSION}`);
  }
  const locust = (await run(join(bin, 'locust'), ['--version'])).stdout.trim().split(/\s+/)[1] ?? 'unknown';
  return { bin, locust };
}

/** Users when flat out: as many as the k6 ceiling's VUs (lib.ts CEILING), each asking as soon as it has its answer. */
const FLAT_OUT_USERS = 10;
/** Users started a second when flat out: all of them at once (Locust warns above 100). */
const FLAT_OUT_SPAWN_RATE = 100;
/** Past the test's own time: Python's start-up, the test data, Locust's stop. */
const GRACE_SEC = 120;

/**
 * A one-method profile as chainbench's own are written (profile/evm/*.py): each user paced at one task a second
 * (`constant_pacing(1)`), so `-u N` asks for N requests a second.
 */
const RATE_PROFILE = `from locust import constant_pacing

from chainbench.user import EvmUser


class BenchRate(EvmUser):
    wait_time = constant_pacing(1)
    rpc_calls = {EvmUser.eth_get_transaction_by_hash: 1}
    tasks = EvmUser.expand_tasks(rpc_calls)
`;

/**
 * chainbench asking the responder for METHOD for `durationSec`: at `rate` a second (the profile above, `rate` users), or
 * with 0 flat out (its single-method mode, `chainbench start eth_getTransactionByHash`, FLAT_OUT_USERS users that never
 * wait), a Locust worker per core. Its test data come from the responder's TEST_DATA path (--ref-url). Requests and rate
 * are the responder's count; CPU is left to whileSending (chainbench's CLI, the Locust master and its workers). A run
 * in which chainbench counted a failed answer throws: the figure is of answers it took as good.
 */
export async function runChainbench(responder: Responder, rate: number, durationSec: number): Promise<{ requests: number; rps: number; cpuSec: number }> {
  const { bin } = await ensureChainbench();
  const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-bench-'));
  try {
    const users = rate > 0 ? rate : FLAT_OUT_USERS;
    // At a rate, the users start over one second, so their one-a-second paces spread over it; flat out, at once.
    const spawnRate = rate > 0 ? users : FLAT_OUT_SPAWN_RATE;
    let what = [METHOD];
    if (rate > 0) {
      what = ['--profile-path', join(dir, 'bench_rate.py')];
      await writeFile(what[1] as string, RATE_PROFILE);
    }
    const base = new URL(responder.url).origin;
    const args = ['start', ...what, '--users', String(users), '--spawn-rate', String(spawnRate), '--workers', String(availableParallelism()), '--test-time', `${durationSec}s`, '--port', String(await freePort()), '--headless', '--autoquit', '--target', responder.url, '--ref-url', `${base}${TEST_DATA.path}`, '--size', 'XS', '--results-dir', join(dir, 'results')];
    const before = (await responder.served()).served;
    const { code, output } = await spawnGroup(join(bin, 'chainbench'), args, { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` }, (durationSec + GRACE_SEC) * 1000);
    const requests = (await responder.served()).served - before;
    const stats = await aggregated(join(dir, 'results'));
    if (code !== 0 || !stats) throw new Error(`chainbench failed (exit ${code ?? 'killed'}): ${output.trim().split('\n').slice(-3).join(' / ')}`);
    if (stats.failures > 0) throw new Error(`chainbench counted ${stats.failures} of ${stats.requests} answers as failed: the responder does not answer it as a node would`);
    return { requests, rps: requests / durationSec, cpuSec: 0 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs a command in its own process group (chainbench starts Locust's master and workers), killed whole past `timeoutMs`. */
function spawnGroup(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (d: Buffer) => (output = (output + d.toString()).slice(-8192));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    };
    const timer = setTimeout(killGroup, timeoutMs);
    process.once('exit', killGroup);
    const settle = () => {
      clearTimeout(timer);
      process.off('exit', killGroup);
    };
    child.once('error', (e) => (settle(), reject(e)));
    child.once('close', (code) => {
      settle();
      killGroup(); // a worker left behind
      resolve({ code, output });
    });
  });
}

/** Locust's Aggregated row of report.csv_stats.csv (in the results dir's <method>/<date>/), or undefined when there is none. */
async function aggregated(results: string): Promise<{ requests: number; failures: number } | undefined> {
  const files = await readdir(results, { recursive: true }).catch(() => [] as string[]);
  const csv = files.find((f) => f.endsWith('report.csv_stats.csv'));
  if (!csv) return undefined;
  const [header, ...rows] = (await readFile(join(results, csv), 'utf8')).trim().split('\n').map((l) => l.split(','));
  const row = rows.find((r) => r[1] === 'Aggregated');
  const col = (name: string) => Number(row?.[header?.indexOf(name) ?? -1]);
  return row ? { requests: col('Request Count'), failures: col('Failure Count') } : undefined;
}

/** A free loopback port for Locust's master (its default, 5557, may be taken by another run on the machine). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  ensureChainbench().then(
    ({ bin, locust }) => console.log(`chainbench ${CHAINBENCH_VERSION} (locust ${locust}): ${bin}`),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
