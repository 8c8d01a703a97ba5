// Hostile endpoints: each misbehaving loopback server must end in a clear verdict within the timeout:
// "not usable" with a one-line reason at preflight, or "inconclusive" for checks that could not be tested.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { EndpointUnusable, runConformance } from '../../conformance/framework/runner.ts';
import { loadExpectations } from '../../conformance/framework/expectations.ts';
import { outcomeOf, summarize } from '../../conformance/report/model.ts';
import { allSuites } from '../../conformance/methods.ts';
import { METHODS } from '../../core/methods.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { checkIds } from '../../conformance/framework/check.ts';
import { reportFaults } from '../../conformance/report/json.ts';
import { cli } from '../support/cli.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function serve(handler: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/hst5-key-000`, server };
}

async function unusable(url: string, extra: { ca?: string } = {}): Promise<string> {
  const started = Date.now();
  try {
    await runConformance({ suites: allSuites, url, timeoutMs: 800, ...extra });
  } catch (err) {
    expect(err).to.be.instanceOf(EndpointUnusable);
    expect(Date.now() - started, 'bounded by the timeout and the retries').to.be.below(8000);
    const message = (err as Error).message;
    expect(message.split('\n')).to.have.length(1);
    expect(message).to.not.include('hst5-key-000');
    return message;
  }
  throw new Error('the run did not report the endpoint as unusable');
}

const json = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};

describe('hostile endpoints get a clear verdict', function () {
  const servers: Server[] = [];
  const hostile = async (h: Handler) => {
    const s = await serve(h);
    servers.push(s.server);
    return s.url;
  };
  after(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  it('connection refused', async () => {
    const url = await hostile(() => undefined);
    servers.pop()!.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(await unusable(url)).to.match(/unreachable: ECONNREFUSED/);
  });

  it('accepts and never answers', async () => {
    expect(await unusable(await hostile(() => undefined))).to.match(/timed out/);
  });

  it('drips bytes slowly', async () => {
    const url = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => (res.writableEnded ? clearInterval(timer) : res.write(' ')), 100);
      res.on('close', () => clearInterval(timer));
    });
    expect(await unusable(url)).to.match(/timed out/);
  });

  it('a response that never ends', async () => {
    const url = await hostile((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    expect(await unusable(url)).to.match(/timed out|over \d+ bytes/);
  });

  it('HTTP 429 with Retry-After: retried politely, then reported', async () => {
    let calls = 0;
    const url = await hostile((_req, res) => {
      calls++;
      json(res, 429, '{"error":"quota"}', { 'retry-after': '1' });
    });
    expect(await unusable(url)).to.match(/rate limiting \(HTTP 429, Retry-After 1s\)/);
    expect(calls, 'one call and two polite retries').to.equal(3);
  });

  it('HTTP 429 without Retry-After, and one asking for too long a wait, are not hammered', async () => {
    let calls = 0;
    const url = await hostile((_req, res) => {
      calls++;
      json(res, 429, '{}', { 'retry-after': '3600' });
    });
    expect(await unusable(url)).to.match(/rate limiting/);
    expect(calls).to.equal(1);
  });

  for (const status of [500, 502, 503]) {
    it(`HTTP ${status} with an HTML body`, async () => {
      const url = await hostile((_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end('<html><body>Bad Gateway</body></html>');
      });
      expect(await unusable(url)).to.include(`HTTP ${status}`);
    });
  }

  it('a body that is not JSON', async () => {
    expect(await unusable(await hostile((_req, res) => json(res, 200, 'hello')))).to.match(/does not speak JSON-RPC/);
  });

  it('truncated JSON', async () => {
    expect(await unusable(await hostile((_req, res) => json(res, 200, '{"jsonrpc":"2.0","id":1,"resu')))).to.match(/does not speak JSON-RPC/);
  });

  it('the same JSON-RPC body, with a wrong id, whatever was asked: no usable answer', async () => {
    expect(await unusable(await hostile((_req, res) => json(res, 200, '{"jsonrpc":"2.0","id":777,"result":"0x1"}')))).to.match(/returned "0x1", not a block/);
  });

  it('a 50 MB response', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"result":"0x${'0'.repeat(50 * 1024 * 1024)}"}`;
    expect(await unusable(await hostile((_req, res) => json(res, 200, big)))).to.match(/over \d+ bytes|timed out/);
  });

  it('a redirect', async () => {
    const url = await hostile((_req, res) => {
      res.writeHead(301, { location: 'http://127.0.0.1:1/' });
      res.end();
    });
    expect(await unusable(url)).to.include('HTTP 301');
  });

  describe('with a real chain behind', function () {
    let devnet: Devnet;
    before(async () => {
      devnet = await startDevnet();
    });
    after(async () => devnet?.stop());

    it('TLS with a self-signed certificate: a clear error, and --ca-file to trust it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'rc-tls-'));
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
      const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
      const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => void fetch(devnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (r) => json(res, r.status, await r.text())));
      });
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v3/hst5-key-000`;
      expect(await unusable(url)).to.match(/TLS certificate not trusted .*--ca-file/);
      // Judged as `start` judges the embedded default: with its expectations (anvil's blob transaction in the trie).
      const run = await runConformance({ suites: allSuites, url, ca: cert, methods: ['eth_getBlockByHash'], expect: await loadExpectations('fixtures/expectations/embedded.json', checkIds(allSuites)) });
      expect(run.checks.filter((c) => outcomeOf(c, false) === 'fail' || outcomeOf(c, false) === 'unexpected-pass').map((c) => c.id)).to.deep.equal([]);
    });

    it('a one-character key: its variants (the base64 of "x" is "eA") never cut the report\'s own field names; the reports are written and valid (they were not: "h<redacted>dBefore")', async () => {
      const proxy = new FaultProxy(devnet.url);
      await proxy.start();
      proxy.fault = { name: 'any key served', kills: [], serveAnyKey: true };
      try {
        const out = mkdtempSync(join(tmpdir(), 'rc-short-key-'));
        // A child process: the key registered for redaction in this one would garble every later test's output.
        const run = await cli(['conformance', '--url', proxy.url.replace(FaultProxy.KEY, 'x'), '--methods', 'eth_getBlockByHash', '--reference-url', devnet.url, '--out', out, '--quiet']);
        expect(run.err, run.err).not.to.match(/harness bug/);
        const report = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as unknown;
        expect(reportFaults(report)).to.deep.equal([]);
        expect((report as { run: Record<string, unknown> }).run).to.include.keys('headBefore', 'headAfter', 'reference');
      } finally {
        await proxy.stop();
      }
    });

    it('a 429 in the middle of a run makes those checks inconclusive, not failed', async () => {
      const proxy = new FaultProxy(devnet.url);
      await proxy.start();
      proxy.fault = {
        name: 'receipts rate limited',
        kills: [],
        raw: (req) => (req.method === 'eth_getBlockReceipts' ? { status: 429, contentType: 'application/json', body: '{"error":"rate limited"}', headers: { 'retry-after': '0' } } : undefined),
      };
      try {
        const run = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getBlockReceipts'] });
        const inconclusive = run.checks.filter((c) => c.verdict === 'inconclusive');
        expect(inconclusive.length).to.be.above(3);
        for (const c of inconclusive) expect(c.reason).to.match(/could not be tested: rate-limited/);
        expect(run.checks.filter((c) => c.verdict === 'fail' && c.layer !== 'advisory').map((c) => c.id)).to.deep.equal([]);
      } finally {
        await proxy.stop();
      }
    });

    it('HTTP 429 on every call of the eight methods fails no check, advisory ones included: each is inconclusive or skipped, the run INCONCLUSIVE (red team B2)', async () => {
      const proxy = new FaultProxy(devnet.url);
      await proxy.start();
      const methods: string[] = [...METHODS];
      proxy.fault = { name: 'every method rate limited', kills: [], raw: (req) => (methods.includes(req.method) ? { status: 429, contentType: 'application/json', body: '{"error":"rate limited"}', headers: { 'retry-after': '0' } } : undefined) };
      try {
        const run = await runConformance({ suites: allSuites, url: proxy.url, methods });
        expect(run.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.id}: ${c.reason}`)).to.deep.equal([]);
        for (const c of run.checks.filter((k) => k.verdict === 'inconclusive')) expect(c.reason, c.id).to.match(/could not be tested: rate-limited|leans on/);
        expect(run.checks.filter((c) => c.verdict === 'pass').map((c) => c.id), 'nothing passes on answers it never got').to.deep.equal([]);
        expect(summarize(run.checks, false, run.complete).verdict).to.equal('inconclusive');
      } finally {
        await proxy.stop();
      }
    });
  });
});
