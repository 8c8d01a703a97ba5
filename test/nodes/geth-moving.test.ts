// geth --dev with a block period (issue 22 item 4): the honest moving geth, seeded, then mining a block a second with
// the background traffic in it (every transaction type, logs, creations, a failed one), passes conformance with
// fixtures/expectations/geth.json (only geth's documented deviations fail) and a short --fresh gate load with no
// stale read. Its announcement-to-visible figures are the ones docs/load.md sets the grace against.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Devnet, startDevnet } from '../../devnet/index.ts';
import { runConformance } from '../../conformance/framework/runner.ts';
import { loadExpectations } from '../../conformance/framework/expectations.ts';
import { outcomeOf, summarize } from '../../conformance/report/model.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';
import { runLoad } from '../../load/run/run.ts';
import { ALWAYS_ASKED, DEFAULT_GRACE_MS } from '../../load/shared/freshness.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { requireTool } from '../support/tools.ts';

const BLOCK_TIME_S = 1;

describe('geth --dev with a block period (--dev.period 1) and background traffic', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let seededHead: number;

  before(async function () {
    await requireTool(this, 'geth');
    devnet = await startDevnet({ node: 'geth', blockTimeS: BLOCK_TIME_S });
    seededHead = Number(devnet.seed.blocks.multiTx.number);
  });
  after(async () => devnet?.stop());

  const rpc = async (method: string, params: unknown[]): Promise<any> =>
    ((await (await fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result?: unknown }).result;

  it('moves by itself, and the traffic is mined into its blocks', async () => {
    const head = async () => Number(await rpc('eth_blockNumber', []));
    const before = await head();
    // Counting, not timing: a few blocks come, whatever the machine's load.
    const deadline = Date.now() + 30_000;
    while ((await head()) < before + 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await head()).to.be.at.least(before + 3);
    expect(before, 'mined past the seed').to.be.above(seededHead);
    const sent = Object.values(devnet.traffic?.sent ?? {}).reduce((a, n) => a + n, 0);
    expect(sent, 'background transactions accepted').to.be.above(0);
    let mined = 0;
    for (let n = seededHead + 1; n <= before; n++) mined += ((await rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])) as { transactions: unknown[] }).transactions.length;
    expect(mined, 'transactions in the blocks mined since the seed').to.be.above(0);
  });

  it('passes conformance with fixtures/expectations/geth.json: fails only its listed checks, nothing unexplained', async () => {
    const expectations = await loadExpectations('fixtures/expectations/geth.json', checkIds(allSuites));
    const startedAt = Date.now();
    const run = await runConformance({ suites: allSuites, url: devnet.url, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }], expect: expectations });
    const tookS = (Date.now() - startedAt) / 1000;
    const summary = summarize(run.checks, false, run.complete);
    const failed = run.checks.filter((c) => c.verdict === 'fail').map((c) => c.id);
    expect(summary, JSON.stringify(run.checks.filter((c) => c.verdict === 'fail' || c.verdict === 'inconclusive').map((c) => `${c.id}: ${c.reason}`))).to.include({ unexpectedPasses: 0, fatalFailures: 0, verdict: 'pass' });
    expect(expectations.fail.map((e) => e.id), 'every failure is one geth.json lists').to.include.members(failed);
    const unexplained = run.checks.filter((c) => c.verdict === 'fail' && outcomeOf(c, true) !== 'expected').map((c) => `${c.id}: ${c.reason}`);
    expect(unexplained, 'failures their entry does not describe').to.deep.equal([]);
    // A run shorter than a block period can begin and end on one head; one that outlasts two must have seen it move.
    const [headBefore, headAfter] = [Number(run.headBefore?.number ?? NaN), Number(run.headAfter?.number ?? NaN)];
    if (tookS > 2 * BLOCK_TIME_S) expect(headAfter, `the head moved during the ${tookS} s run`).to.be.above(headBefore);
    else expect(headAfter, 'the head never went back').to.be.at.least(headBefore);
  });

  it('passes a 15 s --fresh gate load with no stale read, every method always asked judged', async function () {
    await requireTool(this, 'k6');
    const out = await mkdtemp(join(tmpdir(), 'rc-geth-moving-'));
    // Latency is not what this judges: this busy 2-core machine stalls every request for a second at times (one period's
    // p95 read 1.2 s in a run here; a probe of the same geth gave p95 34-48 ms). The latency limits get 5x slack; the
    // fresh reads are judged as ever.
    const r = await runLoad({ url: devnet.url, profile: 'gate', duration: '15s', rate: 2, fresh: { chased: true, why: '--fresh' }, out, targets: { reverts: devnet.seed.reverts }, slo: { p95Ms: 2500, p99Ms: 5000 }, log: () => undefined });
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
    expect(r.exitCode, r.summary).to.equal(0);
    const methods = report.freshness?.methods ?? {};
    for (const m of ALWAYS_ASKED) expect(methods[m]?.requests, m).to.be.above(3);
    for (const [m, f] of Object.entries(methods)) {
      expect(f.stale, `${m}: ${f.staleSample ?? ''}`).to.equal(0);
      if (f.visibleMs) expect(f.visibleMs.max, `${m} announcement to visible`).to.be.below(DEFAULT_GRACE_MS);
    }
    expect(methods['eth_getTransactionReceipt']?.visibleMs?.count, 'the traffic\'s transactions were chased').to.be.above(2);
    if (process.env['RPC_CERTIFY_SHOW_FRESH']) console.log(JSON.stringify(Object.fromEntries(Object.entries(methods).map(([m, f]) => [m, f.visibleMs]))));
  });
});
