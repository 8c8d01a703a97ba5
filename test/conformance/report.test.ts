// The three report writers against one synthetic run holding every verdict × layer combination.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CheckResult, Layer, Verdict } from '../../conformance/framework/check.ts';
import { formatSummary, SUMMARY_LINE, writeReports, type ReportPaths } from '../../conformance/report/index.ts';
import { reportFaults, writeJsonReport } from '../../conformance/report/json.ts';
import { renderHtml } from '../../conformance/report/html.ts';
import { junitXml } from '../../conformance/report/junit.ts';
import { curlText, failingFirst } from '../../conformance/report/text.ts';
import { METHODS } from '../../core/methods.ts';
import { inertLines } from '../../core/inert.ts';
import { type ConformanceReport, REPORT_RUN_FIELDS, summarize } from '../../conformance/report/model.ts';
import { assembleReport } from '../../conformance/report/assemble.ts';
import type { RunResult } from '../../conformance/framework/runner.ts';
import { registerSecret } from '../../core/redact.ts';
import { harnessVersion } from '../../core/node/version.ts';
import reportSchema from '../../schemas/files/conformance-report.json' with { type: 'json' };

const LAYERS: Layer[] = ['spec', 'invariant', 'advisory'];
const VERDICTS: Verdict[] = ['pass', 'fail', 'skip', 'inconclusive'];
const HOSTILE = '{"jsonrpc":"2.0","id":1,"result":"<script>alert(\\"pwned\\")</script> ]]> twice ]]>"}';

function check(method: string, layer: Layer, verdict: Verdict): CheckResult {
  const intent = `${layer}-${verdict}`;
  return {
    id: `${method}/${intent}`,
    method,
    clause: '§4.2',
    layer,
    title: `${layer} check that ends ${verdict}`,
    covers: verdict === 'skip' ? ['tag:pending'] : ['hit', 'tag:latest', 'type:0x2'],
    verdict,
    ...(verdict === 'pass' ? {} : { reason: `${intent}: ${verdict === 'skip' ? 'no uncle block found' : 'hash mismatch'}` }),
    ...(verdict === 'fail' ? { pointer: '/result/hash', expected: '"0xaa"', actual: '"0xbb"' } : {}),
    durationMs: 12.5,
    evidence:
      verdict === 'skip'
        ? []
        : [
            {
              request: { jsonrpc: '2.0', id: 1, method, params: ['0xaa', false] },
              httpStatus: 200,
              contentType: 'application/json',
              response: HOSTILE,
              durationMs: 12,
            },
          ],
  };
}

function sampleReport(opts: { strict?: boolean; complete?: boolean } = {}): ConformanceReport {
  const strict = opts.strict ?? false;
  const complete = opts.complete ?? true;
  const checks = LAYERS.flatMap((layer, i) => VERDICTS.map((verdict) => check(METHODS[i + 1]!, layer, verdict)));
  return {
    kind: 'rpc-certify-conformance',
    schemaVersion: 2,
    harness: { name: 'rpc-certify', version: '0.1.0' },
    run: {
      startedAt: '2025-01-01T00:00:00.000Z',
      finishedAt: '2025-01-01T00:00:42.000Z',
      durationMs: 42_000,
      endpoint: 'https://mainnet.example/v3/<redacted>',
      chainId: '0x1',
      clientVersion: 'Geth/v1.14.0',
      headBefore: { number: '0x10', hash: `0x${'a'.repeat(64)}` },
      headAfter: { number: '0x11', hash: `0x${'b'.repeat(64)}` },
      strict,
      requestCount: 99,
      methods: [...METHODS, 'history', 'service'],
      complete,
      ...(complete ? {} : { incompleteReason: 'rate limited for too long' }),
    },
    targets: {
      chainId: '0x1',
      head: { number: '0x10', hash: `0x${'a'.repeat(64)}` },
      scanned: { from: '0x1', to: '0x10', blocks: 16 },
      multiTxBlock: { number: '0x5', hash: `0x${'c'.repeat(64)}`, txCount: 3 },
      txByType: { '0x2': `0x${'d'.repeat(64)}` },
      reverts: [],
      sources: { multiTxBlock: 'discovery', 'txByType.0x2': 'fixture' },
    },
    summary: summarize(checks, strict, complete),
    checks,
  };
}

const count = (text: string, needle: string | RegExp) => text.split(needle).length - 1;

describe('conformance report', () => {
  describe('the run metadata, declared once', () => {
    it("the schema's run has exactly ReportRun's fields (RunMeta and what the report adds), required where the type requires them", () => {
      const run = reportSchema.properties.run;
      expect(Object.keys(run.properties).sort()).to.deep.equal(Object.keys(REPORT_RUN_FIELDS).sort());
      const required = Object.entries(REPORT_RUN_FIELDS).filter(([, p]) => p === 'required').map(([k]) => k);
      expect([...run.required].sort()).to.deep.equal(required.sort());
    });

    it("assembleReport() keeps the run's record whole, adds duration, network and strictness, and redacts what the endpoint said", () => {
      registerSecret('s3cretKeyFromTheEp0int0123456789');
      const sample = sampleReport();
      const result: RunResult = {
        endpoint: sample.run.endpoint,
        startedAt: sample.run.startedAt,
        finishedAt: sample.run.finishedAt,
        chainId: '0x1',
        clientVersion: 'Geth/v1.14.0 s3cretKeyFromTheEp0int0123456789',
        headBefore: sample.run.headBefore!,
        headAfter: sample.run.headAfter!,
        requestCount: 99,
        methods: ['eth_getBlockByHash'],
        complete: true,
        expectations: { file: 'fixtures/expectations/geth.json', entries: 3 },
        deadlineMs: 300_000,
        deadlineReached: false,
        targets: sample.targets!,
        checks: sample.checks,
      };
      const report = assembleReport(result, { strict: true, network: 'mainnet', minJudged: 0.5 });
      const { targets, checks, ...meta } = result;
      expect(report.run).to.deep.equal({ ...meta, clientVersion: 'Geth/v1.14.0 <redacted>', durationMs: 42_000, network: 'mainnet', strict: true });
      expect(report).to.include({ kind: 'rpc-certify-conformance', schemaVersion: 2 });
      expect(report.harness).to.deep.equal({ name: 'rpc-certify', version: harnessVersion });
      expect(report.targets).to.deep.equal(targets);
      expect(report.checks).to.equal(checks);
      expect(report.summary.judged.floor).to.equal(0.5);
      expect(report.summary.notCertified).to.include('eth_estimateGas').and.not.include('eth_getBlockByHash');
      expect(reportFaults(JSON.parse(JSON.stringify(report)))).to.deep.equal([]);
      // A run stopped before its preflight: no endpoint fields, no network, and nothing invented for them.
      const bare = assembleReport({ ...result, chainId: undefined, clientVersion: undefined, headBefore: undefined, headAfter: undefined, complete: false, incompleteReason: 'interrupted by SIGINT during the preflight' }, { strict: false });
      expect(Object.keys(bare.run)).to.not.include.members(['chainId', 'clientVersion', 'headBefore', 'headAfter', 'network']);
      expect(bare.summary.verdict).to.equal('incomplete');
    });
  });

  describe('summarize()', () => {
    it('counts an advisory failure as fatal only under --strict', () => {
      const { checks } = sampleReport();
      const lax = summarize(checks, false, true);
      expect(lax).to.deep.include({ total: 12, pass: 3, fail: 3, skip: 3, inconclusive: 3, fatalFailures: 2, advisoryFailures: 1, expectedFailures: 0, unexpectedPasses: 0, verdict: 'fail' });
      const strict = summarize(checks, true, true);
      expect(strict).to.include({ fail: 3, fatalFailures: 3, advisoryFailures: 0, verdict: 'fail' });
    });

    it('passes a run whose only failure is advisory, and never fails on inconclusive checks', () => {
      const checks = sampleReport().checks.filter((c) => c.layer === 'advisory' || (c.verdict !== 'fail' && c.verdict !== 'inconclusive'));
      // The judged share is held to no floor here (its own tests are in judged.test.ts): half of these checks skip.
      expect(summarize(checks, false, true, { minJudged: 0 })).to.include({ verdict: 'pass', inconclusive: 1, advisoryFailures: 1 });
      expect(summarize(checks, true, true, { minJudged: 0 }).verdict).to.equal('fail');
      expect(summarize(checks, false, true).verdict, 'at the default floor: 2 of the 5 fatal checks judged').to.equal('inconclusive');
    });

    it('is inconclusive, never pass, when more than 5% of the fatal checks are inconclusive, and names why', () => {
      const passes = Array.from({ length: 40 }, (_, i) => ({ ...check(METHODS[0]!, 'spec', 'pass'), id: `${METHODS[0]}/p${i}` }));
      // In the method of the passes: a method judged not at all (or below the floor) is another reason, judged.test.ts's.
      const unsure = (n: number) => Array.from({ length: n }, (_, i) => ({ ...check(METHODS[0]!, 'spec', 'inconclusive'), id: `${METHODS[0]}/i${i}`, evidence: [] }));
      expect(summarize([...passes, ...unsure(2)], false, true).verdict, '2 of 42').to.equal('pass');
      const s = summarize([...passes, ...unsure(3)], false, true);
      expect(s.verdict, '3 of 43').to.equal('inconclusive');
      expect(s.verdictReason).to.match(/3 of 43 fatal checks inconclusive/);
      // A failure stands whatever else could not be tested.
      expect(summarize([...passes, ...unsure(3), check(METHODS[2]!, 'spec', 'fail')], false, true).verdict).to.equal('fail');
    });

    it('is inconclusive when a method never answered any of its own checks, naming it', () => {
      const method = METHODS[3]!;
      const timedOut = (i: number, fault: string) => ({
        ...check(method, 'spec', 'inconclusive'),
        id: `${method}/t${i}`,
        evidence: [{ request: { jsonrpc: '2.0', id: i, method, params: [] }, durationMs: 500, fault }],
      });
      const passes = Array.from({ length: 60 }, (_, i) => ({ ...check(METHODS[0]!, 'spec', 'pass'), id: `${METHODS[0]}/p${i}` }));
      const s = summarize([...passes, timedOut(1, 'timeout: no complete response within 500 ms'), timedOut(2, 'unreachable: ECONNRESET')], false, true);
      expect(s).to.include({ verdict: 'inconclusive' });
      expect(s.unansweredMethods).to.deep.equal([method]);
      expect(s.verdictReason).to.equal(`never answered: ${method}; judged below the --min-judged floor of 90% for ${method} (0 of 2): those methods are not certified by this run`);
      // One answer, even a bad one, is an answer.
      const answered = { ...check(method, 'spec', 'fail'), layer: 'advisory' as const, id: `${method}/a` };
      expect(summarize([...passes, timedOut(1, 'timeout: x'), answered], false, true).unansweredMethods).to.equal(undefined);
    });

    it('is incomplete when the run did not finish, whatever the failures', () => {
      const { checks } = sampleReport();
      expect(summarize(checks, false, false).verdict).to.equal('incomplete');
      expect(summarize(checks.filter((c) => c.verdict === 'pass'), false, false).verdict).to.equal('incomplete');
    });
  });

  describe('writeReports()', () => {
    let dir: string;
    let paths: ReportPaths;
    const report = sampleReport();

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'rpc-certify-report-'));
      paths = await writeReports(report, join(dir, 'out'));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('writes the three files and no temporary ones', async () => {
      expect(await readdir(join(dir, 'out'))).to.have.members(['conformance.json', 'conformance.junit.xml', 'conformance.html']);
    });

    it('writes JSON that validates and round-trips', async () => {
      const parsed: unknown = JSON.parse(await readFile(paths.json, 'utf8'));
      expect(reportFaults(parsed)).to.deep.equal([]);
      expect(parsed).to.deep.equal(report);
    });

    it('refuses to write a report that breaks the schema, naming the fault', async () => {
      const bad = { ...report, checks: [{ ...report.checks[0]!, verdict: 'maybe' as Verdict }] };
      const target = join(dir, 'bad.json');
      let thrown: unknown;
      await writeJsonReport(bad, target).catch((err: unknown) => (thrown = err));
      expect(thrown).to.be.instanceOf(Error);
      expect((thrown as Error).message).to.include('/checks/0/verdict');
      expect(await readdir(dir)).not.to.include('bad.json');
    });

    it('writes JUnit with one suite per method and only fatal failures as <failure>', async () => {
      const xml = await readFile(paths.junit, 'utf8');
      // The run's own suite (rpc-certify) leads, with the judged share: 4 of 8 fatal checks, a failure below the floor; then the methods, history and service.
      expect(count(xml, '<testsuite ')).to.equal(METHODS.length + 3);
      expect(count(xml, '<testcase ')).to.equal(13);
      expect(count(xml, '<failure')).to.equal(3);
      expect(xml).to.match(/<testsuite name="rpc-certify"[^>]*>\s*<testcase classname="rpc-certify.run" name="judged share 4\/8 \(50%\)"[^>]*>\s*<failure message="judged: 4 of the 8 fatal checks this chain can have \(50%; --min-judged 90%\) BELOW THE FLOOR; 1 × (spec|invariant)-(skip|inconclusive): /);
      expect(count(xml, '<skipped message="')).to.equal(6);
      // Each skip carries its reason where CI shows it, not only in system-out.
      for (const c of report.checks.filter((x) => x.verdict === 'skip' || x.verdict === 'inconclusive')) {
        expect(xml).to.include(`<skipped message="${c.verdict === 'skip' ? 'skipped' : 'inconclusive'}: ${(c.reason ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')}`);
      }
      expect(xml).to.match(/<testsuites [^>]*tests="13" failures="3" errors="0" skipped="6"/);
      expect(xml).to.include('classname="rpc-certify.eth_getBlockByHash"');
      // The id alone names a case; its clause and title are properties.
      expect(xml).to.match(/<testcase classname="rpc-certify\.eth_getBlockByHash" name="eth_getBlockByHash\/spec-fail" time="[\d.]+">\s*<properties>\s*<property name="clause" value="§4\.2"\/>\s*<property name="title" value="spec check that ends fail"\/>/);
      expect(xml).to.include('time="0.013"');
      expect(count(xml, 'inconclusive: ')).to.be.greaterThanOrEqual(3);
      expect(xml).to.include('advisory: advisory-fail: hash mismatch');
    });

    it('keeps the JUnit XML well-formed when a response holds "]]>"', async () => {
      const xml = await readFile(paths.junit, 'utf8');
      const outsideCdata = xml.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '');
      expect(outsideCdata).not.to.include(']]>');
      expect(outsideCdata).not.to.include('pwned');
    });

    it('writes HTML with every check, both matrices, and hostile text escaped', async () => {
      const html = await readFile(paths.html, 'utf8');
      for (const c of report.checks) expect(html).to.include(c.id);
      for (const m of METHODS) expect(html).to.include(`<th scope="row">${m}</th>`);
      expect(html).to.include('id="matrix"');
      expect(html).to.include('id="coverage"');
      expect(html).to.include('class="sq o-advisory"');
      expect(html).to.include('class="sq o-inconclusive"');
      expect(html).not.to.include('<script>alert');
      expect(html).to.include('&lt;script&gt;alert(');
      expect(html).not.to.match(/(src|href)="(https?:)?\/\//);
      expect(html).to.include('mainnet.example/v3/&lt;redacted&gt;');
    });

    it('colours a coverage cell by the worst check that ran, not by a skip beside a pass', () => {
      const method = METHODS[0]!;
      const html = renderHtml({
        ...report,
        checks: [
          { ...check(method, 'spec', 'pass'), covers: ['hit'] },
          { ...check(method, 'spec', 'skip'), covers: ['hit', 'miss'] },
        ],
      });
      const row = new RegExp(`<th scope="row">${method}</th><td title="[^"]*"><i class="sq o-pass"></i></td><td title="[^"]*"><i class="sq o-skip"></i></td>`);
      expect(html).to.match(row);
    });

    it('lists the failures first in the HTML, then inconclusive, skipped and passed', async () => {
      const html = await readFile(paths.html, 'utf8');
      const at = (id: string) => html.indexOf(`id="${id}"`);
      expect(at('failures')).to.be.greaterThan(at('coverage'));
      expect(at('advisory')).to.be.greaterThan(at('failures'));
      expect(at('inconclusive')).to.be.greaterThan(at('advisory'));
      expect(at('skipped')).to.be.greaterThan(at('inconclusive'));
      expect(at('passed')).to.be.greaterThan(at('skipped'));
    });
  });

  describe('JUnit under --strict', () => {
    it('makes the advisory failure a <failure> too', () => {
      const xml = junitXml(sampleReport({ strict: true }));
      expect(count(xml, '<failure')).to.equal(4);
      expect(xml).not.to.include('advisory: ');
    });

    it('does not accumulate across reports built in one process', () => {
      junitXml(sampleReport());
      expect(count(junitXml(sampleReport()), '<testcase ')).to.equal(13);
    });
  });

  describe('formatSummary()', () => {
    const paths = { json: 'r/conformance.json', junit: 'r/conformance.junit.xml', html: 'r/conformance.html' };

    it('names the verdict, the counts, the fatal failures and the reports', () => {
      const text = formatSummary(sampleReport(), paths);
      expect(text).to.match(/^conformance: FAIL/);
      expect(text).to.include('1 advisory, 3 inconclusive, 3 skipped');
      expect(text).to.include('eth_getBlockByHash/spec-fail');
      expect(text).to.include('eth_getUncleByBlockNumberAndIndex/invariant-fail');
      expect(text).not.to.include('advisory-fail [');
      expect(text).to.include('r/conformance.html');
    });

    it('names an --expect entry whose check skipped or was inconclusive: neither an expected failure nor a pass (red-team A9)', () => {
      const report = sampleReport();
      report.run.expectations = { file: 'x.json', entries: 2 };
      for (const c of report.checks.filter((x) => x.id.endsWith('/invariant-skip') || x.id.endsWith('/spec-fail'))) c.expectation = { kind: 'fail', reason: 'known' };
      const line = formatSummary(report, paths).split('\n').find((l) => l.includes('expectations:'));
      expect(line).to.match(/ unexpected pass\(es\); expected to fail but not judged \(eth_getUncleByBlockNumberAndIndex\/invariant-skip: skip\)$/);
    });

    it('leads with the failures, each reason whole: in the terminal before the judged share, on the page right under the verdict, its clause linked to docs/spec.md', () => {
      const report = sampleReport();
      const failed = report.checks.find((c) => c.verdict === 'fail' && c.layer === 'spec')!;
      failed.reason = `the block's hash is not keccak256 of its header: ${'0xab'.repeat(90)} end of the reason`;
      const lines = formatSummary(report, paths).split('\n');
      const at = lines.findIndex((l) => l.includes(failed.id));
      expect(at, 'listed').to.be.above(0);
      expect(at, 'before the judged share').to.be.below(lines.findIndex((l) => l.startsWith('  judged:')));
      const shown = inertLines(lines.join('\n'), SUMMARY_LINE).split('\n');
      expect(shown[at + 1]?.trim(), 'the whole reason on one line, not cut at 100 characters').to.equal(failed.reason);
      const html = renderHtml(report, '../docs/spec.md');
      const why = html.indexOf('<section id="why"');
      expect(why, 'a Why section').to.be.above(0);
      expect(why, 'before the judged share').to.be.below(html.indexOf('<section id="judged"'));
      expect(html.slice(why, html.indexOf('</section>', why))).to.include(`<a href="#${failed.id}"><code>${failed.id}</code></a>`).and.include('end of the reason');
      expect(html).to.include(`href="../docs/spec.md#s${failed.clause.replace('§', '').replace('.', '-')}"`);
      expect(renderHtml(report), 'without the spec\'s place, no link').to.not.include('docs/spec.md#');
    });

    it('counts every check once in the summary line, an expected failure and an unexpected pass included: the counts add up to the total', () => {
      const report = sampleReport();
      report.run.expectations = { file: 'x.json', entries: 2 };
      report.checks.find((c) => c.verdict === 'pass')!.expectation = { kind: 'fail', reason: 'known' };
      report.checks.find((c) => c.verdict === 'fail' && c.layer === 'spec')!.expectation = { kind: 'fail', reason: 'known' };
      report.summary = summarize(report.checks, false, true);
      const text = formatSummary(report, paths);
      const line = text.split('\n').find((l) => / passed, \d+ failed, /.test(l))!;
      expect(line).to.match(/1 expected failure\(s\), 1 unexpected pass\(es\)$/);
      const total = Number(/\((\d+) checks in/.exec(text)?.[1]);
      expect([...line.matchAll(/(\d+) /g)].reduce((a, m) => a + Number(m[1]), 0)).to.equal(total);
    });

    it('names a pass that judged only part of what its title says (a request budget), in the summary and in JUnit', () => {
      const report = sampleReport();
      const pass = report.checks.find((c) => c.verdict === 'pass' && c.layer === 'spec')!;
      expect(formatSummary(report, paths)).not.to.include('judged in part');
      pass.partial = '3 of 16 judged blocks whole (budget of 512 receipts fetched one by one)';
      pass.note = 'left out: block 7';
      const lines = formatSummary(report, paths).split('\n');
      const at = lines.findIndex((l) => l.includes('judged in part'));
      expect(lines.slice(at, at + 2)).to.deep.equal([`  judged in part (a request budget; each check's note names what it left out):`, `    ${pass.id}: 3 of 16 judged blocks whole (budget of 512 receipts fetched one by one)`]);
      const xml = junitXml(report);
      const testcase = xml.slice(xml.indexOf(`name="${pass.id}"`), xml.indexOf('</testcase>', xml.indexOf(`name="${pass.id}"`)));
      expect(testcase).to.include('passed, judged in part: 3 of 16 judged blocks whole').and.include('left out: block 7').and.not.include('<failure');
    });

    it('a check that skipped (judged nothing) keeps its budget note but is not listed as "judged in part", as in the HTML and summary.partial (red team)', () => {
      const report = sampleReport();
      const skip = report.checks.find((c) => c.verdict === 'skip')!;
      skip.partial = '3 of 11 judged blocks whole (budget of 1 receipts fetched one by one)';
      expect(formatSummary(report, paths)).not.to.include('judged in part');
      expect(summarize(report.checks, false, true).partial).to.equal(0);
    });

    it('a pass judged in part is visible everywhere: one terminal line per check (none cut), the summary counts it (schema), the HTML shows it on the check (red-team F3)', () => {
      const passes = LAYERS.map((layer) => check(METHODS[0]!, layer, 'pass')).concat(METHODS.slice(4, 6).map((m) => check(m, 'spec', 'pass')));
      passes.forEach((c, i) => (c.partial = `${i + 3} of ${i + 11} judged blocks whole (budget of 123456789 receipts fetched one by one, a long reason that makes five of them far longer than one capped line) ${'x'.repeat(60)}`));
      passes[0]!.note = 'left out: block 7 (most transactions): 400 transaction(s)';
      const checks = [...sampleReport().checks, ...passes];
      const report = { ...sampleReport(), checks, summary: summarize(checks, false, true) };
      expect(report.summary).to.include({ partial: passes.length, pass: passes.length + 3 });
      expect(report.summary.partialChecks).to.deep.equal(passes.map((c) => c.id));
      expect(reportFaults(JSON.parse(JSON.stringify(report)))).to.deep.equal([]);
      expect(summarize(sampleReport().checks, false, true)).to.include({ partial: 0 }).and.not.have.property('partialChecks');
      const printed = inertLines(formatSummary(report, paths)).split('\n');
      for (const c of passes) expect(printed, c.id).to.include(`    ${c.id}: ${c.partial!}`);
      const html = renderHtml(report);
      for (const c of passes) {
        const card = html.slice(html.indexOf(`<article class="check o-pass" id="${c.id}">`), html.indexOf('</article>', html.indexOf(`id="${c.id}"`)));
        expect(card, c.id).to.include('<span class="pill o-inconclusive">judged in part</span>').and.include(`judged in part: ${c.partial!}`);
        expect(count(html, `id="${c.id}"`), c.id).to.equal(1);
      }
      expect(html).to.include('<section id="partial"><h2>Passed, judged in part').and.include('left out: block 7 (most transactions)').and.include(`<b>${passes.length}</b>of them judged in part`);
    });

    it('an --expect failure that passed only in part is not an unexpected pass: named as not judged in full, and the run does not fail on it (red-team F8)', () => {
      const report = sampleReport();
      report.checks = report.checks.filter((c) => c.verdict === 'pass' || c.verdict === 'skip');
      report.run.expectations = { file: 'ganache.json', entries: 1 };
      const pass = report.checks.find((c) => c.verdict === 'pass' && c.layer === 'spec')!;
      pass.expectation = { kind: 'fail', reason: 'failed status encoded as 0x00' };
      expect(summarize(report.checks, false, true)).to.include({ unexpectedPasses: 1, verdict: 'fail' });
      pass.partial = '3 of 16 judged blocks whole (budget of 20 receipts fetched one by one)';
      report.summary = summarize(report.checks, false, true, { minJudged: 0 });
      expect(report.summary).to.include({ unexpectedPasses: 0, verdict: 'pass', partial: 1 });
      const text = formatSummary(report, paths);
      expect(text).to.match(new RegExp(`expectations: ganache\\.json: 0 expected failure\\(s\\), 0 unexpected pass\\(es\\); expected to fail but not judged \\(${pass.id}: passed in part\\)`)).and.not.include('take them out');
      expect(renderHtml(report)).not.to.include('<section id="unexpected">');
    });

    it('says why a run is incomplete', () => {
      expect(formatSummary(sampleReport({ complete: false }), paths)).to.match(/INCOMPLETE[\s\S]*rate limited for too long/);
    });
    it('says what the run looked at: classes found, absent, out of budget, the blocks judged and their eras', () => {
      const report = sampleReport();
      report.targets = {
        ...report.targets!,
        coverage: { multiTxBlock: { status: 'found', source: 'discovery' }, uncleBlock: { status: 'absent', within: 16 }, preByzantiumTx: { status: 'out-of-budget', within: 16 }, 'era.london': { status: 'found' } },
        judgedBlocks: [{ number: '0x5', hash: `0x${'c'.repeat(64)}`, era: 'london', txCount: 3, why: ['most transactions'] }],
      };
      const lines = formatSummary(report, paths).split('\n');
      expect(lines.find((l) => l.includes('targets:'))).to.equal('  targets: 1 of 3 classes found in 16 blocks walked; not on this chain within them: uncleBlock; OUT OF BUDGET (--discovery-budget): preByzantiumTx');
      // What the blocks were judged by comes from the checks' results, never from the blocks picked (issue 24).
      const [judging, skipped] = [report.checks.find((c) => c.verdict === 'pass')!, report.checks.find((c) => c.verdict === 'skip')!];
      judging.blocks = { picked: 1, whole: [`0x${'c'.repeat(64)}`] };
      skipped.blocks = { picked: 1, whole: [] };
      expect(formatSummary(report, paths).split('\n').find((l) => l.includes('blocks judged:'))).to.equal(`  blocks judged: 1 block(s) picked (london); judged whole by every one of the 2 block-level checks that ran: 0 (fewer: ${skipped.id} 0 (skip))`);
      skipped.blocks.whole = [`0x${'c'.repeat(64)}`];
      expect(formatSummary(report, paths)).to.include('  blocks judged: 1 block(s) picked (london); judged whole by every one of the 2 block-level checks that ran: 1\n');
    });
  });
});

describe('conformance evidence', () => {
  const control = { request: { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByHash', params: ['0xab', false] }, httpStatus: 200, response: '{"jsonrpc":"2.0","id":1,"result":{}}', durationMs: 3 };
  const failing = { request: { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByHash', params: ["0XAB'", false] }, httpStatus: 200, response: '{"jsonrpc":"2.0","id":2,"result":null}', durationMs: 4 };

  it('shows a failed check’s failing exchange (its last) first, and keeps a passing check’s order', () => {
    expect(failingFirst([control, failing], true)).to.deep.equal([failing, control]);
    expect(failingFirst([control, failing], false)).to.deep.equal([control, failing]);
    expect(failingFirst([failing], true)).to.deep.equal([failing]);
  });

  it('copies an exchange as a curl command that reads the key from the environment, never writing it', () => {
    const curl = curlText(failing, 'https://host.example/v3/<redacted>');
    expect(curl).to.equal(`curl -sS "https://host.example/v3/$RPC_CERTIFY_API_KEY" -H 'Content-Type: application/json' --data '{"jsonrpc":"2.0","id":2,"method":"eth_getBlockByHash","params":["0XAB'\\''",false]}'`);
  });

  it('a URL with more than the key redacted (several segments, a query, userinfo) is read whole from $RPC_CERTIFY_URL: each command, run by a shell, sends the exchange to the URL meant', async () => {
    const seen: Array<{ url?: string; body: string; auth?: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ body, ...(req.url ? { url: req.url } : {}), ...(req.headers.authorization ? { auth: req.headers.authorization } : {}) });
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    const shell = (command: string, env: Record<string, string>) => promisify(execFile)('bash', ['-c', command], { env: { ...process.env, ...env } });
    try {
      const cases: Array<[string, Record<string, string>, string, string?]> = [
        [`http://${base}/v3/<redacted>`, { RPC_CERTIFY_API_KEY: 'theKey123' }, '/v3/theKey123'],
        [`http://${base}/<redacted>/<redacted>`, { RPC_CERTIFY_URL: `http://${base}/ethereum-mainnet-archive/abc123xyz9` }, '/ethereum-mainnet-archive/abc123xyz9'],
        [`http://${base}/v3/<redacted>?net=<redacted>`, { RPC_CERTIFY_URL: `http://${base}/v3/theKey123?net=main` }, '/v3/theKey123?net=main'],
        [`http://<redacted>@${base}/v3/<redacted>`, { RPC_CERTIFY_URL: `http://usr:pw@${base}/v3/theKey123` }, '/v3/theKey123', `Basic ${Buffer.from('usr:pw').toString('base64')}`],
      ];
      for (const [endpoint, env, path, auth] of cases) {
        const curl = curlText(failing, endpoint);
        expect(curl, endpoint).to.not.include('<redacted>');
        await shell(curl, env);
        expect(seen.at(-1), endpoint).to.deep.equal({ url: path, body: JSON.stringify(failing.request), ...(auth ? { auth } : {}) });
      }
      // Unset, the shell says what to set rather than sending a request elsewhere.
      const unset = await shell(curlText(failing, `http://${base}/<redacted>/<redacted>`), { RPC_CERTIFY_URL: '' }).then(() => undefined, (e: { stderr: string }) => e.stderr);
      expect(unset).to.include('RPC_CERTIFY_URL: the endpoint URL, key included');
      expect(seen).to.have.length(cases.length);
    } finally {
      server.close();
    }
  });
});
