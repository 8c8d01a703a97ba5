// Load side by side (issue 42): one `load --profile gate` over three endpoints of one chain (two faithful, one that
// corrupts a receipt field) writes one report: a row per endpoint and method (p50/p95/p99, failures, wrong answers),
// one chart, the best per method. The corrupt one is listed first, so the corpus is sampled from it: the vote on its
// compared answers outvotes it (a finding at sampling naming the field), and the two faithful ones, held to their own
// answers, pass; the run exits 1. No key of any endpoint in any output.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../support/cli.ts';
import { allText, threeEndpoints } from '../support/side-by-side.ts';
import { loadSideBySideFaults, type LoadSideBySide } from '../../load/report/side-by-side.ts';
import { METHODS } from '../../core/methods.ts';

describe('load side by side: the same corpus, rate and duration against each endpoint, one report (issue 42)', function () {
  const { devnet, faithful, corrupt, keys } = threeEndpoints();

  it('one gate run over three endpoints, the corrupt one first: a row per endpoint and method, the corrupt one outvoted on the receipt field, the faithful ones passing, exit 1, no key anywhere', async function () {
    const out = await mkdtemp(join(tmpdir(), 'rc-lsbs-'));
    const run = await cli(['load', '--url', `c=${corrupt().url}`, '--url', `a=${devnet().url}`, '--url', `b=${faithful().url}`, '--profile', 'gate', '--duration', '4s', '--rate', '5', '--slo-p99', '5000', '--out', out]);
    expect(run.code, run.out + run.err).to.equal(1);
    expect(run.err, 'every endpoint asked at once at the vote: no listener warning').to.not.include('MaxListenersExceededWarning');
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadSideBySide;
    expect(loadSideBySideFaults(report)).to.deep.equal([]);
    expect(report.corpusFrom).to.equal('c');
    expect(report.endpoints.map((e) => [e.name, e.verdict]), run.out).to.deep.equal([['c', 'fail'], ['a', 'pass'], ['b', 'pass']]);
    expect(report.methods.map((m) => m.method)).to.deep.equal([...METHODS]);
    for (const m of report.methods) expect(m.rows.map((r) => r.name), m.method).to.deep.equal(['c', 'a', 'b']);
    expect(report.vote?.endpoints.map((e) => [e.name, e.outvoted > 0, e.tied, e.unanswered])).to.deep.equal([['c', true, 0, 0], ['a', false, 0, 0], ['b', false, 0, 0]]);
    for (const method of ['eth_getTransactionReceipt', 'eth_getBlockReceipts']) {
      const rows = report.methods.find((m) => m.method === method)!;
      expect(rows.rows.find((r) => r.name === 'c')!.wrongAtSampling, method).to.be.greaterThan(0);
      expect(rows.best?.name, `${method}: an outvoted endpoint never wins`).to.not.equal('c');
      for (const r of rows.rows) expect(r.wrong, `${method} ${r.name}: each held to its own answers under load`).to.equal(0);
    }
    expect(report.endpoints[0]!.reasons.join(' ')).to.match(/eth_getTransactionReceipt: \d+ hit entr(y|ies) answered wrong at sampling, e\.g\. \["0x[0-9a-f]{64}"\]: \/effectiveGasPrice is "0x[0-9a-f]+" here, outvoted by "0x[0-9a-f]+" \(2 of the 3 endpoints serving the field/);
    expect(run.out).to.match(/the corpus: \d+ compared answer\(s\) voted field by field among c, a, b: c: \d+ outvoted; 0 without a majority/);
    const html = await readFile(join(out, 'load.html'), 'utf8');
    expect(html).to.include('<svg');
    expect(html).to.include('endpoints/c/load.html');
    const junit = await readFile(join(out, 'load.junit.xml'), 'utf8');
    expect([...junit.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1])).to.deep.equal(['c', 'a', 'b']);
    expect(run.out).to.match(/^load side by side \(gate\): FAIL/m);
    const everything = `${run.out}\n${run.err}\n${await allText(out)}`;
    for (const key of keys()) expect(everything.includes(key), `key ${key} in the output`).to.equal(false);
  });
});
