// A reference node (issue 23, conformance): the fault proxy in front of a moving embedded default (a block a second,
// traffic in it) is the endpoint, the clean gateway of the same devnet (through a second proxy, for the reference's own
// faults) the reference. A consistently stale endpoint, whose answers all agree with one another, fails naming its lag;
// a value that differs from the reference on one method only is named there with both answers; a reference on another
// chain is refused (exit 2); a reference that dies mid-run leaves its checks inconclusive, named; a reference behind
// the endpoint is named, never blamed on it; the clean endpoint with the clean reference passes.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatSummary, writeReports } from '../../conformance/report/index.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { runConformance, ReferenceUnusable, type RunResult, type RunSettings } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';
import { parseExpectations } from '../../conformance/framework/expectations.ts';
import { assembleReport } from '../../conformance/report/assemble.ts';
import { explains } from '../../conformance/report/model.ts';
import { FaultProxy, type Fault } from '../support/fault-proxy.ts';
import { behind } from '../support/faults.ts';
import { toQuantity } from '../../core/hex.ts';
import { DEFAULT_MAX_HEAD_LAG_S } from '../../core/head-lag.ts';
import { diffAnswers } from '../../core/answer-diff.ts';
import { RUN_OF_ONE_CHECKS } from '../support/run-of-one.ts';

const embedded = parseExpectations(readFileSync(new URL('../../fixtures/expectations/embedded.json', import.meta.url), 'utf8'), 'fixtures/expectations/embedded.json', checkIds(allSuites));
const REFERENCE_IDS = allSuites.filter((s) => s.method === 'reference').flatMap((s) => s.checks.map((c) => c.spec.id));
const byId = (r: RunResult, id: string) => r.checks.find((c) => c.id === id);
const verdicts = (r: RunResult) => Object.fromEntries(REFERENCE_IDS.map((id) => [id, byId(r, id)?.verdict]));
/** Failures beyond the chain's own deviations (embedded.json, scoped). */
const unexplained = (r: RunResult) => r.checks.filter((c) => c.verdict === 'fail' && !explains(c.expectation, c)).map((c) => c.id);
/** A head-lag failure under the allowance `s` (seconds): blocks, seconds, the endpoint's head, the reference's earlier read. */
const lag = (s: number) => new RegExp(`^the endpoint's head is (\\d+) block\\(s\\) behind the reference's \\((\\d+) s of chain time, over the allowance of ${s} s, --max-head-lag\\), and still ${s} s after a first read \\d+ block\\(s\\) behind: eth_blockNumber named block (\\d+); the reference was at block (\\d+) before it was asked`);

describe('a reference node (--reference-url): head lag and answers compared field by field', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let endpoint: FaultProxy;
  let referenceProxy: FaultProxy;
  const node = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(devnet.nodeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return ((await res.json()) as { result: T }).result;
  };
  const run = (opts: Partial<RunSettings> = {}) =>
    runConformance({ suites: allSuites, url: endpoint.url, referenceUrl: referenceProxy.url, methods: ['reference'], expect: embedded, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }], ...opts });

  before(async function () {
    devnet = await startDevnet({ blockTimeS: 1 });
    // 24 blocks a second apart at once (anvil_mine), so an endpoint 20 blocks behind still serves the seeded chain.
    await node('anvil_mine', [toQuantity(24), toQuantity(1)]);
    endpoint = new FaultProxy(devnet.url);
    referenceProxy = new FaultProxy(devnet.url);
    await endpoint.start();
    await referenceProxy.start();
  });

  afterEach(function () {
    endpoint.fault = undefined;
    referenceProxy.fault = undefined;
  });

  after(async function () {
    await endpoint?.stop();
    await referenceProxy?.stop();
    await devnet?.stop();
  });

  it('the clean endpoint with a clean reference on the same moving chain passes: every reference check, and the whole run (PASS)', async function () {
    const r = await run({ methods: undefined });
    expect(verdicts(r), JSON.stringify(r.checks.filter((c) => c.method === 'reference' && c.verdict !== 'pass').map((c) => c.reason))).to.deep.equal(Object.fromEntries(REFERENCE_IDS.map((id) => [id, 'pass'])));
    const report = assembleReport(r, { strict: false });
    expect(report.summary.verdict, report.summary.verdictReason ?? unexplained(r).join()).to.equal('pass');
    const ref = r.reference!;
    expect(ref.agreement.map((a) => a.method)).to.have.length(8);
    for (const a of ref.agreement) {
      expect(a.compared, a.method).to.be.greaterThan(0);
      expect(a.agreed, a.method).to.equal(a.compared);
    }
    expect(ref.headLag.start?.behindSeconds).to.equal(0);
    expect(ref.headLag.end?.behindSeconds).to.equal(0);
    // Judged: the reference checks count in the share when a reference is given.
    expect(report.summary.judged.perMethod.find((m) => m.method === 'reference')).to.deep.equal({ method: 'reference', judged: REFERENCE_IDS.length, of: REFERENCE_IDS.length, leftOut: 0 });
  });

  it('without a reference (and alone), its checks are not on the run: none of them in its results or its judged share, no reference section, nor quorum checks', async function () {
    const r = await runConformance({ suites: allSuites, url: endpoint.url, expect: embedded, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
    expect(r.checks.filter((c) => c.method === 'reference')).to.deep.equal([]);
    expect(r.checks.filter((c) => c.method === 'quorum'), 'one endpoint: no quorum either').to.deep.equal([]);
    expect(r.checks.length).to.equal(RUN_OF_ONE_CHECKS);
    expect(assembleReport(r, { strict: false }).summary.judged.perMethod.map((m) => m.method)).to.not.include('reference');
    expect(r.reference).to.equal(undefined);
  });

  it('an endpoint consistently 20 blocks behind (its latest, eth_blockNumber and lookups all agreeing) fails the head lag at start and end, naming it; its answers agree with the reference', async function () {
    endpoint.fault = { name: '20 blocks behind', kills: [], rewrite: behind(20n, true) };
    const r = await run();
    for (const id of ['reference/head-lag-start', 'reference/head-lag-end']) {
      const c = byId(r, id);
      expect(c?.verdict, `${id}: ${c?.reason}`).to.equal('fail');
      const m = lag(DEFAULT_MAX_HEAD_LAG_S).exec(c?.reason ?? '');
      expect(m, c?.reason).to.not.equal(null);
      // The reference is read before the endpoint, so the lag read is a lower bound: a block mined between the two reads
      // makes it 19; the chain moving while the stale backend answers adds a few.
      expect(Number(m![1])).to.be.within(19, 26);
      expect(Number(m![2])).to.be.at.least(15);
      expect(Number(m![4]) - Number(m![3])).to.equal(Number(m![1]));
    }
    for (const id of REFERENCE_IDS.filter((i) => i.endsWith('-agrees'))) expect(byId(r, id)?.verdict, `${id}: ${byId(r, id)?.reason}`).to.equal('pass');
    expect(r.reference?.headLag.start?.behindBlocks).to.be.at.least(19);
    expect(assembleReport(r, { strict: false }).summary.verdict).to.equal('fail');
  });

  it('a latest and eth_blockNumber 5 blocks behind (lookups current) fail the head lag too under --max-head-lag 2, naming the blocks', async function () {
    endpoint.fault = { name: 'latest 5 behind', kills: [], rewrite: behind(5n, false) };
    // 4-5 blocks of a second each: under the default 5 s, over an allowance of 2 s (--max-head-lag 2).
    const r = await run({ maxHeadLagS: 2 });
    for (const id of ['reference/head-lag-start', 'reference/head-lag-end']) {
      const m = lag(2).exec(byId(r, id)?.reason ?? '');
      expect(m, `${id}: ${byId(r, id)?.verdict}: ${byId(r, id)?.reason}`).to.not.equal(null);
      expect(Number(m![1])).to.be.within(4, 10);
    }
  });

  it('a latest and eth_blockNumber 5 one-second blocks behind, within the default 5 s, fail on the 3-block allowance, naming it', async function () {
    endpoint.fault = { name: 'latest 5 behind', kills: [], rewrite: behind(5n, false) };
    const r = await run();
    expect(r.reference?.maxHeadLagBlocks).to.equal(3);
    for (const id of ['reference/head-lag-start', 'reference/head-lag-end']) {
      const c = byId(r, id);
      expect(c?.verdict, `${id}: ${c?.reason}`).to.equal('fail');
      expect(c?.reason).to.match(/^the endpoint's head is [4-9] block\(s\) behind the reference's \([0-5] s of chain time, within 5 s but over the allowance of 3 blocks on a chain of 1 s blocks, --max-head-lag-blocks\)/);
    }
  });

  it('a reference that cannot estimate at the block compared (an error that is no revert: state it pruned) compares nothing there and blames nothing; its reverts are still compared', async function () {
    referenceProxy.fault = { name: 'reference state pruned', kills: [], rewrite: (req, res) => (req.method === 'eth_estimateGas' && 'result' in res ? { jsonrpc: '2.0', id: res.id, error: { code: -32000, message: 'missing trie node' } } : res) };
    const r = await run();
    const c = byId(r, 'reference/eth_estimateGas-agrees');
    expect(c?.verdict, c?.reason).to.equal('pass');
    const a = r.reference!.agreement.find((x) => x.method === 'eth_estimateGas')!;
    expect(a.notCompared.length).to.be.greaterThan(0);
    for (const n of a.notCompared) expect(n).to.match(/: the reference answered error -32000: missing trie node$/);
    // The reverting calls (the seed's and the harness's creation) answered as reverts on both sides, and agree.
    expect(a.compared).to.equal(devnet.seed.reverts.length + 1);
    expect(a.agreed).to.equal(a.compared);
    expect(c?.note).to.include('not compared: the estimate of a plain transfer');
  });

  it('a reference itself 20 blocks behind the endpoint is named, not blamed: the head lag is inconclusive, nothing fails', async function () {
    referenceProxy.fault = { name: 'reference 20 blocks behind', kills: [], rewrite: behind(20n, true) };
    const r = await run();
    for (const id of ['reference/head-lag-start', 'reference/head-lag-end']) {
      expect(byId(r, id)?.verdict, byId(r, id)?.reason).to.equal('inconclusive');
      expect(byId(r, id)?.reason).to.match(/^the reference is (19|2\d) block\(s\) behind the endpoint \(\d+ s of chain time, over the allowance of 5 s\): a stale reference cannot judge the endpoint's head, and the endpoint is not blamed for it/);
    }
    expect(unexplained(r)).to.deep.equal([]);
    // The blocks near the endpoint's head are not on the stale reference: not compared, with why.
    expect(r.reference?.agreement.find((a) => a.method === 'eth_getBlockByHash')?.notCompared.join('\n')).to.match(/the reference has none \(behind the endpoint, or history it does not keep\)/);
  });

  it('a value that differs from the reference on one method only (creations estimated 10% low at the head the run started at), consistently, is named on that method alone with both answers; no other check sees it', async function () {
    const lowered: Array<{ ours: string; theirs: string }> = [];
    // The run's first head (the preflight's, where discovery starts): the reference compares estimates there, and no
    // check of the endpoint's own estimates a creation at it (they replay transactions at their parent blocks).
    let head: string | undefined;
    endpoint.fault = {
      name: 'creation estimates 10% low at the first head',
      kills: [],
      rewrite: (req, res) => {
        if (req.method === 'eth_getBlockByNumber' && req.params[0] === 'latest') head ??= (res.result as { number?: string } | null)?.number;
        const call = req.params[0] as Record<string, unknown> | undefined;
        if (req.method !== 'eth_estimateGas' || typeof res.result !== 'string' || !call || call['to'] !== undefined || req.params[1] !== head) return res;
        const ours = toQuantity((BigInt(res.result) * 9n) / 10n);
        lowered.push({ ours, theirs: res.result });
        return { ...res, result: ours };
      },
    };
    const r = await run({ methods: undefined });
    expect(unexplained(r), r.checks.filter((x) => x.verdict === 'fail').map((x) => `${x.id}: ${x.reason}`).join('\n')).to.deep.equal(['reference/eth_estimateGas-agrees']);
    const c = byId(r, 'reference/eth_estimateGas-agrees')!;
    const theirs = lowered.find((l) => c.reason?.includes(l.ours));
    expect(theirs, c.reason).to.not.equal(undefined);
    expect(c.reason).to.match(new RegExp(`^the estimate of transaction 0x[0-9a-f]{64} replayed at block \\d+ \\(0x[0-9a-f]{64}\\): / differs from the reference's: ours "${theirs!.ours}", the reference's "${theirs!.theirs}" \\(10% below the reference's estimate at the same block, beyond the 2% band\\)`));
    expect(c).to.deep.include({ pointer: '/', actual: `"${theirs!.ours}"`, expected: `"${theirs!.theirs}"` });
    const agreement = r.reference!.agreement;
    expect(agreement.filter((a) => a.differences.length > 0).map((a) => a.method)).to.deep.equal(['eth_estimateGas']);
    expect(agreement.find((a) => a.method === 'eth_estimateGas')?.differences[0]).to.deep.include({ ours: `"${theirs!.ours}"`, reference: `"${theirs!.theirs}"` });
    // Every report names the difference with both answers: conformance.json (validated against its schema as it is
    // written), the HTML's reference section, the JUnit run case and the terminal summary.
    const out = await mkdtemp(join(tmpdir(), 'rc-reference-'));
    const report = assembleReport(r, { strict: false });
    const paths = await writeReports(report, out);
    const json = JSON.parse(await readFile(paths.json, 'utf8')) as { run: { reference: { agreement: Array<{ method: string; differences: Array<{ ours: string; reference: string }> }> } } };
    expect(json.run.reference.agreement.find((a) => a.method === 'eth_estimateGas')?.differences[0]).to.deep.include({ ours: `"${theirs!.ours}"`, reference: `"${theirs!.theirs}"` });
    const html = await readFile(paths.html, 'utf8');
    expect(html).to.include('<section id="reference"><h2>Reference');
    expect(html).to.match(new RegExp(`<td><code>&quot;${theirs!.ours}&quot;</code></td><td><code>&quot;${theirs!.theirs}&quot;</code>`));
    const junit = await readFile(paths.junit, 'utf8');
    expect(junit).to.include(`ours &quot;${theirs!.ours}&quot;, the reference&apos;s &quot;${theirs!.theirs}&quot;`.replaceAll('&apos;', "'"));
    const summary = formatSummary(report, paths);
    expect(summary).to.match(/^ {2}head lag at the start: level: endpoint at block \d+/m);
    expect(summary).to.include(`DIFFERS eth_estimateGas: the estimate of`);
    expect(summary).to.include(`ours "${theirs!.ours}", the reference's "${theirs!.theirs}" (10% below`);
  });

  it('a reference on another chain, or one that does not answer at the start, is refused before any check: ReferenceUnusable, and the CLI exits 2 naming both chains', async function () {
    referenceProxy.fault = { name: 'chain 1', kills: [], rewrite: (req, res) => (req.method === 'eth_chainId' ? { ...res, result: '0x1' } : res) };
    // No answer at the start is refused the same way, naming the reference.
    const unreachable = await run({ referenceUrl: 'http://127.0.0.1:1/v3/unr9-ref-key-0002' }).then(() => undefined, (e: unknown) => e);
    expect(unreachable).to.be.instanceOf(ReferenceUnusable);
    expect((unreachable as Error).message).to.match(/^the reference \(--reference-url\) gave no chain id: unreachable: /);
    const err = await run().then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(ReferenceUnusable);
    expect((err as Error).message).to.equal('the reference (--reference-url) serves chain 1 (0x1), the endpoint chain 31337 (0x7a69): a reference must be on the endpoint\'s chain');
    const cli = spawn(process.execPath, ['bin/rpc-certify.js', 'conformance', '--url', endpoint.url, '--reference-url', referenceProxy.url, '--quiet', '--out', '/tmp/rpc-certify-reference-test'], { cwd: new URL('../..', import.meta.url).pathname });
    let stderr = '';
    cli.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((resolve) => cli.on('exit', resolve));
    expect(code, stderr).to.equal(2);
    expect(stderr.trim()).to.equal('rpc-certify: reference not usable: the reference (--reference-url) serves chain 1 (0x1), the endpoint chain 31337 (0x7a69): a reference must be on the endpoint\'s chain');
  });

  it('a reference with the endpoint\'s chain id but another genesis (two devnets, a reset testnet) is refused, never a difference blamed on the endpoint (red team)', async function () {
    const other = `0x${'ab'.repeat(32)}`;
    referenceProxy.fault = { name: 'another genesis', kills: [], rewrite: (req, res) => (req.method === 'eth_getBlockByNumber' && req.params[0] === '0x0' && res.result ? { ...res, result: { ...(res.result as object), hash: other } } : res) };
    const err = await run().then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(ReferenceUnusable);
    expect((err as Error).message).to.match(new RegExp(`^the reference \\(--reference-url\\) has genesis ${other}, the endpoint 0x[0-9a-f]{64}: the same chain id, another chain`));
  });

  it('the CLI: --reference-url\'s key appears in no output (stdout, stderr, every report); its endpoint is shown redacted', async function () {
    const out = await mkdtemp(join(tmpdir(), 'rc-reference-cli-'));
    const cli = spawn(process.execPath, ['bin/rpc-certify.js', 'conformance', '--url', endpoint.url, '--reference-url', devnet.url, '--methods', 'eth_getBlockByHash', '--expect', 'fixtures/expectations/embedded.json', '--out', out], { cwd: new URL('../..', import.meta.url).pathname });
    let text = '';
    cli.stdout.on('data', (d: Buffer) => (text += d.toString()));
    cli.stderr.on('data', (d: Buffer) => (text += d.toString()));
    const code = await new Promise((resolve) => cli.on('exit', resolve));
    expect(code, text).to.equal(0);
    expect(text).to.match(/^ {2}reference: http:\/\/127\.0\.0\.1:\d+\/v3\/<redacted> \(chain 31337, anvil/m);
    expect(text).to.match(/agreement \(calls agreeing of those compared\): eth_getBlockByHash (\d+)\/\1$/m);
    const files = await Promise.all(['conformance.json', 'conformance.html', 'conformance.junit.xml', 'targets.lock.json'].map((f) => readFile(join(out, f), 'utf8')));
    for (const t of [text, ...files]) expect(t.includes(devnet.apiKey)).to.equal(false);
    expect(files[0]).to.include('"reference": true');
  });

  it('a reference that dies mid-run is named in the report; the checks that needed it after that are inconclusive, none failed; the run is INCONCLUSIVE, never a verdict on the endpoint', async function () {
    let calls = 0;
    const dies: Fault = { name: 'reference reset after 12 calls', kills: [], stall: () => (++calls > 12 ? 'reset' : undefined) };
    referenceProxy.fault = dies;
    const r = await run();
    expect(byId(r, 'reference/head-lag-start')?.verdict).to.equal('pass');
    const after = r.checks.filter((c) => c.method === 'reference' && c.verdict !== 'pass');
    expect(after.length).to.be.greaterThan(5);
    for (const c of after) {
      expect(c.verdict, `${c.id}: ${c.reason}`).to.equal('inconclusive');
      expect(c.reason).to.match(/^the reference (gave no usable answer to \w+ \(unreachable|failed during the run \(\w+: unreachable)/);
    }
    expect(r.reference?.failed).to.match(/^\w+: unreachable/);
    const report = assembleReport(r, { strict: false });
    expect(report.summary.verdict).to.equal('inconclusive');
    expect(report.summary.verdictReason).to.match(/the reference \(--reference-url\) failed during the run \(\w+: unreachable.*\): the checks that needed it are inconclusive/);
  });
});

describe('answers compared with a reference, field by field (answer-diff.ts)', function () {
  const block = { number: '0x10', hash: `0x${'aa'.repeat(32)}`, difficulty: '0x0', totalDifficulty: '0x1', miner: `0x${'Ab'.repeat(20)}`, transactions: [{ hash: `0x${'bb'.repeat(32)}`, nonce: '0x1', chainId: '0x1' }] };
  it('agrees on the same answer, hex compared without regard to case (an EIP-55 address)', function () {
    expect(diffAnswers('block', block, { ...block, miner: block.miner.toLowerCase() })).to.deep.equal({ differences: [], oneSided: [], allowed: [] });
  });
  it('names a nested difference by its JSON pointer, with both values', function () {
    const ours = { ...block, transactions: [{ ...block.transactions[0], nonce: '0x2' }] };
    expect(diffAnswers('block', ours, block).differences).to.deep.equal([{ path: '/transactions/0/nonce', ours: '"0x2"', reference: '"0x1"' }]);
  });
  it('a field the spec lists that only the reference serves is a difference; an optional one, or one only the endpoint serves, is noted', function () {
    const { miner: _m, ...noMiner } = block;
    expect(diffAnswers('block', noMiner, block).differences).to.deep.equal([{ path: '/miner', ours: 'absent', reference: `"${block.miner}"` }]);
    const noChainId = { ...block, transactions: [{ hash: block.transactions[0]!.hash, nonce: '0x1' }] };
    expect(diffAnswers('block', noChainId, block)).to.deep.include({ differences: [], oneSided: ['/transactions/0/chainId (reference only)'] });
    expect(diffAnswers('block', { ...block, l1Fee: '0x1' }, block)).to.deep.include({ differences: [], oneSided: ['/l1Fee (endpoint only)'] });
  });
  it('totalDifficulty after the merge (difficulty 0) is not compared, served or not; before it, it is', function () {
    const { totalDifficulty: _t, ...noTd } = block;
    expect(diffAnswers('block', noTd, block)).to.deep.include({ differences: [] });
    expect(diffAnswers('block', { ...block, totalDifficulty: '0x2' }, block).allowed).to.have.length(1);
    const pow = { ...block, difficulty: '0x5' };
    expect(diffAnswers('block', { ...pow, totalDifficulty: '0x2' }, pow).differences).to.deep.equal([{ path: '/totalDifficulty', ours: '"0x2"', reference: '"0x1"' }]);
  });
  it('a list of another length is a difference at its length', function () {
    expect(diffAnswers('receipts', [{ status: '0x1' }], [{ status: '0x1' }, { status: '0x0' }]).differences).to.deep.equal([{ path: '/length', ours: '1', reference: '2' }]);
  });
});
