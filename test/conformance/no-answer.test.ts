// No PASS without an answer: a method that never answers (a stall, a body shorter than its Content-Length,
// a chunked body never ended, a reset) makes the run INCONCLUSIVE (exit 3) naming the method, and the run
// deadline turns whatever is unfinished into inconclusive checks while the reports are still written.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConformance } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { summarize } from '../../conformance/report/model.ts';
import type { Devnet } from '../../devnet/index.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import type { FaultProxy, Stall } from '../support/fault-proxy.ts';
import { cli } from '../support/cli.ts';
import { RUN_OF_ONE_CHECKS } from '../support/run-of-one.ts';


interface Written {
  run: { deadlineReached?: boolean; complete: boolean };
  summary: { verdict: string; verdictReason?: string; unansweredMethods?: string[]; fatalFailures: number };
  checks: Array<{ id: string; method: string; verdict: string; reason?: string }>;
}

describe('no PASS without an answer', function () {
  let devnet: Devnet;
  let proxy: FaultProxy;
  faultyDevnet((d, p) => ((devnet = d), (proxy = p)));

  const stalls: Stall[] = ['stall', 'bad-content-length', 'unterminated-chunked', 'reset'];
  for (const how of stalls) {
    it(`eth_getBlockReceipts never answers (${how}): INCONCLUSIVE naming it, never PASS`, async () => {
      let stalled = 0;
      proxy.fault = { name: how, kills: [], stall: (req) => (req.method === 'eth_getBlockReceipts' ? (stalled++, how) : undefined) };
      const run = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getBlockReceipts', 'eth_getTransactionReceipt'], timeoutMs: 400 });
      // After three calls in a row without an answer the method is not waited on again (a full timeout each).
      expect(stalled).to.be.within(3, 8);
      const summary = summarize(run.checks, false, run.complete);
      expect(summary.verdict).to.equal('inconclusive');
      expect(summary.unansweredMethods).to.deep.equal(['eth_getBlockReceipts']);
      expect(summary.verdictReason).to.match(/never answered: eth_getBlockReceipts/);
      // The method that answers is still judged: its own checks pass.
      const other = run.checks.filter((c) => c.method === 'eth_getTransactionReceipt' && c.layer !== 'advisory');
      expect(other.filter((c) => c.verdict === 'pass').length).to.be.above(5);
      expect(run.checks.filter((c) => c.verdict === 'fail' && c.layer !== 'advisory').map((c) => c.id)).to.deep.equal([]);
    });
  }

  it('the CLI: a stalled method among others exits 3, says INCONCLUSIVE and names it; JUnit goes red', async () => {
    proxy.fault = { name: 'stall', kills: [], stall: (req) => (req.method === 'eth_getBlockReceipts' ? 'stall' : undefined) };
    const out = await mkdtemp(join(tmpdir(), 'rc-stall-'));
    const methods = 'eth_estimateGas,eth_getTransactionByHash,eth_getTransactionReceipt,eth_getBlockReceipts,service';
    const r = await cli(['conformance', '--url', proxy.url, '--out', out, '--timeout', '400', '--methods', methods]);
    expect(r.code, r.err).to.equal(3);
    expect(r.out).to.match(/conformance: INCONCLUSIVE/);
    expect(r.out).to.match(/inconclusive: never answered: eth_getBlockReceipts/);
    const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as Written;
    expect(report.summary).to.include({ verdict: 'inconclusive', fatalFailures: 0 });
    expect(report.summary.unansweredMethods).to.deep.equal(['eth_getBlockReceipts']);
    expect(await readFile(join(out, 'conformance.junit.xml'), 'utf8')).to.match(/<failure message="INCONCLUSIVE: never answered: eth_getBlockReceipts[;"]/);
    expect(await readFile(join(out, 'conformance.html'), 'utf8')).to.match(/INCONCLUSIVE/);
  });

  describe('the run deadline', function () {
    let slow: Server;
    let slowUrl: string;
    before(async () => {
      // Every answer 250 ms late, well inside the request timeout: only a deadline bounds the run.
      slow = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () =>
          setTimeout(() => {
            void fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
              .then(async (r) => {
                res.writeHead(r.status, { 'content-type': 'application/json' });
                res.end(await r.text());
              })
              .catch(() => res.destroy());
          }, 250),
        );
      });
      await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
      slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v3/slow-key-000`;
    });
    after(() => {
      slow?.closeAllConnections();
      slow?.close();
    });

    it('--deadline: the unfinished checks are inconclusive, the reports are written, exit 3', async () => {
      const out = await mkdtemp(join(tmpdir(), 'rc-deadline-'));
      // The embedded default's own deviations excused: a check that fails before the deadline would make the run FAIL.
      const r = await cli(['conformance', '--url', slowUrl, '--out', out, '--timeout', '5000', '--deadline', '8s', '--expect', 'fixtures/expectations/embedded.json']);
      expect(r.code, r.err).to.equal(3);
      expect(r.ms, 'ends soon after the deadline').to.be.below(8000 + 6000);
      const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as Written;
      expect(report.run).to.include({ deadlineReached: true, complete: true });
      expect(report.summary.verdict).to.equal('inconclusive');
      // Every check has a verdict: none is lost.
      // (the reference and quorum checks are not on a run of one endpoint without --reference-url)
      expect(report.checks).to.have.length(RUN_OF_ONE_CHECKS);
      expect(report.checks.filter((c) => c.reason?.startsWith('not run: the run deadline of 8 s passed')).length).to.be.above(0);
      expect(r.out).to.match(/deadline: the run deadline passed/);
    });

    it('rejects a deadline that is not a duration', async () => {
      const r = await cli(['conformance', '--url', slowUrl, '--deadline', 'soon']);
      expect(r.code).to.equal(2);
      expect(r.err).to.match(/--deadline takes a duration/);
    });
  });
});
