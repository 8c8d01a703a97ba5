// §8's near-head window under load (issue 23, part 2): eth_getTransactionReceipt and eth_getTransactionByHash served
// for the latest N blocks only. Over the embedded default lengthened by 40 blocks of one transfer each, behind a fault
// that answers null for their transactions older than the window it serves: a null inside the declared window is
// judged as ever; once the chain has carried the sampled blocks out of the window, the nulls are counted apart
// (`archive`), never wrong, and the gate passes.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../load/run/run.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { servedWindow } from '../support/faults.ts';
import { nodeRpc, transferBlocks } from '../support/node-rpc.ts';

const METHODS = ['eth_getTransactionByHash', 'eth_getTransactionReceipt'];

describe('load: the near-head window of §8', function () {
  this.timeout(300_000);
  let devnet: Devnet;
  let proxy: FaultProxy;
  const grow = (n: number) => transferBlocks(nodeRpc(() => devnet.nodeUrl), n);
  const gate = async (extra: { corpus?: string; nearHeadWindow?: number; missShare?: number; rate?: number }) => {
    const out = await mkdtemp(join(tmpdir(), 'rc-load-window-'));
    // Latency limits five times the service's: 8 answers a method make p95 the slowest one, and the window, not a busy
    // machine's stall, is what these runs are about.
    const r = await runLoad({ url: proxy.url, profile: 'gate', duration: '4s', rate: 2, methods: METHODS, out, slo: { p95Ms: 2500, p99Ms: 5000 }, log: () => undefined, ...extra });
    return { ...r, out, report: JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport };
  };

  before(async () => {
    devnet = await startDevnet();
    await grow(40);
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
  });

  it('declared 24, served 8: nulls for hits inside the declared window are judged as ever (the gate fails), none counted as archive', async () => {
    proxy.fault = { name: 'served 8', kills: [], rewrite: servedWindow(8) };
    const { exitCode, summary, report } = await gate({ nearHeadWindow: 24 });
    expect(exitCode, summary).to.equal(1);
    for (const m of METHODS) {
      const c = report.methods[m]!.classes;
      expect(c.archive, m).to.equal(0);
      expect(c.null_unexpected + c.wrong, m).to.be.greaterThan(0);
    }
  });

  it('declared 24, served 24: the clean run passes; once the chain has moved 30 blocks past the sampled ones, their nulls are archive, counted apart, and the replayed gate still passes', async () => {
    proxy.fault = { name: 'served 24', kills: [], rewrite: servedWindow(24) };
    // A third of the corpus misses, and 20 requests a method on replay: misses (null due, judged) beside the archive.
    const first = await gate({ nearHeadWindow: 24, missShare: 0.3 });
    expect(first.exitCode, first.summary).to.equal(0);
    for (const m of METHODS) expect(first.report.methods[m]!.classes.archive, m).to.equal(0);
    await grow(30);
    const replay = await gate({ corpus: join(first.out, 'load.corpus.json'), rate: 5 });
    expect(replay.exitCode, replay.summary).to.equal(0);
    for (const m of METHODS) {
      const c = replay.report.methods[m]!.classes;
      expect(c.archive, `${m}: ${JSON.stringify(c)}`).to.be.greaterThan(0);
      expect(c.wrong + c.null_unexpected, m).to.equal(0);
      expect(replay.report.methods[m]!.failureRate, m).to.equal(0);
    }
    expect(replay.summary).to.match(/archive not served \(§8: the block left the declared near-head window since sampling; not judged\): eth_getTransactionByHash \d+, eth_getTransactionReceipt \d+/);
  });

  it('a method every answer of which is archive has no latency to judge: its latency thresholds are not judged, the run inconclusive (never a pass, never a failure)', async () => {
    proxy.fault = { name: 'served 24', kills: [], rewrite: servedWindow(24) };
    // Hits only (no miss), 30 blocks past the window: every answer is archive.
    const first = await gate({ nearHeadWindow: 24, missShare: 0 });
    expect(first.exitCode, first.summary).to.equal(0);
    await grow(30);
    const replay = await gate({ corpus: join(first.out, 'load.corpus.json') });
    expect(replay.exitCode, replay.summary).to.equal(3);
    for (const m of METHODS) {
      const r = replay.report.methods[m]!;
      expect(r.classes.archive, m).to.equal(r.requests);
      expect(r.failureRate, m).to.equal(0);
    }
    expect(replay.report.reasons?.join('\n')).to.match(/not judged: eth_getTransactionByHash: every answer \(\d+\) was archive .*latency_eth_getTransactionByHash p\(95\)<2500 not judged/);
  });
});
