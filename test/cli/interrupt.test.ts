// An interrupted run stops what it started, writes a report marked incomplete, and exits non-zero.
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../../devnet/index.ts';

type Launch = { command?: string[]; detached?: boolean };

/** The CLI as a child (by default `node bin/rpc-certify.js`; `command` puts npx or timeout in front); `detached` makes it a process group of its own. */
function run(args: string[], launch: Launch = {}): { child: ChildProcess; output: Promise<{ code: number | null; out: string; err: string }>; waitFor: (text: RegExp) => Promise<string> } {
  const [cmd, ...pre] = launch.command ?? [process.execPath, 'bin/rpc-certify.js'];
  const child = spawn(cmd!, [...pre, ...args], { detached: launch.detached ?? false });
  let out = '';
  let err = '';
  const waiters: Array<{ re: RegExp; resolve: (s: string) => void }> = [];
  const feed = () => {
    for (const w of [...waiters]) {
      const m = w.re.exec(out + err);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m[0]);
      }
    }
  };
  child.stdout!.on('data', (d: Buffer) => ((out += d.toString()), feed()));
  child.stderr!.on('data', (d: Buffer) => ((err += d.toString()), feed()));
  const output = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return { child, output, waitFor: (re) => new Promise((resolve) => (waiters.push({ re, resolve }), feed())) };
}

/** The k6 processes a load run writing to `out` started (found by the corpus path in their environment). */
function k6For(out: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'k6') continue;
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`RPC_CERTIFY_CORPUS=${join(out, 'load.corpus.json')}`)) pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface LoadJson {
  verdict: string;
  incompleteReason?: string;
  methods: Record<string, { requests: number }>;
}

/** load.json, .html and .junit.xml are all there, the run marked incomplete, with what k6 measured until the signal. */
async function expectIncompleteLoad(out: string, reason: RegExp): Promise<void> {
  for (const f of ['load.json', 'load.html', 'load.junit.xml']) expect(existsSync(join(out, f)), f).to.equal(true);
  const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadJson;
  expect(report.verdict).to.equal('incomplete');
  expect(report.incompleteReason).to.match(reason);
  expect(report.methods['eth_getBlockByHash']?.requests ?? 0).to.be.above(0);
  expect(await readFile(join(out, 'load.html'), 'utf8')).to.match(/incomplete/i);
  // CI reads the JUnit file: a run stopped early is never green there either.
  expect(await readFile(join(out, 'load.junit.xml'), 'utf8')).to.match(/<testcase classname="load\.smoke\.run" name="the run completed as planned"[^>]*>\s*<failure message="incomplete: interrupted by/);
}

const LOAD = ['load', '--profile', 'smoke', '--duration', '40s', '--methods', 'eth_getBlockByHash'];

/** Running: a zombie (killed, its parent gone, not yet reaped by init) is not. */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
};

describe('interruption', function () {
  let devnet: Devnet;
  let slow: Server;
  let slowUrl: string;
  before(async () => {
    devnet = await startDevnet();
    // Every answer 150 ms late: the suite takes long enough to be interrupted halfway.
    slow = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => setTimeout(() => void fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => {
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(await r.text());
      }), 150));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v3/slow-key-000`;
  });
  after(async () => {
    slow?.closeAllConnections();
    slow?.close();
    await devnet?.stop();
  });

  it('Ctrl-C during conformance writes a report marked incomplete and exits 130', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-int-'));
    const r = run(['conformance', '--url', slowUrl, '--out', out]);
    await r.waitFor(/eth_estimateGas\s+\S/);
    r.child.kill('SIGINT');
    const { code, err } = await r.output;
    expect(code, err).to.equal(130);
    const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as { run: { complete: boolean; incompleteReason?: string }; summary: { verdict: string }; checks: unknown[] };
    expect(report.run.complete).to.equal(false);
    expect(report.run.incompleteReason).to.match(/interrupted by SIGINT/);
    expect(report.summary.verdict).to.equal('incomplete');
    expect(report.checks.length).to.be.above(0);
    expect(await readFile(join(out, 'conformance.html'), 'utf8')).to.match(/incomplete/i);
  });

  it('SIGTERM during a load run stops k6, writes load.json marked incomplete and exits 130', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-int-load-'));
    const r = run(['load', '--url', devnet.url, '--profile', 'smoke', '--duration', '30s', '--methods', 'eth_getBlockByHash', '--out', out]);
    await r.waitFor(/load: k6 v/);
    await new Promise((res) => setTimeout(res, 4000));
    const children = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(r.child.pid)]).toString().trim().split('\n');
    const k6 = children.filter((line) => / k6$/.test(line.trim().replace(/^(\d+)\s+/, '$1 '))).map((line) => Number.parseInt(line.trim(), 10));
    expect(k6.length, 'k6 runs as a child').to.be.at.least(1);
    r.child.kill('SIGTERM');
    const { code, err } = await r.output;
    expect(code, err).to.equal(130);
    await new Promise((res) => setTimeout(res, 200));
    expect(k6.filter(alive), 'no k6 left running').to.deep.equal([]);
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as { verdict: string; incompleteReason?: string; methods: Record<string, { requests: number; achievedRps: number }>; generator: { note?: string } };
    expect(report.verdict).to.equal('incomplete');
    expect(report.incompleteReason).to.match(/SIGTERM/);
    expect(report.methods['eth_getBlockByHash']?.requests ?? 0).to.be.above(0);
    // Rates over the ~5 s run, not the 30 s planned (5 rps, not ~1), and the requests never sent are not the endpoint's doing.
    expect(report.methods['eth_getBlockByHash']?.achievedRps ?? 0).to.be.above(2.5);
    expect(report.generator.note ?? '').to.not.match(/target slowed down/);
  });

  it('Ctrl-C in a terminal (SIGINT to the whole process group, npx in front): k6 is shielded and stopped gracefully, the load reports are written', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-int-group-'));
    const r = run([...LOAD, '--url', devnet.url, '--out', out], { command: ['npx', 'rpc-certify'], detached: true });
    await r.waitFor(/load: k6 v/);
    await until('k6 to start', () => k6For(out).length > 0, 10_000);
    await new Promise((res) => setTimeout(res, 3000));
    const k6 = k6For(out);
    process.kill(-r.child.pid!, 'SIGINT');
    const { out: stdout, err } = await r.output; // the pipes close when the harness itself has exited
    expect(k6.filter(alive), 'no k6 left running').to.deep.equal([]);
    expect(err).to.not.match(/stack|at .*\.ts:\d+/);
    await expectIncompleteLoad(out, /interrupted by SIGINT/);
    expect(stdout).to.match(/INCOMPLETE|incomplete/);
  });

  it('Ctrl-C to the group of a load run on the embedded default: k6 and anvil sit in their own process groups, out of its reach; no failure is counted', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-int-embedded-'));
    const r = run([...LOAD, '--out', out], { detached: true });
    await r.waitFor(/load: k6 v/);
    await until('k6 to start', () => k6For(out).length > 0, 10_000);
    const pgid = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
    const anvil = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(r.child.pid)]).toString().trim().split('\n').filter((l) => /anvil$/.test(l.trim())).map((l) => Number.parseInt(l.trim(), 10));
    expect(anvil.length, 'anvil runs as a child').to.equal(1);
    for (const pid of [...anvil, ...k6For(out)]) expect(pgid(pid), `process ${pid}'s group`).to.not.equal(r.child.pid);
    await new Promise((res) => setTimeout(res, 3000));
    process.kill(-r.child.pid!, 'SIGINT');
    const { code, err } = await r.output;
    expect(code, err).to.equal(130);
    await expectIncompleteLoad(out, /interrupted by SIGINT/);
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as { methods: Record<string, { failureRate: number }> };
    expect(report.methods['eth_getBlockByHash']?.failureRate, 'anvil did not die under the Ctrl-C').to.equal(0);
  });

  it('timeout N around the run (SIGTERM to the group): reports written, exit 130', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-int-timeout-'));
    // --preserve-status: timeout exits with the harness's own code, so 130 is visible here.
    const r = run([...LOAD, '--url', devnet.url, '--out', out], { command: ['timeout', '--preserve-status', '14', process.execPath, 'bin/rpc-certify.js'] });
    await r.waitFor(/load: k6 v/);
    const { code, err } = await r.output;
    expect(code, err).to.equal(130);
    expect(k6For(out), 'no k6 left running').to.deep.equal([]);
    await expectIncompleteLoad(out, /interrupted by SIGTERM/);
  });

  it('SIGTERM to npx only: the harness sees npx gone, stops k6 gracefully and writes the reports', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-int-npx-'));
    const r = run([...LOAD, '--url', devnet.url, '--out', out], { command: ['npx', 'rpc-certify'] });
    await r.waitFor(/load: k6 v/);
    await until('k6 to start', () => k6For(out).length > 0, 10_000);
    await new Promise((res) => setTimeout(res, 3000));
    const k6 = k6For(out);
    r.child.kill('SIGTERM'); // npx alone: it exits at once and signals nothing on
    await r.output;
    await until('k6 to stop', () => k6.filter(alive).length === 0, 10_000);
    await expectIncompleteLoad(out, /SIGTERM \(npm, which started this run, has exited\)/);
  });

  it('a signal during the preflight, discovery or corpus sampling stops at once', async () => {
    // An endpoint that accepts and never answers: every stage waits on its first call.
    let asked: () => void = () => undefined;
    const silent = createServer(() => asked());
    await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v3/silent-key-000`;
    try {
      for (const [what, args] of [
        ['conformance preflight', ['conformance', '--url', url, '--timeout', '60000']],
        ['load sampling', ['load', '--url', url, '--profile', 'smoke']],
      ] as const) {
        const out = await mkdtemp(join(tmpdir(), 'rc-int-pre-'));
        // What an earlier passing run left: none of it may stay beside a run that wrote nothing (a stale PASS for CI).
        const earlier = what === 'load sampling' ? ['load.json', 'load.html', 'load.junit.xml', 'load.corpus.json'] : ['conformance.json', 'conformance.html', 'conformance.junit.xml'];
        for (const f of earlier) await writeFile(join(out, f), f.endsWith('.json') ? '{"verdict":"pass"}' : '<testsuites failures="0"/>');
        const firstCall = new Promise<void>((res) => (asked = res));
        const r = run([...args, '--out', out]);
        await firstCall;
        await new Promise((res) => setTimeout(res, 300));
        const sent = Date.now();
        r.child.kill('SIGINT');
        const { code, err, out: stdout } = await r.output;
        expect(code, `${what}: ${err}`).to.equal(130);
        expect(Date.now() - sent, `${what} stops at once`).to.be.below(2000);
        if (what === 'conformance preflight') {
          const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as { run: { incompleteReason?: string }; summary: { verdict: string } };
          expect(report.summary.verdict).to.equal('incomplete');
          expect(report.run.incompleteReason).to.match(/interrupted by SIGINT during the preflight/);
        } else {
          expect(stdout).to.match(/load: interrupted by SIGINT while sampling the corpus: no report, no corpus written/);
          expect(readdirSync(out), 'no earlier report nor a truncated corpus').to.deep.equal([]);
        }
      }
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('SIGTERM while `start` seeds its chain: exit 130 at once, no anvil left, and no earlier report stays in --out', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-int-start-'));
    for (const f of ['conformance.json', 'conformance.junit.xml', 'load.json', 'load.junit.xml']) await writeFile(join(out, f), '{"verdict":"pass"}');
    const r = run(['start', '--out', out]);
    let anvils: number[] = [];
    const children = () => {
      try {
        return execFileSync('ps', ['-o', 'pid=', '--ppid', String(r.child.pid)]).toString().trim().split(/\s+/).map(Number).filter(Boolean);
      } catch {
        return [];
      }
    };
    await until('anvil to start', () => (anvils = children()).length > 0, 20_000);
    await new Promise((res) => setTimeout(res, 300)); // the seed is under way
    const sent = Date.now();
    r.child.kill('SIGTERM');
    const { code, out: stdout, err } = await r.output;
    expect(code, err).to.equal(130);
    expect(Date.now() - sent, 'it stops at once').to.be.below(2000);
    expect(stdout, 'it was still seeding').to.not.match(/embedded default: seeded/);
    expect(err).to.match(/rpc-certify: interrupted (by SIGTERM )?while (anvil was starting|the embedded default was being seeded)/);
    await until('anvil to be gone', () => anvils.filter(alive).length === 0, 3000).catch(() => undefined);
    expect(anvils.filter(alive)).to.deep.equal([]);
    expect(readdirSync(out)).to.deep.equal([]);
  });

  it('devnet prints, with its URL, the conformance command to run (the --expect file of the chain\'s own deviations), and that command passes (red-team B6)', async () => {
    const r = run(['devnet']);
    try {
      const line = await r.waitFor(/certify it: npx rpc-certify conformance [^\n]+/);
      const args = line.replace(/^certify it: npx rpc-certify /, '').split(' ');
      expect(args).to.include.members(['--expect', 'fixtures/expectations/embedded.json', '--reverts']);
      const out = await mkdtemp(join(tmpdir(), 'rc-devnet-cmd-'));
      const c = run([...args, '--out', out, '--quiet']);
      const { code, out: stdout } = await c.output;
      expect(code, stdout).to.equal(0);
      // The seed's reverting contracts came with it: the code-3 reverts with ABI data are judged, not skipped (red team C6).
      const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as { checks: Array<{ id: string; verdict: string }> };
      expect(report.checks.find((x) => x.id === 'eth_estimateGas/revert-contracts')?.verdict).to.equal('pass');
    } finally {
      r.child.kill('SIGTERM');
      await r.output;
    }
  });

  it('SIGTERM stops the embedded default it started: no anvil is left running', async () => {
    const r = run(['devnet']);
    await r.waitFor(/anvil behind it at/);
    const anvils = execFileSync('ps', ['-o', 'pid=', '--ppid', String(r.child.pid)]).toString().trim().split(/\s+/).map(Number).filter(Boolean);
    expect(anvils.length).to.be.at.least(1);
    r.child.kill('SIGTERM');
    const { code } = await r.output;
    expect(code).to.equal(0);
    await new Promise((res) => setTimeout(res, 200));
    expect(anvils.filter(alive)).to.deep.equal([]);
  });

  it('a signal while the embedded default is still starting (before the command\'s own handlers): exit 130, no anvil orphaned', async () => {
    const r = run(['devnet']);
    let anvils: number[] = [];
    // anvil is started, the seed still running: the command has not taken the signals over yet.
    const children = () => {
      try {
        return execFileSync('ps', ['-o', 'pid=', '--ppid', String(r.child.pid)]).toString().trim().split(/\s+/).map(Number).filter(Boolean);
      } catch {
        return []; // ps exits 1 when there is none yet
      }
    };
    await until('anvil to start', () => (anvils = children()).length > 0, 20_000);
    r.child.kill('SIGTERM');
    const { code, out } = await r.output;
    expect(out, 'it was still starting').to.not.match(/listening/);
    expect(code).to.equal(130);
    // The exit hook's SIGKILL is sent as the harness exits; give it a moment to land.
    await until('anvil to be gone', () => anvils.filter(alive).length === 0, 3000).catch(() => undefined);
    expect(anvils.filter(alive), 'anvil runs in its own session: only the exit hook stops it').to.deep.equal([]);
  });
});
