// Several providers in one run (issue 42): three named endpoints on one seeded chain, two faithful and one that
// corrupts a receipt field (effectiveGasPrice) consistently, in eth_getTransactionReceipt and eth_getBlockReceipts
// alike. One `conformance` run certifies each on the same targets, writes one report (JSON valid against its schema,
// JUnit with a suite per endpoint, HTML with the matrix) and exits 1; the corrupt one's quorum check names the field
// and who agreed, besides its own failures. The faithful two alone exit 0; two that disagree are a tie, no majority.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { startDevnet } from '../../devnet/index.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultProxy } from '../support/fault-proxy.ts';
import { allText, threeEndpoints } from '../support/side-by-side.ts';
import { cli } from '../support/cli.ts';
import { sideBySideFaults, type SideBySideReport } from '../../conformance/report/side-by-side.ts';

describe('side by side: several endpoints certified in one run, where they disagree named (issue 42)', function () {
  const { devnet, faithful, corrupt, keys } = threeEndpoints();

  const quorumOf = (report: SideBySideReport, name: string, method: string) => report.endpoints.find((e) => e.name === name)?.report?.checks.find((c) => c.id === `quorum/${method}-majority`);

  it('three endpoints, one corrupting a receipt field: three verdicts in one report, exit 1, its quorum check naming the field and who agreed', async function () {
    const out = await mkdtemp(join(tmpdir(), 'rc-sbs-'));
    const run = await cli(['conformance', '--url', `a=${devnet().url}`, '--url', `b=${faithful().url}`, '--url', `c=${corrupt().url}`, '--out', out]);
    expect(run.code, run.out + run.err).to.equal(1);
    const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as SideBySideReport;
    expect(sideBySideFaults(report)).to.deep.equal([]);
    expect(report.endpoints.map((e) => [e.name, e.verdict])).to.deep.equal([['a', 'pass'], ['b', 'pass'], ['c', 'fail']]);
    expect(report.targetsFrom).to.equal('a');
    // The same targets for all three: each report's lock is the first one's.
    const [ta, tb, tc] = report.endpoints.map((e) => JSON.stringify(e.report?.targets));
    expect(tb).to.equal(ta);
    expect(tc).to.equal(ta);
    for (const method of ['eth_getTransactionReceipt', 'eth_getBlockReceipts']) {
      const q = quorumOf(report, 'c', method);
      expect(q?.verdict, `${method}: ${q?.reason}`).to.equal('fail');
      expect(q?.reason).to.match(/\/effectiveGasPrice is "0x[0-9a-f]+" here, but "0x[0-9a-f]+" at a, b \(the majority: 2 of the 3 endpoints serving the field\): "0x[0-9a-f]+" from a, b against "0x[0-9a-f]+" from c \(this endpoint\)/);
      // The two faithful ones side with the majority, and say who was outvoted.
      expect(quorumOf(report, 'a', method)?.verdict).to.equal('pass');
      expect(quorumOf(report, 'a', method)?.note).to.match(/another endpoint outvoted: [^;]*\/effectiveGasPrice: "0x[0-9a-f]+" from b, a \(this endpoint\) against "0x[0-9a-f]+" from c;/);
    }
    // Its own failures besides: a receipt's price is checked against its transaction's on one endpoint too.
    const own = report.endpoints[2]!.notPassed.filter((p) => p.outcome === 'fail' && !p.id?.startsWith('quorum/'));
    expect(own.length, JSON.stringify(report.endpoints[2]!.notPassed)).to.be.greaterThan(0);
    expect(report.differing.map((d) => d.id)).to.include('quorum/eth_getTransactionReceipt-majority');
    const matrix = report.endpoints.map((e) => e.methods.find((m) => m.method === 'eth_getTransactionReceipt')?.verdict);
    expect(matrix).to.deep.equal(['pass', 'pass', 'fail']);
    // One JUnit suite per endpoint; the HTML opens with the matrix; each endpoint's own reports beside.
    const junit = await readFile(join(out, 'conformance.junit.xml'), 'utf8');
    expect([...junit.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1])).to.deep.equal(['a', 'b', 'c']);
    const html = await readFile(join(out, 'conformance.html'), 'utf8');
    expect(html.indexOf('Endpoint × method')).to.be.lessThan(html.indexOf('Where they differ'));
    expect(html).to.include('endpoints/c/conformance.html');
    expect(JSON.parse(await readFile(join(out, 'endpoints', 'c', 'conformance.json'), 'utf8')).summary.verdict).to.equal('fail');
    expect(run.out).to.match(/^conformance side by side: FAIL {2}\(3 endpoints; the worst: c; targets from a\)$/m);
    // Every peer call asked at once listens to Ctrl-C: no listener-leak warning for it.
    expect(run.err).not.to.match(/MaxListenersExceededWarning/);
    // No key of any endpoint anywhere: the terminal, every report.
    const everything = `${run.out}\n${run.err}\n${await allText(out)}`;
    for (const key of keys()) expect(everything.includes(key), `key ${key} in the output`).to.equal(false);
  });

  it('the two faithful ones alone: exit 0, every quorum check passing; an earlier run\'s endpoint reports cleared', async function () {
    const out = await mkdtemp(join(tmpdir(), 'rc-sbs-'));
    await mkdir(join(out, 'endpoints', 'gone'), { recursive: true });
    await writeFile(join(out, 'endpoints', 'gone', 'conformance.json'), '{"stale": "pass"}');
    const run = await cli(['conformance', '--url', `a=${devnet().url}`, '--url', `b=${faithful().url}`, '--out', out, '--quiet']);
    expect(run.code, run.out + run.err).to.equal(0);
    const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as SideBySideReport;
    for (const e of report.endpoints) for (const c of e.report!.checks.filter((x) => x.method === 'quorum' && !x.inapplicable)) expect(c.verdict, `${e.name} ${c.id}: ${c.reason}`).to.equal('pass');
    expect(existsSync(join(out, 'endpoints', 'gone', 'conformance.json')), 'no earlier verdict left to read as this run\'s').to.equal(false);
  });

  it('an endpoint on another chain listed first: the chain most serve is certified, it is not usable (never the others failed against its targets)', async function () {
    const other = await startDevnet({ without: ['blob', 'set-code'] });
    try {
      const out = await mkdtemp(join(tmpdir(), 'rc-sbs-'));
      const run = await cli(['conformance', '--url', `other=${other.url}`, '--url', `a=${devnet().url}`, '--url', `b=${faithful().url}`, '--out', out, '--quiet']);
      expect(run.code, run.out + run.err).to.equal(2);
      const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as SideBySideReport;
      expect(report.endpoints.map((e) => [e.name, e.verdict])).to.deep.equal([['other', 'unusable'], ['a', 'pass'], ['b', 'pass']]);
      expect(report.endpoints[0]!.unusable).to.match(/^it serves chain 31337 \(genesis 0x[0-9a-f]{64}\), a, b chain 31337 \(genesis 0x[0-9a-f]{64}\): not the chain the run certifies$/);
      expect(report.targetsFrom).to.equal('a');
      expect(report.chain?.members).to.deep.equal(['a', 'b']);
      const otherKey = other.url.slice(other.url.lastIndexOf('/') + 1);
      expect(`${run.out}${run.err}${await allText(out)}`.includes(otherKey)).to.equal(false);
    } finally {
      await other.stop();
    }
  });

  it('two that disagree are a tie: no majority, never a side picked', async function () {
    const out = await mkdtemp(join(tmpdir(), 'rc-sbs-'));
    const file = join(out, 'endpoints.json');
    // --endpoints: the key comes from the environment, never from the file.
    await writeFile(file, JSON.stringify([{ name: 'a', url: devnet().url }, { name: 'c', url: corrupt().url.replace(FaultProxy.KEY, '${RC_TEST_KEY}') }]));
    process.env['RC_TEST_KEY'] = FaultProxy.KEY;
    const run = await cli(['conformance', '--endpoints', file, '--out', out, '--quiet', '--methods', 'eth_getTransactionReceipt']);
    delete process.env['RC_TEST_KEY'];
    const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as SideBySideReport;
    for (const name of ['a', 'c']) {
      const q = quorumOf(report, name, 'eth_getTransactionReceipt');
      expect(q?.verdict, `${name}: ${q?.reason}`).to.equal('inconclusive');
      expect(q?.reason).to.match(/^no majority: .*\/effectiveGasPrice: "0x[0-9a-f]+" from (a|c)( \(this endpoint\))? against "0x[0-9a-f]+" from (a|c)( \(this endpoint\))?/);
    }
    expect(run.out + run.err).not.to.include(FaultProxy.KEY);
  });

  it('refuses what cannot be side by side: a bare URL among several, a name twice, a ${VAR} not set, a name over 64 characters', async function () {
    const bare = await cli(['conformance', '--url', `a=${devnet().url}`, '--url', faithful().url]);
    expect(bare.code).to.equal(2);
    expect(bare.err).to.match(/with several endpoints, name each one: --url NAME=URL/);
    const twice = await cli(['conformance', '--url', `a=${devnet().url}`, '--url', `a=${faithful().url}`]);
    expect(twice.code).to.equal(2);
    expect(twice.err).to.match(/endpoint name "a" is given twice/);
    const out = await mkdtemp(join(tmpdir(), 'rc-sbs-'));
    await writeFile(join(out, 'e.json'), JSON.stringify([{ name: 'x', url: 'http://127.0.0.1:1/v3/${RC_UNSET_KEY_VAR}' }, { name: 'y', url: devnet().url }]));
    const unset = await cli(['conformance', '--endpoints', join(out, 'e.json')]);
    expect(unset.code).to.equal(2);
    expect(unset.err).to.match(/entry 0 \(x\): its url reads \$\{RC_UNSET_KEY_VAR\}, which is not set/);
    const long = await cli(['conformance', '--url', `${'x'.repeat(65)}=${devnet().url}`, '--url', `b=${faithful().url}`]);
    expect(long.code).to.equal(2);
    expect(long.err).to.match(/name each one: --url NAME=URL \(a name of 1 to 64 letters/);
    for (const r of [bare, twice, unset, long]) for (const key of keys()) expect(r.out + r.err).not.to.include(key);
  });
});
