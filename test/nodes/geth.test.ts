// geth --dev as the second real client: seeded like the embedded anvil, behind the gateway in raw mode
// (every answer geth's own), and certified by the suite: it fails exactly the checks of
// fixtures/expectations/geth.json and skips only what a dev chain cannot hold.
import { expect } from 'chai';
import { type Devnet, startDevnet } from '../../devnet/index.ts';
import { runConformance, type RunResult } from '../../conformance/framework/runner.ts';
import { type Expectations, loadExpectations } from '../../conformance/framework/expectations.ts';
import { outcomeOf, summarize } from '../../conformance/report/model.ts';
import { requireTool } from '../support/tools.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';
import type { Answer } from '../support/answer.ts';


describe('geth --dev, seeded, certified as it is', function () {
  let devnet: Devnet;
  let run: RunResult;
  let expectations: Expectations;

  before(async function () {
    await requireTool(this, 'geth');
    expectations = await loadExpectations('fixtures/expectations/geth.json', checkIds(allSuites));
    devnet = await startDevnet({ node: 'geth' });
    run = await runConformance({ suites: allSuites, url: devnet.url, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }], expect: expectations });
  });
  after(async () => devnet?.stop());

  const rpc = async (method: string, params: unknown[], url = devnet.url): Promise<Answer> =>
    (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as Answer;

  it('holds every transaction type 0x0-0x4, creations, logs, a failed tx, an empty block with a withdrawal and a multi-tx head block', async () => {
    const { byType, failed, creation, withLogs } = devnet.seed.txs;
    expect(Object.keys(byType).sort()).to.deep.equal(['0x0', '0x1', '0x2', '0x3', '0x4']);
    expect(devnet.seed.skipped).to.deep.equal([]);
    for (const [type, hash] of Object.entries(byType)) expect((await rpc('eth_getTransactionByHash', [hash])).result.type, type).to.equal(type);
    expect((await rpc('eth_getTransactionReceipt', [failed])).result.status).to.equal('0x0');
    expect((await rpc('eth_getTransactionReceipt', [creation])).result.contractAddress).to.be.a('string');
    expect((await rpc('eth_getTransactionReceipt', [withLogs])).result.logs.length).to.be.greaterThan(1);
    const empty = (await rpc('eth_getBlockByHash', [devnet.seed.blocks.empty.hash, false])).result;
    expect(empty.transactions).to.deep.equal([]);
    expect(empty.withdrawals).to.have.length(1);
    const head = (await rpc('eth_getBlockByHash', [devnet.seed.blocks.multiTx.hash, true])).result;
    expect(head.transactions.length).to.be.at.least(4);
    expect(new Set(head.transactions.map((t: { type: string }) => t.type)).size).to.be.at.least(3);
  });

  it('eth_capabilities is read and judged: each kind of history served from genesis, as geth declares it kept', () => {
    for (const resource of ['blocks', 'transactions', 'receipts', 'state']) {
      const c = run.checks.find((x) => x.id === `history/${resource}`);
      expect(c?.verdict, `${resource}: ${c?.reason}`).to.equal('pass');
      expect(c?.history?.declared?.from, resource).to.match(/^eth_capabilities \(oldestBlock 0/);
      expect(c?.history?.newestPruned, `${resource}: nothing pruned on a chain this short`).to.equal(undefined);
    }
  });

  it('the gateway adds only the /v3/<key> shape: a wrong key is refused, answers are geth\'s own', async () => {
    expect((await fetch(`${devnet.baseUrl}/v3/wrong`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).to.equal(401);
    const [viaGateway, direct] = await Promise.all([rpc('eth_getBlockReceipts', ['pending']), rpc('eth_getBlockReceipts', ['pending'], devnet.nodeUrl)]);
    expect(viaGateway).to.deep.equal(direct);
    expect((await rpc('web3_clientVersion', [])).result).to.match(/^Geth\/v1\.17\.8/);
  });

  it('the coverage matrix finds every target class a dev chain holds, names the two it cannot (uncles, pre-Byzantium receipts) absent, and judges every block', () => {
    const coverage = run.targets!.coverage ?? {};
    const absent = Object.entries(coverage).filter(([, e]) => e.status !== 'found').map(([k, e]) => `${k}:${e.status}`).sort();
    expect(absent).to.deep.equal(['preByzantiumTx:absent', 'uncleBlock:absent']);
    for (const cls of ['txByType.0x0', 'txByType.0x1', 'txByType.0x2', 'txByType.0x3', 'txByType.0x4', 'contractCreation', 'txWithLogs', 'failedTx', 'emptyBlock', 'withdrawalsBlock', 'multiTxBlock']) expect(coverage[cls]?.status, cls).to.equal('found');
    const judged = run.targets!.judgedBlocks ?? [];
    expect(judged.map((b) => Number(b.number)).sort((a, b) => a - b), 'every block of the seeded chain is judged').to.deep.equal([...Array(Number(run.headBefore!.number) + 1).keys()]);
    expect(new Set(judged.map((b) => b.era))).to.deep.equal(new Set(Object.keys(run.targets!.eraBlocks ?? {})));
  });

  it('passes with fixtures/expectations/geth.json: fails only its listed checks, skips only what a dev chain cannot hold', () => {
    const ids = (v: string) => run.checks.filter((c) => c.verdict === v).map((c) => c.id).sort();
    expect(ids('fail'), 'failures').to.deep.equal(expectations.fail.map((e) => e.id).sort());
    expect(ids('skip'), 'skips').to.deep.equal(expectations.skip.map((e) => e.id).sort());
    expect(ids('inconclusive'), 'inconclusive').to.deep.equal([]);
    const summary = summarize(run.checks, false, run.complete);
    expect(summary).to.include({ unexpectedPasses: 0, fatalFailures: 0, verdict: 'pass' });
    // The targets a dev chain cannot hold are not on this chain (left out of the judged share); the sum of a
    // totalDifficulty geth does not serve is a skip that counts against the share: the chain has one.
    const served = ['eth_getBlockByHash/total-difficulty-sum'];
    expect(summary.judged.inapplicable.map((c) => c.id).sort(), 'not on this chain').to.deep.equal(expectations.skip.map((e) => e.id).filter((id) => !served.includes(id)).sort());
    expect(summary.judged.notJudged.flatMap((g) => g.checks), 'not judged').to.deep.equal(served);
    expect(summary.judged.share, 'the judged share clears the default --min-judged floor').to.be.at.least(summary.judged.floor);
    // Each failure, advisory ones too (--strict), is the deviation its entry describes: every violation matches.
    const unexplained = run.checks.filter((c) => c.verdict === 'fail' && outcomeOf(c, true) !== 'expected').map((c) => `${c.id}: ${c.reason}`);
    expect(unexplained, 'failures their entry does not describe').to.deep.equal([]);
  });
});
