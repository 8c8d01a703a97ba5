// Honest chains are certified whatever they happen to hold (issue 34): a dev chain with transfers, calls, logs,
// creations and failed transactions but no blob and no EIP-7702 transaction passes at the default floor, the types it
// lacks left out as not on this chain, named with the walk's extent. An endpoint cannot shrink its own denominator:
// with --reference-url the absence is the reference's, and a transaction the reference has is judged on the endpoint.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { runConformance } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { summarize } from '../../conformance/report/model.ts';
import type { CheckResult } from '../../conformance/framework/check.ts';
import { isObject } from '../../core/hex.ts';
import { FaultProxy } from '../support/fault-proxy.ts';
import { cli } from '../support/cli.ts';

const TYPE_CHECKS = ['eth_getTransactionByHash/type-0x3-shape', 'eth_getTransactionByHash/type-0x4-shape'];
const byId = (checks: CheckResult[], id: string) => checks.find((c) => c.id === id);

describe('honest chains are certified; the types they lack are left out only when known absent', function () {
  let plain: Devnet;
  let full: Devnet;
  before(async () => {
    [plain, full] = await Promise.all([startDevnet({ without: ['blob', 'set-code'] }), startDevnet()]);
  });
  after(async () => Promise.all([plain?.stop(), full?.stop()]));

  it('a seeded chain without blob and set-code transactions: PASS at the default floor (exit 0), the two types listed as not on this chain with the walk\'s extent', async function () {
    const out = await mkdtemp(join(tmpdir(), 'rc-honest-'));
    const run = await cli(['conformance', '--url', plain.url, '--out', out]);
    expect(run.code, run.out + run.err).to.equal(0);
    expect(run.out).to.match(/eth_getTransactionByHash \d+\/\d+ \(3 left out\)/);
    const report = JSON.parse(await readFile(join(out, 'conformance.json'), 'utf8')) as { summary: ReturnType<typeof summarize>; checks: CheckResult[] };
    expect(report.summary.verdict).to.equal('pass');
    for (const id of TYPE_CHECKS) {
      expect(byId(report.checks, id), id).to.deep.include({ verdict: 'skip', inapplicable: 'type-absent' });
      expect(byId(report.checks, id)?.reason, id).to.match(/^not on this chain: no type 0x[34] transaction in the \d+ block\(s\) walked \(0 to \d+\)$/);
    }
    const tx = report.summary.judged.perMethod.find((m) => m.method === 'eth_getTransactionByHash');
    expect(tx, 'both types and §8\'s window left out, all else judged').to.deep.include({ leftOut: 3 });
    expect(tx?.judged).to.equal(tx?.of);
    // What the harness provokes is judged here as on any chain.
    for (const id of ['eth_estimateGas/state-at-block', 'eth_estimateGas/revert-empty', 'eth_estimateGas/revert-custom-error', 'eth_estimateGas/revert-panic', 'eth_estimateGas/covers-code-deposit', 'eth_estimateGas/covers-access-list']) {
      expect(byId(report.checks, id)?.verdict, id).to.equal('pass');
    }
  });

  it('with a reference that holds none either, the types stay left out, the reference named', async function () {
    const r = await runConformance({ suites: allSuites, url: plain.url, referenceUrl: plain.nodeUrl, methods: ['eth_getTransactionByHash'] });
    for (const id of TYPE_CHECKS) {
      expect(byId(r.checks, id), id).to.deep.include({ verdict: 'skip', inapplicable: 'type-absent' });
      expect(byId(r.checks, id)?.reason, id).to.match(/nor at the reference \(--reference-url\) in the same blocks$/);
    }
  });

  it('a chain past the merge whose genesis does not show it born there (a proof-of-work genesis, as Sepolia\'s): its uncle checks are not on this chain without a fixture, named', async function () {
    const proxy = new FaultProxy(plain.url);
    await proxy.start();
    try {
      proxy.fault = { name: 'genesis with a difficulty', kills: [], rewrite: (req, res) => (req.method === 'eth_getBlockByNumber' && req.params[0] === '0x0' && isObject(res.result) ? { ...res, result: { ...res.result, difficulty: '0x1' } } : res) };
      const r = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getUncleByBlockHashAndIndex'] });
      for (const id of ['eth_getUncleByBlockHashAndIndex/uncle-shape', 'eth_getUncleByBlockHashAndIndex/uncle-hash']) {
        expect(byId(r.checks, id), id).to.deep.include({ verdict: 'skip', inapplicable: 'history-era' });
        expect(byId(r.checks, id)?.reason, id).to.match(/the chain is past the merge \(its head 0x[0-9a-f]+ has difficulty 0, its header hashing to its hash\)/);
      }
    } finally {
      await proxy.stop();
    }
  });

  it('an endpoint that hides its blob transactions does not shrink its share: the reference\'s blob transaction is judged on it, and fails', async function () {
    const proxy = new FaultProxy(full.url);
    await proxy.start();
    try {
      const blob = (tx: unknown) => isObject(tx) && tx['type'] === '0x3';
      proxy.fault = {
        name: 'blob transactions hidden',
        kills: [],
        rewrite: (req, res) => {
          const result = res.result;
          if (req.method === 'eth_getTransactionByHash' && blob(result)) return { ...res, result: null };
          if (/^eth_getBlockBy/.test(req.method) && isObject(result) && Array.isArray(result['transactions'])) return { ...res, result: { ...result, transactions: result['transactions'].filter((tx) => !blob(tx)) } };
          return res;
        },
      };
      const without = await runConformance({ suites: allSuites, url: proxy.url, methods: ['eth_getTransactionByHash'] });
      expect(byId(without.checks, TYPE_CHECKS[0]!), 'alone, the walk cannot tell').to.deep.include({ verdict: 'skip', inapplicable: 'type-absent' });
      const withRef = await runConformance({ suites: allSuites, url: proxy.url, referenceUrl: full.nodeUrl, methods: ['eth_getTransactionByHash'] });
      const c = byId(withRef.checks, TYPE_CHECKS[0]!);
      expect(c?.inapplicable).to.equal(undefined);
      expect(c?.verdict, c?.reason).to.equal('fail');
      expect(c?.reason).to.match(/a known transaction hash returned null/);
    } finally {
      await proxy.stop();
    }
  });
});

describe('a moving honest chain without blobs or set-code, with traffic in its blocks', function () {
  let devnet: Devnet;
  before(async () => {
    devnet = await startDevnet({ without: ['blob', 'set-code'], blockTimeS: 1 });
    // A few blocks of traffic, the creations among them.
    await new Promise((r) => setTimeout(r, 8_000));
  });
  after(async () => devnet?.stop());

  it('certifies PASS at the default floor, the estimate at a block judged on a creation of the traffic', async function () {
    const r = await runConformance({ suites: allSuites, url: devnet.url });
    const s = summarize(r.checks, false, r.complete, { ...(r.targets ? { targets: r.targets } : {}) });
    expect(s.verdict, `${s.verdictReason}: ${r.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.id}: ${c.reason}`).join('; ')}`).to.equal('pass');
    expect(byId(r.checks, 'eth_estimateGas/state-at-block')?.verdict).to.equal('pass');
    for (const id of TYPE_CHECKS) expect(byId(r.checks, id), id).to.deep.include({ inapplicable: 'type-absent' });
  });
});
