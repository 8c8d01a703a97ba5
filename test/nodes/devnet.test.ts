import { expect } from 'chai';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expectationFor, parseExpectations } from '../../conformance/framework/expectations.ts';
import { explains } from '../../conformance/report/model.ts';
import { toQuantity } from '../../core/hex.ts';
import { type Devnet, startDevnet } from '../../devnet/index.ts';
import { DEFAULT_TX_PER_BLOCK } from '../../devnet/moving.ts';
import { trafficSender } from '../../devnet/traffic.ts';
import { cli } from '../support/cli.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';
import type { Answer } from '../support/answer.ts';


describe('devnet: anvil + seed + reference gateway', function () {
  // A start is ~7 s on an idle machine (anvil loads its KZG setup at the seed's blob transaction), 15-20 s on two busy cores.
  this.timeout(60_000);
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

describe('moving devnet: rpc-certify devnet --block-time 1', function () {
  this.timeout(60_000);
  type Block = { number: string; transactions: Array<{ hash: string; type: string; to: string | null }> };
  let child: ChildProcess;
  let out = '';
  let err = '';
  let gateway: string;
  let node: string;
  let seededHead: number;

  const call = async (url: string, method: string, params: unknown[]): Promise<any> => {
    const answer = (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as Answer;
    expect(answer.error, `${method} error`).to.equal(undefined);
    return answer.result;
  };
  const head = async () => Number(await call(gateway, 'eth_blockNumber', []));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** The blocks mined since `from`, full, with their receipts, polled until `done` holds or the deadline passes. */
  const blocksUntil = async (from: number, done: (seen: Array<{ block: Block; receipts: any[] }>) => boolean, ms: number) => {
    const seen: Array<{ block: Block; receipts: any[] }> = [];
    const deadline = Date.now() + ms;
    let next = from;
    while (!done(seen) && Date.now() < deadline) {
      const top = await head();
      for (; next <= top; next++) {
        const block = (await call(gateway, 'eth_getBlockByNumber', [toQuantity(next), true])) as Block;
        seen.push({ block, receipts: await call(gateway, 'eth_getBlockReceipts', [block.number]) });
      }
      await sleep(250);
    }
    return seen;
  };

  before(async () => {
    child = spawn(process.execPath, ['bin/rpc-certify.js', 'devnet', '--block-time', '1']);
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const deadline = Date.now() + 45_000;
    while (!/certify it:/.test(out) && Date.now() < deadline && child.exitCode === null) await sleep(100);
    gateway = /listening: (\S+)/.exec(out)?.[1] ?? '';
    node = /anvil behind it at (\S+)\./.exec(out)?.[1] ?? '';
    seededHead = Number(/from block (\d+) on/.exec(out)?.[1] ?? NaN) - 1;
    expect(gateway, `${out}\n${err}`).to.match(/^http:\/\/127\.0\.0\.1:\d+\/v3\/[0-9a-f]{32}$/);
  });
  // A failed test leaves the CLI running: a SIGTERM stops it and its anvil (a SIGKILL would orphan anvil, which
  // leads its own session); SIGKILL only if it does not stop in time.
  after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    if ((await Promise.race([closed, sleep(10_000).then(() => 'timeout')])) === 'timeout') child.kill('SIGKILL');
  });

  it('the head advances by itself, a block a second', async () => {
    const first = await head();
    await sleep(2_600);
    expect(await head()).to.be.within(first + 2, first + 4);
  });

  it('new blocks carry every transaction type anvil mines (a blob, a set-code), logs, a creation and a failed transaction', async () => {
    const kinds = (seen: Array<{ block: Block; receipts: any[] }>) => {
      const txs = seen.flatMap((s) => s.block.transactions);
      const receipts = seen.flatMap((s) => s.receipts);
      return {
        types: [...new Set(txs.map((t) => t.type))].sort(),
        creation: receipts.some((r) => r.to === null && typeof r.contractAddress === 'string' && r.status === '0x1'),
        logs: receipts.some((r) => r.logs.length > 1),
        failed: receipts.some((r) => r.status === '0x0'),
      };
    };
    const all = (seen: Array<{ block: Block; receipts: any[] }>) => {
      const k = kinds(seen);
      return k.types.length === 5 && k.creation && k.logs && k.failed;
    };
    const seen = await blocksUntil(seededHead + 1, all, 12_000);
    expect(kinds(seen)).to.deep.equal({ types: ['0x0', '0x1', '0x2', '0x3', '0x4'], creation: true, logs: true, failed: true });
    // A few transactions a block, not a flood: the traffic keeps a steady, bounded rate.
    for (const { block } of seen) expect(block.transactions.length, `block ${block.number}`).to.be.at.most(DEFAULT_TX_PER_BLOCK + 1);
    expect(err).to.not.match(/devnet traffic/);
  });

  it('a send the node refuses is said once, and the traffic goes on', async () => {
    await call(node, 'anvil_setBalance', [trafficSender('blob').address, '0x0']);
    const from = await head();
    // Two rounds of the seven kinds at three a second: the blob is refused twice, said once.
    const seen = await blocksUntil(from + 1, () => false, 5_500);
    expect(err.match(/devnet traffic: blob:/g) ?? [], err).to.have.length(1);
    expect(err).to.match(/insufficient funds/i);
    const types = new Set(seen.slice(1).flatMap((s) => s.block.transactions.map((t) => t.type)));
    expect([...types].sort()).to.include.members(['0x0', '0x1', '0x2', '0x4']);
    expect(types.has('0x3')).to.equal(false);
  });

  it('an empty block comes every few blocks (the traffic pauses), so discovery finds one near the head', async () => {
    // Blocks mined before the traffic's first send are empty too: only an empty block after a full one counts.
    const afterTraffic = (seen: Array<{ block: Block }>) => {
      const first = seen.findIndex((s) => s.block.transactions.length > 0);
      return first >= 0 && seen.slice(first).some((s) => s.block.transactions.length === 0);
    };
    expect(afterTraffic(await blocksUntil(seededHead + 1, afterTraffic, 8_000))).to.equal(true);
  });

  it('Ctrl-C stops the traffic, the gateway and anvil: no process is left behind', async () => {
    // The CLI's children: anvil, and esbuild's service when the bundle was just rebuilt.
    const children = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(child.pid)]).toString().trim().split('\n');
    const anvils = children.filter((line) => / anvil$/.test(line.trim().replace(/\s+/, ' '))).map((line) => Number.parseInt(line, 10));
    expect(anvils, children.join('\n')).to.have.length(1);
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    child.kill('SIGINT');
    expect(await exited, err).to.equal(0);
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(anvils.filter(alive)).to.deep.equal([]);
    const refused = async (url: string) => fetch(url, { method: 'POST', body: '{}' }).then(() => false, () => true);
    expect(await refused(gateway)).to.equal(true);
    expect(await refused(node)).to.equal(true);
  });
});

describe('moving devnet: the embedded default\'s own expectation', () => {
  // The background traffic's blobs put several blocks under anvil's one transactionsRoot deviation: the entry
  // explains any number of them, and nothing on a block without a blob.
  const note = expectationFor('eth_getBlockByHash/transactions-root', parseExpectations(readFileSync('fixtures/expectations/embedded.json', 'utf8'), 'embedded.json', checkIds(allSuites)), '2026-01-01');
  const reason = (blocks: string[]) => `transactionsRoot is not the trie root of the transactions in ${blocks.length} of 16 blocks judged: ${blocks.join('; ')}`;
  const blob = (n: number, types: string) => `block ${n} (type 0x3, spread) holds 3 transaction(s) of type ${types}, and its transactionsRoot is exactly the trie root of their network forms (blob sidecars included, as eth_getRawTransactionByHash gives them)`;

  it('explains the seed\'s blob block and the traffic\'s, however many', () => {
    expect(explains(note, { reason: reason([blob(9, '0x3')]) })).to.equal(true);
    expect(explains(note, { reason: reason([blob(40, '0x1, 0x2, 0x3'), blob(38, '0x2, 0x3, 0x4'), blob(9, '0x3')]) })).to.equal(true);
  });

  it('does not explain a wrong root of a block without a blob, first or last in the list', () => {
    const plain = 'block 12 (spread) holds 3 transaction(s) of type 0x0, 0x1, 0x2';
    expect(explains(note, { reason: reason([plain]) })).to.equal(false);
    expect(explains(note, { reason: reason([blob(40, '0x2, 0x3'), plain]) })).to.equal(false);
    expect(explains(note, { reason: reason([plain, blob(40, '0x2, 0x3')]) })).to.equal(false);
  });

  it('does not explain a blob block whose root is not the trie of the network forms either', () => {
    const other = 'block 41 (spread) holds 3 transaction(s) of type 0x2, 0x3, nor is its transactionsRoot the trie root of their network forms (blob sidecars included)';
    expect(explains(note, { reason: reason([other]) })).to.equal(false);
    expect(explains(note, { reason: reason([blob(40, '0x2, 0x3'), other]) })).to.equal(false);
  });
});

describe('moving devnet: options', () => {
  it('--block-time takes a whole number of seconds, and in `load` no --url', async () => {
    for (const [args, said] of [
      [['devnet', '--block-time', '0'], /--block-time takes a positive whole number, got "0"/],
      [['devnet', '--block-time', '0.5'], /--block-time takes a positive whole number/],
      [['load', '--url', 'http://127.0.0.1:9/v3/0123456789abcdef0123', '--block-time', '1'], /--block-time makes the embedded default move: it takes no --url/],
    ] as const) {
      const r = await cli([...args]);
      expect(r.code, r.err).to.equal(2);
      expect(r.err).to.match(said);
    }
  });

  it('startDevnet refuses a node it cannot move (hardhat) and a fraction of a second before starting anything', async () => {
    for (const opts of [{ node: 'hardhat', blockTimeS: 1 }, { node: 'geth', blockTimeS: 0.5 }] as const) {
      let error: unknown;
      await startDevnet(opts).catch((e: unknown) => (error = e));
      expect(String(error), opts.node).to.match(/a moving devnet takes anvil or geth and a whole number of seconds per block/);
    }
  });
});
