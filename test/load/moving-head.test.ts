// Whether load chases the head by default (load/run/moving.ts), against a node that serves a head of our making: one
// that stands with a fresh timestamp (a chain that stopped: not chased), one that stands but is far older than its
// chain's pace (not chased, and said loudly: a frozen endpoint looks like this), one that moves (chased).
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { headMoves } from '../../load/run/moving.ts';

const hex = (n: number) => `0x${n.toString(16)}`;

/** A JSON-RPC node whose head is `head()`, its blocks `interval` seconds apart, the head's timestamp `headTs()`. */
async function node(head: () => number, headTs: () => number, interval: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      const top = head();
      const block = (n: number) => ({ number: hex(n), hash: `0x${n.toString(16).padStart(64, '0')}`, timestamp: hex(Math.round(headTs() - (top - n) * interval)) });
      const tag = call.params[0];
      const result = call.method === 'eth_blockNumber' ? hex(top) : call.method === 'eth_getBlockByNumber' ? block(tag === 'latest' ? top : Number.parseInt(String(tag), 16)) : null;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/moving-head-test-00`, server };
}

describe('load: whether the head is chased, from the head itself', function () {
  this.timeout(30_000);
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));
  const start = async (head: () => number, headTs: () => number, interval: number) => {
    const n = await node(head, headTs, interval);
    servers.push(n.server);
    return n.url;
  };

  it('a head that stands with a fresh timestamp: not chased, after two block intervals (2 s at least), saying how long it stood', async () => {
    const url = await start(() => 100, () => Date.now() / 1000, 1);
    const since = Date.now();
    const d = await headMoves(url, 100n, since);
    expect(d.chased).to.equal(false);
    expect(d.why).to.match(/^the head stood at block 100 for 2(\.\d)? s from the start of sampling \(two of its 1 s block intervals, 2 s at least; its timestamp \d+ s old\)/);
    expect(Date.now() - since).to.be.within(1900, 5000);
  });

  it('a head that stands but is ten minutes old on a chain of 1 s blocks: not chased (a dev chain that stopped), and said loudly that a frozen endpoint looks like this', async () => {
    const url = await start(() => 100, () => Date.now() / 1000 - 600, 1);
    const d = await headMoves(url, 100n, Date.now());
    expect(d.chased).to.equal(false);
    expect(d.why).to.match(/; its head is 60\d s old while its blocks came 1 s apart: AN ENDPOINT FROZEN AT ITS HEAD LOOKS LIKE THIS, and only --reference-url \(or --fresh\) tells it from a chain that stopped$/);
  });

  it('a head that moves during the wait: chased', async () => {
    const t0 = Date.now();
    const url = await start(() => 100 + Math.floor((Date.now() - t0) / 500), () => Date.now() / 1000, 0.5);
    const d = await headMoves(url, 100n, t0);
    expect(d.chased).to.equal(true);
    expect(d.why).to.match(/^the head moved during sampling \(block 100 to 10[1-9]\)$/);
  });
});
