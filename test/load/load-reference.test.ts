// The head lag against a reference under load (issue 23, load's part), on the moving devnet (a block a second, with
// traffic) and the clean node as reference: an endpoint consistently 20 blocks behind fails the gate naming the head
// lag; the clean endpoint passes with the lag judged; a reference that dies mid-run, or that is itself behind the
// endpoint, leaves the head lag not judged and the run INCONCLUSIVE (exit 3), never a pass. Then the decision's rules
// on made-up samples: a stretch with no judged sample, a lag beyond the limit despite it, no reference at all.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../load/run/run.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import type { HeadLagRecord, HeadLagSample } from '../../load/shared/measurement.ts';
import { DEFAULT_MAX_HEAD_LAG_S, headLagReport } from '../../load/report/head-lag.ts';
import { decide, exitCodeOf } from '../../load/report/verdict.ts';
import { headLagLines } from '../../load/report/text.ts';
import { renderJunit } from '../../load/report/junit.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { behind, currentNumberOverStale } from '../support/faults.ts';

interface Outcome {
  exitCode: number;
  summary: string;
  report: LoadReport;
  junit: string;
  html: string;
}

describe('load: head lag against a reference on a moving chain', function () {
  this.timeout(240_000);
  let devnet: Devnet;
  /** The endpoint under test, and a second way to the same node used as a reference that can fail. */
  let endpoint: FaultProxy;
  let reference: FaultProxy;
  /** The first run's corpus, replayed where sampling is not what a test is about. */
  let corpus: string | undefined;
  before(async () => {
    devnet = await startDevnet({ blockTimeS: 1 });
    endpoint = new FaultProxy(devnet.url);
    reference = new FaultProxy(devnet.url);
    await Promise.all([endpoint.start(), reference.start()]);
  });
  afterEach(() => {
    endpoint.fault = undefined;
    reference.fault = undefined;
  });
  after(async () => {
    await endpoint?.stop();
    await reference?.stop();
    await devnet?.stop();
  });

  /** A 12 s gate; `measuring` is called as k6 is about to start (sampling done, the head-lag sampler starting). */
  async function gate(referenceUrl: string, measuring?: () => void, corpus?: string): Promise<Outcome & { out: string }> {
    const out = await mkdtemp(join(tmpdir(), 'rc-load-ref-'));
    const log = (line: string) => void (/^load: k6 /.test(line) && measuring?.());
    const r = await runLoad({ url: endpoint.url, referenceUrl, profile: 'gate', duration: '12s', rate: 2, methods: ['eth_getBlockByHash'], out, log, ...(corpus ? { corpus } : {}) });
    if (r.exitCode === 2) return { ...r, report: {} as LoadReport, junit: '', html: '', out };
    if (process.env['RPC_CERTIFY_SHOW_SUMMARY']) console.log(r.summary);
    const read = (f: string) => readFile(join(out, f), 'utf8');
    return { ...r, out, report: JSON.parse(await read('load.json')) as LoadReport, junit: await read('load.junit.xml'), html: await read('load.html') };
  }

  it('the clean endpoint with the clean node as reference passes, the head lag judged in blocks and seconds', async () => {
    const { exitCode, summary, report, junit, html, out } = await gate(devnet.url);
    corpus = join(out, 'load.corpus.json');
    expect(exitCode, summary).to.equal(0);
    const h = report.headLag;
    expect(h?.notJudged, summary).to.equal(undefined);
    expect(h?.inconclusive, summary).to.equal(undefined);
    expect(h?.judged, summary).to.be.above(8);
    expect(h?.maxLagSec).to.equal(DEFAULT_MAX_HEAD_LAG_S);
    // The same node behind two doors: at most the block that arrived between two reads.
    expect(h?.blocks?.max, summary).to.be.at.most(1);
    expect(h?.seconds?.max, summary).to.be.at.most(DEFAULT_MAX_HEAD_LAG_S);
    expect(h?.timeline?.length, 'the lag over time').to.be.above(3);
    // A block a second: the block limit holds beside the seconds.
    expect(h?.maxLagBlocks, summary).to.equal(3);
    expect(summary).to.match(/head lag against the reference \(limit 5 s and 3 blocks\): p50\/p95\/max .* within the limit/);
    expect(junit).to.match(/<testcase classname="load\.headLag" name="head lag against the reference within 5 s and 3 blocks"( time="[^"]*")?\/>/);
    expect(html).to.include('Head lag over time');
  });

  it('an endpoint consistently 20 blocks behind fails the gate, the head lag named in seconds and blocks', async () => {
    endpoint.fault = { name: '20 blocks behind', kills: [], rewrite: behind(20n, true) };
    const { exitCode, summary, report, junit } = await gate(devnet.url);
    expect(exitCode, summary).to.equal(1);
    const h = report.headLag;
    expect(h?.blocks?.p50, summary).to.be.at.least(19);
    // A block a second: 20 blocks are about 20 s, however the run's start fell (blocks older than the first read
    // are dated by their timestamps).
    expect(h?.seconds?.p50, summary).to.be.above(15);
    const reason = report.reasons?.find((x) => x.startsWith('head lag:'));
    expect(reason, summary).to.match(/^head lag: the endpoint trailed the reference by up to \d+(\.\d+)? s \(limit --max-head-lag 5 s and --max-head-lag-blocks 3 on [\d.]+ s blocks; .*blocks .*\), e\.g\. at [\d.]+ s the endpoint was at block \d+ while the reference showed \d+: (19|20|21) blocks behind/);
    expect(junit).to.match(/classname="load\.headLag"[^>]*>\s*<failure message="head lag: the endpoint trailed/);
  });

  it('eth_blockNumber current over a `latest` and lookups 20 blocks behind: the head lag is the head clients get, named (red team)', async () => {
    endpoint.fault = { name: 'eth_blockNumber current, the rest 20 behind', kills: [], rewrite: currentNumberOverStale(20n) };
    const { exitCode, summary, report } = await gate(devnet.url, undefined, corpus);
    expect(exitCode, summary).to.equal(1);
    expect(report.headLag?.blocks?.p50, summary).to.be.at.least(19);
    expect(report.reasons?.some((x) => x.startsWith('head lag: the endpoint trailed the reference')), summary).to.equal(true);
  });

  it('a reference that dies mid-run leaves the head lag not judged: INCONCLUSIVE (exit 3), the reference named, never a pass', async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const { exitCode, summary, report, junit } = await gate(reference.url, () => (timer = setTimeout(() => void reference.stop(), 5000)));
      expect(exitCode, summary).to.equal(3);
      expect(report.verdict).to.equal('inconclusive');
      expect(report.headLag?.inconclusive, summary).to.match(/^no head-lag sample judged for [\d.]+ s .*: reference: eth_blockNumber unreachable/);
      expect(report.reasons?.join('\n'), summary).to.match(/not judged: head lag: no head-lag sample judged/);
      expect(summary).to.match(/INCONCLUSIVE/);
      expect(junit).to.match(/classname="load\.headLag"[^>]*>\s*<error message="head lag: no head-lag sample judged/);
      // What the reference answered is quoted; its key never is.
      expect(`${JSON.stringify(report)}${junit}${summary}`).to.not.include(FaultProxy.KEY);
    } finally {
      clearTimeout(timer);
      reference = new FaultProxy(devnet.url);
      await reference.start();
    }
  });

  it('a reference itself 20 blocks behind the endpoint is reported as such, not blamed on the endpoint: INCONCLUSIVE', async () => {
    reference.fault = { name: 'reference 20 blocks behind', kills: [], rewrite: behind(20n, true) };
    const { exitCode, summary, report } = await gate(reference.url);
    expect(exitCode, summary).to.equal(3);
    expect(report.headLag?.seconds?.max, summary).to.equal(0);
    expect(report.headLag?.referenceBehind?.maxBlocks, summary).to.be.at.least(19);
    expect(report.headLag?.inconclusive, summary).to.match(/^the reference was itself behind the endpoint, by up to \d+ blocks .*not blamed on the endpoint/);
    expect(report.reasons?.some((x) => x.startsWith('head lag:')), summary).to.equal(false);
  });

  it('a reference on another chain is refused before the run (exit 2, both chains named), a replayed corpus too', async () => {
    reference.fault = { name: 'another chain', kills: [], rewrite: (req, res) => (req.method === 'eth_chainId' ? { ...res, result: '0x1' } : res) };
    const replayed = await gate(reference.url, undefined, corpus);
    expect(replayed.exitCode, replayed.summary).to.equal(2);
    expect(replayed.summary).to.match(/endpoint not usable: the reference \(--reference-url\) serves chain 1, the endpoint chain \d+/);
    const sampled = await gate(reference.url);
    expect(sampled.exitCode, sampled.summary).to.equal(2);
    expect(sampled.summary).to.match(/different chain/);
  });

  it('a reference with the endpoint\'s chain id but another genesis is refused before the run (exit 2, both genesis hashes named), a replayed corpus too (red team)', async () => {
    const other = `0x${'ab'.repeat(32)}`;
    reference.fault = { name: 'another genesis', kills: [], rewrite: (req, res) => (req.method === 'eth_getBlockByNumber' && req.params[0] === '0x0' && res.result ? { ...res, result: { ...(res.result as object), hash: other } } : res) };
    for (const replay of [corpus, undefined]) {
      const r = await gate(reference.url, undefined, replay);
      expect(r.exitCode, r.summary).to.equal(2);
      expect(r.summary).to.include(`the reference (--reference-url) has genesis ${other}, the endpoint 0x`);
    }
  });
});

describe('load: the head-lag decision on made-up samples', () => {
  const judged = (t: number, lagSec: number, lagBlocks = Math.ceil(lagSec)): HeadLagSample => ({ t, reference: [100, 100], endpoint: 100 - lagBlocks, lagBlocks, lagSec, referenceBehindBlocks: 0, referenceBehindSec: 0 });
  const failed = (t: number): HeadLagSample => ({ t, unjudged: 'reference: eth_blockNumber unreachable (connect ECONNREFUSED)' });
  const record = (samples: HeadLagSample[]): HeadLagRecord => ({ periodSec: 1, durationSec: samples.at(-1)?.t ?? 0, samples });
  const ALLOW = { seconds: 5, blocks: 3 };
  /** A sample on a chain of `blockTime` s blocks, the endpoint `lagBlocks` behind: the lag in seconds as the sampler counts it. */
  const onChain = (t: number, blockTime: number, lagBlocks: number): HeadLagSample => {
    const head = 100 + Math.floor(t / blockTime);
    return { t, reference: [head, head], endpoint: head - lagBlocks, lagBlocks, lagSec: Math.max(0, (lagBlocks - 0.5) * blockTime), referenceBehindBlocks: 0, referenceBehindSec: 0 };
  };
  /** The decision on a report holding only this head-lag section (a passing run otherwise). */
  const verdictOf = (headLag: LoadReport['headLag']) => {
    const r = { profile: 'gate', thresholds: [], head: { checks: 1, regressions: 0, deepestBlocks: 0 }, corpus: { methods: {} }, methods: {}, generator: { keptUp: true, droppedIterations: 0, availableCores: 1, instances: 1 }, headLag } as unknown as LoadReport;
    return { ...decide(r), junit: renderJunit(r) };
  };

  it('every second judged within the limit: pass', () => {
    const h = headLagReport(record([0, 1, 2, 3, 4, 5, 6].map((t) => judged(t, t === 3 ? 1.2 : 0))), ALLOW, 2);
    expect(h.seconds).to.deep.equal({ p50: 0, p95: 1.2, max: 1.2 });
    expect(h.inconclusive).to.equal(undefined);
    expect(verdictOf(h).verdict).to.equal('pass');
  });

  it('a reference that stops answering: inconclusive over the stretch it left unjudged, naming why', () => {
    const h = headLagReport(record([...[0, 1, 2, 3].map((t) => judged(t, 0)), ...[4, 5, 6, 7, 8, 9, 10].map(failed)]), ALLOW, 1);
    expect(h.inconclusive).to.match(/^no head-lag sample judged for 7 s \(from 3 s to 10 s of 10 s; more than 5 s\): reference: eth_blockNumber unreachable \(connect ECONNREFUSED\) \(7×\)/);
    const d = verdictOf(h);
    expect(d.verdict).to.equal('inconclusive');
    expect(exitCodeOf(d.verdict)).to.equal(3);
    expect(d.junit).to.match(/<error message="head lag: no head-lag sample judged/);
  });

  it('one failed read among judged ones judges the run', () => {
    const h = headLagReport(record([0, 1, 2, 3, 4, 5, 6].map((t) => (t === 3 ? failed(t) : judged(t, 0)))), ALLOW, 1);
    expect(h.inconclusive).to.equal(undefined);
    expect(h.unjudged).to.deep.equal({ 'reference: eth_blockNumber unreachable (connect ECONNREFUSED)': 1 });
  });

  it('a lag beyond the limit fails the run even when the reference failed later', () => {
    const h = headLagReport(record([...[0, 1, 2].map((t) => judged(t, 7.5, 8)), ...[3, 4, 5, 6, 7, 8, 9, 10].map(failed)]), ALLOW, 1);
    expect(h.inconclusive).to.be.a('string');
    const d = verdictOf(h);
    expect(d.verdict).to.equal('fail');
    expect(d.reasons[0]).to.match(/^head lag: the endpoint trailed the reference by up to 7.5 s \(limit --max-head-lag 5 s/);
  });

  it('5 one-second blocks behind (4.5 s, within the 5 s) fail on the 3-block allowance; 12 quarter-second blocks behind (2.9 s) are judged in seconds alone and pass', () => {
    const slow = headLagReport(record([0, 1, 2, 3, 4, 5, 6, 7, 8].map((t) => onChain(t, 1, t === 4 ? 5 : 1))), ALLOW, 1);
    expect(slow.blockTimeSec).to.equal(1);
    expect(slow.maxLagBlocks).to.equal(3);
    const d = verdictOf(slow);
    expect(d.verdict).to.equal('fail');
    expect(d.reasons[0]).to.match(/^head lag: the endpoint trailed the reference by up to 5 blocks \(4\.5 s\) \(limit --max-head-lag 5 s and --max-head-lag-blocks 3 on 1 s blocks/);
    // Every view says the same: the terminal's line, the page.
    expect(headLagLines({ headLag: slow })[0]).to.match(/^head lag against the reference \(limit 5 s and 3 blocks\): .*: BEYOND the limit$/);
    const within = headLagReport(record([0, 1, 2, 3, 4, 5, 6, 7, 8].map((t) => onChain(t, 1, t === 4 ? 3 : 1))), ALLOW, 1);
    expect(verdictOf(within).verdict, '3 blocks: within').to.equal('pass');
    const fast = headLagReport(record([0, 1, 2, 3, 4, 5, 6, 7, 8].map((t) => onChain(t, 0.25, t === 4 ? 12 : 2))), ALLOW, 1);
    expect(fast.blockTimeSec).to.equal(0.25);
    expect(fast.maxLagBlocks, 'no block allowance on a 0.25 s chain').to.equal(undefined);
    expect(verdictOf(fast).verdict).to.equal('pass');
  });

  it('no reference: not judged, said in the report and skipped in JUnit, the run judged on the rest', () => {
    const h = headLagReport(undefined, ALLOW, 1);
    expect(h).to.deep.equal({ maxLagSec: 5, notJudged: 'no --reference-url' });
    const d = verdictOf(h);
    expect(d.verdict).to.equal('pass');
    expect(d.junit).to.match(/classname="load\.headLag"[^>]*>\s*<skipped\/>/);
  });
});
