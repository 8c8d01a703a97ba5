// Load side by side (issue 42): one `load --profile gate` over three endpoints of one chain (two faithful, one that
// corrupts a receipt field) writes one report: a row per endpoint and method (p50/p95/p99, failures, wrong answers),
// one chart, the best per method; the corrupt one's replayed answers differ from the corpus sampled on the first, so
// it fails on wrong answers and the run exits 1. No key of any endpoint in any output.
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

  it('one gate run over three endpoints: a row per endpoint and method, the corrupt one failing on wrong answers, exit 1, no key anywhere', async function () {
    const out = await mkdtemp(join(tmpdir(), 'rc-lsbs-'));
    const run = await cli(['load', '--url', `a=${devnet().url}`, '--url', `b=${faithful().url}`, '--url', `c=${corrupt().url}`, '--profile', 'gate', '--duration', '4s', '--rate', '5', '--slo-p99', '5000', '--out', out]);
    expect(run.code, run.out + run.err).to.equal(1);
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadSideBySide;
    expect(loadSideBySideFaults(report)).to.deep.equal([]);
    expect(report.corpusFrom).to.equal('a');
    expect(report.endpoints.map((e) => [e.name, e.verdict])).to.deep.equal([['a', 'pass'], ['b', 'pass'], ['c', 'fail']]);
    expect(report.methods.map((m) => m.method)).to.deep.equal([...METHODS]);
    for (const m of report.methods) expect(m.rows.map((r) => r.name), m.method).to.deep.equal(['a', 'b', 'c']);
    const receipts = report.methods.find((m) => m.method === 'eth_getTransactionReceipt')!;
    expect(receipts.rows.find((r) => r.name === 'c')!.wrong).to.be.greaterThan(0);
    expect(receipts.best?.name, 'a wrong answer never wins').to.not.equal('c');
    expect(report.endpoints[2]!.reasons.join(' ')).to.match(/wrong/);
    expect(report.disputes, 'the two that agree with the corpus are not in dispute').to.equal(undefined);
    const html = await readFile(join(out, 'load.html'), 'utf8');
    expect(html).to.include('<svg');
    expect(html).to.include('endpoints/c/load.html');
    const junit = await readFile(join(out, 'load.junit.xml'), 'utf8');
    expect([...junit.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1])).to.deep.equal(['a', 'b', 'c']);
    expect(run.out).to.match(/^load side by side \(gate\): FAIL/m);
    const everything = `${run.out}\n${run.err}\n${await allText(out)}`;
    for (const key of keys()) expect(everything.includes(key), `key ${key} in the output`).to.equal(false);
  });
});
