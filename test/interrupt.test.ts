// An interrupted run stops what it started, writes a report marked incomplete, and exits non-zero.
import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../devnet/index.ts';

function run(args: string[]): { child: ChildProcess; output: Promise<{ code: number | null; out: string; err: string }>; waitFor: (text: RegExp) => Promise<string> } {
  const child = spawn(process.execPath, ['bin/rpc-certify.js', ...args]);
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

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
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
});
