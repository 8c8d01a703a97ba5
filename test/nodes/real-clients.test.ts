// hardhat 2 and ganache 7 from npm: real clients that deviate from the service spec in documented ways
// (docs/clients.md). Each is started, seeded and certified as it is: the verdict must be FAIL on its documented
// deviations, never PASS; the load smoke must name the methods it does not serve; and its --expect file must make
// a --strict run pass only because of its entries, every one of which is needed.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedChain, type SeedInfo } from '../../devnet/seed.ts';
import type { NodeProcess } from '../../devnet/process.ts';
import { runConformance, type RunResult } from '../../conformance/framework/runner.ts';
import { type Expectations, expectationFor, loadExpectations } from '../../conformance/framework/expectations.ts';
import { summarize } from '../../conformance/report/model.ts';
import { cli } from '../support/cli.ts';
import { type Fault, FaultProxy } from '../support/fault-proxy.ts';
import { faultCatalogue } from '../support/faults.ts';
import { robustnessFaults } from '../support/faults-robustness.ts';
import { type Client, startClient } from '../support/clients.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';
import type { Answer } from '../support/answer.ts';


interface ClientCase {
  client: Client;
  /** Seed steps the node cannot do, as the seed reports them. */
  skipped: string[];
  /** Documented deviations: check id -> what its failure must say. */
  fails: Record<string, RegExp>;
  /** Checks that pass although facts.md (or a guess) would have them fail: how the suite judges them, pinned. */
  passes: string[];
  /** Checks whose premise needs a fork this chain's era is before: skipped as not on this chain, the reason naming the era. */
  notOnThisChain: Record<string, RegExp>;
  /** Methods it does not serve: the conformance summary names them first (NOT SERVED), the load smoke finds them too. */
  notServed: string[];
  /** What sampling must report besides (each a reason the load run fails). */
  loadFindings: RegExp[];
  /** Faults of the catalogue that are this client's own documented deviation: its --expect file excuses them, rightly. */
  ownDeviations: Record<string, string>;
  /**
   * Faults a run with its --expect file still passes, wrongly: open red-team findings, each pinned as still open (a fix
   * that closes one fails this test until it is taken out, like an unexpected pass under --expect).
   */
  openFindings?: Record<string, string>;
}

/** Catalogue runs at once in a sweep. */
const SWEEP_WORKERS = 4;

/** The fault, counting the answers it changed: one that changed none did not apply to this client. */
function counted(f: Fault): { fault: Fault; count: () => number } {
  let n = 0;
  const fault: Fault = { ...f };
  if (f.rewrite) {
    const rewrite = f.rewrite;
    fault.rewrite = async (req, res, ctx) => {
      const before = JSON.stringify(res);
      const after = await rewrite(req, res, ctx);
      if (JSON.stringify(after) !== before) n++;
      return after;
    };
  }
  if (f.raw) {
    const raw = f.raw;
    fault.raw = (req, res) => {
      const reply = raw(req, res);
      if (reply) n++;
      return reply;
    };
  }
  if (f.rawRequest) {
    const rawRequest = f.rawRequest;
    fault.rawRequest = (text) => {
      const reply = rawRequest(text);
      if (reply) n++;
      return reply;
    };
  }
  return { fault, count: () => n };
}

const cases: ClientCase[] = [
  {
    client: 'hardhat',
    skipped: [],
    fails: {
      'eth_getBlockReceipts/receipts-in-order': /-32004: Method eth_getBlockReceipts is not supported/,
      'eth_getBlockReceipts/pending-equals-latest': /-32004: Method eth_getBlockReceipts is not supported/,
      'eth_estimateGas/revert-contracts': /a REVERT must be error code 3/,
      'eth_estimateGas/revert-initcode': /a REVERT must be error code 3/,
      'eth_getUncleByBlockNumberAndIndex/null-no-uncle': /-32004: Method eth_getUncleByBlockNumberAndIndex is not supported/,
      'eth_getUncleByBlockHashAndIndex/null-no-uncle': /-32004: Method eth_getUncleByBlockHashAndIndex is not supported/,
      'eth_getBlockByHash/block-size': /size is not the length of the block's encoding/,
      'eth_getBlockByHash/transactions-root': /in 1 of \d+ blocks judged: block 0 \(genesis\)/,
      'service/notification': /got a body/,
      'service/batch-empty': /got \[\]/,
      'service/unknown-method': /-32601/,
    },
    // jsonrpc-version: facts.md says hardhat serves a missing or "1.0" jsonrpc; 2.28.6 rejects both (-32600).
    // yParity is left off typed transactions and chainId off legacy ones: the service spec lists v, and chainId
    // "only for EIP-1559 transactions" (§2.3), so shape and signature checks pass on v.
    // Its chain is Prague-era (osaka), so the set-code estimate is judged, and passes; it refuses a null and an object id (-32600, id null), echoes 1.5, and refuses the flag "true".
    passes: ['service/jsonrpc-version', 'eth_getTransactionReceipt/committed-receipts', 'eth_getTransactionByHash/type-0x0-shape', 'eth_getTransactionByHash/type-0x2-shape', 'eth_getTransactionByHash/signature', 'eth_getTransactionByHash/signed-hash', 'eth_estimateGas/set-code-call-fields', 'eth_getTransactionByHash/type-0x4-shape', 'service/id-null', 'service/id-object', 'service/id-fractional', 'eth_getBlockByHash/robust-flag-string', 'eth_getTransactionReceipt/blob-fields-blob-only'],
    notOnThisChain: {},
    notServed: ['eth_getUncleByBlockNumberAndIndex', 'eth_getUncleByBlockHashAndIndex', 'eth_getBlockReceipts'],
    loadFindings: [/sampling found eth_estimateGas: \d+ revert entr(y|ies) answered rpc_error -32603/],
    ownDeviations: {
      // Its decimal checks fail on their first call, by hex: the one answer the fault changes is the uppercase-hex robustness call's, to an error it may get.
      'block receipts: decimal block numbers rejected': 'eth_getBlockReceipts is not served',
      // The latest-not-behind probes ask it by block hash (outside the spec, ignored when not answered): the fault turns that error into another.
      'block receipts: a block hash parameter rejected': 'eth_getBlockReceipts is not served',
    },
  },
  {
    client: 'ganache',
    skipped: ['EIP-7702 transaction (type 0x4)', 'EIP-4844 blob transaction (type 0x3)'],
    fails: {
      'eth_getBlockReceipts/receipts-in-order': /-32700: The method eth_getBlockReceipts does not exist/,
      'eth_getBlockReceipts/pending-equals-latest': /-32700: The method eth_getBlockReceipts does not exist/,
      'eth_estimateGas/revert-contracts': /a REVERT must be error code 3/,
      'eth_estimateGas/chain-revert': /a REVERT must be error code 3/,
      'eth_getTransactionByBlockNumberAndIndex/null-out-of-range': /-32700: Cannot read properties of undefined \(reading 'toJSON'\)/,
      'eth_getTransactionByBlockNumberAndIndex/agrees-with-hash': /gasPrice differ/,
      // Its receipt trie commits a failed receipt's status 0 as the byte 0x00 (found by the receipts one by one).
      'eth_getTransactionReceipt/committed-receipts': /\(failedTx[^)]*\): the trie root of its 1 receipt\(s\), fetched one by one, is not the block's receiptsRoot/,
      'service/batch-invalid-element': /-32600/,
      'service/notification': /got a body/,
      'service/jsonrpc-version': /without "jsonrpc" was served/,
      'service/error-no-stack': /carries stack/,
      'service/id-object': /^a call with id \{\} was served$/,
      'eth_getBlockByHash/robust-flag-string': /^a malformed request was answered with a result$/,
    },
    // A shanghai chain (its head's header fields): no blob or set-code transaction can be on it, nor judged in a call object.
    notOnThisChain: {
      'eth_estimateGas/set-code-call-fields': /^EIP-7702 authorizations came with Prague; this chain is in the Shanghai era/,
      'eth_estimateGas/blob-call-fields': /^EIP-4844 blob fields came with Cancun; this chain is in the Shanghai era/,
      'eth_getTransactionByHash/type-0x3-shape': /^EIP-4844 blob transactions \(type 0x3\) came with Cancun; this chain is in the Shanghai era/,
      'eth_getTransactionByHash/type-0x4-shape': /^EIP-7702 set-code transactions \(type 0x4\) came with Prague; this chain is in the Shanghai era/,
    },
    // ganache serves the uncle methods (null on a chain without uncles), and its block size and roots are right; it echoes a null and a fractional id.
    passes: ['eth_getUncleByBlockNumberAndIndex/null-no-uncle', 'eth_getUncleByBlockHashAndIndex/null-no-uncle', 'eth_getBlockByHash/block-size', 'eth_getBlockByHash/transactions-root', 'eth_getTransactionByHash/signature', 'service/id-null', 'service/id-fractional', 'eth_getTransactionReceipt/blob-fields-blob-only'],
    notServed: ['eth_getBlockReceipts'],
    loadFindings: [/sampling found eth_estimateGas: \d+ revert entr(y|ies) answered rpc_error -32000/, /sampling found eth_getTransactionByBlockNumberAndIndex: \d+ miss entr(y|ies) answered rpc_error -32700 .*toJSON/],
    ownDeviations: {
      // Its decimal checks fail on their first call, by hex: the one answer the fault changes is the uppercase-hex robustness call's, to an error it may get.
      'block receipts: decimal block numbers rejected': 'eth_getBlockReceipts is not served',
      // The latest-not-behind probes ask it by block hash (outside the spec, ignored when not answered): the fault turns that error into another.
      'block receipts: a block hash parameter rejected': 'eth_getBlockReceipts is not served',
      'block: the flag "true" (a string) read as true': 'ganache reads the string "true" as true and serves the block (ganache.json: robust-flag-string)',
    },
    openFindings: Object.fromEntries(
      ['eth_getBlockByHash', 'eth_getUncleByBlockNumberAndIndex', 'eth_getUncleByBlockHashAndIndex', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByHash', 'eth_getTransactionReceipt'].map((m) => [
        `${m}: error responses echo the id as a string`,
        'REDTEAM2 sweep, open: ganache answers the envelope-error call with a result, so its error envelopes are never judged (ganache.json skips envelope-error)',
      ]),
    ),
  },
];

/** The run judged again under other expectations (notes are annotations: the checks ran the same), as --strict. */
function judge(run: RunResult, expectations: Expectations | undefined) {
  const checks = run.checks.map(({ expectation: _, ...c }) => {
    const note = expectations && expectationFor(c.id, expectations, '0000-01-01');
    return note ? { ...c, expectation: note } : c;
  });
  return summarize(checks, true, run.complete);
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const c of cases) {
  describe(`${c.client}, a real client with documented deviations, certified as it is`, function () {
    let node: NodeProcess;
    let seed: SeedInfo;
    let run: RunResult;
    let expectations: Expectations;
    let dir: string;
    let targetsFile: string;
    const ids = (verdict: string) => run.checks.filter((k) => k.verdict === verdict).map((k) => k.id).sort();
    const rpc = async (body: unknown): Promise<Answer> => (await (await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as Answer;

    before(async function () {
      expectations = await loadExpectations(`fixtures/expectations/${c.client}.json`, checkIds(allSuites));
      dir = await mkdtemp(join(tmpdir(), `rpc-certify-${c.client}-`));
      node = await startClient(c.client);
      seed = await seedChain(node.url, c.client);
      run = await runConformance({ suites: allSuites, url: node.url, fixtures: [{ targets: { reverts: seed.reverts }, source: 'seed' }] });
      // The command-line runs below reuse these targets (the seed's reverting contracts among them).
      targetsFile = join(dir, 'targets.lock.json');
      await writeFile(targetsFile, JSON.stringify(run.targets));
    });
    after(async () => {
      await node?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('runs on 127.0.0.1 at a free port, in its own process group; the seed reports each step the node could not do', async () => {
      expect(node.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(groupAlive(node.pid)).to.equal(true);
      expect(seed.skipped.map((s) => s.step)).to.deep.equal(c.skipped);
      for (const s of seed.skipped) expect(s.reason, s.step).to.be.a('string').and.not.equal('');
      const seeded = Object.keys(seed.txs.byType).sort();
      expect(seeded).to.deep.equal(['0x0', '0x1', '0x2', '0x3', '0x4'].filter((t) => !c.skipped.some((s) => s.includes(`type ${t}`))));
      const head = (await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] })).result;
      expect(head.hash, 'the multi-transaction block is the head').to.equal(seed.blocks.multiTx.hash);
      expect(head.transactions).to.have.length(6);
    });

    it('fails (never passes) on its documented deviations, each by check id and reason; the methods it does not serve named as such', () => {
      expect(run.complete).to.equal(true);
      const summary = summarize(run.checks, false, run.complete);
      expect(summary.verdict).to.equal('fail');
      expect(summary.notServed?.map((m) => [m.method, m.expected])).to.deep.equal(c.notServed.map((m) => [m, false]));
      for (const m of summary.notServed ?? []) expect(m.answers, m.method).to.have.length(1);
      const byId = new Map(run.checks.map((k) => [k.id, k]));
      for (const [id, reason] of Object.entries(c.fails)) {
        expect(byId.get(id)?.verdict, id).to.equal('fail');
        expect(byId.get(id)?.reason, id).to.match(reason);
      }
      for (const id of c.passes) expect(byId.get(id)?.verdict, id).to.equal('pass');
      for (const [id, era] of Object.entries(c.notOnThisChain)) {
        expect(byId.get(id)?.verdict, id).to.equal('skip');
        expect(byId.get(id)?.inapplicable, id).to.be.a('string');
        expect(byId.get(id)?.reason, id).to.match(era);
      }
      // The one check leaning on eth_getBlockReceipts says it could not judge, rather than passing.
      expect(ids('inconclusive')).to.deep.equal(['eth_getTransactionReceipt/agrees-with-block-receipts']);
    });

    it('fails exactly the checks its --expect file lists, each as the entry scopes it, and skips exactly those it lists', () => {
      expect(ids('fail'), 'failures').to.deep.equal(expectations.fail.map((e) => e.id).sort());
      expect(expectations.fail.filter((e) => !e.match).map((e) => e.id), 'entries excusing any failure of their check').to.deep.equal([]);
      expect(ids('skip'), 'skips').to.deep.equal(expectations.skip.map((e) => e.id).sort());
      // Each violation the check found must be the one its entry describes, not only the first.
      const unexplained = run.checks.filter((k) => k.verdict === 'fail' && !(k.violations ?? [k.reason ?? '']).every((v) => new RegExp(expectations.fail.find((e) => e.id === k.id)?.match ?? '(?!)').test(v)));
      expect(unexplained.map((k) => `${k.id}: ${k.reason}`)).to.deep.equal([]);
    });

    it('passes with its --expect file only because of its entries: without the file, or without any one entry, the run fails', () => {
      expect(judge(run, undefined).verdict, 'no file').to.equal('fail');
      expect(judge(run, expectations)).to.include({ verdict: 'pass', fatalFailures: 0, unexpectedPasses: 0, expectedFailures: expectations.fail.length });
      expect(judge(run, expectations).notServed?.map((m) => [m.method, m.expected]), 'a known gap, still named').to.deep.equal(c.notServed.map((m) => [m, true]));
      const deadWeight = expectations.fail.filter((entry) => judge(run, { ...expectations, fail: expectations.fail.filter((e) => e !== entry) }).verdict !== 'fail').map((e) => e.id);
      expect(deadWeight, 'entries the run passes without').to.deep.equal([]);
    });

    it('from the command line: exit 1 as it is, exit 0 with --expect and --strict', async () => {
      const asIs = await cli(['conformance', '--url', node.url, '--targets', targetsFile, '--out', join(dir, 'as-is'), '--quiet']);
      expect(asIs.code, asIs.out + asIs.err).to.equal(1);
      const asIsLines = asIs.out.split('\n');
      expect(asIsLines[0]).to.match(/^conformance: FAIL/);
      // Named first, one line each, not as the twenty failed checks each causes.
      expect(asIsLines.slice(1, 1 + c.notServed.length).map((l) => /^  NOT SERVED: (\S+) \(all \d+ well-formed calls: /.exec(l)?.[1])).to.deep.equal(c.notServed);
      const expected = await cli(['conformance', '--url', node.url, '--targets', targetsFile, '--out', join(dir, 'expected'), '--quiet', '--strict', '--expect', `fixtures/expectations/${c.client}.json`]);
      expect(expected.code, expected.out + expected.err).to.equal(0);
      const known = expected.out.split('\n').slice(1, 1 + c.notServed.length);
      expect(known.map((l) => /^  not served \(expected: fixtures\/expectations\/\w+\.json lists its \d+ failure\(s\)\): (\S+) /.exec(l)?.[1])).to.deep.equal(c.notServed);
      const report = JSON.parse(await readFile(join(dir, 'expected', 'conformance.json'), 'utf8'));
      expect(report.summary).to.include({ verdict: 'pass', expectedFailures: expectations.fail.length, unexpectedPasses: 0 });
    });

    it('load smoke: exit 1, the methods it does not serve named, and no method that never answered reads as served', async () => {
      const out = join(dir, 'load');
      const r = await cli(['load', '--url', node.url, '--profile', 'smoke', '--duration', '3s', '--out', out]);
      expect(r.code, r.out + r.err).to.equal(1);
      const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8'));
      expect(report.verdict).to.equal('fail');
      const status = (m: string): string => report.corpus.methods[m].status;
      const notServed = Object.keys(report.methods).filter((m) => status(m) === 'not served');
      expect(notServed).to.deep.equal(c.notServed);
      for (const m of c.notServed) expect(r.out + r.err).to.include(`${m} is NOT SERVED`);
      for (const finding of c.loadFindings) expect(r.out).to.match(finding);
      for (const [m, figures] of Object.entries<{ classes: Record<string, number> }>(report.methods)) {
        const answered = figures.classes['ok']! + figures.classes['ok_null']! + figures.classes['ok_error']!;
        if (status(m) === 'served') expect(answered, `${m} reads as served`).to.be.greaterThan(0);
        if (c.notServed.includes(m)) expect(answered, `${m} answered as due`).to.equal(0);
      }
    });

    it('what facts.md says about its envelope, as measured', async () => {
      const missing = await rpc({ id: 1, method: 'eth_chainId', params: [] });
      const old = await rpc({ jsonrpc: '1.0', id: 1, method: 'eth_chainId', params: [] });
      if (c.client === 'hardhat') {
        // facts.md: "accept jsonrpc missing or 1.0". hardhat 2.28.6 does not: -32600, id null.
        expect(missing.error?.code).to.equal(-32600);
        expect(old.error?.code).to.equal(-32600);
        const typed = (await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [seed.txs.byType['0x2']] })).result;
        expect(typed).to.not.have.property('yParity');
        const legacy = (await rpc({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [seed.txs.byType['0x0']] })).result;
        expect(legacy).to.not.have.property('chainId');
      } else {
        expect(missing.result).to.equal(`0x${seed.chainId.toString(16)}`);
        expect(old.result).to.equal(`0x${seed.chainId.toString(16)}`);
      }
    });

    it('every fault of the project\'s catalogue that changes an answer fails a --strict run with its --expect file, save the faults that are its own deviations', async function () {
      // ~150 suite runs, SWEEP_WORKERS at a time, each through its own proxy: much of a run is waiting (the node's
      // answers, head-served's grace on a fault that hides the head's objects), not work.
      this.timeout(300_000);
      const proxies = await Promise.all(Array.from({ length: SWEEP_WORKERS }, async () => {
        const proxy = new FaultProxy(node.url);
        await proxy.start();
        return proxy;
      }));
      const started = performance.now();
      const catalogue = [...faultCatalogue(run.targets!), ...robustnessFaults].filter((x) => !x.synthetic);
      const names = new Set(catalogue.map((f) => f.name));
      expect([...Object.keys(c.ownDeviations), ...Object.keys(c.openFindings ?? {})].filter((n) => !names.has(n)), 'names of no fault in the catalogue').to.deep.equal([]);
      /** Per fault, in the catalogue's order: not applied (the run never met it), passed (masked) or failed. */
      const outcome: Array<'not applied' | 'passed' | 'failed'> = [];
      let next = 0;
      try {
        await Promise.all(proxies.map(async (proxy) => {
          for (let k = next++; k < catalogue.length; k = next++) {
            const f = catalogue[k]!;
            const seen = counted(f);
            proxy.fault = seen.fault;
            const methods = f.methods ?? [...new Set(f.kills.map((id) => id.split('/')[0]!))];
            const r = await runConformance({ suites: allSuites, url: proxy.url, targetsFile, methods, expect: expectations });
            outcome[k] = seen.count() === 0 ? 'not applied' : summarize(r.checks, true, r.complete).verdict === 'pass' ? 'passed' : 'failed';
          }
        }));
      } finally {
        await Promise.all(proxies.map((p) => p.stop()));
      }
      const applied = outcome.filter((o) => o !== 'not applied').length;
      const masked = catalogue.filter((_, k) => outcome[k] === 'passed').map((f) => f.name);
      console.log(`      sweep ${c.client}: ${applied} faults applied, ${masked.length} passed, in ${Math.round(performance.now() - started)} ms: ${JSON.stringify(masked)}`);
      const open = c.openFindings ?? {};
      expect(masked.filter((name) => !(name in c.ownDeviations) && !(name in open)), 'faults a --strict run with the --expect file passes').to.deep.equal([]);
      expect(Object.keys(open).filter((name) => !masked.includes(name)), 'open findings now closed: take them out of openFindings').to.deep.equal([]);
    });

    it('stops with its whole process group', async () => {
      await node.stop();
      expect(groupAlive(node.pid)).to.equal(false);
    });
  });
}
