// A judged count behind every verdict (issue 24): a check that compared nothing never passes, and a run whose judged
// share is below --min-judged is INCONCLUSIVE, naming what it could not judge.
import { expect } from 'chai';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnvil, type Anvil } from '../../devnet/anvil.ts';
import type { Devnet } from '../../devnet/index.ts';
import { MethodSuite, type CheckResult, type Layer, type Verdict, checkIds } from '../../conformance/framework/check.ts';
import { runConformance } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { judgedShare, MIN_JUDGED, summarize } from '../../conformance/report/model.ts';
import { loadExpectations } from '../../conformance/framework/expectations.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';
import { cli } from '../support/cli.ts';
import { percentage } from '../../cli/conformance.ts';

const AGREES = ['eth_getTransactionByHash/agrees-with-block', 'eth_getTransactionByBlockNumberAndIndex/agrees-with-hash'];
const byId = (checks: CheckResult[], id: string) => checks.find((c) => c.id === id);

function result(id: string, layer: Layer, verdict: Verdict, extra: Partial<CheckResult> = {}): CheckResult {
  const method = id.split('/')[0]!;
  return { id, method, clause: '§4', layer, title: id, covers: [], verdict, durationMs: 1, evidence: [], ...(verdict === 'pass' ? {} : { reason: `${verdict} of ${id}` }), ...extra };
}

describe('a judged count behind every verdict', function () {
  describe('on a transaction-less chain (bare anvil)', function () {
    let anvil: Anvil;
    let checks: CheckResult[];
    let expectFile: string;
    let dir: string;
    before(async () => {
      anvil = await startAnvil();
      // Its own deviations excused: fixtures/expectations/anvil.json with only the entries a bare chain shows (its blob
      // entries would be unexpected passes here), so that what is left to decide the verdict is what was judged.
      const failing = new Set((await runConformance({ suites: allSuites, url: anvil.url })).checks.filter((c) => c.verdict === 'fail').map((c) => c.id));
      const shipped = JSON.parse(await readFile('fixtures/expectations/anvil.json', 'utf8')) as { fail: Array<{ id: string }> };
      dir = await mkdtemp(join(tmpdir(), 'rc-judged-'));
      expectFile = join(dir, 'bare-anvil.json');
      await writeFile(expectFile, JSON.stringify({ ...shipped, fail: shipped.fail.filter((e) => failing.has(e.id)) }));
      checks = (await runConformance({ suites: allSuites, url: anvil.url, expect: await loadExpectations(expectFile, checkIds(allSuites)) })).checks;
    });
    after(async () => anvil?.stop());

    it('the two agrees-with checks are not a pass: they judged no transaction', () => {
      for (const id of AGREES) {
        const c = byId(checks, id);
        expect(c?.verdict, id).to.equal('skip');
        expect(c?.reason, id).to.match(/^judged nothing: /);
      }
    });

    it('no pass of a block check over receipts or logs the chain does not have; uncle checks are not on this chain', () => {
      for (const id of ['eth_getBlockReceipts/receipt-blooms', 'eth_getBlockReceipts/log-indexes', 'eth_getBlockReceipts/effective-gas-price', 'eth_getBlockReceipts/logs-not-removed', 'eth_getBlockReceipts/receipts-match-txs', 'eth_getBlockByHash/tx-types']) {
        expect(byId(checks, id)?.verdict, id).to.equal('skip');
      }
      for (const id of ['eth_getUncleByBlockNumberAndIndex/uncle-shape', 'eth_getUncleByBlockHashAndIndex/uncle-hash', 'eth_getTransactionReceipt/pre-byzantium-root']) {
        expect(byId(checks, id), id).to.include({ verdict: 'skip', inapplicable: 'history-era' });
        expect(byId(checks, id)?.reason, id).to.match(/proof of stake from its genesis/);
      }
    });

    it('nothing at all is no evidence of absence: the type checks and the estimate at a block stay not judged, never left out as not on this chain', () => {
      for (const id of ['eth_getTransactionByHash/type-0x3-shape', 'eth_getTransactionByHash/type-0x0-shape', 'eth_estimateGas/state-at-block']) {
        expect(byId(checks, id), id).to.deep.include({ verdict: 'skip' });
        expect(byId(checks, id)?.inapplicable, id).to.equal(undefined);
        expect(byId(checks, id)?.reason, id).to.match(/: the walk met no transaction at all in the 1 block\(s\) walked \(0 to 0\)$/);
      }
    });

    it('the run is INCONCLUSIVE below the default floor, naming why; its per-method share shows where', () => {
      const s = summarize(checks, false, true);
      expect(s.verdict).to.equal('inconclusive');
      expect(s.judged.share).to.be.below(MIN_JUDGED);
      expect(s.verdictReason).to.match(/below the --min-judged floor of 90%: not judged: \d+ × no block with several transactions found/);
      const receipts = s.judged.perMethod.find((m) => m.method === 'eth_getTransactionReceipt')!;
      expect(receipts.judged / receipts.of).to.be.below(0.5);
      expect(s.judged.inapplicable.map((c) => c.id)).to.include('eth_getUncleByBlockHashAndIndex/uncle-shape');
      // Left out of the share, not counted against it: every fatal check is either in it or listed as inapplicable.
      expect(s.judged.of + s.judged.inapplicable.length).to.equal(checks.filter((c) => c.layer !== 'advisory').length);
      // A floor the run clears overall is still held per method: receipts, judged in part, keep it inconclusive.
      const lower = summarize(checks, false, true, { minJudged: 0.5 });
      expect(lower.judged.share, 'the overall share clears 50%').to.be.at.least(0.5);
      expect(lower.verdict).to.equal('inconclusive');
      expect(lower.verdictReason).to.match(new RegExp(`judged below the --min-judged floor of 50% for [^:]*eth_getTransactionReceipt \\(${receipts.judged} of ${receipts.of}\\)[^:]*: those methods are not certified by this run`));
    });

    it('the CLI, its own deviations excused: exit 3, INCONCLUSIVE, "no transaction on this chain", JUnit and JSON agree', async function () {
      const file = expectFile;
      const r = await cli(['conformance', '--url', anvil.url, '--expect', file, '--out', dir, '--quiet']);
      expect(r.code, r.err).to.equal(3);
      expect(r.out).to.match(/conformance: INCONCLUSIVE/);
      expect(r.out).to.match(/judged: \d+ of the \d+ fatal checks this chain can have \(\d+(\.\d)?%; --min-judged 90%\) BELOW THE FLOOR/);
      expect(r.out).to.match(/inconclusive: no transaction on this chain within the \d+ block\(s\) walked: judged/);
      const report = JSON.parse(await readFile(join(dir, 'conformance.json'), 'utf8')) as { summary: { verdict: string; judged: { share: number; floor: number } } };
      expect(report.summary.verdict).to.equal('inconclusive');
      expect(report.summary.judged.floor).to.equal(0.9);
      expect(await readFile(join(dir, 'conformance.junit.xml'), 'utf8')).to.match(/<testcase classname="rpc-certify.run" name="judged share \d+\/\d+[^"]*"[^>]*>\s*<failure message="judged: /);
      const lower = await cli(['conformance', '--url', anvil.url, '--expect', file, '--out', dir, '--quiet', '--min-judged', '50%']);
      expect(lower.code, 'a floor it clears overall, not for eth_getTransactionReceipt').to.equal(3);
      expect(lower.out).to.match(/those methods are not certified by this run/);
    });
  });

  describe('the rule is the runner\'s, whatever the check', function () {
    let anvil: Anvil;
    const probe = new MethodSuite('rpc_judgedProbe', 'test/conformance/judged.test.ts');
    probe
      .check({ id: 'rpc_judgedProbe/no-call', clause: { section: '1' }, layer: 'spec', title: 'returns at once' }, async () => {})
      .check({ id: 'rpc_judgedProbe/other-method-only', clause: { section: '1' }, layer: 'spec', title: 'asks another method only' }, async (t) => void (await t.exchange('eth_chainId', [])))
      .check({ id: 'rpc_judgedProbe/empty-list', clause: { section: '1' }, layer: 'spec', title: 'judges an empty list' }, async (t) => {
        await t.exchange('rpc_judgedProbe', []);
        await t.each([], () => t.fail('never'));
      })
      .check({ id: 'rpc_judgedProbe/nested-empty', clause: { section: '1' }, layer: 'spec', title: 'judges lists of empty lists' }, async (t) => {
        await t.exchange('rpc_judgedProbe', []);
        await t.each([[], []], (inner: never[]) => t.each(inner, () => t.fail('never'), 'no item in any block'));
      })
      .check({ id: 'rpc_judgedProbe/declared-none', clause: { section: '1' }, layer: 'spec', title: 'declares zero items judged' }, async (t) => {
        await t.exchange('rpc_judgedProbe', []);
        await t.each([1, 2], () => t.judging(0, 'no log in them'));
      })
      .check({ id: 'rpc_judgedProbe/judges-one', clause: { section: '1' }, layer: 'spec', title: 'judges one item (the control)' }, async (t) => {
        await t.exchange('rpc_judgedProbe', []);
        await t.each([[], [1]], (inner: number[]) => t.each(inner, () => undefined));
      });
    before(async () => {
      anvil = await startAnvil();
    });
    after(async () => {
      await anvil?.stop();
    });

    it('a body that returns without a violation passes only if it judged something', async () => {
      const { checks } = await runConformance({ suites: [probe], url: anvil.url });
      const verdicts = Object.fromEntries(checks.map((c) => [c.id.split('/')[1], `${c.verdict}: ${c.reason ?? ''}`]));
      expect(verdicts).to.deep.equal({
        'no-call': 'skip: judged nothing: no answered call of rpc_judgedProbe',
        'other-method-only': 'skip: judged nothing: no answered call of rpc_judgedProbe (it asked only eth_chainId)',
        'empty-list': 'skip: judged nothing: an empty list',
        'nested-empty': 'skip: judged nothing: no item in any block',
        'declared-none': 'skip: judged nothing: no log in them',
        'judges-one': 'pass: ',
      });
    });
  });

  describe('the other side of a comparison never answers', function () {
    let proxy: FaultProxy;
    let devnet: Devnet;
    faultyDevnet((d, p) => ((devnet = d), (proxy = p)));

    it('eth_getTransactionByHash never answers: neither agrees-with check passes on the seeded chain', async () => {
      proxy.fault = { name: 'stall', kills: [], stall: (req) => (req.method === 'eth_getTransactionByHash' ? 'stall' : undefined) };
      const { checks } = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByHash'], timeoutMs: 400 });
      for (const id of AGREES) expect(byId(checks, id)?.verdict, id).to.equal('inconclusive');
      expect(byId(checks, AGREES[1]!)?.reason).to.match(/leans on eth_getTransactionByHash/);
      // The by-index answers themselves are judged and pass: only the agreement the check states is left open.
      expect(byId(checks, 'eth_getTransactionByBlockNumberAndIndex/every-index')?.verdict).to.equal('pass');
    });

    it('eth_getTransactionByHash serves another copy than the block: agrees-with-hash is inconclusive, never blamed for it', async () => {
      proxy.fault = {
        name: 'by-hash-nonce',
        kills: [],
        rewrite: (req, res) => (req.method === 'eth_getTransactionByHash' && res.result && typeof res.result === 'object' ? { ...res, result: { ...(res.result as object), nonce: '0x7777' } } : res),
      };
      const { checks } = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByHash'] });
      expect(byId(checks, AGREES[1]!)?.verdict).to.equal('inconclusive');
      expect(byId(checks, AGREES[0]!)?.verdict).to.equal('fail');
    });

    it('a genesis header that is not the chain\'s (its fields do not hash to it) is not believed: pre-byzantium-root counts as not judged; the uncle checks are left out on the head alone (past the merge)', async () => {
      proxy.fault = {
        name: 'forged-genesis',
        kills: [],
        rewrite: (req, res) => (req.method === 'eth_getBlockByNumber' && (req.params as unknown[])[0] === '0x0' && res.result && typeof res.result === 'object' ? { ...res, result: { ...(res.result as object), extraData: '0x01' } } : res),
      };
      const { checks } = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getUncleByBlockHashAndIndex', 'eth_getTransactionReceipt'] });
      const preByzantium = byId(checks, 'eth_getTransactionReceipt/pre-byzantium-root');
      expect(preByzantium?.verdict).to.equal('skip');
      expect(preByzantium?.inapplicable).to.equal(undefined);
      const uncles = byId(checks, 'eth_getUncleByBlockHashAndIndex/uncle-shape');
      expect(uncles).to.deep.include({ verdict: 'skip', inapplicable: 'history-era' });
      expect(uncles?.reason).to.match(/the chain is past the merge \(its head 0x[0-9a-f]+ has difficulty 0, its header hashing to its hash\)/);
    });

    it('the embedded default clears the default floor: every fatal check it can have is judged', async () => {
      const expectations = await loadExpectations('fixtures/expectations/embedded.json', checkIds(allSuites));
      const run = await runConformance({ suites: allSuites, url: proxy.url, expect: expectations, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
      const s = summarize(run.checks, false, run.complete, { ...(run.targets ? { targets: run.targets } : {}) });
      expect(s.verdict, s.verdictReason).to.equal('pass');
      expect(s.judged.share).to.equal(1);
      expect(s.judged.inapplicable.map((c) => c.id).sort()).to.deep.equal(['eth_getTransactionByHash/near-head-window', 'eth_getTransactionReceipt/near-head-window', 'eth_getTransactionReceipt/pre-byzantium-root', 'eth_getUncleByBlockHashAndIndex/uncle-hash', 'eth_getUncleByBlockHashAndIndex/uncle-shape', 'eth_getUncleByBlockNumberAndIndex/uncle-hash', 'eth_getUncleByBlockNumberAndIndex/uncle-shape', 'service/after-reorg']);
      for (const id of AGREES) expect(byId(run.checks, id)?.blocks?.whole.length, id).to.equal(run.targets?.judgedBlocks?.length);
    });
  });

  describe('judgedShare()', function () {
    it('judged over applicable, per method; inapplicable skips left out and listed; the rest grouped by reason', () => {
      const checks = [
        ...[1, 2, 3, 4, 5, 6, 7].map((i) => result(`eth_getBlockByHash/p${i}`, 'spec', 'pass')),
        result('eth_getBlockByHash/p8', 'invariant', 'pass'),
        result('eth_getTransactionReceipt/s1', 'spec', 'skip', { reason: 'no transaction found on this endpoint' }),
        result('eth_getTransactionReceipt/s2', 'spec', 'skip', { reason: 'no transaction found on this endpoint' }),
        result('eth_getTransactionReceipt/i', 'spec', 'skip', { reason: 'no transaction with logs found' }),
        result('eth_getUncleByBlockHashAndIndex/u', 'spec', 'skip', { reason: 'no uncles after the merge', inapplicable: 'history-era' }),
        result('service/a', 'advisory', 'skip', { reason: 'advisory, not counted' }),
      ];
      const j = judgedShare(checks, false);
      expect(j).to.include({ judged: 8, of: 11, floor: MIN_JUDGED });
      expect(j.perMethod).to.deep.equal([
        { method: 'eth_getBlockByHash', judged: 8, of: 8, leftOut: 0 },
        { method: 'eth_getTransactionReceipt', judged: 0, of: 3, leftOut: 0 },
        { method: 'eth_getUncleByBlockHashAndIndex', judged: 0, of: 0, leftOut: 1 },
      ]);
      expect(j.inapplicable).to.deep.equal([{ id: 'eth_getUncleByBlockHashAndIndex/u', reason: 'no uncles after the merge', premise: 'history-era' }]);
      expect(j.notJudged[0]).to.deep.equal({ reason: 'no transaction found on this endpoint', verdict: 'skip', checks: ['eth_getTransactionReceipt/s1', 'eth_getTransactionReceipt/s2'] });
      expect(summarize(checks, false, true).verdict, '8 of 11 is below 90%').to.equal('inconclusive');
      const overall = summarize(checks, false, true, { minJudged: 0.72 });
      expect(overall.verdict, 'a floor it clears overall, but not for eth_getTransactionReceipt (0 of 3)').to.equal('inconclusive');
      expect(overall.verdictReason).to.equal('judged below the --min-judged floor of 72% for eth_getTransactionReceipt (0 of 3): those methods are not certified by this run');
      expect(summarize(checks, false, true, { minJudged: 0 }).verdict, 'a method judged not at all, whatever the floor').to.equal('inconclusive');
      const certified = checks.filter((c) => c.method !== 'eth_getTransactionReceipt');
      expect(summarize(certified, false, true).verdict, 'every method it judges clears the floor').to.equal('pass');
      expect(judgedShare(checks, true).of, 'under --strict the advisory skip counts').to.equal(12);
    });

    it('a failure stands below the floor; a run that judged everything it can have passes whatever it could not have', () => {
      const fail = [result('eth_getBlockByHash/f', 'spec', 'fail'), result('eth_getBlockByHash/s', 'spec', 'skip')];
      expect(summarize(fail, false, true).verdict).to.equal('fail');
      const clean = [result('eth_getBlockByHash/p', 'spec', 'pass'), result('eth_getBlockByHash/u', 'spec', 'skip', { inapplicable: 'history-era' })];
      expect(summarize(clean, false, true)).to.deep.include({ verdict: 'pass' });
    });

    it('a run that judged no fatal check never passes, whatever --min-judged says and even when the chain can have none', () => {
      const skipped = [result('eth_getBlockByHash/s', 'spec', 'skip', { reason: 'no block found' }), result('eth_getBlockByHash/a', 'advisory', 'pass')];
      const zero = summarize(skipped, false, true, { minJudged: 0 });
      expect(zero.verdict, '--min-judged 0, 0 of 1 judged').to.equal('inconclusive');
      expect(zero.verdictReason).to.match(/judged none of the 1 fatal checks this chain can have/);
      const none = summarize([result('eth_getUncleByBlockHashAndIndex/u', 'spec', 'skip', { inapplicable: 'history-era' }), result('eth_getBlockByHash/a', 'advisory', 'pass')], false, true);
      expect(none.judged).to.include({ judged: 0, of: 0 });
      expect(none.verdict, 'everything fatal was not on this chain: nothing was judged').to.equal('inconclusive');
      expect(summarize([result('eth_getBlockByHash/p', 'spec', 'pass')], false, true, { minJudged: 0 }).verdict, 'one judged').to.equal('pass');
    });

    it('--min-judged: a fraction under 1 without its % sign is refused (0.9 is not 90%), with it a floor under 1%', async () => {
      expect(percentage('0.9%', '--min-judged')).to.be.closeTo(0.009, 1e-12);
      expect(percentage('0', '--min-judged')).to.equal(0);
      expect(percentage('1', '--min-judged')).to.equal(0.01);
      expect(() => percentage('0.9', '--min-judged')).to.throw(/got "0.9": for a floor under 1% write it with the sign \(0.9%\)/);
      const r = await cli(['conformance', '--url', 'http://127.0.0.1:9/v3/judged-test-key-0001', '--min-judged', '0.9']);
      expect(r.code).to.equal(2);
    });

    it('--min-judged takes a percentage, 0 to 100', async () => {
      for (const bad of ['x', '101', '-1', '0.9.1', '', '0.5']) {
        const r = await cli(['conformance', '--url', 'http://127.0.0.1:9/v3/judged-test-key-0001', `--min-judged=${bad}`]);
        expect(r.code, bad).to.equal(2);
        expect(r.err, bad).to.match(/--min-judged takes a percentage from 0 to 100/);
      }
    });
  });
});
