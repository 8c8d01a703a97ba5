// Untrusted text is inert: what an endpoint says reaches a terminal capped and with its control characters
// shown, not obeyed (no screen clear, no forged verdict line), and is escaped in the HTML and the XML; an
// answer nested 100,000 levels deep gets a verdict, in the preflight as in any check, never a stack overflow.
import { expect } from 'chai';
import { SUMMARY_LINE } from '../../conformance/report/index.ts';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inert, xmlSafe } from '../../core/inert.ts';
import { EndpointUnusable, runConformance } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { summarize } from '../../conformance/report/model.ts';
import type { Devnet } from '../../devnet/index.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';
import { cli } from '../support/cli.ts';

const FORGED = '\u001b[2J\u001b[H\u001b[32mALL CHECKS PASSED\u001b[0m\r\u202e';
const HUGE = `${FORGED}${'A'.repeat(200 * 1024)}`;
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;


/** No byte a terminal would act on: ESC, CR, other C0/C1 controls, bidi overrides. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('untrusted text is inert', function () {
  it('inert() and xmlSafe() show control characters instead of passing them on, and cap the length', () => {
    const line = inert(HUGE, 120);
    expect(line).to.not.match(CONTROL);
    expect(line).to.include('\\u001b[2J');
    expect(line.length).to.be.below(200);
    expect(line).to.match(/… \(\d+ chars\)$/);
    expect(xmlSafe('a\u0000b\u001bc\ud800d\te\n')).to.equal('a\\u0000b\\u001bc\\ud800d\te\n');
  });

  describe('against a real chain', function () {
    let devnet: Devnet;
    let proxy: FaultProxy;
    faultyDevnet((d, p) => ((devnet = d), (proxy = p)));

    it('a 200 KB error message with ANSI escapes: capped and shown, never obeyed, in the terminal and in every report', async () => {
      proxy.fault = {
        name: 'ansi',
        kills: [],
        rewrite: (req, res) =>
          req.method === 'eth_getTransactionByHash'
            ? { jsonrpc: '2.0', id: res.id, error: { code: -32000, message: HUGE, data: FORGED } }
            : req.method === 'web3_clientVersion'
              ? { ...res, result: HUGE }
              : res,
      };
      const out = await mkdtemp(join(tmpdir(), 'rc-ansi-'));
      const r = await cli(['conformance', '--url', proxy.url, '--out', out, '--methods', 'eth_getTransactionByHash']);
      expect(r.code, r.err).to.equal(1);
      for (const text of [r.out, r.err]) {
        expect(text).to.not.match(CONTROL);
        // Capped: a failure's reason is printed whole up to the summary's line cap, never the 200 KB it quotes.
        for (const line of text.split('\n')) expect(line.length).to.be.at.most(SUMMARY_LINE + 20);
      }
      expect(r.out).to.include('\\u001b[2J');
      const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as { run: { clientVersion?: string }; checks: Array<{ reason?: string; evidence: Array<{ response?: string }> }> };
      expect(report.run.clientVersion?.length).to.be.at.most(200);
      for (const c of report.checks) {
        expect((c.reason ?? '').length).to.be.at.most(2000);
        for (const e of c.evidence) expect((e.response ?? '').length).to.be.below(4100);
      }
      const html = await readFile(join(out, 'conformance.html'), 'utf8');
      expect(html).to.not.match(CONTROL);
      const xml = await readFile(join(out, 'conformance.junit.xml'), 'utf8');
      expect(xml).to.not.match(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
      expect(xml).to.include('\\u001b[2J');
    });

    it('an answer nested 100,000 levels deep: every check keeps a verdict, the run is complete and fails', async () => {
      proxy.fault = {
        name: 'deep',
        kills: [],
        raw: (req) => (req.method === 'eth_getBlockByHash' ? { status: 200, contentType: 'application/json', body: `{"jsonrpc":"2.0","id":${req.id},"result":${deep(100_000)}}` } : undefined),
      };
      const run = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getBlockByHash'] });
      const suite = allSuites.find((s) => s.method === 'eth_getBlockByHash')!;
      expect(run.complete).to.equal(true);
      expect(run.checks.map((c) => c.id).sort()).to.deep.equal(suite.checks.map(({ spec }) => spec.id).sort());
      const deepOnes = run.checks.filter((c) => c.reason?.includes('nested more than'));
      expect(deepOnes.length).to.be.above(3);
      expect(summarize(run.checks, false, run.complete).verdict).to.equal('fail');
    });

    it('through the CLI, a deep answer is a verdict with reports, not "interrupted"', async () => {
      proxy.fault = {
        name: 'deep',
        kills: [],
        raw: (req) => (req.method === 'eth_getTransactionReceipt' ? { status: 200, contentType: 'application/json', body: `{"jsonrpc":"2.0","id":${req.id},"result":{"a":${deep(100_000)}}}` } : undefined),
      };
      const out = await mkdtemp(join(tmpdir(), 'rc-deep-'));
      const r = await cli(['conformance', '--url', proxy.url, '--out', out, '--methods', 'eth_getTransactionReceipt']);
      expect(r.code, r.err).to.equal(1);
      expect(r.err).to.not.match(/Maximum call stack/);
      expect((await readdir(out)).sort()).to.deep.equal(['conformance.html', 'conformance.json', 'conformance.junit.xml', 'targets.lock.json']);
    });
  });

  describe('in the preflight', function () {
    let server: Server;
    let url: string;
    let answer = '';
    before(async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(answer);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/inert-key-000`;
    });
    after(() => {
      server.closeAllConnections();
      server.close();
    });

    it('100,000 levels deep: not usable, with a reason, no stack overflow', async () => {
      answer = `{"jsonrpc":"2.0","id":1,"result":${deep(100_000)}}`;
      const err = await runConformance({ suites: allSuites, url, timeoutMs: 2000 }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(EndpointUnusable);
      expect((err as Error).message).to.match(/nested more than 256 levels/);
    });

    it('a huge ANSI error message: one capped line on stderr, exit 2', async () => {
      answer = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: HUGE } });
      const r = await cli(['conformance', '--url', url, '--timeout', '2000', '--out', await mkdtemp(join(tmpdir(), 'rc-ansi-pre-'))]);
      expect(r.code).to.equal(2);
      expect(r.err).to.not.match(CONTROL);
      expect(r.err.trim().split('\n')).to.have.length(1);
      expect(r.err.length).to.be.below(600);
      expect(r.err).to.include('\\u001b[2J');
    });
  });
});
