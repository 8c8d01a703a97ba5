// Hostile endpoints on the load side: a run that cannot sample its corpus ends before k6 starts, with
// exit code 2 and a one-line reason that holds no key.
import { expect } from 'chai';
import { mkdtemp, readdir } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { runLoad } from '../../load/run/run.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { FaultProxy, type Fault } from '../support/fault-proxy.ts';

const KEY = 'SENTINEL-KEY-LD-H5T';

describe('load against hostile endpoints', function () {
  const servers: Server[] = [];
  const serve = async (answer: (res: ServerResponse) => void): Promise<string> => {
    const server = createServer((req, res) => req.resume().on('end', () => answer(res)));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/${KEY}`;
  };
  after(() => servers.forEach((s) => (s.closeAllConnections(), s.close())));

  const cases: Array<[string, () => Promise<string>, RegExp]> = [
    ['connection refused', async () => `http://127.0.0.1:9/v3/${KEY}`, /endpoint not usable: .*ECONNREFUSED/],
    ['a body that is not JSON', () => serve((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('hello')), /endpoint not usable/],
    ['HTTP 500 with an HTML body', () => serve((res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>500</h1>')), /endpoint not usable: .*HTTP 500/],
    ['a key refused with 401', () => serve((res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"invalid project id"}}')), /endpoint not usable/],
  ];

  for (const [name, url, reason] of cases) {
    it(`${name}: exit 2, one line, no report, no key`, async () => {
      const out = await mkdtemp(join(tmpdir(), 'rc-load-hostile-'));
      const r = await runLoad({ url: await url(), profile: 'smoke', out, log: () => undefined });
      expect(r.exitCode).to.equal(2);
      expect(r.summary).to.match(reason);
      expect(r.summary.split('\n')).to.have.length(1);
      expect(r.summary).to.not.include(KEY);
      expect(await readdir(out)).to.not.include('load.json');
    });
  }

  describe('faults that start after the corpus was sampled', function () {
    let devnet: Devnet;
    let proxy: FaultProxy;
    let corpus: string;
    before(async () => {
      devnet = await startDevnet();
      proxy = new FaultProxy(devnet.url);
      await proxy.start();
      const out = await mkdtemp(join(tmpdir(), 'rc-load-corpus-'));
      const clean = await runLoad({ url: proxy.url, profile: 'smoke', duration: '2s', methods: ['eth_getBlockByHash', 'eth_getTransactionByHash'], out, log: () => undefined });
      expect(clean.exitCode, clean.summary).to.equal(0);
      corpus = join(out, 'load.corpus.json');
    });
    after(async () => {
      await proxy?.stop();
      await devnet?.stop();
    });

    type Methods = Record<string, { requests: number; classes: Record<string, number> }>;
    /** A run of the recorded corpus with `fault` on, which must fail it; the report's methods, after checking that
     * eth_getBlockByHash (which the faults leave alone) succeeded throughout. */
    async function runWith(fault: Fault, duration: string): Promise<Methods> {
      proxy.fault = fault;
      try {
        const out = await mkdtemp(join(tmpdir(), 'rc-load-mid-'));
        const r = await runLoad({ url: proxy.url, profile: 'smoke', duration, corpus, out, log: () => undefined });
        expect(r.exitCode, r.summary).to.equal(1);
        const { methods } = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as { methods: Methods };
        const other = methods['eth_getBlockByHash']!;
        expect((other.classes['ok'] ?? 0) + (other.classes['ok_null'] ?? 0)).to.equal(other.requests);
        return methods;
      } finally {
        proxy.fault = undefined;
      }
    }

    const midRun: Array<[string, Fault['raw'], string]> = [
      ['HTTP 429 with Retry-After', (req) => (req.method === 'eth_getTransactionByHash' ? { status: 429, contentType: 'application/json', body: '{"error":"too many requests"}', headers: { 'retry-after': '1' } } : undefined), 'rate_limited'],
      ['HTTP 503 with an HTML body', (req) => (req.method === 'eth_getTransactionByHash' ? { status: 503, contentType: 'text/html', body: '<html>Service Unavailable</html>' } : undefined), 'http_error'],
    ];
    for (const [name, raw, cls] of midRun) {
      it(`${name} in the middle of a run: counted as ${cls} for that method, the run fails, the other method is unaffected`, async () => {
        const hit = (await runWith({ name, kills: [], raw }, '3s'))['eth_getTransactionByHash']!;
        expect(hit.classes[cls], JSON.stringify(hit.classes)).to.equal(hit.requests);
      });
    }

    it('an endpoint that stops answering one method in the middle of a run: each such call ends as timeout after the 10 s request timeout', async function () {
      this.timeout(60_000);
      // The proxy holds these calls open for good; k6 gives up on each after the plan's request timeout.
      const methods = await runWith({ name: 'silent', kills: [], rewrite: (req, res) => (req.method === 'eth_getTransactionByHash' ? new Promise<never>(() => undefined) : res) }, '13s');
      const silent = methods['eth_getTransactionByHash']!;
      expect(silent.classes['timeout'], JSON.stringify(silent.classes)).to.be.above(0);
      expect(silent.classes['timeout'], 'every call that ended').to.equal(silent.requests);
      expect(methods['eth_getBlockByHash']!.requests).to.be.above(50);
    });
  });
});
