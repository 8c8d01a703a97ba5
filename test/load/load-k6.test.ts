// Real k6 runs through the CLI, against the embedded default served under a sentinel API key: the key
// must reach no file the run writes (reports, corpus, work files) and no output line.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { type Devnet, startDevnet } from '../../devnet/index.ts';
import { METHODS } from '../../core/methods.ts';
import { metricName } from '../../load/shared/answer-classes.ts';
import { DROPPED } from '../../load/shared/profiles.ts';
import { bucketOf } from '../../load/shared/histogram.ts';
import { assertReport } from '../../load/report/report.ts';
import { requireTool } from '../support/tools.ts';
import { redactUrl } from '../../core/redact.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { harnessVersion } from '../../core/node/version.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';

const SENTINEL = 'SENTINEL-KEY-123';
/** How long the gated run's proxy holds each answer: ten times the regression gate's 2 ms loopback floor. */
const GATED_DELAY_MS = 20;
const CLI = fileURLToPath(new URL('../../bin/rpc-certify.js', import.meta.url));

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], tmp: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    // TMPDIR routes the run's work files (bundle, k6's console) somewhere the test can search.
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

async function expectNoSentinel(dir: string, run: CliRun): Promise<void> {
  for (const file of await filesUnder(dir)) expect((await readFile(file)).includes(SENTINEL), file).to.equal(false);
  expect(run.stdout).to.not.include(SENTINEL);
  expect(run.stderr).to.not.include(SENTINEL);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('load: real k6 runs against the embedded default (sentinel API key)', function () {
  this.timeout(120_000);
  let devnet: Devnet;
  let dir: string;
  let first: CliRun;
  let report: LoadReport;

  before(async function () {
    await requireTool(this, 'k6');
    devnet = await startDevnet({ apiKey: SENTINEL });
    dir = await mkdtemp(join(tmpdir(), 'load-k6-test-'));
    // A starved machine (CI shares its cores) can stall k6 or the devnet for a second: the run then honestly
    // fails on latency or dropped iterations. Only such a run is repeated, twice at most.
    const timing = new Set<string>([DROPPED, ...METHODS.map(metricName.latency)]);
    for (let attempt = 1; ; attempt++) {
      // Half of the requests misses: 12 a method then ask both kinds whatever order the seed gives the corpus.
      first = await cli(['load', '--url', devnet.url, '--profile', 'smoke', '--duration', '3s', '--rate', '4', '--miss-share', '0.5', '--out', join(dir, 'out'), '--keep-work'], dir);
      report = JSON.parse(await readFile(join(dir, 'out', 'load.json'), 'utf8')) as LoadReport;
      const crossed = report.thresholds.filter((t) => !t.ok);
      if (attempt === 3 || crossed.length === 0 || crossed.some((t) => !timing.has(t.metric))) break;
      console.log(`      (smoke run ${attempt} crossed only timing thresholds, run again: ${crossed.map((t) => `${t.metric} ${t.expression} = ${t.value}`).join('; ')})`);
    }
  });
  after(async () => {
    await devnet?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs every method, classifies every answer and passes the smoke thresholds', () => {
    expect(first.code, `${first.stdout}\n${first.stderr}`).to.equal(0);
    assertReport(report);
    expect(report.verdict).to.equal('pass');
    expect(Object.keys(report.methods)).to.have.members([...METHODS]);
    for (const [name, m] of Object.entries(report.methods)) {
      expect(m.requests, name).to.be.at.least(10);
      expect(m.failureRate, name).to.equal(0);
      expect(m.latencyMs?.p99, name).to.be.a('number');
      // Smoke validates every answer: in Go by the verdict sampling gave the same bytes, else parsed and validated.
      expect(m.validated, `${name}: smoke validates every answer`).to.equal(m.requests);
      expect(m.parsed, name).to.be.at.most(m.validated);
    }
    expect(report.methods['eth_estimateGas']?.classes.ok_error, 'reverting init code').to.be.above(0);
    expect(report.methods['eth_getBlockByHash']?.classes.ok_null, 'misses').to.be.above(0);
    expect(report.timeline.points.length).to.be.at.least(2);
    // One point a period, whatever the request count (k6's exports are kept once a period: instances.ts).
    expect(report.timeline.points.length).to.be.at.most(Math.ceil(report.plan.totalSec / report.plan.periodSec) + 2);
    // The timeline starts at the first requests, not seconds earlier when k6's output started, before the VUs' init code.
    const [firstPoint] = report.timeline.points;
    // Within two periods: the first flush of the answers may come a period late on a busy machine (an empty period is left out).
    expect(firstPoint?.t, 'the first point ends within two periods of the first requests').to.be.at.most(2 * report.plan.periodSec);
    expect(Object.keys(firstPoint?.methods ?? {}), 'the first point holds requests').to.not.be.empty;
    expect(report.endpoint).to.match(/\/v3\/<redacted>$/);
    expect(first.stdout).to.match(/load smoke: PASS/);
    // A chain that stands still (no --fresh): sampling waited two of its block intervals for a block, saw none, and said so.
    expect(report.freshChase?.chased).to.equal(false);
    expect(report.freshChase?.why).to.match(/^the head stood at block \d+ for \d+(\.\d)? s from the start of sampling/);
    expect(report.freshness).to.equal(undefined);
    expect(first.stdout).to.match(/fresh reads: not chased \(the head stood at block/);
  });

  it('writes the HTML report, the JUnit file (one case for the run completing, one for every iteration judged, one per threshold, one for head freshness, one per method sampled, the head lag skipped), and no k6 dashboard (it would keep every sample)', async () => {
    const out = join(dir, 'out');
    expect(await readdir(out)).to.have.members(['load.json', 'load.html', 'load.junit.xml', 'load.corpus.json']);
    const junit = await readFile(join(out, 'load.junit.xml'), 'utf8');
    expect((junit.match(/<testcase /g) ?? []).length, 'run complete, every iteration judged, thresholds, head, one per method sampled, one per method measured, the head lag').to.equal(2 + report.thresholds.length + 1 + 8 + 8 + 1);
    // No --reference-url: the head lag is not judged, said so, and never counted a pass.
    expect(junit).to.match(/classname="load\.headLag"[^>]*>\s*<skipped\/>\s*<system-out>\s*<!\[CDATA\[head lag not judged \(no --reference-url\)/);
    expect(report.headLag).to.deep.equal({ maxLagSec: 5, notJudged: 'no --reference-url' });
    expect(await readFile(join(out, 'load.html'), 'utf8')).to.include('<svg');
  });

  it('leaves the key in no file written and no output line', async () => {
    await expectNoSentinel(dir, first);
  });

  it('replays the corpus; k6 errors quoting the URL are redacted and failed thresholds exit 1', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v3/${SENTINEL}`;
    const out = join(dir, 'refused');
    const refused = await cli(['load', '--url', url, '--corpus', join(dir, 'out', 'load.corpus.json'), '--methods', 'eth_getBlockByHash', '--duration', '2s', '--out', out], dir);
    expect(refused.code, refused.stderr).to.equal(1);
    expect(refused.stderr).to.include('/v3/<redacted>');
    const r = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
    expect(r.methods['eth_getBlockByHash']?.classes.http_error).to.be.above(0);
    expect(r.thresholds.some((t) => !t.ok)).to.equal(true);
    await expectNoSentinel(dir, refused);
  });

  it('gates on a baseline: `load --baseline` fails on a regression, `compare` finds it offline', async () => {
    // The gated run goes through a proxy that holds every answer GATED_DELAY_MS: its p95 is then at least that,
    // far beyond the baseline's 0.01 ms plus compare.ts's loopback-noise floor (2 ms) and tolerance. Without it
    // a quiet machine answers within the floor, and the run rightly finds no regression.
    const proxy = new FaultProxy(devnet.url);
    proxy.fault = { name: 'delay', kills: [], serveAnyKey: true, rewrite: async (_req, res) => (await delay(GATED_DELAY_MS), res) };
    await proxy.start();
    const url = proxy.url.replace(FaultProxy.KEY, SENTINEL);
    try {
      await gatesOnBaseline(url);
    } finally {
      await proxy.stop();
    }
  });

  async function gatesOnBaseline(url: string): Promise<void> {
    const base = join(dir, 'base.json');
    // The baseline of the gated run below (one method, 2 s, the smoke rate, the proxy's endpoint), with its latency doctored down.
    const doctored = structuredClone(report);
    doctored.methods = { eth_getBlockByHash: report.methods['eth_getBlockByHash'] as LoadReport['methods'][string] };
    doctored.plan = { ...doctored.plan, rate: 5, durationSec: 2 };
    doctored.endpoint = redactUrl(url);
    // Far below any real answer (not a share of the first run's figures, which a machine stall can inflate past the gated run's).
    // Its histogram too (what the gate's intervals read): 10,000 answers of 0.01 ms, every bound 0.01 ms.
    for (const m of Object.values(doctored.methods)) {
      if (m.latencyMs) m.latencyMs = { ...m.latencyMs, p95: 0.01, p99: 0.01 };
      m.gate = { histogram: { count: 10_000, sum: 100, min: 0.01, max: 0.01, buckets: { [bucketOf(0.01)]: 10_000 } }, designEffect: { p95: 1, p99: 1, failureRate: 1 } };
    }
    await writeFile(base, JSON.stringify(doctored));

    const out = join(dir, 'gated');
    const gated = await cli(['load', '--url', url, '--corpus', join(dir, 'out', 'load.corpus.json'), '--methods', 'eth_getBlockByHash', '--duration', '2s', '--validate-share', '0.2', '--baseline', base, '--out', out], dir);
    expect(gated.code, gated.stderr).to.equal(1);
    expect(gated.stdout).to.match(/^load smoke: FAIL[^\n]*\n  [^\n]*:\n(  - [^\n]*\n)*  - regressed against [^\n]*base\.json: eth_getBlockByHash p95/);
    const r = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
    expect(r.baseline?.ok).to.equal(false);
    // A fifth is validated (parsed, but for an answer sampling validated as the same bytes: k6ext/send.go); the other
    // answers were recognised by the fingerprint sampling recorded.
    const m = r.methods['eth_getBlockByHash'];
    expect(m?.validated, 'a fifth validated').to.be.above(0).and.below(m?.requests ?? 0);
    expect(m?.parsed, 'parsed: of the validated ones only').to.be.at.most(m?.validated ?? 0);
    expect(await readFile(join(out, 'load.junit.xml'), 'utf8')).to.match(/<failure message="regressed against [^"]*: eth_getBlockByHash p95/);

    const regressed = await cli(['compare', base, join(out, 'load.json')], dir);
    expect(regressed.code, regressed.stdout + regressed.stderr).to.equal(1);
    expect(regressed.stdout).to.match(/REGRESSED\s+eth_getBlockByHash p95/);
    expect((await cli(['compare', base], dir)).code).to.equal(2);
    expect(r.methods['eth_getBlockByHash']?.latencyMs?.p95, 'every answer held by the proxy').to.be.at.least(GATED_DELAY_MS);
    await expectNoSentinel(dir, gated);
  }

  it('never judges a regression on an incomplete run: `compare` refuses one as baseline or as current, `load --baseline` before k6 starts (exit 2)', async () => {
    const complete = join(dir, 'out', 'load.json');
    const incomplete = join(dir, 'incomplete.json');
    await writeFile(incomplete, JSON.stringify({ ...report, verdict: 'incomplete', incompleteReason: 'interrupted by SIGINT: the figures cover the run until then' }));
    for (const [base, current] of [[complete, incomplete], [incomplete, complete]] as const) {
      const refused = await cli(['compare', base, current], dir);
      expect(refused.code, refused.stdout + refused.stderr).to.equal(2);
      expect(refused.stderr).to.match(/not comparable: .*incomplete\.json is an incomplete run \(interrupted by SIGINT[^)]*\): its figures cover only part of the test/);
      expect(refused.stdout).to.not.match(/no regression/);
    }
    const gated = await cli(['load', '--url', devnet.url, '--corpus', join(dir, 'out', 'load.corpus.json'), '--duration', '2s', '--baseline', incomplete, '--out', join(dir, 'on-incomplete')], dir);
    expect(gated.code, gated.stdout + gated.stderr).to.equal(2);
    expect(gated.stderr).to.match(/--baseline .*incomplete\.json is an incomplete run .*give the report of a completed run/);
  });

  it('names its kind, layout and harness version in the header both reports share, and `compare` still reads a load.json of layout 2 (version, no harness)', async () => {
    // Read from the file: an earlier test doctors the shared report's figures in place.
    const { kind, schemaVersion, harness, ...body } = JSON.parse(await readFile(join(dir, 'out', 'load.json'), 'utf8')) as LoadReport;
    expect({ kind, schemaVersion, harness }).to.deep.equal({ kind: 'rpc-certify-load', schemaVersion: 3, harness: { name: 'rpc-certify', version: harnessVersion } });
    const old = join(dir, 'layout2.json');
    await writeFile(old, JSON.stringify({ version: 2, kind, ...body }));
    const compared = await cli(['compare', old, join(dir, 'out', 'load.json')], dir);
    // A smoke run (3 s at 4 rps) is far too short to judge a percentile: read, compared, and said so per method, never a pass.
    expect(compared.code, compared.stdout + compared.stderr).to.equal(3);
    expect(compared.stdout).to.match(/no regression shown against .*layout2\.json/);
    expect(compared.stdout).to.match(/\nUNJUDGEABLE +eth_getBlockByHash p99: [\d.]+ ms \(baseline [\d.]+ ms, ratio [\d.]+, limit x[\d.]+\): not judged, this run's: too few answers above p99 to bound it \(\d+ successes, [\d.]+x their variance as independent samples\); needs at least \d+ requests\n/);
    expect(compared.stdout).to.match(/\nINCONCLUSIVE: eth_getBlockByHash: neither p95 nor p99 shown to hold \(p95 x[\d.]+ unjudgeable \(needs at least \d+ requests\); p99 x[\d.]+ unjudgeable \(needs at least \d+ requests\)\)\n/);
  });

  it('`baseline add` keeps runs of one test, says their spread, and refuses a run twice, a failed run or another test; `compare` reads the directory', async () => {
    const passed = join(dir, 'out', 'load.json');
    const base = join(dir, 'several');
    const first = await cli(['baseline', 'add', base, passed], dir);
    expect(first.code, first.stdout + first.stderr).to.equal(0);
    expect(first.stdout).to.match(/as run-001\.json: 1 run: the gate cannot tell drift between runs from a regression/);
    const twice = await cli(['baseline', 'add', base, passed], dir);
    expect(twice.code).to.equal(2);
    expect(twice.stderr).to.match(/is already in .*several \(a run written at /);
    for (const [i, factor] of [[2, 1.1], [3, 0.9]] as const) {
      const again = structuredClone(JSON.parse(await readFile(passed, 'utf8')) as LoadReport);
      again.createdAt = new Date(Date.parse(again.createdAt) + i * 1000).toISOString();
      for (const m of Object.values(again.methods)) if (m.latencyMs) m.latencyMs = { ...m.latencyMs, p95: m.latencyMs.p95 * factor };
      const file = join(dir, `again-${i}.json`);
      await writeFile(file, JSON.stringify(again));
      const added = await cli(['baseline', 'add', base, file], dir);
      expect(added.code, added.stderr).to.equal(0);
      if (i === 3) expect(added.stdout).to.match(/as run-003\.json: 3 runs \(fewer than 5: their spread is widened x2\); p95 spread between runs \(largest over smallest\): eth_\w+ 2\d%/);
    }
    const failed = join(dir, 'failed-add.json');
    await writeFile(failed, JSON.stringify({ ...JSON.parse(await readFile(passed, 'utf8')), verdict: 'fail', createdAt: new Date().toISOString(), thresholds: report.thresholds.map((t, i) => (i === 0 ? { ...t, ok: false, value: 0.4 } : t)) }));
    const refused = await cli(['baseline', 'add', base, failed], dir);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/failed-add\.json is a failed run/);
    const other = join(dir, 'other-test.json');
    await writeFile(other, JSON.stringify({ ...JSON.parse(await readFile(passed, 'utf8')), createdAt: new Date().toISOString(), profile: 'gate' }));
    const unlike = await cli(['baseline', 'add', base, other], dir);
    expect(unlike.code).to.equal(2);
    expect(unlike.stderr).to.match(/is not the same test as the baseline's runs \(profile smoke in the baseline, gate now\)/);
    const compared = await cli(['compare', base, passed], dir);
    expect(compared.stdout).to.match(/^baseline .*several: 3 runs \(fewer than 5/);
    const index = JSON.parse(await readFile(join(base, 'baseline.json'), 'utf8')) as { runs: unknown[] };
    expect(index.runs).to.have.length(3);
    // A baseline directory whose index is not one: one line, exit 2, for compare and for load --baseline.
    const broken = join(dir, 'broken-baseline');
    await mkdir(broken);
    await writeFile(join(broken, 'baseline.json'), '{"kind": "rpc-certify-baseline", "runs": [{"file": "../../etc/passwd"}]}');
    for (const args of [['compare', broken, passed], ['load', '--url', devnet.url, '--corpus', join(dir, 'out', 'load.corpus.json'), '--duration', '2s', '--baseline', broken, '--out', join(dir, 'on-broken')]]) {
      const r = await cli(args, dir);
      expect(r.code, r.stdout + r.stderr).to.equal(2);
      expect(r.stderr.trim().split('\n')).to.have.length(1);
      expect(r.stderr).to.match(/broken-baseline\/baseline\.json is not a baseline's index \(written by rpc-certify baseline add\)/);
    }
  });

  it('takes no failed run as baseline, and fails a failed current run whatever its figures (exit 2; exit 1)', async () => {
    const passed = join(dir, 'out', 'load.json');
    const failed = join(dir, 'failed.json');
    // The smoke run with one method's failure-rate threshold crossed: 40% failures, a baseline that would allow 49%.
    const crossed = report.thresholds.map((t, i) => (i === report.thresholds.findIndex((x) => x.metric.startsWith('failed_')) ? { ...t, ok: false, value: 0.4 } : t));
    expect(crossed.filter((t) => !t.ok)).to.have.length(1);
    await writeFile(failed, JSON.stringify({ ...report, verdict: 'fail', thresholds: crossed }));
    const asBaseline = await cli(['compare', failed, passed], dir);
    expect(asBaseline.code, asBaseline.stdout + asBaseline.stderr).to.equal(2);
    expect(asBaseline.stderr).to.match(/not a baseline: .*failed\.json is a failed run \(eth_[A-Za-z]+: failure rate 40% \(threshold < 1%\)\): its limits would allow the same failures/);
    expect(asBaseline.stdout).to.not.match(/no regression/);
    const asCurrent = await cli(['compare', passed, failed], dir);
    expect(asCurrent.code, asCurrent.stdout + asCurrent.stderr).to.equal(1);
    expect(asCurrent.stdout).to.match(/\nFAIL: .*failed\.json is a failed run \(/);
    const gated = await cli(['load', '--url', devnet.url, '--corpus', join(dir, 'out', 'load.corpus.json'), '--duration', '3s', '--baseline', failed, '--out', join(dir, 'on-failed')], dir);
    expect(gated.code, gated.stdout + gated.stderr).to.equal(2);
    expect(gated.stderr).to.match(/--baseline .*failed\.json is a failed run .*give the report of a passing run/);
  });

  it('passes no current run it could not judge in full: no regression but a head lag left unjudged is inconclusive (exit 3)', async () => {
    const passed = join(dir, 'out', 'load.json');
    const unjudged = join(dir, 'unjudged.json');
    const headLag = { maxLagSec: 5, inconclusive: 'the reference failed mid-run (eth_blockNumber unreachable)' };
    await writeFile(unjudged, JSON.stringify({ ...JSON.parse(await readFile(passed, 'utf8')), verdict: 'inconclusive', headLag }));
    const compared = await cli(['compare', passed, unjudged], dir);
    expect(compared.code, compared.stdout + compared.stderr).to.equal(3);
    expect(compared.stdout).to.match(/\nINCONCLUSIVE: .*unjudged\.json could not be judged in full \(head lag: the reference failed mid-run/);
  });

  it('does not compare runs of different tests: the smoke run against a gate-shaped baseline is refused, not "regressed"', async () => {
    const smoke = join(dir, 'out', 'load.json');
    const gate = join(dir, 'gate.json');
    const doctored = structuredClone(report);
    doctored.profile = 'gate';
    doctored.plan = { ...doctored.plan, rate: 20, durationSec: 60 };
    // Far below any real answer (not a share of the first run's figures, which a machine stall can inflate past the gated run's).
    for (const m of Object.values(doctored.methods)) if (m.latencyMs) m.latencyMs = { ...m.latencyMs, p95: 0.01, p99: 0.01 };
    await writeFile(gate, JSON.stringify(doctored));
    const refused = await cli(['compare', gate, smoke], dir);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/not comparable: .*profile gate in the baseline, smoke now; rate 20 rps per method in the baseline, 4 rps per method now; duration 60 s in the baseline, 3 s now/);
    expect(refused.stdout).to.not.match(/REGRESSED|regression/);
    const sideBySide = await cli(['compare', gate, smoke, '--allow-mismatch'], dir);
    expect(sideBySide.code).to.equal(2);
    expect(sideBySide.stdout).to.match(/^NOT COMPARABLE/);
    expect(sideBySide.stdout).to.not.match(/REGRESSED|regression\(s\)/);
    // The same before a run: a gate with a baseline of another test stops before k6 starts.
    const gated = await cli(['load', '--url', devnet.url, '--corpus', join(dir, 'out', 'load.corpus.json'), '--duration', '2s', '--baseline', gate, '--out', join(dir, 'unlike')], dir);
    expect(gated.code).to.equal(2);
    expect(gated.stderr).to.match(/--baseline is not the same test/);
    expect(gated.stderr).to.not.match(/^k6/m);
  });

  it('says why, in one line with exit code 2, when the endpoint is not usable', async () => {
    const run = await cli(['load', '--url', `http://127.0.0.1:${await closedPort()}/v3/${SENTINEL}`, '--out', join(dir, 'unusable')], dir);
    expect(run.code).to.equal(2);
    expect(run.stderr.trim().split('\n').at(-1)).to.match(/^load: endpoint not usable: eth_chainId: unreachable/);
    expect(run.stderr).to.not.match(/\n\s+at /);
    expect(run.stderr).to.not.include(SENTINEL);
  });
});
