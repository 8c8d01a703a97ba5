// Sampling's lateness judged by the fresh-read rules, in the open (issue 22), on the moving devnet (a block a second):
// a target consistently behind its reference has its lag recorded (blocks, entries above its own head, left out),
// never a finding and never counted correct; a target whose lookups lag the head it announces has findings, not a
// silent "only late"; an honest target with a reference on the same node shows no lag and passes.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleCorpus } from '../../load/plan/sample.ts';
import { runLoad } from '../../load/run/run.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import type { RpcMethod } from '../../core/methods.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { behind } from '../support/faults.ts';

const METHODS: RpcMethod[] = ['eth_getBlockByHash', 'eth_getBlockReceipts', 'eth_getTransactionReceipt'];

describe('load sampling: a target behind judged in the open (moving devnet)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let proxy: FaultProxy;
  const dirs: string[] = [];
  before(async () => {
    devnet = await startDevnet({ blockTimeS: 1 });
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
  });
  afterEach(() => {
    proxy.fault = undefined;
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  async function smoke(referenceUrl: string): Promise<{ exitCode: number; summary: string; report: LoadReport; html: string }> {
    const out = await mkdtemp(join(tmpdir(), 'rc-sampling-lag-'));
    dirs.push(out);
    const r = await runLoad({ url: proxy.url, referenceUrl, profile: 'smoke', duration: '2s', methods: ['eth_getBlockByHash', 'eth_getBlockReceipts'], fresh: { chased: true, why: '--fresh' }, out, log: () => undefined });
    return { ...r, report: JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport, html: await readFile(join(out, 'load.html'), 'utf8') };
  }

  it('a target consistently 5 blocks behind its reference: its lag recorded per method and in the report, never a finding, never counted correct', async () => {
    proxy.fault = { name: 'consistently 5 behind', kills: [], rewrite: behind(5n, true) };
    const corpus = await sampleCorpus({ url: proxy.url, referenceUrl: devnet.url, seed: 1, missShare: 0.1, methods: METHODS });
    expect(corpus.targetHead?.behindReference, JSON.stringify(corpus.targetHead)).to.be.within(4, 7);
    for (const m of METHODS) {
      const s = corpus.sampling[m]!;
      expect(s.findings, m).to.deep.equal([]);
      expect(s.aboveTargetHead?.count, m).to.be.above(0);
      expect(s.aboveTargetHead?.example, m).to.match(/above the target's own head/);
      // Tried, but neither correct nor left out under another name: its own count.
      expect((s.correct.hit ?? 0) + (s.aboveTargetHead?.count ?? 0) + Object.values(s.rejected).reduce((a, n) => a + n, 0), m).to.equal(s.tried.hit);
    }
    // Left out of the corpus: no entry of a block above the target's head.
    const head = BigInt(corpus.targetHead?.head ?? '0x0');
    const numbered = corpus.entries.eth_getBlockReceipts.filter((e) => e.kind === 'hit').map((e) => String(e.params[0])).filter((p) => p.startsWith('0x'));
    expect(numbered.filter((p) => BigInt(p) > head)).to.deep.equal([]);

    const { summary, report, html } = await smoke(devnet.url);
    expect(summary).to.match(/target lag: [4-7] blocks behind the reference at sampling/);
    expect(summary).to.match(/above the target's own head \(its lag\), left out/);
    expect(report.corpus.targetHead?.behindReference).to.be.within(4, 7);
    expect(report.corpus.methods['eth_getBlockByHash']?.aboveTargetHead?.count).to.be.above(0);
    expect(html).to.match(/target lag: [4-7] blocks behind the reference/);
  });

  it('a target whose lookups lag 6 blocks behind the head it announces: hits of blocks it announced are findings past the grace, not excused as late', async () => {
    // Its head and its blocks by number from a current node, every other lookup from one 6 blocks behind: blocks it
    // announced more than the grace before are still unknown when asked again (the chain moves a block a second).
    const lagging = behind(6n, true);
    const current = ['eth_blockNumber', 'eth_getBlockByNumber'];
    proxy.fault = { name: 'head current, lookups 6 behind', kills: [], rewrite: (req, res, ctx) => (current.includes(req.method) ? res : lagging(req, res, ctx)) };
    const corpus = await sampleCorpus({ url: proxy.url, seed: 1, missShare: 0.1, methods: METHODS });
    for (const m of METHODS) {
      const s = corpus.sampling[m]!;
      expect(s.findings.map((f) => [f.kind, f.cls]), m).to.deep.include(['hit', 'null_unexpected']);
      expect(s.aboveTargetHead, m).to.equal(undefined);
      expect(Object.keys(s.rejected).filter((why) => /head|late|target/.test(why)), m).to.deep.equal([]);
    }
  });

  it('an honest moving target with --reference-url on the same node: no lag, nothing found, the run passes', async () => {
    const corpus = await sampleCorpus({ url: proxy.url, referenceUrl: devnet.url, seed: 1, missShare: 0.1, methods: METHODS });
    expect(corpus.targetHead).to.include({ behindReference: 0, wentBack: 0 });
    for (const m of METHODS) {
      expect(corpus.sampling[m]?.findings, m).to.deep.equal([]);
      expect(corpus.sampling[m]?.aboveTargetHead, m).to.equal(undefined);
    }
    const { exitCode, summary } = await smoke(devnet.url);
    expect(exitCode, summary).to.equal(0);
    expect(summary).to.not.match(/target lag/);
  });
});
