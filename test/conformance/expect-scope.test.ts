// A scoped --expect entry (its `match`) excuses exactly the deviation it describes: the checks it scopes report
// every violation, and each must match. Each case is a client's real deviation (hardhat's block size, ganache's
// gasPrice by index and failed-status receipt encoding, hardhat's unknown-method code) reproduced on the embedded
// default: alone, the shipped entry excuses it; with one more defect beside it, the run fails.
import { expect } from 'chai';
import { blockSizes } from '../../core/invariants/block-size.ts';
import type { Json } from '../../core/invariants/encoding.ts';
import { receiptEnvelope } from '../../core/invariants/receipt.ts';
import { orderedTrieRoot } from '../../core/invariants/trie.ts';
import { toQuantity } from '../../core/hex.ts';
import { loadExpectations, type Expectations } from '../../conformance/framework/expectations.ts';
import { runConformance } from '../../conformance/framework/runner.ts';
import type { CheckResult } from '../../conformance/framework/check.ts';
import { outcomeOf } from '../../conformance/report/model.ts';
import type { Fault, FaultProxy } from '../support/fault-proxy.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import type { SeedInfo } from '../../devnet/index.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';

type Rewrite = NonNullable<Fault['rewrite']>;

/** Applies each rewrite in turn: a client's deviation and a new defect beside it. */
const both = (...rewrites: Rewrite[]): Fault => ({ name: 'combined', kills: [], rewrite: async (req, res, ctx) => rewrites.reduce<Promise<typeof res>>(async (r, f) => f(req, await r, ctx), Promise.resolve(res)) });
const only = (rewrite: Rewrite): Fault => both(rewrite);
const isBlock = (m: string) => m === 'eth_getBlockByHash' || m === 'eth_getBlockByNumber';
const quantity = (v: unknown, add: bigint) => toQuantity(BigInt(v as string) + add);

// hardhat: a block's size leaves out the RLP string header of each typed transaction.
const hardhatSize: Rewrite = (req, res) => {
  const b = res.result as Json | null | undefined;
  if (!isBlock(req.method) || !b || req.params[1] !== true) return res;
  return { ...res, result: { ...b, size: toQuantity(blockSizes(b, []).bare) } };
};
// A new defect: the size of the empty blocks (and genesis), which hardhat gets right, 1000 bytes over.
const emptyBlocksBig: Rewrite = (req, res) => {
  const b = res.result as Json | null | undefined;
  if (!isBlock(req.method) || !b || !Array.isArray(b['transactions']) || b['transactions'].length > 0) return res;
  return { ...res, result: { ...b, size: quantity(b['size'], 1000n) } };
};

// ganache: an EIP-1559 transaction fetched by block number and index has gasPrice 0x0.
const ganacheGasPrice: Rewrite = (req, res) => {
  const tx = res.result as Json | null | undefined;
  return req.method === 'eth_getTransactionByBlockNumberAndIndex' && tx && tx['type'] === '0x2' ? { ...res, result: { ...tx, gasPrice: '0x0' } } : res;
};
// A new defect: every other type's gasPrice by index is 0x1.
const otherGasPrice: Rewrite = (req, res) => {
  const tx = res.result as Json | null | undefined;
  return req.method === 'eth_getTransactionByBlockNumberAndIndex' && tx && tx['type'] !== '0x2' ? { ...res, result: { ...tx, gasPrice: '0x1' } } : res;
};

// ganache: the receipt trie commits a failed receipt's status as the byte 0x00, so a block holding a failed
// transaction states that root.
const ganacheFailedStatus: Rewrite = async (req, res, ctx) => {
  const b = res.result as Json | null | undefined;
  if (!isBlock(req.method) || !b) return res;
  const receipts = (await ctx.upstream('eth_getBlockReceipts', [b['hash']])).result as Json[];
  if (!receipts.some((r) => r['status'] === '0x0')) return res;
  return { ...res, result: { ...b, receiptsRoot: await orderedTrieRoot(receipts.map((r) => receiptEnvelope(r, '', { failedStatusAsByte: true }))) } };
};
// A new defect: cumulativeGasUsed 1 over on every receipt by hash of the blocks below the one holding the failed
// transaction, which the check judges after it (where it used to stop at the excused failure).
const belowFailed: Rewrite = async (req, res, ctx) => {
  const r = res.result as Json | null | undefined;
  if (req.method !== 'eth_getTransactionReceipt' || !r) return res;
  const all = (await ctx.upstream('eth_getBlockReceipts', [r['blockHash']])).result as Json[];
  if (all.some((x) => x['status'] === '0x0')) return res;
  const failedBlock = await firstFailedBlock(ctx);
  return BigInt(r['blockNumber'] as string) < failedBlock ? { ...res, result: { ...r, cumulativeGasUsed: quantity(r['cumulativeGasUsed'], 1n) } } : res;
};
async function firstFailedBlock(ctx: Parameters<Rewrite>[2]): Promise<bigint> {
  for (let n = 0n; n < 64n; n++) {
    const all = (await ctx.upstream('eth_getBlockReceipts', [toQuantity(n)])).result as Json[] | null;
    if (all?.some((x) => x['status'] === '0x0')) return n;
  }
  throw new Error('the devnet holds no failed transaction');
}

// hardhat 2: a revert is error -32603 with its own message, the payload nested in an object as error.data.
const hardhatRevert: Rewrite = (req, res) => {
  const e = (res as { error?: { code?: unknown; message?: unknown; data?: unknown } }).error;
  if (req.method !== 'eth_estimateGas' || e?.code !== 3) return res;
  const message = `Error: VM Exception while processing transaction: reverted with ${String(e.message).replace(/^execution reverted:? ?/, '') || 'an unrecognized custom error'}`;
  return { jsonrpc: '2.0', id: res.id, error: { code: -32603, message, data: { message, data: e.data } } };
};
// A new defect: a panic (Panic(uint256) payload) is answered with an estimate, as if the call succeeded.
const panicAnswered: Rewrite = (req, res) => {
  const e = (res as { error?: { data?: unknown } }).error;
  return req.method === 'eth_estimateGas' && typeof e?.data === 'string' && e.data.startsWith('0x4e487b71') ? { jsonrpc: '2.0', id: res.id, result: '0x5208' } : res;
};

// hardhat: an unknown method is error -32004.
const unknownAs = (answer: Record<string, unknown>): Rewrite => (req, res) => (req.method === 'rpc_certify_noSuchMethod' ? { jsonrpc: '2.0', id: res.id, ...answer } : res);

describe('a scoped --expect entry is held to every violation of its check', function () {
  let proxy: FaultProxy;
  let seed: SeedInfo;
  let hardhat: Expectations;
  let ganache: Expectations;
  faultyDevnet((devnet, p) => {
    proxy = p;
    seed = devnet.seed;
  });
  before(async () => {
    hardhat = await loadExpectations('fixtures/expectations/hardhat.json', checkIds(allSuites));
    ganache = await loadExpectations('fixtures/expectations/ganache.json', checkIds(allSuites));
  });

  const judge = async (fault: Fault, id: string, expect_: Expectations): Promise<{ outcome: string; check: CheckResult }> => {
    proxy.fault = fault;
    const run = await runConformance({ suites: allSuites, url: proxy.url, methods: [id.split('/')[0]!], fixtures: [{ targets: { reverts: seed.reverts }, source: 'seed' }], expect: expect_ });
    const check = run.checks.find((c) => c.id === id);
    if (!check) throw new Error(`${id} did not run`);
    return { outcome: outcomeOf(check, true), check };
  };
  const show = (c: CheckResult) => `${c.verdict}: ${(c.violations ?? [c.reason]).join(' | ')}`;

  it('block-size (hardhat.json): the typed transactions\' headers left out is expected; an empty block 1000 bytes over beside it fails', async () => {
    const id = 'eth_getBlockByHash/block-size';
    const alone = await judge(only(hardhatSize), id, hardhat);
    expect(alone.outcome, show(alone.check)).to.equal('expected');
    const more = await judge(both(hardhatSize, emptyBlocksBig), id, hardhat);
    expect(more.outcome, show(more.check)).to.equal('fail');
    expect(more.check.violations?.some((v) => /1000 byte\(s\) over/.test(v)), show(more.check)).to.equal(true);
  });

  it('agrees-with-hash (ganache.json): gasPrice 0x0 on type 0x2 by index is expected; gasPrice 0x1 on the other types beside it fails', async () => {
    const id = 'eth_getTransactionByBlockNumberAndIndex/agrees-with-hash';
    const alone = await judge(only(ganacheGasPrice), id, ganache);
    expect(alone.outcome, show(alone.check)).to.equal('expected');
    const more = await judge(both(ganacheGasPrice, otherGasPrice), id, ganache);
    expect(more.outcome, show(more.check)).to.equal('fail');
  });

  it('committed-receipts (ganache.json): the failed status committed as 0x00 is expected; a wrong cumulativeGasUsed in the blocks judged after it fails', async () => {
    const id = 'eth_getTransactionReceipt/committed-receipts';
    const alone = await judge(only(ganacheFailedStatus), id, ganache);
    expect(alone.outcome, show(alone.check)).to.equal('expected');
    const more = await judge(both(ganacheFailedStatus, belowFailed), id, ganache);
    expect(more.outcome, show(more.check)).to.equal('fail');
    expect(more.check.violations?.some((v) => /cumulativeGasUsed/.test(v)), show(more.check)).to.equal(true);
  });

  it('revert-contracts (hardhat.json): its -32603 reverts are expected; a panic answered with an estimate after them fails', async () => {
    const id = 'eth_estimateGas/revert-contracts';
    const alone = await judge(only(hardhatRevert), id, hardhat);
    expect(alone.outcome, show(alone.check)).to.equal('expected');
    const more = await judge(both(panicAnswered, hardhatRevert), id, hardhat);
    expect(more.outcome, show(more.check)).to.equal('fail');
    expect(more.check.violations?.some((v) => /got a result/.test(v)), show(more.check)).to.equal(true);
  });

  it('unknown-method (hardhat.json): error -32004 is expected; a result is not', async () => {
    const id = 'service/unknown-method';
    const alone = await judge(only(unknownAs({ error: { code: -32004, message: 'Method rpc_certify_noSuchMethod is not supported' } })), id, hardhat);
    expect(alone.outcome, show(alone.check)).to.equal('expected');
    const result = await judge(only(unknownAs({ result: '0x0' })), id, hardhat);
    expect(result.outcome, show(result.check)).to.equal('fail');
    expect(result.check.reason).to.match(/got a result$/);
  });
});

