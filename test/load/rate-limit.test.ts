// A key's rate limit as a first-class answer (issue 39), behind a key limited to 40 requests a second (HTTP 429,
// -32005): conformance is never FAIL from a 429 and finishes paced with --rate-limit 40; a gate above the budget names
// the rate limit, and is refused before it starts when the budget is declared; a capacity run names the throttle.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { runConformance } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { summarize } from '../../conformance/report/model.ts';
import { checkIds } from '../../conformance/framework/check.ts';
import { loadExpectations } from '../../conformance/framework/expectations.ts';
import { runLoad } from '../../load/run/run.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { rateLimited } from '../support/rate-limit.ts';
import { cli } from '../support/cli.ts';

describe('a key\'s rate limit (40 requests a second, HTTP 429 with -32005)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let proxy: FaultProxy;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rc-rate-'));
    devnet = await startDevnet();
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
  });
  beforeEach(() => {
    proxy.fault = rateLimited(40);
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const reverts = () => ({ targets: { reverts: devnet.seed.reverts }, source: 'seed' as const });

  it('conformance unpaced: PASS or INCONCLUSIVE, never a check failed by a 429; with --rate-limit 40 it is paced, finishes and passes, none throttled', async () => {
    const fault = rateLimited(40);
    proxy.fault = fault;
    const expectations = await loadExpectations('fixtures/expectations/embedded.json', checkIds(allSuites));
    const unpaced = await runConformance({ suites: allSuites, url: proxy.url, expect: expectations, fixtures: [reverts()] });
    expect(fault.throttled(), 'the budget was met').to.be.above(0);
    const failedOn429 = unpaced.checks.filter((c) => c.verdict === 'fail' && c.evidence.some((e) => e.httpStatus === 429 || /"code":\s*-32005/.test(e.response ?? '')));
    expect(failedOn429.map((c) => `${c.id}: ${c.reason}`)).to.deep.equal([]);
    expect(summarize(unpaced.checks, false, unpaced.complete).verdict).to.be.oneOf(['pass', 'inconclusive']);
    const paced = rateLimited(40);
    proxy.fault = paced;
    const r = await runConformance({ suites: allSuites, url: proxy.url, expect: expectations, fixtures: [reverts()], rateLimit: 40 });
    expect(r.complete).to.equal(true);
    expect(paced.throttled(), 'requests throttled with the budget declared').to.equal(0);
    expect(r.rateLimit?.perS).to.equal(40);
    expect(r.rateLimit?.pacedMs, 'the requests waited for the budget').to.be.above(1000);
    const s = summarize(r.checks, false, r.complete);
    expect(s.verdict, r.checks.filter((c) => c.verdict === 'fail' && !c.expectation).map((c) => `${c.id}: ${c.reason}`).join('\n')).to.equal('pass');
  });

  it('a budget too small for the run: the deadline still ends it on time, INCONCLUSIVE (exit 3), the unfinished checks naming the budget; load refuses an empty --rate-limit', async () => {
    const out = join(dir, 'starved');
    const r = await cli(['conformance', '--url', proxy.url, '--rate-limit', '0.01', '--deadline', '5s', '--out', out, '--quiet']);
    expect(r.code, r.out + r.err).to.equal(3);
    expect(r.ms, 'the paced waits end with the deadline').to.be.below(30_000);
    const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as { checks: Array<{ verdict: string; reason?: string }> };
    expect(report.checks.filter((c) => c.verdict === 'inconclusive').some((c) => /paced at 0\.01 requests a second by --rate-limit: the key's budget, not the endpoint, held it back/.test(c.reason ?? ''))).to.equal(true);
    const empty = await cli(['load', '--url', proxy.url, '--rate-limit', '', '--out', join(dir, 'empty')]);
    expect(empty.code).to.equal(2);
    expect(empty.err).to.match(/--rate-limit takes a number of requests a second, 0\.001 or more/);
  });

  it('a gate above the budget fails, its reasons naming the rate limit apart from the failure rate', async () => {
    const out = join(dir, 'gate');
    const r = await runLoad({ url: proxy.url, profile: 'gate', rate: 10, duration: '5s', fresh: { chased: false, why: '--no-fresh' }, out, log: () => undefined });
    expect(r.exitCode, r.summary).to.equal(1);
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
    // The first reason the terminal gives, whole; load.json holds the same reason among its own.
    expect(r.summary.split('\n').find((l) => l.startsWith('  - ')), r.summary).to.match(/^ {2}- \d+(\.\d+)?% of requests \(\d+ of \d+: eth_\w+ \d+.*\) throttled by the endpoint's rate limit \(HTTP 429 or -32005\): the key's budget, not the service, is what this run measured/);
    expect(report.reasons?.some((x) => /throttled by the endpoint's rate limit \(HTTP 429 or -32005\)/.test(x)), JSON.stringify(report.reasons)).to.equal(true);
  });

  it('with --rate-limit 40 declared, a gate planning 80 requests a second is refused before it starts (exit 2), saying so', async () => {
    const r = await cli(['load', '--url', proxy.url, '--profile', 'gate', '--rate', '10', '--rate-limit', '40', '--out', join(dir, 'refused')]);
    expect(r.code, r.out + r.err).to.equal(2);
    expect(r.err).to.match(/the gate plan sends 80 requests a second at its peak \(8 scenario\(s\) at 10 rps each\), above the key's budget of 40 a second \(--rate-limit\)/);
    expect((proxy.fault as ReturnType<typeof rateLimited>).throttled(), 'nothing sent').to.equal(0);
  });

  it('a capacity run stepping past the budget reports the throttle at about 40 rps, apart from a latency knee', async () => {
    const out = join(dir, 'capacity');
    const r = await runLoad({ url: proxy.url, profile: 'capacity', methods: ['eth_getBlockByHash'], rate: 30, steps: { stepRps: 30, maxSteps: 3 }, duration: '3s', out, log: () => undefined });
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
    const c = report.capacity?.['eth_getBlockByHash'];
    expect(c?.sustainableRps, r.summary).to.equal(30);
    expect(c?.throttledAtRps, r.summary).to.be.within(30, 50);
    expect(r.summary).to.match(/eth_getBlockByHash: knee 30 rps, .*THROTTLED at ~\d+(\.\d+)? rps by the key's rate limit, not a latency knee/);
  });
});
