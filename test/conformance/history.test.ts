// History by depth on a pruned endpoint: the embedded default in pruned mode (devnet --serve-latest 64: error 4444
// beyond the latest 64 blocks, and eth_capabilities declaring that window). Without a declared near-head window the
// run fails, each failure naming the history pruned and the depth the history checks found; with
// --near-head-window 64 it passes; the history checks find the depth and judge it against eth_capabilities.
import { expect } from 'chai';
import { type Devnet, startDevnet } from '../../devnet/index.ts';
import { runConformance, type RunResult } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { summarize } from '../../conformance/report/model.ts';
import { historyLines, windowLine } from '../../conformance/report/text.ts';
import { assembleReport } from '../../conformance/report/assemble.ts';
import { reportFaults } from '../../conformance/report/json.ts';
import { formatSummary } from '../../conformance/report/index.ts';
import { renderHtml } from '../../conformance/report/html.ts';
import { loadExpectations } from '../../conformance/framework/expectations.ts';
import { checkIds } from '../../conformance/framework/check.ts';
import { HISTORY_RESOURCES } from '../../core/history.ts';
import { FaultProxy } from '../support/fault-proxy.ts';

describe('history by depth: an endpoint serving only the latest 64 blocks', function () {
  let devnet: Devnet;
  let undeclared: RunResult;
  let declared: RunResult;
  let head: number;

  before(async function () {
    devnet = await startDevnet({ serveLatest: 64 });
    const expect = await loadExpectations('fixtures/expectations/embedded.json', checkIds(allSuites));
    const settings = { suites: allSuites, url: devnet.url, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' as const }], expect };
    undeclared = await runConformance(settings);
    declared = await runConformance({ ...settings, nearHeadWindow: 64 });
    head = Number(BigInt(devnet.seed.blocks.multiTx.number));
  });
  after(async () => devnet?.stop());

  const byId = (r: RunResult, id: string) => r.checks.find((c) => c.id === id);

  it('the history checks find the depth exactly, name error 4444 pruned, and judge it against eth_capabilities (a window of 64)', () => {
    for (const resource of ['blocks', 'state'] as const) {
      const c = byId(undeclared, `history/${resource}`)!;
      expect(c.verdict, `${resource}: ${c.reason}`).to.equal('pass');
      expect(c.history, resource).to.deep.include({ oldestServed: head - 63, newestPruned: head - 64, exact: true });
      expect(c.history?.prunedAnswer).to.match(/^pruned \(error 4444: /);
      expect(c.history?.declared?.from).to.match(/^eth_capabilities \(oldestBlock \d+, a window of 64 blocks/);
    }
    // The seed's transactions are all among the latest 64 blocks, the empty blocks below them: the boundary lies
    // somewhere in that empty stretch, bracketed, with the pruned block the newest asked below it.
    for (const resource of ['transactions', 'receipts'] as const) {
      const c = byId(undeclared, `history/${resource}`)!;
      expect(c.verdict, `${resource}: ${c.reason}`).to.equal('pass');
      expect(c.history?.oldestServed, resource).to.be.at.least(head - 9);
      expect(c.history?.newestPruned, resource).to.be.below(head - 63);
      expect(c.history?.prunedAnswer, resource).to.match(/^its block not served: pruned \(error 4444: /);
    }
  });

  it('without a declared near-head window the run fails, and each failure on pruned history says so with the depth served', () => {
    const summary = summarize(undeclared.checks, false, undeclared.complete);
    expect(summary.verdict).to.equal('fail');
    const failed = undeclared.checks.filter((c) => c.verdict === 'fail' && !c.expectation);
    expect(failed.length).to.be.greaterThan(0);
    // Each names the depth of the history its method reads (eth_getBlockReceipts: receipts; the others: blocks).
    for (const c of failed) expect(c.reason, c.id).to.match(c.method === 'eth_getBlockReceipts' ? /error 4444: .* \[pruned history: the endpoint serves receipts: .*; block \d+: its block not served: pruned .*\(history\/receipts\)\]$/ : /error 4444: .* \[pruned history: the endpoint serves blocks: the latest 64 blocks \(oldest served \d+; block \d+: pruned .*\(history\/blocks\)\]$/);
    const lines = historyLines({ checks: undeclared.checks } as never);
    expect(lines.join('\n')).to.match(/blocks: the latest 64 blocks \(oldest served \d+; block \d+: pruned \(error 4444: [^)]*\)\); as declared: eth_capabilities/);
  });

  it('the reports carry the depths: conformance.json validates, the terminal and the HTML say what is served', () => {
    const report = assembleReport(undeclared, { strict: false });
    expect(reportFaults(report)).to.deep.equal([]);
    const text = formatSummary(report, { json: 'conformance.json', junit: 'conformance.junit.xml', html: 'conformance.html' });
    expect(text).to.match(/history served \(found by a search over heights[^\n]*\n {4}blocks: the latest 64 blocks/);
    expect(renderHtml(report)).to.match(/state: the latest 64 blocks \(oldest served \d+; block \d+: pruned \(error 4444: [^<]*as declared: eth_capabilities/);
  });

  it('with --near-head-window 64 declared it passes: what is older than the window is archive, answered pruned, left out of the judged share', () => {
    const summary = summarize(declared.checks, false, declared.complete);
    expect(summary.verdict, summary.verdictReason).to.equal('pass');
    const archive = summary.judged.inapplicable.filter((c) => c.premise === 'archive');
    expect(archive.map((c) => c.id)).to.include('eth_getBlockReceipts/tag-earliest');
    for (const c of archive) expect(c.reason).to.match(/older than the declared near-head window of 64 blocks .*read as serving no archive \(§8: "archive requests are unavailable"\), not judged$/);
    expect(windowLine({ run: { nearHeadWindow: { blocks: 64, from: '--near-head-window' } }, summary: {}, checks: declared.checks } as never)).to.match(/; \d+ check\(s\) whose lookup by number older than it was answered pruned, left out as archive: .*eth_getBlockReceipts\/tag-earliest/);
    for (const resource of ['transactions', 'receipts'] as const) expect(byId(declared, `history/${resource}`)?.history?.declared?.from, resource).to.match(/^eth_capabilities|^the near-head window of 64 blocks/);
  });

  it('sold as archive (--archive): every kind of history is declared kept from genesis, and each check fails on the pruned depth', async () => {
    const r = await runConformance({ suites: allSuites, url: devnet.url, methods: ['history'], archive: true });
    for (const resource of HISTORY_RESOURCES) {
      const c = byId(r, `history/${resource}`)!;
      expect(c.verdict, resource).to.equal('fail');
      expect(c.reason).to.match(/^served shallower than declared: block \d+ answered .*pruned.*, though --archive \(all history kept from genesis\) declares \w+ kept from block 0; served: /);
    }
  });

  it('a window declared larger than what is served fails the history checks, naming both', async () => {
    const r = await runConformance({ suites: allSuites, url: devnet.url, methods: ['history'], nearHeadWindow: 100 });
    for (const resource of ['transactions', 'receipts']) {
      const c = byId(r, `history/${resource}`)!;
      expect(c.verdict, resource).to.equal('fail');
      expect(c.reason).to.match(/^served shallower than declared: block \d+ answered .*pruned.* the near-head window of 100 blocks \(--near-head-window\) declares/);
    }
    for (const resource of HISTORY_RESOURCES) expect(byId(r, `history/${resource}`)?.history?.oldestServed, resource).to.be.a('number');
  });
});

describe('history by depth: a window declared larger than the chain', function () {
  let devnet: Devnet;
  before(async () => {
    devnet = await startDevnet();
  });
  after(async () => devnet?.stop());

  it('is the whole chain: the embedded default (all of its history kept, as its eth_capabilities says) passes', async () => {
    const r = await runConformance({ suites: allSuites, url: devnet.url, methods: ['history'], nearHeadWindow: 1000 });
    for (const resource of HISTORY_RESOURCES) {
      const c = r.checks.find((x) => x.id === `history/${resource}`)!;
      expect(c.verdict, `${resource}: ${c.reason}`).to.equal('pass');
      expect(c.history?.declared?.oldestBlock, resource).to.equal(0);
      expect(c.history?.newestPruned, resource).to.equal(undefined);
    }
    expect(r.checks.find((x) => x.id === 'history/receipts')?.history?.declared?.from).to.equal('the near-head window of 1000 blocks (--near-head-window)');
  });
});

describe('history by depth: an honest pruned endpoint on a moving chain, 200 ms away', function () {
  let devnet: Devnet;
  let proxy: FaultProxy;
  before(async () => {
    devnet = await startDevnet({ serveLatest: 32, blockTimeS: 1 });
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
    // Every answer 200 ms late: blocks are mined between the head's read and the answers (red team H2).
    proxy.fault = { name: '200 ms away', kills: [], serveAnyKey: false, rewrite: async (_req, res) => new Promise((resolve) => setTimeout(() => resolve(res), 200)) };
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
  });

  it('passes: a height that left the window while it was asked is no failure', async () => {
    const r = await runConformance({ suites: allSuites, url: proxy.url, methods: ['history'] });
    for (const c of r.checks) expect(c.verdict, `${c.id}: ${c.reason}`).to.be.oneOf(['pass', 'skip']);
    expect(r.checks.find((c) => c.id === 'history/blocks')?.verdict).to.equal('pass');
  });
});

describe('history by depth: a short API key inside the depths\' own field names', function () {
  let devnet: Devnet;
  before(async () => {
    // "stServ" is in oldestServed and in no other word of the report, nor in any text a test reads: the redaction
    // registry of a test worker outlives this file.
    devnet = await startDevnet({ apiKey: 'stServ' });
  });
  after(async () => devnet?.stop());

  it('is redacted from what the endpoint said, never from the report\'s own words: the depths\' keys and values stay valid', async () => {
    const r = await runConformance({ suites: allSuites, url: devnet.url, methods: ['history'] });
    const report = assembleReport(r, { strict: false });
    expect(reportFaults(report)).to.deep.equal([]);
    for (const c of r.checks) expect(c.history, c.id).to.include.keys('resource', 'head', 'exact', 'probes');
    expect(r.checks.map((c) => c.history?.resource)).to.deep.equal([...HISTORY_RESOURCES]);
  });
});
