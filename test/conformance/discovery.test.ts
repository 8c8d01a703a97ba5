// Discovery as coverage, against a fake chain that crosses the fork eras and holds what a dev chain
// cannot (uncles, pre-Byzantium receipts with root, an unknown transaction type): every class the walked
// range holds is found, the blocks judged span the eras, and a class missed is said to be absent within
// N blocks or out of budget, never silently left out.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toQuantity } from '../../core/hex.ts';
import type { Targets } from '../../core/targets.ts';
import { coverageOf, discoverTargets } from '../../conformance/framework/discovery.ts';
import { RpcClient } from '../../core/node/rpc-client.ts';

type Json = Record<string, unknown>;
const h = (n: number, tag: string) => `0x${tag.repeat(2)}${n.toString(16).padStart(62, '0')}`;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const ERA_FIELDS: Record<string, Json> = {
  frontier: {},
  london: { baseFeePerGas: '0x7' },
  shanghai: { baseFeePerGas: '0x7', withdrawalsRoot: h(1, 'ee') },
  cancun: { baseFeePerGas: '0x7', withdrawalsRoot: h(1, 'ee'), blobGasUsed: '0x0', excessBlobGas: '0x0', parentBeaconBlockRoot: h(2, 'ee') },
  prague: { baseFeePerGas: '0x7', withdrawalsRoot: h(1, 'ee'), blobGasUsed: '0x0', excessBlobGas: '0x0', parentBeaconBlockRoot: h(2, 'ee'), requestsHash: h(3, 'ee') },
};

interface FakeTx {
  type: string;
  to: string | null;
  input?: string;
  gas?: string;
  receipt: Json;
}

/** Block n of the fake chain: its era, its transactions (each with its receipt), uncles, withdrawals. */
const CHAIN: Array<{ era: string; txs: FakeTx[]; uncles?: number; withdrawals?: number }> = [
  { era: 'frontier', txs: [] },
  { era: 'frontier', txs: [{ type: '0x0', to: addr(1), receipt: { root: h(9, 'aa'), gasUsed: '0x5208', logs: [] } }], uncles: 1 },
  { era: 'frontier', txs: [{ type: '0x0', to: null, input: '0x6000', receipt: { status: '0x1', gasUsed: '0x10000', logs: [], contractAddress: `0x${'dd'.repeat(20)}` } }] },
  { era: 'london', txs: [{ type: '0x2', to: addr(2), input: '0x12345678', gas: '0x30000', receipt: { status: '0x0', gasUsed: '0x6000', logs: [] } }, { type: '0x1', to: addr(3), receipt: { status: '0x1', gasUsed: '0x5208', logs: [{}] } }] },
  { era: 'shanghai', txs: [{ type: '0x2', to: addr(4), input: '0xabcdef01', receipt: { status: '0x1', gasUsed: '0x9000', logs: [] } }], withdrawals: 2 },
  { era: 'cancun', txs: [{ type: '0x3', to: addr(5), receipt: { status: '0x1', gasUsed: '0x5208', logs: [] } }] },
  { era: 'prague', txs: [{ type: '0x4', to: addr(6), receipt: { status: '0x1', gasUsed: '0xb000', logs: [] } }, { type: '0x7e', to: addr(7), receipt: { status: '0x1', gasUsed: '0x0', logs: [] } }] },
  { era: 'prague', txs: [] },
];

function blockOf(n: number, full: boolean): Json {
  const b = CHAIN[n]!;
  const txs = b.txs.map((tx, i) => ({ hash: h(n * 16 + i, 'cc'), type: tx.type, to: tx.to, input: tx.input ?? '0x', gas: tx.gas ?? '0x100000', from: addr(99) }));
  return {
    number: toQuantity(n),
    hash: h(n, 'bb'),
    ...ERA_FIELDS[b.era],
    uncles: Array.from({ length: b.uncles ?? 0 }, (_, i) => h(n * 16 + i, 'dd')),
    ...(b.withdrawals !== undefined ? { withdrawals: Array.from({ length: b.withdrawals }, () => ({})) } : {}),
    transactions: full ? txs : txs.map((tx) => tx.hash),
  };
}

function receiptsOf(n: number): Json[] {
  return CHAIN[n]!.txs.map((tx, i) => ({ transactionHash: h(n * 16 + i, 'cc'), transactionIndex: toQuantity(i), ...tx.receipt }));
}

async function fakeEndpoint(opts: { blockReceipts: boolean }): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      const n = typeof params[0] === 'string' ? Number(BigInt(params[0] as string)) : -1;
      let out: Json;
      if (method === 'eth_getBlockByNumber') out = { result: CHAIN[n] ? blockOf(n, params[1] === true) : null };
      else if (method === 'eth_getBlockReceipts' && opts.blockReceipts) out = { result: CHAIN[n] ? receiptsOf(n) : null };
      else if (method === 'eth_getTransactionReceipt') {
        const hash = params[0] as string;
        out = { result: CHAIN.flatMap((_, k) => receiptsOf(k)).find((r) => r['transactionHash'] === hash) ?? null };
      } else out = { error: { code: -32601, message: 'method not found' } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, ...out }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

// The fake chain's blocks carry only the fields discovery reads, so each fails the block shape: its classes
// read "found, malformed" (the shape test below uses the real devnet's well-formed blocks as the contrast).
const present = (status: string) => status === 'found' || status === 'malformed';

describe('discovery as coverage', function () {
  const head = CHAIN.length - 1;
  const walk = async (opts: { depth?: number; budget?: number; blockReceipts?: boolean; width?: number } = {}): Promise<{ t: Targets; requests: number }> => {
    const { url, server } = await fakeEndpoint({ blockReceipts: opts.blockReceipts ?? true });
    const client = new RpcClient({ url });
    try {
      const t = await discoverTargets(client, { depth: opts.depth ?? 64, ...(opts.budget ? { budget: opts.budget } : {}), ...(opts.width ? { width: opts.width } : {}), chainId: '0x1', head: { number: toQuantity(head), hash: h(head, 'bb') } });
      t.coverage = coverageOf(t);
      return { t, requests: client.requestCount };
    } finally {
      client.close();
      server.close();
    }
  };

  it('finds every class the walked range holds, eras included, and says which are absent', async function () {
    const { t } = await walk();
    const found = Object.entries(t.coverage!).filter(([, c]) => present(c.status)).map(([k]) => k).sort();
    expect(found).to.include.members([
      'uncleBlock', 'preByzantiumTx', 'withdrawalsBlock', 'emptyBlock', 'multiTxBlock', 'contractCreation', 'deployment', 'txWithLogs', 'failedTx', 'successTx', 'callToCode', 'firstInBlockTx', 'revertedTx',
      'txByType.0x0', 'txByType.0x1', 'txByType.0x2', 'txByType.0x3', 'txByType.0x4', 'txByType.0x7e',
      'era.frontier', 'era.london', 'era.shanghai', 'era.cancun', 'era.prague',
    ]);
    expect(t.coverage!['txByType.0x7e']!.note).to.match(/does not know/);
    expect(t.uncleBlock).to.deep.include({ number: '0x1', uncleCount: 1 });
    expect(t.preByzantiumTx).to.equal(h(16, 'cc'));
    expect(t.withdrawalsBlock).to.deep.include({ number: '0x4', withdrawals: 2 });
    // The reverted 0x2 call is first in its block and kept 0x2a000 of its gas; the 0x2 call at block 4 ran code.
    expect(t.revertedTx).to.equal(h(3 * 16, 'cc'));
    expect(t.callToCode).to.equal(h(4 * 16, 'cc'));
    // Block 1 holds the last class missing (uncles, a root receipt): the walk stops there, before genesis.
    expect(t.scanned).to.deep.include({ blocks: CHAIN.length - 1, stoppedBy: 'all-found' });
  });

  it('judges blocks that span every era found, with why each was picked', async function () {
    const { t } = await walk();
    const eras = new Set(t.judgedBlocks!.map((b) => b.era));
    expect([...eras].sort()).to.deep.equal(['cancun', 'frontier', 'london', 'prague', 'shanghai']);
    expect(t.judgedBlocks!.length).to.be.at.most(16);
    expect(t.judgedBlocks!.find((b) => b.number === '0x1')!.why).to.include('uncles');
    expect(t.judgedBlocks!.find((b) => b.number === '0x4')!.why).to.include('withdrawals');
  });

  it('a range too short for a class says "not on this chain within N blocks"', async function () {
    const { t } = await walk({ depth: 3 });
    expect(t.coverage!['uncleBlock']).to.deep.equal({ status: 'absent', within: 3 });
    expect(t.coverage!['preByzantiumTx']).to.deep.equal({ status: 'absent', within: 3 });
    expect(present(t.coverage!['txByType.0x4']!.status)).to.equal(true);
  });

  it('a spent request budget says "out of budget", not absent', async function () {
    const { t, requests } = await walk({ budget: 4 });
    expect(t.scanned.stoppedBy).to.equal('budget');
    expect(requests).to.be.at.most(5);
    expect(t.coverage!['uncleBlock']!.status).to.equal('out-of-budget');
  });

  it('every block walked is held to the block shape: one failing it is recorded with its faults and classes, never dropped or called absent', async function () {
    const { t } = await walk({ depth: 3 });
    expect(t.scanned.blocks).to.equal(3);
    expect(t.malformedBlocks?.map((b) => b.number)).to.deep.equal(['0x7', '0x6', '0x5']);
    expect(t.malformedBlocks?.[0]?.faults.join(' ')).to.match(/missing required field "parentHash"/);
    expect(t.malformedBlocks?.find((b) => b.number === '0x6')?.classes).to.include('txByType.0x4');
    expect(t.coverage!['txByType.0x4']).to.deep.include({ status: 'malformed' });
    expect(t.coverage!['txByType.0x4']!.note).to.match(/block 0x6, which fails the block shape/);
  });

  it('a walk stopped by the deadline or Ctrl-C says "not looked for", never "not on this chain"', async function () {
    const { url, server } = await fakeEndpoint({ blockReceipts: true });
    const stop = new AbortController();
    const client = new RpcClient({ url, signal: stop.signal });
    const call = client.call.bind(client);
    // Stopped once the walk has read two blocks.
    let blocks = 0;
    client.call = (async (method: string, params: unknown[]) => {
      if (method === 'eth_getBlockByNumber' && ++blocks > 2) stop.abort('the run deadline of 1s');
      return call(method, params);
    }) as typeof client.call;
    try {
      // One block at a time (no reads ahead): the walk has read exactly two blocks when it is stopped.
      const t = await discoverTargets(client, { depth: 64, chainId: '0x1', head: { number: toQuantity(head), hash: h(head, 'bb') }, width: 1 });
      const coverage = coverageOf(t);
      expect(t.scanned.stoppedBy).to.equal('interrupted');
      expect(t.scanned.blocks).to.equal(2);
      expect(Object.values(coverage).filter((c) => c.status === 'absent')).to.deep.equal([]);
      expect(coverage['uncleBlock']).to.deep.equal({ status: 'not-looked-for', within: 2 });
      expect(coverage['contractCreation']!.status).to.equal('not-looked-for');
    } finally {
      client.close();
      server.close();
    }
  });

  it('reading 8 blocks ahead finds what a walk one block at a time finds, with and without eth_getBlockReceipts, at any budget (a review found classes lost to receipts read one by one ahead)', async function () {
    for (const blockReceipts of [true, false]) {
      for (const budget of [6, 10, 15, 25, 40, 256]) {
        const [ahead, alone] = [await walk({ budget, blockReceipts }), await walk({ budget, blockReceipts, width: 1 })];
        const found = (t: Targets) => Object.entries(t.coverage ?? {}).filter(([, c]) => present(c.status)).map(([k]) => k).sort();
        expect(found(ahead.t), `budget ${budget}, eth_getBlockReceipts ${blockReceipts ? 'served' : 'not served'}`).to.deep.equal(found(alone.t));
        expect(ahead.requests, `budget ${budget}: the reads ahead overspend it by a window at most`).to.be.at.most(alone.requests + 8);
      }
    }
  });

  it('without eth_getBlockReceipts, receipts one by one still reveal the receipt classes', async function () {
    const { t } = await walk({ blockReceipts: false });
    expect(t.preByzantiumTx).to.equal(h(16, 'cc'));
    expect(t.revertedTx).to.equal(h(3 * 16, 'cc'));
    expect(present(t.coverage!['txWithLogs']!.status)).to.equal(true);
  });

  it('garbage from a hostile endpoint is passed over: discovery never throws, and says what it could not find', async function () {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        const result =
          method === 'eth_getBlockByNumber'
            ? { number: 'zz', hash: '0x12', baseFeePerGas: 7, withdrawalsRoot: null, transactions: [{ hash: 5 }, 'x', { hash: '0xab', type: 7, to: 3, gas: 'q', input: 12 }], uncles: 'no', withdrawals: 5 }
            : [{ transactionHash: '0xab', status: '0x0', gasUsed: 'x', logs: 'no' }, 'y', null];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new RpcClient({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
    try {
      const t = await discoverTargets(client, { depth: 3, chainId: '0x1', head: { number: '0x2', hash: h(2, 'bb') } });
      const coverage = coverageOf(t);
      expect(t.scanned.blocks).to.equal(3);
      expect(coverage['uncleBlock']).to.deep.equal({ status: 'absent', within: 3 });
      expect(t.judgedBlocks!.length).to.equal(1); // three answers naming one block
    } finally {
      client.close();
      server.close();
    }
  });
});
