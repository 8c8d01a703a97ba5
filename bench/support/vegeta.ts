// vegeta, the engine behind flood: the field's own peer for the overhead figure. Built like k6 and geth
// (core/node/tools/go-install.ts) into the tools dir, only for the bench; the harness itself never runs it.
// Run as a script to build it ahead: `npx tsx bench/support/vegeta.ts`.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureGoTool, run } from '../../core/node/tools/go-install.ts';
import { REQUEST } from './endpoint.ts';
import type { Responder } from './lib.ts';

export const VEGETA_VERSION = 'v12.13.0';

/** The pinned vegeta in the tools dir, built first if it is not there (never one on PATH: the figure is for this version). */
export async function ensureVegeta(log?: (line: string) => void): Promise<string> {
  const vegeta = await ensureGoTool({ name: 'vegeta', module: 'github.com/tsenart/vegeta/v12', pkg: 'github.com/tsenart/vegeta/v12', version: VEGETA_VERSION, minGo: [1, 22], versionOf: vegetaVersion, buildNote: "for the bench's peer row" }, log);
  return vegeta.path;
}

/** Workers when flat out: as many as the k6 ceiling's VUs (lib.ts CEILING). */
const FLAT_OUT_WORKERS = 10;

/** vegeta sending the bench's call (the bare k6 script's request) to the responder, at `rate` a second or, with 0, flat out
 * from 10 workers. Requests and rate are the responder's count (vegeta classifies nothing); CPU is left to whileSending. */
export async function runVegeta(responder: Responder, rate: number, durationSec: number): Promise<{ requests: number; rps: number; cpuSec: number }> {
  const binary = await ensureVegeta();
  const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-bench-'));
  try {
    const body = join(dir, 'body.json');
    await writeFile(body, REQUEST);
    const targets = join(dir, 'targets.txt');
    await writeFile(targets, `POST ${responder.url}\nContent-Type: application/json\n@${body}\n`);
    const pace = rate > 0 ? [`-rate=${rate}/1s`] : ['-rate=0', `-max-workers=${FLAT_OUT_WORKERS}`, `-workers=${FLAT_OUT_WORKERS}`];
    const before = (await responder.served()).served;
    const child = spawn(binary, ['attack', `-targets=${targets}`, `-duration=${durationSec}s`, ...pace, '-output=/dev/null'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    if (code !== 0) throw new Error(`vegeta failed (exit ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`);
    const requests = (await responder.served()).served - before;
    return { requests, rps: requests / durationSec, cpuSec: 0 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `go install` leaves vegeta's own -version blank: the module version Go recorded in the binary. */
async function vegetaVersion(binary: string): Promise<string | undefined> {
  const out = await run('go', ['version', '-m', binary]).catch(() => undefined);
  return out && /^\s*mod\s+github\.com\/tsenart\/vegeta\/v12\s+(v\S+)/m.exec(out.stdout)?.[1];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  ensureVegeta().then(
    (path) => console.log(`vegeta ${VEGETA_VERSION}: ${path}`),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : String(e));
      process.exit(1);
    },
  );
}
