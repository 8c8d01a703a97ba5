import { expect } from 'chai';
import { toQuantity } from '../../core/hex.ts';
import { type Devnet, startDevnet } from '../../devnet/index.ts';

type Answer = { jsonrpc: string; id: unknown; result?: any; error?: { code: number; message: string; data?: unknown } };

describe('devnet: anvil + seed + reference gateway', function () {
  this.timeout(20_000);
  let devnet: Devnet;

  const post = (url: string, body: unknown) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const rpc = async (method: string, params: unknown[], url = devnet.url): Promise<Answer> =>
    (await (await post(url, { jsonrpc: '2.0', id: 1, method, params })).json()) as Answer;
  const result = async (method: string, params: unknown[]) => {
    const answer = await rpc(method, params);
    expect(answer.error, `${method} error`).to.equal(undefined);
    return answer.result;
  };

  before(async () => {
    devnet = await startDevnet();
  });
  after(async () => {
    await devnet?.stop();
  });

  describe('gateway HTTP shape', () => {
    it('answers 401 with a JSON-RPC error for a wrong or missing key, without echoing it', async () => {
      const wrong = `${devnet.baseUrl}/v3/not-the-key-0123456789`;
      for (const url of [wrong, `${devnet.baseUrl}/v3/`, `${devnet.baseUrl}/v3`]) {
        const res = await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
        expect(res.status, url).to.equal(401);
        const text = await res.text();
        expect(text).to.not.include('not-the-key');
        const body = JSON.parse(text) as Answer;
        expect(body.jsonrpc).to.equal('2.0');
        expect(body.error?.code).to.be.a('number');
        expect(body.error?.message).to.equal('invalid project id');
      }
    });

    it('answers 404 off /v3 and 405 for non-POST', async () => {
      expect((await post(`${devnet.baseUrl}/v2/${devnet.apiKey}`, {})).status).to.equal(404);
      expect((await fetch(devnet.url)).status).to.equal(405);
    });

    it('forwards calls and preserves ids, also in a batch', async () => {
      const single = (await (await post(devnet.url, { jsonrpc: '2.0', id: 42, method: 'eth_chainId', params: [] })).json()) as Answer;
      expect(single).to.deep.equal({ jsonrpc: '2.0', id: 42, result: toQuantity(devnet.seed.chainId) });

      const res = await post(devnet.url, [
        { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] },
        { jsonrpc: '2.0', id: 8, method: 'eth_getUncleByBlockNumberAndIndex', params: ['0xffff', '0x0'] },
      ]);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const batch = (await res.json()) as Answer[];
      expect(batch.map((a) => a.id)).to.deep.equal(['a', 7, 8]);
      expect(batch[1]?.result).to.equal(devnet.seed.blocks.multiTx.number);
      expect(batch[2]?.result).to.equal(null);
    });
  });

  describe('seeded chain', () => {
    it('has the failed tx with status 0x0 and the creation with a contract address', async () => {
      expect((await result('eth_getTransactionReceipt', [devnet.seed.txs.failed])).status).to.equal('0x0');
      const creation = await result('eth_getTransactionReceipt', [devnet.seed.txs.creation]);
      expect(creation.to).to.equal(null);
      expect(creation.contractAddress).to.equal(devnet.seed.contracts.emitter);
    });

    it('has a tx with several logs carrying indexed topics and data', async () => {
      const { logs } = await result('eth_getTransactionReceipt', [devnet.seed.txs.withLogs]);
      expect(logs.length).to.be.greaterThan(1);
      for (const log of logs) {
        expect(log.topics.length).to.be.greaterThan(1);
        expect(log.data).to.not.equal('0x');
      }
    });

    it('has a head block with >= 4 txs of mixed types and an empty block', async () => {
      const { multiTx, empty } = devnet.seed.blocks;
      const block = await result('eth_getBlockByHash', [multiTx.hash, true]);
      expect(block.number).to.equal(multiTx.number);
      expect(block.transactions.length).to.be.at.least(4);
      expect(new Set(block.transactions.map((t: { type: string }) => t.type)).size).to.be.at.least(3);
      expect(new Set(block.transactions.map((t: { from: string }) => t.from)).size).to.equal(block.transactions.length);
      expect((await result('eth_getBlockByHash', [empty.hash, false])).transactions).to.deep.equal([]);
    });

    it('has txs of types 0x0, 0x1 (with an access list) and 0x2; the seed skipped no step', async () => {
      expect(devnet.seed.skipped).to.deep.equal([]);
      for (const type of ['0x0', '0x1', '0x2']) {
        const hash = devnet.seed.txs.byType[type];
        expect(hash, type).to.be.a('string');
        const tx = await result('eth_getTransactionByHash', [hash]);
        expect(tx.type).to.equal(type);
        if (type === '0x1') expect(tx.accessList).to.not.be.empty;
      }
    });
  });

  describe('normalisations of anvil deviations', () => {
    const unknownHash = `0x${'11'.repeat(32)}`;

    it('uncle lookups that miss return null; malformed params stay errors', async () => {
      expect(await result('eth_getUncleByBlockNumberAndIndex', ['0xffff', '0x0'])).to.equal(null);
      expect(await result('eth_getUncleByBlockNumberAndIndex', ['latest', '0x0'])).to.equal(null);
      expect(await result('eth_getUncleByBlockHashAndIndex', [unknownHash, '0x0'])).to.equal(null);
      expect(await result('eth_getUncleByBlockHashAndIndex', [devnet.seed.blocks.multiTx.hash, '0x0'])).to.equal(null);
      expect((await rpc('eth_getUncleByBlockHashAndIndex', ['0x1234', '0x0'])).error?.code).to.equal(-32602);
    });

    it('eth_getBlockReceipts: pending equals latest, decimal numbers are accepted', async () => {
      const latest = await result('eth_getBlockReceipts', ['latest']);
      expect(latest.length).to.be.at.least(4);
      expect(await result('eth_getBlockReceipts', ['pending'])).to.deep.equal(latest);
      const decimal = String(Number(devnet.seed.blocks.multiTx.number));
      expect(await result('eth_getBlockReceipts', [decimal])).to.deep.equal(latest);
      expect(await result('eth_getBlockReceipts', [Number(decimal)])).to.deep.equal(latest);
      expect(await result('eth_getBlockReceipts', [devnet.seed.blocks.multiTx.number])).to.deep.equal(latest);
    });

    it('receipts carry no non-standard fields', async () => {
      const [receipt] = await result('eth_getBlockReceipts', ['latest']);
      const single = await result('eth_getTransactionReceipt', [receipt.transactionHash]);
      expect(single).to.deep.equal(receipt);
      for (const r of [receipt, single]) {
        expect(r).to.not.have.any.keys('blockTimestamp', 'blobGasPrice');
        expect(r).to.include.keys('status', 'logsBloom', 'effectiveGasPrice', 'type');
      }
    });

    it('eth_estimateGas reverts: code 3, geth message, raw revert data', async () => {
      const expected = { require: 'execution reverted: rpc-certify: require reason', custom: 'execution reverted', panic: 'execution reverted: assert(false)' };
      expect(devnet.seed.reverts.map((r) => r.kind)).to.deep.equal(['require', 'custom', 'panic']);
      for (const revert of devnet.seed.reverts) {
        const { error } = await rpc('eth_estimateGas', [{ to: revert.to, data: revert.data }]);
        expect(error, revert.kind).to.deep.equal({ code: 3, message: expected[revert.kind], data: revert.expectedData });
        expect(error?.message).to.equal(revert.reason ? `execution reverted: ${revert.reason}` : 'execution reverted');
      }
    });
  });
});
