// A method the endpoint does not serve is one finding named first, and it fails the run: the rule
// (conformance/report/not-served.ts) on synthetic answers, the verdict with and without an --expect file that
// accounts for it, the four renderings, and whole runs against a faulty endpoint that drops a method.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckResult, Evidence, Layer, Verdict } from '../../conformance/framework/check.ts';
import type { ExpectationNote } from '../../conformance/framework/expectations.ts';
import { formatSummary } from '../../conformance/report/index.ts';
import { renderHtml } from '../../conformance/report/html.ts';
import { reportFaults } from '../../conformance/report/json.ts';
import { junitXml } from '../../conformance/report/junit.ts';
import { type ConformanceReport, summarize } from '../../conformance/report/model.ts';
import { notServedMethods } from '../../conformance/report/not-served.ts';
import { cli } from '../support/cli.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';

const M = 'eth_getBlockReceipts';
const PATHS = { json: 'out/conformance.json', junit: 'out/conformance.junit.xml', html: 'out/conformance.html' };

type Answer = { error: [number, string] } | { result: unknown } | { http: number; body?: string } | { fault: string };

function exchange(params: unknown[], answer: Answer, due = true, method = M): Evidence {
  const request = { jsonrpc: '2.0', id: 1, method, params };
  if ('fault' in answer) return { request, durationMs: 1, fault: answer.fault };
  if ('http' in answer) return { request, httpStatus: answer.http, ...(answer.body !== undefined ? { response: answer.body } : {}), durationMs: 1, ...(due ? { resultDue: true } : {}) };
  const body = 'error' in answer ? { jsonrpc: '2.0', id: 1, error: { code: answer.error[0], message: answer.error[1] } } : { jsonrpc: '2.0', id: 1, result: answer.result };
  return { request, httpStatus: 200, contentType: 'application/json', response: JSON.stringify(body), durationMs: 1, ...(due ? { resultDue: true } : {}) };
}

function check(intent: string, verdict: Verdict, evidence: Evidence[], opts: { layer?: Layer; method?: string; expectation?: ExpectationNote } = {}): CheckResult {
  const method = opts.method ?? M;
  return { id: `${method}/${intent}`, method, clause: '§4.8', layer: opts.layer ?? 'spec', title: intent, covers: [], verdict, ...(verdict === 'fail' ? { reason: `${intent} failed` } : {}), durationMs: 1, evidence, ...(opts.expectation ? { expectation: opts.expectation } : {}) };
}

const NOT_FOUND: Answer = { error: [-32601, 'the method eth_getBlockReceipts does not exist/is not available'] };
const served = check('other-method', 'pass', [exchange(['0x1'], { result: {} }, true, 'eth_getBlockByHash')], { method: 'eth_getBlockByHash' });
/** The method's checks on an endpoint answering every call with `answer`: two well-formed calls and two malformed ones. */
const dropped = (answer: Answer, expectation?: ExpectationNote): CheckResult[] => [
  check('receipts-in-order', 'fail', [exchange(['0x5'], answer)], expectation ? { expectation } : {}),
  check('null-future-block', 'fail', [exchange(['0x186a0'], answer)], expectation ? { expectation } : {}),
  check('robust-wrong-type', 'fail', [exchange([true], answer, false)], { layer: 'advisory', ...(expectation ? { expectation } : {}) }),
  check('envelope-error', 'pass', [exchange(['not-a-block'], answer, false)]),
  served,
];
const methodsOf = (checks: CheckResult[]) => notServedMethods(checks, () => false).map((m) => m.method);

function report(checks: CheckResult[], opts: { strict?: boolean; expectFile?: string } = {}): ConformanceReport {
  const strict = opts.strict ?? false;
  return {
    kind: 'rpc-certify-conformance',
    schemaVersion: 2,
    harness: { name: 'rpc-certify', version: '0.1.0' },
    run: {
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:01.000Z',
      durationMs: 1000,
      endpoint: 'http://127.0.0.1:1/v3/<redacted>',
      strict,
      requestCount: 5,
      methods: [M, 'eth_getBlockByHash'],
      complete: true,
      ...(opts.expectFile ? { expectations: { file: opts.expectFile, entries: 3 } } : {}),
    },
    summary: summarize(checks, strict, true),
    checks,
  };
}

describe('a method the endpoint does not serve', function () {
  describe('the rule: every answer to at least two distinct well-formed calls says the method is not there, and no call got a result', () => {
    it('-32601, -32004, HTTP 404/405/501 and an error of any code saying so of a method (ganache: -32700) make it not served, with the answers tallied', () => {
      for (const answer of [NOT_FOUND, { error: [-32004, `Method ${M} is not supported`] }, { error: [-32700, `The method ${M} does not exist/is not available`] }, { error: [-32000, 'unsupported method'] }, { http: 404, body: 'Not Found' }, { http: 405 }, { http: 501 }] as Answer[]) {
        const found = notServedMethods(dropped(answer), () => false);
        expect(found.map((m) => m.method), JSON.stringify(answer)).to.deep.equal([M]);
        expect(found[0]).to.include({ calls: 2, checks: 4, failedChecks: 3, expected: false });
        expect(found[0]!.answers).to.have.length(1);
        expect(found[0]!.answers[0]).to.match(/^2 × /);
      }
    });

    it('never from one answer: a single call, however it was answered, decides nothing', () => {
      expect(methodsOf([check('receipts-in-order', 'fail', [exchange(['0x5'], NOT_FOUND)]), served])).to.deep.equal([]);
      // The same call recorded by several checks (the run's memo) is still one call.
      expect(methodsOf([check('a', 'fail', [exchange(['0x5'], NOT_FOUND)]), check('b', 'fail', [exchange(['0x5'], NOT_FOUND)])])).to.deep.equal([]);
    });

    it('never from odd calls only: -32601 to malformed calls alone is not "not served"', () => {
      const odd = [check('robust-wrong-type', 'fail', [exchange([true], NOT_FOUND, false)], { layer: 'advisory' }), check('robust-extra-param', 'fail', [exchange(['0x1', '0x1', '0x2'], NOT_FOUND, false)], { layer: 'advisory' })];
      expect(methodsOf(odd)).to.deep.equal([]);
      expect(methodsOf([...odd, check('receipts-in-order', 'fail', [exchange(['0x5'], NOT_FOUND)])]), 'one well-formed call').to.deep.equal([]);
    });

    it('one result, one null or one other error to a well-formed call, or a result to any call, makes the method served: its checks judge it one by one', () => {
      for (const other of [{ result: [] }, { result: null }, { error: [-32602, 'invalid argument 0: hex string without 0x prefix'] }, { error: [-32000, 'header not found'] }, { http: 500, body: 'oops' }] as Answer[]) {
        const checks = [...dropped(NOT_FOUND), check('empty-block', 'pass', [exchange(['0x2'], other)])];
        expect(methodsOf(checks), JSON.stringify(other)).to.deep.equal([]);
      }
      for (const result of [{ result: [] }, { result: null }] as Answer[]) {
        expect(methodsOf([...dropped(NOT_FOUND), check('robust-extra-param', 'fail', [exchange(['0x1', '0x1', '0x2'], result, false)], { layer: 'advisory' })]), 'a malformed call answered with a result').to.deep.equal([]);
      }
      // The same params asked twice (a tag read fresh): "not there" once and served once is served.
      const flaky = [...dropped(NOT_FOUND), check('tag-latest', 'pass', [exchange(['0x5'], { result: [] })])];
      expect(methodsOf(flaky)).to.deep.equal([]);
    });

    it('the errors malformed calls get say nothing: a gateway checking params before it finds the method missing still does not serve it', () => {
      const invalid: Answer = { error: [-32602, 'invalid argument 0'] };
      const validated = [...dropped(NOT_FOUND).slice(0, 2), check('robust-wrong-type', 'fail', [exchange([true], invalid, false)], { layer: 'advisory' }), check('envelope-error', 'pass', [exchange(['not-a-block'], invalid, false)])];
      expect(methodsOf(validated)).to.deep.equal([M]);
    });

    it('calls without an answer (timeouts, resets, rate limits) count neither way', () => {
      const checks = [...dropped(NOT_FOUND), check('tag-safe', 'inconclusive', [exchange(['safe'], { fault: 'timeout: no complete response within 500 ms' })]), check('tag-finalized', 'inconclusive', [exchange(['finalized'], { http: 429 })])];
      expect(methodsOf(checks)).to.deep.equal([M]);
      const onlyOneAnswered = [check('a', 'fail', [exchange(['0x5'], NOT_FOUND)]), check('b', 'inconclusive', [exchange(['0x6'], { fault: 'timeout: x' })])];
      expect(methodsOf(onlyOneAnswered)).to.deep.equal([]);
    });

    it('an error message that names no method, or says something else is missing, is not "not there"', () => {
      for (const message of ['block not found', 'safe block not supported before the merge', 'not supported', 'header not found']) {
        expect(methodsOf(dropped({ error: [-32000, message] })), message).to.deep.equal([]);
      }
    });

    it('calls from other methods\' checks that lean on it count too; a method the run does not certify is never named', () => {
      const leaning = check('agrees-with-block-receipts', 'inconclusive', [exchange(['0x5'], NOT_FOUND), exchange(['0x6'], NOT_FOUND)], { method: 'eth_getTransactionReceipt' });
      expect(methodsOf([check('robust-wrong-type', 'fail', [exchange([true], NOT_FOUND, false)], { layer: 'advisory' }), leaning])).to.deep.equal([M]);
      expect(methodsOf([leaning])).to.deep.equal([]);
    });
  });

  describe('the verdict', () => {
    const note = (match?: string): ExpectationNote => ({ kind: 'fail', reason: 'hardhat lacks it', ...(match ? { match } : {}) });

    it('fails the run, even when its only failures are advisory (not fatal without --strict)', () => {
      const advisoryOnly = [check('decimal-string', 'fail', [exchange(['5'], NOT_FOUND)], { layer: 'advisory' }), check('decimal-number', 'fail', [exchange([5], NOT_FOUND)], { layer: 'advisory' }), served];
      const s = summarize(advisoryOnly, false, true);
      expect(s).to.include({ fatalFailures: 0, verdict: 'fail' });
      expect(s.notServed?.map((m) => [m.method, m.expected])).to.deep.equal([[M, false]]);
    });

    it('an --expect file listing every failed check of the method makes it a known gap: the run passes, the method still named, "expected"', () => {
      const s = summarize(dropped(NOT_FOUND, note()), false, true);
      expect(s).to.include({ verdict: 'pass', expectedFailures: 3 });
      expect(s.notServed?.map((m) => [m.method, m.expected])).to.deep.equal([[M, true]]);
      // Scoped entries explain it too, when their match is what the endpoint said.
      expect(summarize(dropped(NOT_FOUND, note(' failed$')), true, true).verdict).to.equal('pass');
    });

    it('an --expect file excusing only some of its failures, or scoped to another deviation, does not: the run fails on the method', () => {
      const some = dropped(NOT_FOUND).map((c) => (c.layer === 'spec' ? { ...c, expectation: note() } : c));
      // Without --strict the unlisted advisory failure would not fail the run by itself: the method not served does.
      const s = summarize(some, false, true);
      expect(s).to.include({ fatalFailures: 0, expectedFailures: 2, verdict: 'fail' });
      expect(s.notServed?.[0]?.expected).to.equal(false);
      const scoped = summarize(dropped(NOT_FOUND, note('size is not the length')), false, true);
      expect(scoped).to.include({ verdict: 'fail', expectedFailures: 0 });
      expect(scoped.notServed?.[0]?.expected).to.equal(false);
    });
  });

  describe('the renderings name it first', () => {
    it('terminal summary: the line after the verdict; its checks not listed one by one', () => {
      const text = formatSummary(report(dropped(NOT_FOUND)), PATHS);
      const lines = text.split('\n');
      expect(lines[0]).to.match(/^conformance: FAIL/);
      expect(lines[1]).to.equal(`  NOT SERVED: ${M} (all 2 well-formed calls: 2 × error -32601: the method ${M} does not exist/is not available); 3 of its 4 checks fail on it`);
      expect(text).to.not.include(`${M}/receipts-in-order`);
      const known = formatSummary(report(dropped(NOT_FOUND, { kind: 'fail', reason: 'known' }), { expectFile: 'hardhat.json' }), PATHS).split('\n');
      expect(known[0]).to.match(/^conformance: PASS/);
      expect(known[1]).to.match(new RegExp(`^  not served \\(expected: hardhat.json lists its 3 failure\\(s\\)\\): ${M} \\(all 2 well-formed calls`));
    });

    it('JSON: summary.notServed, valid against schemas/files/conformance-report.json', () => {
      const r = report(dropped({ http: 404, body: 'Not Found' }));
      expect(reportFaults(r)).to.deep.equal([]);
      expect(r.summary.notServed).to.deep.equal([{ method: M, calls: 2, answers: ['2 × HTTP 404'], checks: 4, failedChecks: 3, expected: false }]);
      expect(reportFaults({ ...r, summary: { ...r.summary, notServed: [{ method: M }] } })).to.not.deep.equal([]);
    });

    it('JUnit: the first test suite, a failure of its own (a known gap: no failure, its line in system-out)', () => {
      const xml = junitXml(report(dropped(NOT_FOUND)));
      const first = xml.indexOf('<testsuite ');
      expect(xml.slice(first, xml.indexOf('>', first))).to.include('name="rpc-certify"');
      expect(xml).to.match(new RegExp(`<testcase classname="rpc-certify.run" name="${M} NOT SERVED"[^>]*>\\s*<failure message="NOT SERVED: ${M} \\(all 2 well-formed calls[^"]*" type="not-served"`));
      const known = junitXml(report(dropped(NOT_FOUND, { kind: 'fail', reason: 'known' }), { expectFile: 'hardhat.json' }));
      expect(known).to.include(`name="${M} not served (expected)"`);
      expect(known).to.not.include('type="not-served"');
      // A served method is not named; the run's own suite holds only the judged share then.
      expect(junitXml(report([served]))).to.not.match(/name="[^"]* (NOT SERVED|not served \(expected\))"/);
    });

    it('HTML: a banner under the verdict, the badge and the matrix row say it', () => {
      const html = renderHtml(report(dropped(NOT_FOUND)));
      const banner = html.indexOf('class="banner not-served fatal"');
      expect(banner).to.be.greaterThan(html.indexOf('class="hero"'));
      expect(banner).to.be.lessThan(html.indexOf('id="matrix"'));
      expect(html).to.include('<small>1 method not served</small>');
      expect(html).to.match(new RegExp(`<th scope="row">${M}</th><td class="tally"[^>]*>NOT SERVED</td>`));
      const known = renderHtml(report(dropped(NOT_FOUND, { kind: 'fail', reason: 'known' }), { expectFile: 'hardhat.json' }));
      expect(known).to.include('class="banner not-served"').and.include('not served (expected)');
    });
  });

  describe('whole runs against an endpoint that drops a method', function () {
    let proxy: FaultProxy;
    let dir: string;
    faultyDevnet((_devnet, p) => {
      proxy = p;
    });
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'rpc-certify-not-served-'));
    });
    after(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const drop = (method: string, reply: (id: unknown) => { status: number; body: string }) => {
      proxy.fault = { name: `${method} dropped`, kills: [], raw: (req) => (req.method === method ? { contentType: 'application/json', ...reply(req.id) } : undefined) };
    };
    const certify = async (name: string, methods: string[], extra: string[] = []) => {
      const out = join(dir, name);
      const r = await cli(['conformance', '--url', proxy.url, '--methods', methods.join(','), '--out', out, '--quiet', ...extra]);
      return { ...r, report: JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as ConformanceReport, junit: await readFile(join(out, 'conformance.junit.xml'), 'utf8'), html: await readFile(join(out, 'conformance.html'), 'utf8') };
    };

    it(`${M} answered -32601 every time: exit 1, NOT SERVED named first in the summary, the JSON, the JUnit and the HTML; the method leaning on it is not named`, async function () {
      drop(M, (id) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `the method ${M} does not exist/is not available` } }) }));
      const r = await certify('dropped', [M, 'eth_getTransactionReceipt']);
      expect(r.code, r.out + r.err).to.equal(1);
      const lines = r.out.split('\n');
      expect(lines[0]).to.match(/^conformance: FAIL/);
      expect(lines[1]).to.match(new RegExp(`^  NOT SERVED: ${M} \\(all \\d+ well-formed calls: \\d+ × error -32601: the method ${M} does not exist/is not available\\); \\d+ of its \\d+ checks fail on it$`));
      expect(r.report.summary.notServed?.map((m) => [m.method, m.expected])).to.deep.equal([[M, false]]);
      expect(r.report.summary.notServed?.[0]?.calls).to.be.at.least(5);
      expect(r.junit).to.include(`name="${M} NOT SERVED"`);
      expect(r.html).to.include('class="banner not-served fatal"');
      // No wait serves a method that is not there: head-served fails at once, saying so (not "2 s after").
      expect(r.report.checks.find((c) => c.id === `${M}/head-served`)?.reason).to.match(new RegExp(`^block \\d+ \\(0x[0-9a-f]{64}\\), which latest named, was not served: the method is not there \\(${M}\\(0x[0-9a-f]+\\) answered an error: .*-32601`));
      // eth_getTransactionReceipt serves: its one check leaning on eth_getBlockReceipts is inconclusive, nothing fails.
      expect(r.report.checks.filter((c) => c.method === 'eth_getTransactionReceipt' && c.verdict === 'fail' && c.layer !== 'advisory').map((c) => c.id)).to.deep.equal([]);
    });

    it('an uncle method answered HTTP 404 every time: not served, exit 1', async function () {
      const method = 'eth_getUncleByBlockHashAndIndex';
      drop(method, () => ({ status: 404, body: '404 page not found' }));
      const r = await certify('http-404', [method]);
      expect(r.code, r.out + r.err).to.equal(1);
      expect(r.out.split('\n')[1]).to.match(new RegExp(`^  NOT SERVED: ${method} \\(all \\d+ well-formed calls: \\d+ × HTTP 404\\)`));
    });

    it('a method that serves its well-formed calls and answers -32601 to malformed ones is served: not named, its robustness checks judge it', async function () {
      const method = 'eth_getUncleByBlockHashAndIndex';
      proxy.fault = { name: '-32601 to malformed calls', kills: [], rewrite: (req, res) => (req.method === method && 'error' in res ? { jsonrpc: '2.0', id: res.id, error: { code: -32601, message: 'method not found' } } : res) };
      const r = await certify('odd-only', [method]);
      expect(r.report.summary.notServed).to.equal(undefined);
      expect(r.out).to.not.include('NOT SERVED');
      expect(r.report.checks.find((c) => c.id === `${method}/robust-wrong-type`)?.verdict).to.equal('fail');
    });

    it('--expect listing every failed check of it: exit 0, "not served (expected)" first; one entry less: exit 1, NOT SERVED', async function () {
      drop(M, (id) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32004, message: `Method ${M} is not supported` } }) }));
      const first = await certify('as-is', [M]);
      const failed = first.report.checks.filter((c) => c.verdict === 'fail').map((c) => c.id);
      expect(failed.length).to.be.greaterThan(10);
      const file = join(dir, 'lacks.json');
      const entries = failed.map((id) => ({ id, reason: 'this client lacks eth_getBlockReceipts', match: '-32004' }));
      await writeFile(file, JSON.stringify({ client: 'test', fail: entries }));
      const known = await certify('known', [M], ['--expect', file]);
      expect(known.code, known.out + known.err).to.equal(0);
      expect(known.out.split('\n')[1]).to.match(new RegExp(`^  not served \\(expected: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} lists its ${failed.length} failure\\(s\\)\\): ${M} `));
      expect(known.report.summary.notServed?.[0]).to.include({ method: M, expected: true });
      // An advisory entry left out: without --strict that failure alone would not fail the run; the method not served does.
      const advisory = first.report.checks.find((c) => c.verdict === 'fail' && c.layer === 'advisory')!.id;
      await writeFile(file, JSON.stringify({ client: 'test', fail: entries.filter((e) => e.id !== advisory) }));
      const partial = await certify('partial', [M], ['--expect', file]);
      expect(partial.code, partial.out + partial.err).to.equal(1);
      expect(partial.report.summary).to.include({ fatalFailures: 0, verdict: 'fail' });
      expect(partial.out.split('\n')[1]).to.match(new RegExp(`^  NOT SERVED: ${M} `));
    });
  });
});
