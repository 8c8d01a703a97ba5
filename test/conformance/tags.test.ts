// §1's tags tied to the block each names, for eth_getBlockReceipts and eth_getTransactionByBlockNumberAndIndex (issue
// 35): the reads that bracket a tagged call are sent, not taken from the run's memo; safe and finalized resolved as
// latest fail on a chain long enough that they differ; tags that cannot be told apart are said so, never passed silently.
import { expect } from 'chai';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { runConformance } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { nodeRpc, transferBlocks } from '../support/node-rpc.ts';

const TIED = ['eth_getBlockReceipts/tags-name-their-block', 'eth_getTransactionByBlockNumberAndIndex/tags-name-their-block'];

describe('tags tied to the blocks they name', function () {
  let devnet: Devnet;
  let proxy: FaultProxy;
  before(async () => {
    devnet = await startDevnet();
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
  });
  afterEach(() => (proxy.fault = undefined));

  const run = (methods: string[]) => runConformance({ suites: allSuites, url: proxy.url, methods });
  const byId = (r: Awaited<ReturnType<typeof run>>, id: string) => r.checks.find((c) => c.id === id);

  it('each attempt sends two eth_getBlockByNumber(tag) requests, the reads before and after the tagged call', async function () {
    for (const method of ['eth_getBlockReceipts', 'eth_getTransactionByBlockNumberAndIndex']) {
      let reads = 0;
      proxy.fault = { name: 'count', kills: [], rewrite: (req, res) => ((req.method === 'eth_getBlockByNumber' && req.params[0] === 'finalized' && reads++), res) };
      const r = await run([method]);
      expect(byId(r, `${method}/tags-name-their-block`)?.verdict, method).to.equal('pass');
      expect(reads, `${method}: finalized read before and after its one attempt`).to.equal(2);
    }
  });

  it('on the short seeded chain the tags naming one block are said not told apart (a pass in part)', async function () {
    const r = await run(['eth_getBlockReceipts', 'eth_getTransactionByBlockNumberAndIndex']);
    for (const id of TIED) {
      expect(byId(r, id)?.verdict, id).to.equal('pass');
      expect(byId(r, id)?.partial, id).to.match(/could not be told apart here: earliest \(block 0\), finalized \(block 0\), safe \(block 0\)/);
    }
  });

  describe('on a chain past 64 blocks (anvil: safe = head-32, finalized = head-64), its head holding a transaction', function () {
    before(async function () {
      const rpc = nodeRpc(() => devnet.nodeUrl);
      await rpc('anvil_mine', ['0x46']);
      await transferBlocks(rpc, 1);
    });

    it('safe and finalized resolved as latest fail, naming the block each names', async function () {
      proxy.fault = { name: 'safe and finalized as latest', kills: [], rewrite: async (req, res, ctx) => (req.method === 'eth_getTransactionByBlockNumberAndIndex' && (req.params[0] === 'safe' || req.params[0] === 'finalized') ? { ...res, result: (await ctx.upstream(req.method, ['latest', req.params[1]])).result } : res) };
      const c = byId(await run(['eth_getTransactionByBlockNumberAndIndex']), TIED[1]!);
      expect(c?.verdict, c?.reason).to.equal('fail');
      expect(c?.violations ?? [c?.reason]).to.satisfy((v: string[]) => ['finalized', 'safe'].every((tag) => v.some((m) => m.startsWith(`${tag} at index 0 must be the transaction at index 0 of block`))));
    });

    it('the clean endpoint passes; the empty blocks the tags name are said not told apart from each other, each told from latest', async function () {
      const r = await run(['eth_getBlockReceipts', 'eth_getTransactionByBlockNumberAndIndex']);
      for (const id of TIED) {
        const c = byId(r, id);
        expect(c?.verdict, c?.reason).to.equal('pass');
        expect(c?.partial, id).to.match(/earliest \(block 0\), finalized \(block \d+\), safe \(block \d+\)$/);
        expect(c?.partial, id).to.not.match(/latest/);
      }
    });
  });
});
