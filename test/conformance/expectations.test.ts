// --expect: known deviations as a user feature. An expected failure is reported as such and does not fail
// the run; an expected failure that passes is an unexpected pass and fails it; a file that cannot be
// trusted (unknown or doubled ids, off the schema) is a usage error.
import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectationFor, ExpectationsError, parseExpectations } from '../../conformance/framework/expectations.ts';
import type { CheckResult } from '../../conformance/framework/check.ts';
import { summarize } from '../../conformance/report/model.ts';
import type { Fault, FaultProxy } from '../support/fault-proxy.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import { cli } from '../support/cli.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';

const PENDING = 'eth_getBlockReceipts/pending-equals-latest';
const IN_ORDER = 'eth_getBlockReceipts/receipts-in-order';

const check = (id: string, verdict: CheckResult['verdict'], layer: CheckResult['layer'] = 'spec', kind?: 'fail' | 'skip'): CheckResult => ({
  id,
  method: id.split('/')[0]!,
  clause: '§',
  layer,
  title: id,
  covers: [],
  verdict,
  durationMs: 0,
  evidence: [],
  ...(kind ? { expectation: { kind, reason: 'known' } } : {}),
});

describe('--expect', function () {
  describe('the file', () => {
    const file = (body: unknown) => JSON.stringify(body);

    it('reads entries with reason, link and review date; a past review date is marked overdue', () => {
      const e = parseExpectations(file({ fail: [{ id: PENDING, reason: 'pending is its own block', link: 'https://example.org/x', review: '2000-01-01' }], skip: [{ id: IN_ORDER, reason: 'r' }] }), 'f.json', checkIds(allSuites));
      expect(expectationFor(PENDING, e, '2026-11-23')).to.deep.equal({ kind: 'fail', reason: 'pending is its own block', link: 'https://example.org/x', review: '2000-01-01', overdue: true });
      expect(expectationFor(IN_ORDER, e, '2026-11-23')).to.deep.equal({ kind: 'skip', reason: 'r' });
      expect(expectationFor('eth_getBlockReceipts/envelope', e, '2026-11-23')).to.equal(undefined);
    });

    it('refuses unknown ids, an id listed twice, an entry without a reason, and text that is not JSON', () => {
      const cases: Array<[string, RegExp]> = [
        [file({ fail: [{ id: 'eth_getBlockReceipts/no-such-check', reason: 'x' }] }), /does not have: eth_getBlockReceipts\/no-such-check/],
        [file({ fail: [{ id: PENDING, reason: 'x' }], skip: [{ id: PENDING, reason: 'y' }] }), /more than once: eth_getBlockReceipts\/pending-equals-latest/],
        [file({ fail: [{ id: PENDING }] }), /schemas\/files\/expectations.json.*reason/],
        [file({ fail: [{ id: PENDING, reason: 'x', review: 'soon' }] }), /review/],
        ['{"fail": [', /not JSON/],
      ];
      for (const [text, message] of cases) expect(() => parseExpectations(text, 'f.json', checkIds(allSuites)), text).to.throw(ExpectationsError, message);
    });

    it('the shipped files are valid', async () => {
      const names = (await readdir('fixtures/expectations')).filter((n) => n.endsWith('.json'));
      expect(names).to.include.members(['anvil.json', 'embedded.json', 'geth.json', 'hardhat.json', 'ganache.json']);
      for (const name of names) parseExpectations(await readFile(`fixtures/expectations/${name}`, 'utf8'), name, checkIds(allSuites));
    });
  });

  describe('the verdict', () => {
    it('an expected failure does not fail the run, even in a fatal layer; an unexpected pass does, even of an advisory check', () => {
      const expected = summarize([check('a/x', 'pass'), check('a/y', 'fail', 'invariant', 'fail')], false, true);
      expect(expected).to.include({ pass: 1, fail: 1, fatalFailures: 0, expectedFailures: 1, unexpectedPasses: 0, verdict: 'pass' });
      const unexpected = summarize([check('a/x', 'pass'), check('a/y', 'pass', 'advisory', 'fail')], false, true);
      expect(unexpected).to.include({ pass: 1, fatalFailures: 0, unexpectedPasses: 1, verdict: 'fail' });
    });

    it('a scoped entry (match) explains only the failure it names: another failure of the same check fails the run', () => {
      const scoped = (reason: string): CheckResult => ({ ...check('a/y', 'fail', 'invariant'), reason, expectation: { kind: 'fail', reason: 'blob blocks', match: 'in 1 of \\d+ blocks judged: [^;]*type 0x3' } });
      expect(summarize([scoped('in 1 of 12 blocks judged: block 9 holds 1 transaction(s) of type 0x3')], false, true)).to.include({ expectedFailures: 1, fatalFailures: 0, verdict: 'pass' });
      expect(summarize([scoped('in 2 of 12 blocks judged: block 9 holds 1 transaction(s) of type 0x3; block 4 holds 2 transaction(s) of type 0x2')], false, true)).to.include({ expectedFailures: 0, fatalFailures: 1, verdict: 'fail' });
      expect(summarize([scoped('block 4: transaction 0 does not hash to its hash')], false, true)).to.include({ expectedFailures: 0, fatalFailures: 1, verdict: 'fail' });
      expect(() => parseExpectations(JSON.stringify({ fail: [{ id: PENDING, reason: 'r', match: '(' }] }), 'f.json', checkIds(allSuites))).to.throw(ExpectationsError, /not a regular expression/);
      // A check reporting several violations: the entry must match each, not only the first (the reason names it).
      const several = (violations: string[]): CheckResult => ({ ...check('a/y', 'fail', 'invariant'), reason: violations[0]!, violations, expectation: { kind: 'fail', reason: 'typed headers', match: 'short: exactly the typed headers$' } });
      expect(summarize([several(['block 9: 2 short: exactly the typed headers', 'block 8: 3 short: exactly the typed headers'])], false, true)).to.include({ expectedFailures: 1, verdict: 'pass' });
      expect(summarize([several(['block 9: 2 short: exactly the typed headers', 'block 0: 1000 over'])], false, true)).to.include({ expectedFailures: 0, fatalFailures: 1, verdict: 'fail' });
    });

    it('an expected skip, or an expected failure that could not run, changes nothing', () => {
      const s = summarize([check('a/x', 'skip', 'spec', 'skip'), check('a/y', 'inconclusive', 'spec', 'fail'), check('a/z', 'fail', 'spec')], false, true);
      expect(s).to.include({ skip: 1, inconclusive: 1, fatalFailures: 1, expectedFailures: 0, unexpectedPasses: 0, verdict: 'fail' });
    });
  });

  describe('from the command line, against a fault-injecting endpoint', function () {
    const pendingGivesNull: Fault = { name: 'pending gives null', kills: [PENDING], rewrite: (req, res) => (req.method === 'eth_getBlockReceipts' && req.params[0] === 'pending' ? { ...res, result: null } : res) };
    let proxy: FaultProxy;
    let dir: string;
    faultyDevnet((_, p) => (proxy = p));
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'rpc-certify-expect-'));
    });
    beforeEach(() => {
      proxy.fault = pendingGivesNull; // faultyDevnet clears it after each test
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    const run = async (entries: Array<{ id: string; reason: string }> | undefined) => {
      const args = ['conformance', '--url', proxy.url, '--methods', 'eth_getBlockReceipts', '--out', dir, '--quiet'];
      if (entries) {
        await writeFile(join(dir, 'expect.json'), JSON.stringify({ client: 'test', fail: entries }));
        args.push('--expect', join(dir, 'expect.json'));
      }
      const r = await cli(args);
      return { ...r, report: JSON.parse(await readFile(join(dir, 'conformance.json'), 'utf8')) as { summary: Record<string, unknown>; checks: CheckResult[]; run: { expectations?: unknown } } };
    };

    it('without the file the fault fails the run; listed, it is an expected failure and the run passes', async () => {
      expect((await run(undefined)).code).to.equal(1);
      const r = await run([{ id: PENDING, reason: 'pending is its own block' }]);
      expect(r.code, r.out + r.err).to.equal(0);
      expect(r.out).to.include('1 expected failure(s), 0 unexpected pass(es)');
      expect(r.report.summary).to.include({ verdict: 'pass', expectedFailures: 1, unexpectedPasses: 0 });
      expect(r.report.checks.find((c) => c.id === PENDING)?.expectation).to.deep.equal({ kind: 'fail', reason: 'pending is its own block' });
      expect(r.report.run.expectations).to.deep.include({ entries: 1, client: 'test' });
      const html = await readFile(join(dir, 'conformance.html'), 'utf8');
      expect(html).to.include('Expected failures').and.include('expected to fail: pending is its own block');
      expect(await readFile(join(dir, 'conformance.junit.xml'), 'utf8')).to.not.include('<failure');
    });

    it('a listed check that passes is an unexpected pass: the run fails and says which', async () => {
      const r = await run([{ id: PENDING, reason: 'pending is its own block' }, { id: IN_ORDER, reason: 'thought broken' }]);
      expect(r.code).to.equal(1);
      expect(r.out).to.match(/unexpected passes[^\n]*\n\s+eth_getBlockReceipts\/receipts-in-order \(thought broken\)/);
      expect(r.report.summary).to.include({ verdict: 'fail', unexpectedPasses: 1, fatalFailures: 0 });
      expect(await readFile(join(dir, 'conformance.html'), 'utf8')).to.include('Unexpected passes');
      expect(await readFile(join(dir, 'conformance.junit.xml'), 'utf8')).to.match(/<failure[^>]*unexpected pass/);
    });

    it('a file naming a check that does not exist is a usage error (exit 2, one line)', async () => {
      await writeFile(join(dir, 'bad.json'), JSON.stringify({ fail: [{ id: 'eth_getBlockReceipts/typo', reason: 'x' }] }));
      const r = await cli(['conformance', '--url', proxy.url, '--expect', join(dir, 'bad.json')]);
      expect(r.code).to.equal(2);
      expect(r.err.trim().split('\n')).to.have.length(1);
      expect(r.err).to.include('eth_getBlockReceipts/typo');
    });
  });
});
