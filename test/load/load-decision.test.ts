// One decision per load run (load/report/verdict.ts): the terminal summary, the exit code, load.json and
// load.junit.xml say the same verdict with the same reasons, whatever failed; and any wrong answer fails the run,
// whatever its rate. Reports built from synthetic measurements (no k6), written by the real conclude().
import { availableParallelism } from 'node:os';
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capacityOf } from '../../load/report/analysis.ts';
import { compareReports } from '../../load/report/compare.ts';
import { headline } from '../../load/report/headline.ts';
import { renderJunit } from '../../load/report/junit.ts';
import { assertReport, buildReport } from '../../load/report/report.ts';
import { summaryText } from '../../load/report/text.ts';
import { decide, exitCodeOf, failedOnItsOwn, withVerdict } from '../../load/report/verdict.ts';
import { conclude } from '../../load/run/run.ts';
import { compositionOf, type Finding } from '../../load/shared/corpus.ts';
import { bucketOf, emptyHistogram } from '../../load/shared/histogram.ts';
import type { RpcMethod } from '../../core/methods.ts';
import { CLASSES, type RpcClass } from '../../load/shared/answer-classes.ts';
import { buildPlan, type Profile } from '../../load/shared/profiles.ts';
import type { SubjectShard } from '../../load/shared/shard.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { ALWAYS_ASKED } from '../../load/shared/freshness.ts';

const METHODS: RpcMethod[] = ['eth_getBlockByHash', 'eth_getTransactionByHash'];

interface Shape {
  profile?: Profile;
  /** Per method, the classes besides `ok` (which fills up to `requests`). */
  classes?: Partial<Record<RpcMethod, Partial<Record<RpcClass, number>>>>;
  requests?: number;
  /** Every successful answer takes this long. */
  ms?: number;
  findings?: Partial<Record<RpcMethod, Finding[]>>;
  notServed?: RpcMethod;
  headRegressions?: number;
  /** k6's CPU seconds over the 1,000 s run, and the GOMAXPROCS the harness gave it. */
  cpuSec?: number;
  procs?: number;
  /** Iterations whose script threw, and the first one's line. */
  scriptErrors?: number;
  scriptError?: string;
}

/** A report as buildReport makes it from what k6 measured. */
function reportOf(s: Shape = {}): LoadReport {
  const profile = s.profile ?? 'gate';
  const requests = s.requests ?? 10_000;
  const plan = buildPlan({ profile, methods: METHODS, seed: 1, rate: 10, duration: '1000s', ...(profile === 'capacity' ? { step: { subject: 'eth_getTransactionByHash' as const, rps: 10 } } : {}) });
  const subjects: Record<string, SubjectShard> = {};
  for (const { name } of plan.scenarios) {
    const others = s.classes?.[name as RpcMethod] ?? {};
    const classes = Object.fromEntries(CLASSES.map((c) => [c, others[c] ?? 0])) as Record<RpcClass, number>;
    classes.ok = requests - Object.values(others).reduce((a, n) => a + (n ?? 0), 0);
    const latency = emptyHistogram();
    const ms = s.ms ?? 3;
    Object.assign(latency, { count: classes.ok, sum: classes.ok * ms, min: ms, max: ms, buckets: { [bucketOf(ms)]: classes.ok } });
    subjects[name] = { classes, dropped: 0, validated: 0, parsed: 0, latency };
  }
  const methods = Object.fromEntries(
    METHODS.map((m) => [
      m,
      { ...compositionOf([{ params: ['0x1'], note: 'hit', kind: 'hit' }, { params: ['0x2'], note: 'hit', kind: 'hit' }, { params: ['0x3'], note: 'hit', kind: 'hit' }]), status: m === s.notServed ? 'not served' : 'served', ...(m === s.notServed ? { reason: 'no hit answered as due: 3 hit rpc_error -32601' } : {}), tried: { hit: 3 }, correct: { hit: 3 }, rejected: {}, findings: s.findings?.[m] ?? [] },
    ]),
  );
  const wrong = Object.fromEntries(METHODS.filter((m) => s.classes?.[m]?.wrong).map((m) => [m, '["0x1"]: not the answer recorded at sampling']));
  return buildReport({
    endpoint: 'http://127.0.0.1:1/v3/<redacted>',
    plan,
    corpus: { seed: 1, missShare: 0.1, chainId: '0x1', head: '0x10', blocksSampled: 16, methods } as LoadReport['corpus'],
    corpusFile: 'load.corpus.json',
    k6: { version: 'v2.2.0', source: 'tools' },
    measurement: {
      merged: { plan: 'p', segments: ['0:1'], durationMs: 1_000_000, subjects, head: { checks: 1000, regressions: s.headRegressions ?? 0, deepest: s.headRegressions ? 2 : 0 }, scriptErrors: s.scriptErrors ?? 0 },
      timeline: { points: [], codes: {} },
      findings: { invalid: {}, wrong, ...(s.scriptError ? { scriptError: s.scriptError } : {}) },
      instances: 1,
      exitCode: 0,
      wallSec: 1000,
      ...(s.cpuSec === undefined ? {} : { cpuSec: s.cpuSec }),
      ...(s.procs === undefined ? {} : { procs: s.procs }),
    },
    ...(profile === 'capacity' ? { capacity: { eth_getTransactionByHash: capacityOf([{ offeredRps: 10, achievedRps: 10, requests: 100, successRate: 1, droppedShare: 0, p50Ms: 3, p99Ms: 3, verdict: 'within' }]) } } : {}),
  });
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Every printer says the decision: the summary's verdict and reasons, JUnit's failures, the exit code, load.json's fields. */
function expectAgreement(r: LoadReport): void {
  const d = decide(r);
  assertReport(r);
  expect(r.verdict, 'load.json').to.equal(d.verdict);
  expect(r.reasons, 'load.json').to.deep.equal(d.reasons);
  const text = summaryText(r, ['load.json']);
  expect(text.split('\n')[0]).to.match(new RegExp(`^load ${r.profile}: ${d.verdict.toUpperCase()} in `));
  for (const reason of d.reasons.filter((x) => !x.startsWith('incomplete: '))) expect(text, 'summary').to.include(`  - ${reason}`);
  const junit = renderJunit(r);
  const failures = [...junit.matchAll(/<failure message="([^"]*)"/g)].map((m) => m[1]);
  expect(failures, 'one JUnit failure per reason, with its text').to.have.members(d.reasons.map(xml));
  expect(exitCodeOf(d.verdict)).to.equal(d.verdict === 'fail' ? 1 : d.verdict === 'incomplete' ? 130 : 0);
  expect(d.reasons.length > 0, 'reasons exactly when the run did not pass').to.equal(d.verdict === 'fail' || d.verdict === 'incomplete');
}

describe('load: one decision, printed alike everywhere (verdict.ts)', () => {
  it('a clean run passes: no reason, no JUnit failure, exit 0', () => {
    const r = reportOf();
    expect(decide(r)).to.deep.include({ verdict: 'pass', reasons: [] });
    expect(headline(r).reasons).to.include('no wrong answer among 20000 requests');
    expectAgreement(r);
  });

  it('one wrong answer in 10,000 fails the run, with its rate, though the 1% failure threshold holds', () => {
    const r = reportOf({ classes: { eth_getTransactionByHash: { wrong: 1 } } });
    expect(r.thresholds.every((t) => t.ok), 'every threshold holds').to.equal(true);
    expect(r.verdict).to.equal('fail');
    expect(r.reasons).to.deep.equal(['eth_getTransactionByHash: 1 wrong answer in 10000 (0.01%), e.g. ["0x1"]: not the answer recorded at sampling']);
    expect(renderJunit(r)).to.match(/<testcase classname="load.answers.eth_getTransactionByHash" name="eth_getTransactionByHash never answered wrongly under load"[^>]*>\s*<failure message="eth_getTransactionByHash: 1 wrong answer in 10000/);
    expect(renderJunit(r)).to.match(/<testcase classname="load.answers.eth_getBlockByHash"[^>]*\/>/);
    expect(summaryText(r, [])).to.match(/^load gate: FAIL in .*\n {2}1 reason to fail:\n {2}- eth_getTransactionByHash: 1 wrong answer in 10000 \(0.01%\)/);
    expectAgreement(r);
  });

  it('every kind of failure is a reason everywhere, most decisive first', () => {
    const finding: Finding = { kind: 'miss', cls: 'wrong', count: 1, example: '["0xdead"] answered a value (id 3): a value where null is due (a miss)' };
    const r = reportOf({ classes: { eth_getBlockByHash: { wrong: 2, timeout: 300 } }, findings: { eth_getTransactionByHash: [finding] }, headRegressions: 1, ms: 700 });
    const reasons = r.reasons ?? [];
    expect(reasons[0]).to.match(/^sampling found eth_getTransactionByHash: 1 miss entry answered wrong at sampling, e.g. .*a value where null is due/);
    expect(reasons[1]).to.match(/^eth_getBlockByHash: 2 wrong answers in 10000 \(0.02%\)/);
    expect(reasons[2]).to.match(/^eth_blockNumber went back 1 times in 1000 checks/);
    expect(reasons.slice(3).join('\n')).to.match(/p\(95\) 70\d(\.\d+)? ms \(threshold <500\)/).and.match(/failure rate 3(\.\d+)?% \(threshold < 1%\)/);
    expectAgreement(r);
  });

  it('fresh reads: a method asked for every announced block with no answer judged fails (silence is no pass); one judged and never stale holds', () => {
    const judged = { requests: 40, stale: 0, staleRate: 0, latestBehind: 0, reorged: 0, visibleMs: { count: 10, p50: 20, p95: 30, max: 40 } };
    const clean = withVerdict({ ...reportOf(), freshness: { graceMs: 2000, methods: Object.fromEntries(ALWAYS_ASKED.map((m) => [m, judged])) } });
    expect(decide(clean)).to.deep.include({ verdict: 'pass', reasons: [] });
    const quiet = withVerdict({ ...reportOf(), freshness: { graceMs: 2000, methods: { eth_blockNumber: judged } } });
    expect(quiet.verdict).to.equal('fail');
    expect(quiet.reasons).to.include('eth_getBlockByHash: no fresh read judged (every answer to the head-chasing client was an error or a timeout, or none came)');
    expect((quiet.reasons ?? []).join('\n')).to.not.match(/eth_blockNumber: no fresh read/);
    expectAgreement(quiet);
    // `latest` answers that name no block are no judged read: receipts with only those are silent too, and an estimate
    // with only those has no fresh check at all (none held).
    const unjudged = { ...judged, requests: 0, notJudgeable: 12, visibleMs: null };
    const named = withVerdict({ ...reportOf(), freshness: { graceMs: 2000, methods: { ...Object.fromEntries(ALWAYS_ASKED.map((m) => [m, judged])), eth_getBlockReceipts: unjudged, eth_estimateGas: unjudged } } });
    expect(named.reasons).to.include('eth_getBlockReceipts: no fresh read judged (every answer to the head-chasing client was an error or a timeout, or none came)');
    expect(decide(named).checks.filter((c) => c.className === 'load.fresh.eth_estimateGas')).to.deep.equal([]);
  });

  it('fresh reads: a transaction method whose every fresh request failed (HTTP 503, timeouts) fails the run, named; failures beside judged reads are named too', () => {
    const judged = { requests: 40, stale: 0, staleRate: 0, latestBehind: 0, reorged: 0, visibleMs: { count: 10, p50: 20, p95: 30, max: 40 } };
    const always = Object.fromEntries(ALWAYS_ASKED.map((m) => [m, judged]));
    const silent = { ...judged, requests: 0, failed: 9, visibleMs: null };
    const r = withVerdict({ ...reportOf(), freshness: { graceMs: 2000, methods: { ...always, eth_getTransactionReceipt: silent } } });
    expect(r.verdict).to.equal('fail');
    expect(r.reasons).to.include('eth_getTransactionReceipt: no fresh read judged, 9 fresh requests failed (an HTTP error, a timeout or no answer)');
    expectAgreement(r);
    const some = withVerdict({ ...reportOf(), freshness: { graceMs: 2000, methods: { ...always, eth_getTransactionByHash: { ...judged, stale: 2, staleRate: 0.05, failed: 2 } } } });
    expect(some.reasons?.join('\n')).to.match(/eth_getTransactionByHash: 2 stale reads in 40 fresh requests \(5(\.0)?%\); 2 fresh requests failed/);
  });

  it('an iteration whose script threw is judged by no check: one in 20,000 leaves the run INCONCLUSIVE (exit 3), named; beside a failure it fails', () => {
    // One fewer answer counted than planned: too few to read as figures lost (uncounted), so only its own count tells.
    const r = reportOf({ requests: 9999, scriptErrors: 1, scriptError: 'eth_getBlockByHash: TypeError: Cannot read property of undefined | at judge (file:///scenario.js:1:2)' });
    expect(r.generator.uncounted, 'no figures lost: the thrown iteration is counted apart').to.equal(undefined);
    expect(r.generator).to.deep.include({ scriptErrors: 1 });
    const d = decide(r);
    expect(d.verdict).to.equal('inconclusive');
    expect(exitCodeOf(d.verdict)).to.equal(3);
    expect(r.reasons).to.deep.equal([
      "not judged: 1 iteration of the harness's k6 script threw, so its answer was judged by no check (first: eth_getBlockByHash: TypeError: Cannot read property of undefined | at judge (file:///scenario.js:1:2)): a fault of the harness, to report",
    ]);
    assertReport(r);
    expect(renderJunit(r)).to.match(/<testcase classname="load.gate.script" name="every iteration of the harness's script ran to its verdict"[^>]*>\s*<error message="1 iteration of the harness/);
    expect(summaryText(r, [])).to.match(/^load gate: INCONCLUSIVE in /);
    // Without the count, the same figures pass: the count is what stops them, or the logged error if its count was lost.
    expect(reportOf({ requests: 9999 }).verdict).to.equal('pass');
    const logged = reportOf({ requests: 9999, scriptError: 'eth_getBlockByHash: Error: boom' });
    expect([logged.verdict, logged.generator.scriptErrors]).to.deep.equal(['inconclusive', 1]);
    const alsoWrong = reportOf({ scriptErrors: 3, classes: { eth_getTransactionByHash: { wrong: 1 } } });
    expect(alsoWrong.verdict).to.equal('fail');
    expect(alsoWrong.reasons?.at(-1)).to.match(/^not judged: 3 iterations of the harness's k6 script threw, so their answers were judged by no check: a fault/);
  });

  it('a method not served, a regression against the baseline, an incomplete run: the same agreement', () => {
    expectAgreement(reportOf({ notServed: 'eth_getBlockByHash' }));
    const base = reportOf();
    const slower = reportOf({ ms: 30 });
    const regressed = withVerdict({ ...slower, baseline: { file: 'b.json', tolerance: 0.25, ok: false, checks: compareReports({ file: 'b.json', runs: [base] }, slower) } });
    expect(regressed.reasons?.[0]).to.match(/^regressed against b.json: eth_getBlockByHash p95/);
    expectAgreement(regressed);
    const stopped = withVerdict({ ...reportOf({ classes: { eth_getBlockByHash: { wrong: 1 } } }), incompleteReason: 'interrupted by SIGINT' });
    expect(stopped.verdict).to.equal('incomplete');
    expect(headline(stopped)).to.deep.include({ summary: 'interrupted by SIGINT' });
    expect(headline(stopped).reasons[0]).to.match(/^eth_getBlockByHash: 1 wrong answer/);
    expectAgreement(stopped);
  });

  it('capacity measures when every check held, and fails on a wrong answer like any run', () => {
    const measured = reportOf({ profile: 'capacity' });
    expect(measured.verdict).to.equal('measured');
    expectAgreement(measured);
    const wrong = reportOf({ profile: 'capacity', classes: { eth_getTransactionByHash: { wrong: 1 } } });
    expect(wrong.verdict).to.equal('fail');
    expect(headline(wrong).summary).to.match(/^1 reason to fail; the highest rate within the SLO/);
    expectAgreement(wrong);
  });

  it('a report written before this rule (verdict pass, 1 wrong answer) is judged again as a baseline: a failed run', () => {
    const old = { ...reportOf({ classes: { eth_getTransactionByHash: { wrong: 1 } } }), verdict: 'pass' as const, reasons: undefined };
    expect(failedOnItsOwn(old, 'old.json')).to.match(/^old.json is a failed run \(eth_getTransactionByHash: 1 wrong answer in 10000 \(0.01%\)/);
    expect(failedOnItsOwn(reportOf(), 'clean.json')).to.equal(undefined);
  });

  it('a generator saturated on the GOMAXPROCS the harness sized it to says so and names GOMAXPROCS, not the rate or the target', function () {
    if (availableParallelism() < 2) this.skip();
    const report = reportOf({ requests: 5000, cpuSec: 1000, procs: 1 });
    expect(report.generator.keptUp).to.equal(false);
    expect(report.generator.availableCores, 'the cores k6 was given').to.equal(1);
    expect(report.generator.note).to.match(/^k6 used 1 of the 1 cores it was given \(GOMAXPROCS=1, .*set GOMAXPROCS higher/);
    // The same CPU with the machine's every core to use is no saturation on a bigger machine.
    expect(reportOf({ requests: 5000, cpuSec: 1000 }).generator.note).to.not.match(/GOMAXPROCS/);
  });

  it('conclude() writes load.json, load.junit.xml and load.html and returns the summary and exit code of the one decision', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-load-decision-'));
    try {
      const outcome = await conclude(reportOf({ classes: { eth_getTransactionByHash: { wrong: 1 } } }), { out }, undefined, { corpus: false });
      expect(outcome.exitCode).to.equal(1);
      expect(outcome.summary).to.match(/^load gate: FAIL .*\n {2}1 reason to fail:\n {2}- eth_getTransactionByHash: 1 wrong answer in 10000 \(0.01%\)/);
      const json = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
      expect(json).to.deep.include({ verdict: 'fail' });
      expect(json.reasons?.[0]).to.match(/^eth_getTransactionByHash: 1 wrong answer in 10000 \(0.01%\)/);
      expect(await readFile(join(out, 'load.junit.xml'), 'utf8')).to.match(/<failure message="eth_getTransactionByHash: 1 wrong answer in 10000 \(0.01%\)/);
      expect(await readFile(join(out, 'load.html'), 'utf8')).to.match(/<h1>Load test: <span class="fail">FAIL<\/span>/).and.include('eth_getTransactionByHash: 1 wrong answer in 10000 (0.01%)');
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
