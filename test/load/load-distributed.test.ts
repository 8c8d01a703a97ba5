// Real k6 runs beyond one process: two execution segments on this machine merged into one report, the
// same test as k6-operator pods whose logs are merged, the capacity-knee finder against an endpoint whose
// capacity the test sets, and wrong-but-fast answers and head regressions counted under load. The
// endpoint is the embedded default behind the fault proxy (test/support/fault-proxy.ts).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { toQuantity } from '../../core/hex.ts';
import type { Devnet } from '../../devnet/index.ts';
import { mergeHistograms } from '../../load/shared/histogram.ts';
import { mergeK8s, writeK8s } from '../../load/run/k8s.ts';
import { METHODS } from '../../core/methods.ts';
import { readReport } from '../../load/report/report.ts';
import { runLoad } from '../../load/run/run.ts';
import { sampleCorpus } from '../../load/plan/sample.ts';
import { latencyOf, requestsOf, type Shard, shardsIn } from '../../load/shared/shard.ts';
import { requireTool } from '../support/tools.ts';
import { run, runPods } from '../support/pods.ts';
import type { FaultProxy, RpcRequest, RpcResponse } from '../support/fault-proxy.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';

const CLI = fileURLToPath(new URL('../../bin/rpc-certify.js', import.meta.url));

/** Every method's requests in the report are the sum of what the instances' shards counted. */
function expectSumOfShards(report: LoadReport, shards: Shard[]): void {
  expect(shards).to.have.length(2);
  for (const [name, m] of Object.entries(report.methods)) {
    const parts = shards.map((s) => s.subjects[name]!);
    expect(m.requests, name).to.equal(parts.reduce((a, p) => a + requestsOf(p.classes), 0));
    expect(parts.every((p) => requestsOf(p.classes) > 0), `${name}: both instances sent`).to.equal(true);
    expect(m.latencyMs, `${name}: from the merged histogram, not either instance's own percentiles`).to.deep.equal(latencyOf({ latency: mergeHistograms(parts.map((p) => p.latency)) }));
  }
}

describe('load: beyond one process, capacity knee, correctness under load (real k6)', function () {
  this.timeout(120_000);
  // Real k6 runs judged on timing (thresholds, a knee): a virtual machine that freezes for hundreds of
  // milliseconds (bench:machine measures it) can fail one run; a real fault fails every attempt.
  this.retries(2);
  let devnet: Devnet;
  let proxy: FaultProxy;
  let dir: string;
  let corpusFile: string;

  before(async function () {
    await requireTool(this, 'k6'); // the hooks below do not run when it skips
  });
  faultyDevnet((d, p) => ((devnet = d), (proxy = p)));
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'load-distributed-'));
    // Sampled once, replayed by every run: nothing but the runs themselves goes through the proxy.
    corpusFile = join(dir, 'corpus.json');
    await writeFile(corpusFile, JSON.stringify(await sampleCorpus({ url: devnet.url, seed: 1, missShare: 0.1, methods: METHODS, targets: { reverts: devnet.seed.reverts } })));
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('--segments 2: two k6 processes with disjoint parameters, one report whose counts are their sum', async () => {
    // The JSON-RPC id is k6's global iteration number: with two segments, its parity says which instance sent it.
    const senders = new Map<string, Set<number>>();
    proxy.fault = {
      name: 'record',
      kills: [],
      rewrite: (req: RpcRequest, res: RpcResponse) => {
        const key = `${req.method} ${JSON.stringify(req.params)}`;
        if (req.method !== 'eth_blockNumber') senders.set(key, (senders.get(key) ?? new Set()).add(req.id % 2));
        return res;
      },
    };
    const out = join(dir, 'segments');
    const cli = await run(process.execPath, [CLI, 'load', '--url', proxy.url, '--corpus', corpusFile, '--segments', '2', '--duration', '3s', '--rate', '4', '--out', out, '--keep-work']);
    expect(cli.code, cli.output).to.equal(0);
    const report = await readReport(join(out, 'load.json'));
    expect(report).to.deep.include({ verdict: 'pass' });
    expect(report.generator.instances).to.equal(2);
    expect(Object.keys(report.methods)).to.have.members([...METHODS]);
    const work = /work files kept in (\S+)/.exec(cli.output)?.[1] ?? '';
    const shards = (await Promise.all([0, 1].map((i) => readFile(join(work, 'run-0', `instance-${i}`, 'shard.json'), 'utf8')))).flatMap(shardsIn);
    await rm(work, { recursive: true, force: true });
    expectSumOfShards(report, shards);
    expect([...senders].filter(([, by]) => by.size > 1).map(([key]) => key), 'parameters asked by both instances').to.deep.equal([]);
    expect(report.head.checks).to.be.at.least(4);
  });

  it('k8s: the TestRun’s pods (here two k6 processes with its arguments) merge from their logs into one report', async () => {
    const out = join(dir, 'k8s');
    const written = await writeK8s({ profile: 'smoke', corpus: corpusFile, methods: ['eth_getBlockByHash', 'eth_getTransactionReceipt'], rate: 6, duration: '2s', parallelism: 2, out, log: () => undefined });
    expect(written.exitCode, written.summary).to.equal(0);
    const { pods, env } = await runPods(out, proxy.url);
    expect(Number(env['RPC_CERTIFY_CORPUS_PARTS']), 'the corpus of every method comes in several parts').to.be.greaterThan(1);
    await writeFile(join(out, 'pods.log'), pods.map((p) => p.output).join('\n'));
    const merged = await mergeK8s({ run: join(out, 'run.json'), logs: [join(out, 'pods.log')], out: join(out, 'reports') });
    expect(merged.exitCode, merged.summary).to.equal(0);
    const report = await readReport(join(out, 'reports', 'load.json'));
    expectSumOfShards(report, pods.flatMap((p) => shardsIn(p.output)));
    expect(report.methods['eth_getBlockByHash']?.requests).to.be.within(10, 14);
    // The runner image's k6 holds the extension (load/k8s/Dockerfile), as the local one does: the pods judged in Go.
    expect(report.k6.recognition, 'the pods recognised answers in Go').to.equal('go');
    await writeFile(join(out, 'pod-0.log'), pods[0]!.output);
    const half = await mergeK8s({ run: join(out, 'run.json'), logs: [join(out, 'pod-0.log')], out: join(out, 'half') });
    expect(half.exitCode).to.equal(2);
    expect(half.summary).to.match(/0\.5-1 of the test has no result/);
  });

  it('k8s with --url: the Secret step shows the user\'s own URL with only the key left out', async () => {
    const written = await writeK8s({ url: proxy.url, profile: 'smoke', corpus: corpusFile, methods: ['eth_getBlockByHash'], rate: 2, duration: '2s', parallelism: 2, out: join(dir, 'k8s-url'), log: () => undefined });
    expect(written.exitCode, written.summary).to.equal(0);
    const at = proxy.url.lastIndexOf('/');
    expect(written.summary).to.include(`--from-literal=url='${proxy.url.slice(0, at)}/<KEY>'`);
    expect(written.summary).to.not.include(proxy.url.slice(at + 1));
  });

  it('capacity: finds the knee of an endpoint that serves 100 rps, within one step', async () => {
    const capacityRps = 100;
    // A token bucket holding 200 ms of capacity: after a freeze of a shared machine k6 sends the overdue
    // requests at once, and a burst the real endpoint would absorb must not read as over capacity. Past
    // 100 rps it still empties within a 2 s step.
    const burst = 20;
    let tokens = burst;
    let last = performance.now();
    proxy.fault = {
      name: 'capacity',
      kills: [],
      rawRequest: (text: string) => {
        if (!text.includes('"eth_getBlockByHash"')) return undefined;
        const now = performance.now();
        tokens = Math.min(burst, tokens + ((now - last) / 1000) * capacityRps);
        last = now;
        if (tokens >= 1) {
          tokens--;
          return undefined;
        }
        return { status: 503, contentType: 'text/plain', body: 'over capacity' };
      },
    };
    const out = join(dir, 'capacity');
    const outcome = await runLoad({ url: proxy.url, corpus: corpusFile, profile: 'capacity', methods: ['eth_getBlockByHash'], rate: 40, steps: { stepRps: 40, maxSteps: 5 }, duration: '2s', out, log: () => undefined });
    expect(outcome.exitCode, outcome.summary).to.equal(0);
    const report = await readReport(join(out, 'load.json'));
    const knee = report.capacity?.['eth_getBlockByHash'];
    expect(knee?.limitedBy, JSON.stringify(knee?.steps)).to.equal('endpoint');
    expect(Math.abs((knee?.sustainableRps ?? 0) - capacityRps), JSON.stringify(knee?.steps)).to.be.at.most(40);
    // The first step to break the SLO is run again to confirm it: both break it, the steps before held.
    const firsts = knee?.steps.filter((s) => !s.repeat) ?? [];
    expect(firsts.at(-1)).to.deep.include({ verdict: 'slo' });
    expect(firsts.slice(0, -1).every((s) => s.verdict === 'within')).to.equal(true);
    expect(knee?.steps.at(-1), JSON.stringify(knee?.steps)).to.deep.include({ verdict: 'slo', repeat: true, offeredRps: firsts.at(-1)?.offeredRps });
    expect(knee?.confidence).to.equal('confirmed');
    expect(report.verdict).to.equal('measured');
    const html = await readFile(join(out, 'load.html'), 'utf8');
    expect(html).to.include('p99 latency against the offered rate');
    // The SLO's own figures cross both charts, dashed: where a method's line crosses them is its knee.
    expect(html).to.match(/<path d="M[^"]+" fill="none" stroke="#999" stroke-width="1.6" stroke-dasharray="5 4"><title>SLO p99 \d+ ms<\/title>/);
    expect(html).to.include('<title>SLO success 99%</title>');
  });

  it('counts wrong-but-fast answers and a head that goes back, and fails the run', async () => {
    let corrupted = 0;
    let served = 0;
    let heads = 0;
    proxy.fault = {
      name: 'wrong answers',
      kills: [],
      rewrite: (req: RpcRequest, res: RpcResponse) => {
        const result = res.result as { gasUsed?: string } | string | null;
        if (req.method === 'eth_blockNumber' && typeof result === 'string' && ++heads === 2) return { ...res, result: toQuantity(BigInt(result) - 2n) };
        if (req.method !== 'eth_getBlockByHash' || result === null || typeof result !== 'object' || ++served % 4 !== 0) return res;
        corrupted++;
        return { ...res, result: { ...result, gasUsed: toQuantity(BigInt(result.gasUsed ?? '0x0') + 1n) } }; // still schema-valid
      },
    };
    const out = join(dir, 'wrong');
    // Not chased: the head-move check at sampling would take the eth_blockNumber this fault sends back.
    const outcome = await runLoad({ url: proxy.url, corpus: corpusFile, profile: 'smoke', methods: ['eth_getBlockByHash'], rate: 20, duration: '2s', validateShare: 1, fresh: { chased: false, why: '--no-fresh' }, out, log: () => undefined });
    expect(outcome.exitCode, outcome.summary).to.equal(1);
    const report = await readReport(join(out, 'load.json'));
    const m = report.methods['eth_getBlockByHash']!;
    expect(corrupted).to.be.at.least(5);
    expect(m.classes.wrong).to.equal(corrupted);
    expect(m.classes.invalid).to.equal(0);
    expect(m.validated).to.equal(m.requests);
    expect(m.wrongSample).to.match(/not the answer recorded at sampling/);
    expect(report.head).to.deep.include({ regressions: 1, deepestBlocks: 2 });
    expect(outcome.summary).to.match(/\n {2}- eth_getBlockByHash: \d+ wrong answers in \d+ \([\d.]+%\), e\.g\. /);
    expect(outcome.summary).to.match(/\n {2}- eth_blockNumber went back 1 times in \d+ checks \(up to 2 blocks\)/);
  });
});
