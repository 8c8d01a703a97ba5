// The receipts eth_getTransactionReceipt's block checks fetch one by one are bounded (RECEIPTS_BUDGET): a block
// over the budget is left out of the whole-block checks, named in their note, and only a sample of its receipts is
// fetched for judged-receipts; a fault in a receipt still judged is caught; and when no block with transactions fits,
// the whole-block checks are inconclusive, never a pass on an empty list. Against the embedded default with one
// block of BIG transfers added, and a small budget given to the run (the real code path, the real chain).
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toQuantity } from '../../core/hex.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { runConformance, type RunResult } from '../../conformance/framework/runner.ts';
import { type Fault, FaultProxy, type RpcRequest, type RpcResponse } from '../support/fault-proxy.ts';
import { allSuites } from '../../conformance/methods.ts';

/** Transactions in the block added: more than a sample (SAMPLE + the last + one per type) can hold. */
const BIG = 40;
/** The budget given: below BIG, above what the seeded chain's other judged blocks hold together (14). */
const BUDGET = 20;
const M = 'eth_getTransactionReceipt';
type Json = Record<string, unknown>;
const byId = (r: RunResult, id: string) => r.checks.find((c) => c.id === `${M}/${id}`);

describe('eth_getTransactionReceipt: the receipts fetched one by one are bounded, and what is left out is said', function () {
  let devnet: Devnet;
  let proxy: FaultProxy;
  let big: { number: string; hash: string; txs: string[] };
  /** The receipts asked for in the last run, by transaction hash. */
  let asked: string[] = [];

  const observe = (change: (req: RpcRequest, res: RpcResponse) => RpcResponse = (_req, res) => res): Fault => ({
    name: 'receipts observed',
    kills: [],
    rewrite: (req, res) => {
      if (req.method === M) asked.push(String((req.params as unknown[])[0]));
      return change(req, res);
    },
  });
  const run = (receiptsBudget: number | undefined, change?: (req: RpcRequest, res: RpcResponse) => RpcResponse, methods = [M]) => {
    asked = [];
    proxy.fault = observe(change);
    return runConformance({ suites: allSuites, url: proxy.url, methods, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }], ...(receiptsBudget === undefined ? {} : { receiptsBudget }) });
  };
  const bigName = () => `block ${BigInt(big.number)} (most transactions`;

  before(async function () {
    devnet = await startDevnet();
    const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
      const res = await fetch(devnet.nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
      const body = (await res.json()) as { result?: T; error?: unknown };
      if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
      return body.result as T;
    };
    const [from, to] = await rpc<string[]>('eth_accounts');
    await rpc('evm_setAutomine', [false]);
    for (let i = 0; i < BIG; i++) await rpc('eth_sendTransaction', [{ from, to, value: toQuantity(BigInt(i + 1)) }]);
    await rpc('evm_mine');
    await rpc('evm_setAutomine', [true]);
    const block = await rpc<{ number: string; hash: string; transactions: string[] }>('eth_getBlockByNumber', ['latest', false]);
    expect(block.transactions).to.have.length(BIG);
    big = { number: block.number, hash: block.hash, txs: block.transactions };
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
  });

  after(async function () {
    await proxy?.stop();
    await devnet?.stop();
  });

  /** Distinct receipts asked for in the default run. */
  let askedByDefault = 0;

  it('by default every receipt of every block judged is fetched and judged, as before: nothing left out, no note', async function () {
    const r = await run(undefined);
    askedByDefault = new Set(asked).size;
    for (const id of ['committed-receipts', 'judged-receipts', 'log-indexes']) expect(byId(r, id), id).to.deep.include({ verdict: 'pass' }).and.not.have.any.keys('note', 'partial');
    expect(big.txs.filter((h) => asked.includes(h))).to.have.length(BIG);
  });

  it('a block over the budget: its receipts are not fetched one by one beyond a sample, and the outcome names it and why', async function () {
    const r = await run(BUDGET);
    for (const id of ['committed-receipts', 'judged-receipts', 'log-indexes']) expect(byId(r, id)?.verdict, id).to.equal('pass');
    // A pass that covers less than its title says it, beyond its note: the summary and JUnit name it (partial).
    for (const id of ['committed-receipts', 'log-indexes']) expect(byId(r, id)?.partial, id).to.match(new RegExp(`^\\d+ of \\d+ judged blocks whole \\(budget of ${BUDGET} receipts fetched one by one\\)$`));
    expect(byId(r, 'judged-receipts')?.partial).to.match(new RegExp(`^every receipt of \\d+ of \\d+ judged blocks, a sample of the others \\(budget of ${BUDGET} receipts`));
    // The sample: the first 16, and the last (one transaction type in the block).
    const sample = [...Array.from({ length: 16 }, (_, i) => i), BIG - 1];
    expect(big.txs.map((h, i) => (asked.includes(h) ? i : -1)).filter((i) => i >= 0), 'the big block\'s receipts asked for').to.deep.equal(sample);
    expect(askedByDefault - new Set(asked).size, 'receipts saved: the big block\'s outside the sample').to.equal(BIG - sample.length);
    for (const id of ['committed-receipts', 'log-indexes']) {
      expect(byId(r, id)?.note, id).to.include(`left out, over the budget of ${BUDGET} receipts fetched one by one: ${bigName()}`).and.include(`: ${BIG} transaction(s), over the ${BUDGET} receipt(s) left`);
      expect(byId(r, id)?.note, id).to.match(/^judged \d+ block\(s\): block \d+ /);
    }
    expect(byId(r, 'judged-receipts')?.note).to.include(`a sample judged of those over the budget of ${BUDGET} receipts fetched one by one: ${bigName()}`).and.include(`: receipts 0-15, ${BIG - 1} of ${BIG}`);
  });

  it('a fault in a receipt still judged is caught: in a block within the budget (whole-block checks), in the sample of a block over it (judged-receipts)', async function () {
    const seeded = (await run(BUDGET)).targets!.judgedBlocks!.find((b) => b.hash !== big.hash && (b.txCount ?? 0) > 1)!;
    const bumped = await run(BUDGET, (req, res) => {
      const x = res.result as Json | null;
      return req.method === M && x && x['blockHash'] === seeded.hash ? { ...res, result: { ...x, cumulativeGasUsed: toQuantity(BigInt(String(x['cumulativeGasUsed'])) + 1n) } } : res;
    });
    expect(byId(bumped, 'committed-receipts')?.verdict).to.equal('fail');
    expect(byId(bumped, 'committed-receipts')?.reason).to.include(`block ${BigInt(seeded.number)} (`);
    const last = big.txs[BIG - 1];
    const misplaced = await run(BUDGET, (req, res) => {
      const x = res.result as Json | null;
      return req.method === M && x && x['transactionHash'] === last ? { ...res, result: { ...x, transactionIndex: '0x0' } } : res;
    });
    expect(byId(misplaced, 'judged-receipts')?.verdict).to.equal('fail');
    expect(byId(misplaced, 'judged-receipts')?.reason).to.include(`${bigName()}`).and.include(`receipt ${BIG - 1}'s transactionIndex is not its position in its block`);
  });

  it('no block with transactions within the budget: the whole-block checks are inconclusive, naming the blocks left out; each block still has a sample judged', async function () {
    const r = await run(0);
    for (const id of ['committed-receipts', 'log-indexes']) {
      expect(byId(r, id)?.verdict, id).to.equal('inconclusive');
      expect(byId(r, id)?.reason, id).to.match(/^no block with transactions judged: left out, over the budget of 0 receipts fetched one by one: /).and.include(`${bigName()}`);
    }
    expect(byId(r, 'judged-receipts')?.verdict).to.equal('pass');
    expect(byId(r, 'judged-receipts')?.note).to.include(`every receipt judged of `).and.include(`: receipts 0-15, ${BIG - 1} of ${BIG}`).and.match(/block \d+ \(type 0x0[^)]*\): all 6 receipts/);
  });

  it('eth_getBlockByHash/logs-bloom, where eth_getBlockReceipts is not served, fetches the receipts one by one within the same budget: the blocks over it named, none with transactions: inconclusive', async function () {
    const noBlockReceipts = (req: RpcRequest, res: RpcResponse): RpcResponse => (req.method === 'eth_getBlockReceipts' ? { jsonrpc: '2.0', id: res.id, error: { code: -32601, message: 'the method does not exist' } } : res);
    const bloom = (r: RunResult) => r.checks.find((c) => c.id === 'eth_getBlockByHash/logs-bloom');
    const some = await run(BUDGET, noBlockReceipts, ['eth_getBlockByHash']);
    expect(bloom(some)?.verdict).to.equal('pass');
    expect(bloom(some)?.note).to.include(`left out, over the budget of ${BUDGET} receipts fetched one by one: ${bigName()}`);
    // Discovery reads receipts of its own, within --discovery-budget: the check's own evidence is what it asked for.
    const receiptsAsked = bloom(some)!.evidence.map((e) => e.request as { method: string; params: unknown[] }).filter((q) => q.method === M).map((q) => String(q.params[0]));
    expect(receiptsAsked.filter((h) => big.txs.includes(h)), 'the big block\'s receipts asked for').to.deep.equal([]);
    expect(receiptsAsked.length, 'the other blocks\' receipts asked for').to.be.within(1, BUDGET);
    const none = await run(0, noBlockReceipts, ['eth_getBlockByHash']);
    expect(bloom(none)?.verdict).to.equal('inconclusive');
    expect(bloom(none)?.reason).to.match(/^no block with transactions judged: left out, over the budget of 0 receipts fetched one by one: /);
  });

  it('every judged block empty (a quiet chain): the receipt checks over the judged blocks skip, saying no judged block has a transaction, never a pass on no receipt', async function () {
    const mined = await fetch(devnet.nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }) });
    expect(mined.ok).to.equal(true);
    const first = await run(undefined);
    const empty = (await fetch(devnet.nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] }) }).then((r) => r.json())) as { result: { number: string; hash: string; transactions: unknown[] } };
    expect(empty.result.transactions).to.have.length(0);
    const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-empty-'));
    try {
      const lock = join(dir, 'targets.lock.json');
      await writeFile(lock, JSON.stringify({ ...first.targets, judgedBlocks: [{ number: empty.result.number, hash: empty.result.hash, era: '?', txCount: 0, why: ['empty'] }] }));
      const skipped = (r: RunResult, id: string) => {
        expect(r.checks.find((c) => c.id === id), id).to.include({ verdict: 'skip' });
        expect(r.checks.find((c) => c.id === id)?.reason, id).to.match(/^no judged block has a transaction, so no receipt was judged \(block \d+ \(empty\)\)$/);
      };
      for (const budget of [undefined, 0]) {
        const r = await runConformance({ suites: allSuites, url: proxy.url, methods: [M, 'eth_getBlockByHash'], targetsFile: lock, ...(budget === undefined ? {} : { receiptsBudget: budget }) });
        for (const id of ['committed-receipts', 'judged-receipts', 'log-indexes']) skipped(r, `${M}/${id}`);
        skipped(r, 'eth_getBlockByHash/logs-bloom');
      }
      proxy.fault = observe((req, res) => (req.method === 'eth_getBlockReceipts' ? { jsonrpc: '2.0', id: res.id, error: { code: -32601, message: 'the method does not exist' } } : res));
      skipped(await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getBlockByHash'], targetsFile: lock }), 'eth_getBlockByHash/logs-bloom');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
