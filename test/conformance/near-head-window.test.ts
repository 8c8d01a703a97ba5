// §8's near-head window (issue 23, part 2): on a network that declares one, eth_getTransactionReceipt and
// eth_getTransactionByHash serve only the latest N blocks. Over the embedded default lengthened by 40 blocks of one
// transfer each, behind a fault that forgets the two methods' answers older than 24 blocks: a declared window of 24
// keeps every target inside and passes, the lookups older than it listed, not judged; a declared 32 fails, the method
// named; with no window declared the old lookups fail as they always did.
import { expect } from 'chai';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { runConformance, type RunResult } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { assembleReport } from '../../conformance/report/assemble.ts';
import { formatSummary } from '../../conformance/report/index.ts';
import { reportFaults } from '../../conformance/report/json.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { servedWindow } from '../support/faults.ts';
import { sampleCorpus } from '../../load/plan/sample.ts';
import { cli } from '../support/cli.ts';
import { nodeRpc, transferBlocks } from '../support/node-rpc.ts';

const METHODS = ['eth_getTransactionByHash', 'eth_getTransactionReceipt'] as const;
const WINDOW_IDS = METHODS.map((m) => `${m}/near-head-window`);
const SERVED = 24;
const byId = (r: RunResult, id: string) => r.checks.find((c) => c.id === id);
const failures = (r: RunResult) => r.checks.filter((c) => c.verdict === 'fail' && c.layer !== 'advisory').map((c) => `${c.id}: ${c.reason}`);

describe('the near-head window of §8: declared, judged inside, listed outside', function () {
  let devnet: Devnet;
  let proxy: FaultProxy;
  /** A lock of the seeded chain's targets, written before the chain grew: all of them older than the window now. */
  let oldLock: string;
  const rpc = nodeRpc(() => devnet.nodeUrl);
  const run = (nearHeadWindow: number | undefined, extra: { targetsFile?: string } = {}) =>
    runConformance({ suites: allSuites, url: proxy.url, methods: [...METHODS], ...(nearHeadWindow ? { nearHeadWindow } : {}), ...extra, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });

  before(async function () {
    devnet = await startDevnet();
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
    const seeded = await run(undefined);
    oldLock = join(await mkdtemp(join(tmpdir(), 'rpc-certify-')), 'targets.lock.json');
    await writeFile(oldLock, JSON.stringify({ ...seeded.targets, reverts: [] }));
    // 40 blocks above the seed, one transfer each: the seeded blocks fall 40 and more below the head.
    await transferBlocks(rpc, 40);
    proxy.fault = { name: `lookups by hash served for the latest ${SERVED} blocks only`, kills: [], rewrite: servedWindow(SERVED) };
  });

  after(async function () {
    await proxy?.stop();
    await devnet?.stop();
  });

  it('no window declared: the old lookups must work as ever, so the forgetful endpoint fails; the window checks are not on this chain', async function () {
    const r = await run(undefined);
    expect(r.nearHeadWindow).to.equal(undefined);
    expect(failures(r).some((f) => /returned null/.test(f)), failures(r).join('\n')).to.equal(true);
    for (const id of WINDOW_IDS) expect(byId(r, id), id).to.deep.include({ verdict: 'skip', inapplicable: 'no-window' });
    expect(r.checks.some((c) => c.archive), 'no archive lookup without a window').to.equal(false);
  });

  it(`declared ${SERVED} blocks, served ${SERVED}: every target inside, no failure; the lookups older than the window are listed as archive not served, not judged`, async function () {
    const r = await run(SERVED);
    expect(r.nearHeadWindow).to.deep.equal({ blocks: SERVED, from: '--near-head-window' });
    expect(failures(r)).to.deep.equal([]);
    const head = BigInt(r.headBefore!.number);
    // Discovery walked the window less its margin (a quarter): no target it found is near the edge.
    expect(BigInt(r.targets!.scanned.from) > head - BigInt(SERVED) + 1n, `walked from ${r.targets!.scanned.from}`).to.equal(true);
    for (const id of WINDOW_IDS) {
      const c = byId(r, id)!;
      expect(c.verdict, `${id}: ${c.reason}`).to.equal('pass');
      expect(c.archive, id).to.deep.include({ answer: 'null' });
      expect(BigInt(c.archive!.block) <= head - BigInt(SERVED), `${id}: the archive lookup is older than the window`).to.equal(true);
      expect(c.note).to.match(/archive lookup \(not judged\): .*older than the window: null: archive not served/);
    }
    const report = assembleReport(r, { strict: false });
    expect(report.summary.archive?.map((a) => [a.method, a.answer])).to.deep.equal(METHODS.map((m) => [m, 'null']));
    expect(report.summary.fatalFailures).to.equal(0);
    expect(reportFaults(report), 'conformance.json holds to its schema').to.deep.equal([]);
    const text = formatSummary(report, { json: 'j', junit: 'x', html: 'h' });
    expect(text).to.include(`near-head window (§8): ${SERVED} blocks (--near-head-window); lookups older than it, not judged: eth_getTransactionByHash at depth`);
    expect(text).to.match(/eth_getTransactionReceipt at depth \d+ \(null: archive not served\)/);
  });

  it(`declared 32 blocks, served ${SERVED}: "window smaller than declared" fails each method, named; the older lookups are still only listed`, async function () {
    const r = await run(32);
    for (const [i, id] of WINDOW_IDS.entries()) {
      const c = byId(r, id)!;
      expect(c.verdict, id).to.equal('fail');
      expect(c.reason).to.match(new RegExp(`^window smaller than declared: ${METHODS[i]} answered null for transaction 0x[0-9a-f]{64} of block \\d+, 31 blocks below the head \\d+, inside the declared near-head window of 32 blocks \\(--near-head-window\\)`));
      expect(c.archive, id).to.deep.include({ answer: 'null' });
    }
  });

  it('targets older than a declared window (an old lockfile): their nulls are archive not served, inconclusive and named, never failed', async function () {
    const r = await run(SERVED, { targetsFile: oldLock });
    expect(failures(r)).to.deep.equal([]);
    const doubted = r.checks.filter((c) => c.verdict === 'inconclusive');
    expect(doubted.length).to.be.greaterThan(0);
    for (const c of doubted) expect(c.reason, c.id).to.match(/no longer all inside the declared near-head window of 24 blocks \(--near-head-window\) at head \d+: archive not served, not judged/);
  });

  it(`load sampling: declared ${SERVED}, the two lookups' hits are all a quarter of the window clear of its edge and none is a finding; with none declared, the old ones are findings`, async function () {
    const sample = (nearHeadWindow?: number) => sampleCorpus({ url: proxy.url, seed: 1, missShare: 0.1, methods: METHODS, ...(nearHeadWindow ? { nearHeadWindow } : {}) });
    const none = await sample();
    expect(METHODS.flatMap((m) => none.sampling[m]?.findings ?? []).length, 'nulls for old transactions, without a window').to.be.greaterThan(0);
    const declared = await sample(SERVED);
    const head = BigInt(declared.head);
    for (const m of METHODS) {
      expect(declared.sampling[m]?.findings, m).to.deep.equal([]);
      const hits = declared.entries[m].filter((e) => e.kind === 'hit');
      expect(hits.length, m).to.be.greaterThan(0);
      for (const e of hits) {
        const tx = await rpc<{ blockNumber: string }>('eth_getTransactionByHash', e.params);
        expect(BigInt(tx.blockNumber) >= head - BigInt(SERVED) + 1n + BigInt(SERVED / 4), `${m}: block ${BigInt(tx.blockNumber)}, head ${head}`).to.equal(true);
      }
    }
  });

  it('--near-head-window takes a positive whole number, for conformance and load alike (exit 2, naming the flag)', async function () {
    for (const command of ['conformance', 'load']) {
      const r = await cli([command, '--url', 'http://127.0.0.1:9/v3/nhw7-test-key-0001', '--near-head-window', '0']);
      expect(r.code, `${command}: ${r.err}`).to.equal(2);
      expect(r.err, command).to.include('--near-head-window takes a positive whole number, got "0"');
    }
  });
});
