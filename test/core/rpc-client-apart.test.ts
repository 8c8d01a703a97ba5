// RpcClient's `apart` calls: each over a new connection, closed after it, so a balancer pinning connections to
// backends (an L4 balancer) is met on several; ordinary calls share the kept-alive ones.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcClient } from '../../core/node/rpc-client.ts';

describe('RpcClient: calls apart go over connections of their own', function () {
  let server: Server;
  let url: string;
  let opened = 0;

  before(async function () {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' }));
      });
    });
    server.on('connection', () => opened++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/key`;
  });

  after(async function () {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('five calls one after another share one kept-alive connection; five apart open five', async function () {
    const client = new RpcClient({ url });
    try {
      opened = 0;
      for (let i = 0; i < 5; i++) expect(await client.call('eth_blockNumber', [])).to.equal('0x1');
      expect(opened, 'kept alive').to.equal(1);
      opened = 0;
      for (let i = 0; i < 5; i++) expect((await client.exchange('eth_blockNumber', [], { apart: true })).body).to.deep.include({ result: '0x1' });
      expect(opened, 'apart').to.equal(5);
    } finally {
      client.close();
    }
  });
});
