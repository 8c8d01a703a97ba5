// Figure 5, the limit: what this machine can push through the same loopback responder with a native
// HTTP load tool (wrk, posting the same JSON body from a Lua script, as many connections as k6 has VUs),
// beside the k6 ceiling and the harness asked for that rate, in one run (the median run of 3 alternating each).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REQUEST } from './support/endpoint.ts';
import { CEILING, medianRate, round, runCeiling, runHarness, saveFigure, startResponder } from './support/lib.ts';

const run = promisify(execFile);
const INSTALL = 'apt-get install -y wrk';

async function runWrk(url: string): Promise<{ rps: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-bench-'));
  try {
    const script = join(dir, 'post.lua');
    await writeFile(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(REQUEST)}\nwrk.headers["Content-Type"] = "application/json"\n`);
    const args = ['-t2', `-c${CEILING.vus}`, `-d${CEILING.sec}s`, '--timeout', '2s', '-s', script, url];
    const { stdout } = await run('wrk', args, { timeout: (CEILING.sec + 10) * 1000 });
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
    if (!Number.isFinite(rps)) throw new Error(`wrk printed no rate:\n${stdout}`);
    return { rps };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const responder = await startResponder('fast');
try {
  // `wrk -v` exits 1 after printing its version: only a missing binary tells.
  const installed = await run('wrk', ['-v']).then(
    () => true,
    (e: NodeJS.ErrnoException) => e.code !== 'ENOENT',
  );
  if (!installed) {
    const skipped = `wrk is not installed (${INSTALL})`;
    await saveFigure('limit', { skipped, rows: [['Machine limit (wrk)', `skipped: ${skipped}`, '-', 'n/a']] });
  } else {
    const [wrk, k6] = await medianRate([() => runWrk(responder.url), () => runCeiling(responder.url)]);
    const [harness] = await medianRate([() => runHarness(responder.url, k6.rate, CEILING.sec)]);
    const share = (rps: number) => `${round((rps / wrk.rps) * 100, 1)}%`;
    await saveFigure('limit', {
      wrkRps: round(wrk.rps),
      k6Rps: round(k6.rps),
      harnessRps: harness.rps,
      rows: [
        [
          `Machine limit: wrk (2 threads, ${CEILING.vus} connections) vs k6 vs harness`,
          `wrk ${round(wrk.rps, 0)} rps; bare k6 ${round(k6.rps, 0)} rps (${share(k6.rps)}); harness ${round(harness.rps, 0)} rps (${share(harness.rps)})`,
          '-',
          'n/a',
        ],
      ],
    });
  }
} finally {
  responder.stop();
}
