// Around the head (issue 37): a devnet that reorganises (a reorg 1 or 2 blocks deep every 4 s, traffic in every block)
// is certified as it is, by conformance and by a gate load with fresh reads; behind the fault proxy, a by-number cache
// that keeps its entries across reorgs, a transaction index that keeps reorged-out transactions and torn head reads
// each fail the gate (exit 1), the reason naming the reorg or the torn read and the method that answered wrongly.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { runConformance, type RunResult } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { summarize } from '../../conformance/report/model.ts';
import { type CheckContext, checkIds, MethodSuite } from '../../conformance/framework/check.ts';
import { parseExpectations } from '../../conformance/framework/expectations.ts';
import { runLoad } from '../../load/run/run.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { FaultProxy, type Fault } from '../support/fault-proxy.ts';
import { REORG_FAULTS } from '../support/reorg-faults.ts';
import { cli } from '../support/cli.ts';

const expectations = parseExpectations(readFileSync(new URL('../../fixtures/expectations/embedded.json', import.meta.url), 'utf8'), 'fixtures/expectations/embedded.json', checkIds(allSuites));

describe('around the head: a chain that reorganises (devnet --reorg-every)', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let proxy: FaultProxy;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rc-reorg-'));
    devnet = await startDevnet({ blockTimeS: 1, reorgs: { everyS: 4, maxDepth: 2 } });
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    proxy.fault = undefined;
  });

  const conformance = (suites: MethodSuite[] = allSuites) => runConformance({ suites, url: proxy.url, expect: expectations, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
  /**
   * A conformance run with a reorg inside it that replaces every block from the head the run started at: set off once
   * its receipt checks ran (discovery has read those blocks by number, and the checks their transactions by hash). A
   * run sees a cache or an index that kept a block only if it read that block before the reorg and again after it.
   */
  async function conformanceAcrossReorg(): Promise<RunResult> {
    const head = async () => Number((await (await fetch(devnet.nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) })).json() as { result: string }).result);
    const started = await head();
    let reorg: Promise<void> | undefined;
    const reorgNow = () => (reorg ??= head().then((now) => devnet.reorgs!.now(Math.min(now - started + 2, now - Number(devnet.seed.blocks.multiTx.number) - 1))));
    // Set off as the first receipt check ends; the checks run at once, so service/after-reorg, which judges what the
    // run saw, waits for the reorg to land.
    const suites = allSuites.map((s) => {
      const copy = new MethodSuite(s.method, s.file);
      for (const c of s.checks) {
        const body = c.spec.id === 'service/after-reorg' ? async (t: CheckContext) => (await reorg, c.body(t)) : s.method === 'eth_getTransactionReceipt' ? async (t: CheckContext) => c.body(t).finally(() => void reorgNow()) : c.body;
        copy.check(c.spec, body, c.file);
      }
      return copy;
    });
    const r = await conformance(suites);
    await reorg;
    return r;
  }

  async function gate(name: string): Promise<{ exitCode: number; summary: string; report: LoadReport }> {
    const out = join(dir, name);
    const r = await runLoad({ url: proxy.url, profile: 'gate', duration: '12s', rate: 2, methods: ['eth_getBlockByHash', 'eth_getTransactionReceipt'], fresh: { chased: true, why: '--fresh' }, out, log: () => undefined });
    return { ...r, report: JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport };
  }

  it('the devnet reorganises: blocks at the same heights replaced, the traffic going on in the new fork', async () => {
    await new Promise((r) => setTimeout(r, 9_000));
    const done = devnet.reorgs?.done ?? [];
    expect(done.length, 'reorgs done').to.be.at.least(2);
    expect(done.map((d) => d.depth).slice(0, 2)).to.deep.equal([1, 2]);
    // Each height replaced holds another block: a new fork as deep as asked, never a block the same as it was.
    for (const d of done) expect(d.replacedBy.filter((h, k) => h === d.orphaned[k]), `reorg ${d.depth} deep from block ${d.from}`).to.deep.equal([]);
    expect(devnet.traffic?.errors, 'no send failed').to.equal(0);
  });

  it('honest: conformance passes run after run (3 runs), the reorgs it sees judged by service/after-reorg, its targets taken again when one took them away', async () => {
    // The third with a reorg inside it that replaces every block from the head it started at (as deep as need be).
    const runs: RunResult[] = [await conformance(), await conformance(), await conformanceAcrossReorg()];
    for (const r of runs) {
      const s = summarize(r.checks, false, r.complete);
      expect(s.verdict, r.checks.filter((c) => c.verdict === 'fail' && !c.expectation).map((c) => `${c.id}: ${c.reason}`).join('\n')).to.equal('pass');
    }
    const judged = runs[2]!.checks.find((c) => c.id === 'service/after-reorg');
    expect(judged?.verdict, judged?.reason).to.equal('pass');
    expect(judged?.note).to.match(/^reorgs seen at block \d+/);
    expect(runs[2]!.reorgs?.reruns?.[0], 'its targets taken again').to.match(/^a reorg took \d+ target block\(s\) away during the run .*: the checks ran again on targets from block \d+ down$/);
  });

  it('honest: the gate load with fresh reads passes, its reorgs noticed and counted, none of their objects stale or wrong', async () => {
    const { exitCode, summary, report } = await gate('honest');
    expect(exitCode, summary).to.equal(0);
    expect(report.freshness?.reorgs?.seen, summary).to.be.at.least(1);
    for (const [m, f] of Object.entries(report.freshness?.methods ?? {})) expect(f.stale, `${m}: ${f.staleSample ?? ''}`).to.equal(0);
    expect(summary).to.match(/reorgs: \d+ noticed, the deepest [12] block\(s\)/);
  });

  async function failsGate(fault: Fault, name: string): Promise<{ summary: string; reasons: string; report: LoadReport }> {
    proxy.fault = fault;
    const { exitCode, summary, report } = await gate(name);
    expect(exitCode, summary).to.equal(1);
    return { summary, reasons: report.reasons?.join('\n') ?? '', report };
  }

  it('a by-number cache that keeps its entries across reorgs fails the gate on the by-number methods, naming the reorg; conformance fails service/after-reorg', async () => {
    const { reasons } = await failsGate(REORG_FAULTS.byNumberCache(), 'by-number-cache');
    expect(reasons).to.match(/eth_getBlockByNumber: \d+ stale reads? .*wrong: answered block \d+ 0x[0-9a-f]+…, which a reorg took away \d+ ms before \(the endpoint's own chain has 0x[0-9a-f]+… there\)/);
    proxy.fault = REORG_FAULTS.byNumberCache();
    const r = await conformanceAcrossReorg();
    const check = r.checks.find((c) => c.id === 'service/after-reorg');
    expect(check?.verdict, `${check?.note} ${JSON.stringify(r.reorgs)}`).to.equal('fail');
    expect(check?.reason).to.match(/^block \d+ by number is 0x[0-9a-f]{64}, an orphaned fork: the head's parent chain runs through 0x[0-9a-f]{64} at that height/);
  });

  it('a transaction index that keeps reorged-out transactions fails the gate on the transaction lookups, naming the orphaned block; conformance fails service/after-reorg', async () => {
    const { reasons } = await failsGate(REORG_FAULTS.staleIndex(), 'stale-index');
    // Its first transaction asked as the new block's, or an orphaned one asked again: the orphaned block named either way.
    expect(reasons).to.match(/eth_getTransaction(ByHash|Receipt): \d+ stale reads? .*wrong: answered (0x[0-9a-f]+… as in )?block \d+ 0x[0-9a-f]+…, which a reorg took away \d+ ms before \(the endpoint's own chain has 0x[0-9a-f]+… there\)/);
    proxy.fault = REORG_FAULTS.staleIndex();
    const r = await conformanceAcrossReorg();
    const check = r.checks.find((c) => c.id === 'service/after-reorg');
    expect(check?.verdict, check?.reason).to.equal('fail');
    expect(check?.reason).to.match(/^eth_getTransaction(ByHash|Receipt)\(0x[0-9a-f]{64}\) names block \d+ 0x[0-9a-f]{64}(, the block a reorg took away)?, while the chain holds 0x[0-9a-f]{64} at that height/);
  });

  it('torn head reads (receipts without their logs for a block\'s first second, their logsBloom kept) fail the gate at once, inside the grace, naming the torn read', async () => {
    const { reasons } = await failsGate(REORG_FAULTS.tornLogs(1000), 'torn-logs');
    expect(reasons).to.match(/eth_get(TransactionReceipt|BlockReceipts): \d+ stale reads? .*wrong: torn read: receipt \d+ has no logs but a logsBloom that is not empty/);
  });

  it('devnet --reorg-every: refused on geth (it cannot reorg) and on a chain that stands still, in the harness\'s words', async () => {
    const geth = await cli(['devnet', '--node', 'geth', '--block-time', '1', '--reorg-every', '5']);
    expect(geth.code).to.equal(2);
    expect(geth.err).to.match(/--reorg-every: a devnet that reorganises needs anvil \(anvil_reorg; geth --dev cannot reorg\) and a moving chain \(--block-time\)/);
    const standing = await cli(['devnet', '--reorg-every', '5']);
    expect(standing.code).to.equal(2);
    const depth = await cli(['devnet', '--block-time', '1', '--reorg-every', '5', '--reorg-depth', '0']);
    expect(depth.err).to.match(/--reorg-depth takes a whole number of blocks from 1 to 8, got "0"/);
    // A timer's range is far beyond an hour: node fires a longer wait at once, and the chain would reorganise nonstop.
    const rare = await cli(['devnet', '--block-time', '1', '--reorg-every', '2500000']);
    expect(rare.code).to.equal(2);
    expect(rare.err).to.match(/--reorg-every takes at most 3600 seconds, got "2500000"/);
  });
});
