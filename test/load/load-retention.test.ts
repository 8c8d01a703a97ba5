// k6 as the harness runs it keeps no sample for the run's length (issue 26): no thresholds, no end-of-test summary and
// no web dashboard (each keeps every sample of k6's built-in Trends: memory growing with the request count); its
// figures leave through k6/x/rpccertify's output (k6ext/totals.go) or k6's OpenTelemetry output (load/run/otlp.ts reads
// both), and GOMAXPROCS is sized to the rate.
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { type Devnet, startDevnet } from '../../devnet/index.ts';
import { procStatFields, STAT } from '../../load/run/k6.ts';
import { runLoad } from '../../load/run/run.ts';
import { k6Procs, RPS_PER_PROC } from '../../load/shared/profiles.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { requireTool } from '../support/tools.ts';

/** The `k6 run` child of this process, with its command line and environment, once it runs. */
async function k6Child(): Promise<{ pid: number; args: string[]; env: Map<string, string> } | undefined> {
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!stat || Number(procStatFields(stat)[STAT.ppid]) !== process.pid) continue;
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
    // `k6 run`, not the `k6 version` the runner asks first (whether this k6 has the extension).
    if (!args[0]?.endsWith('k6') || args[1] !== 'run') continue;
    const environ = (await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
    return { pid: Number(pid), args, env: new Map(environ.map((kv): [string, string] => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])) };
  }
  return undefined;
}

async function getJson<T>(url: string): Promise<T | undefined> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  return res?.ok ? ((await res.json()) as T) : undefined;
}

describe('load: k6 keeps no sample for the length of a run', function () {
  this.timeout(120_000);
  let devnet: Devnet | undefined;
  let dir: string | undefined;
  after(async () => {
    await devnet?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs k6 with no thresholds, no summary and no dashboard: its metrics engine observes nothing while it sends, and the report is whole', async function () {
    if (process.platform !== 'linux') this.skip();
    await requireTool(this, 'k6');
    devnet = await startDevnet({});
    dir = await mkdtemp(join(tmpdir(), 'load-retention-'));
    let api: string | undefined;
    const run = runLoad({ url: devnet.url, profile: 'smoke', rate: 10, duration: '5s', methods: ['eth_getBlockByHash'], out: dir, log: () => undefined, pprof: (url) => (api = url) });
    let observed: unknown[] | undefined;
    let child: Awaited<ReturnType<typeof k6Child>>;
    let running = false;
    // While the test runs (k6's status 7: the scenarios' executors run), k6's REST API lists the metrics its engine
    // holds sinks for: every metric with a sample, when thresholds or the summary are on (the sinks that keep them).
    for (const until = Date.now() + 60_000; Date.now() < until && observed === undefined; await delay(100)) {
      child ??= await k6Child();
      if (!api) continue;
      const status = (await getJson<{ data?: { attributes?: { status?: number } } }>(`${api}/v1/status`))?.data?.attributes?.status;
      if (status === undefined || status < 7) continue;
      running = status === 7;
      // A second into the test: every request has recorded its samples by then.
      await delay(1000);
      observed = (await getJson<{ data?: unknown[] }>(`${api}/v1/metrics`))?.data;
    }
    const outcome = await run;
    expect(running, 'the check ran while k6 sent').to.equal(true);
    expect(observed, "k6's metrics engine holds no metric (no threshold or summary sink)").to.deep.equal([]);
    expect(child, 'the k6 process was seen').to.not.equal(undefined);
    const args = child?.args ?? [];
    expect(args).to.include.members(['--no-thresholds', '--summary-mode=disabled']);
    // The figures leave through one output (the web dashboard is another): the extension's own with k6/x/rpccertify in
    // this k6, else k6's OpenTelemetry output.
    const outputs = args.filter((a, i) => args[i - 1] === '--out');
    expect(outputs, 'one output').to.have.length(1);
    expect(child?.env.get('K6_WEB_DASHBOARD'), 'the dashboard off, whatever the environment says').to.equal('false');
    expect([...(child?.env.keys() ?? [])].filter((k) => k.startsWith('K6_WEB_DASHBOARD_'))).to.deep.equal([]);
    if (!process.env['GOMAXPROCS']) expect(child?.env.get('GOMAXPROCS'), 'GOMAXPROCS sized to 10 rps (and the head sampler)').to.equal('1');

    // What the summary gave, the exports give: every request counted, the timeline's periods.
    expect(outcome.exitCode, outcome.summary).to.equal(0);
    const report = JSON.parse(await readFile(join(dir, 'load.json'), 'utf8')) as LoadReport;
    expect(outputs[0]).to.match(report.k6.recognition === 'go' ? /^rpccertify=http:\/\/127\.0\.0\.1:\d+\/rpc-certify\/totals$/ : /^opentelemetry$/);
    const m = report.methods['eth_getBlockByHash'];
    expect(m?.requests, 'every planned request counted (5 s at 10 rps)').to.be.within(49, 51);
    expect(m?.latencyMs?.max).to.be.above(0);
    expect(report.timeline.points.length).to.be.within(2, Math.ceil(report.plan.totalSec / report.plan.periodSec) + 2);
    expect(await readdir(dir)).to.not.include('load.k6-dashboard.html');
    // Sampling timed the endpoint: the plan pre-allocates VUs for that answer time (profiles.ts).
    const corpus = JSON.parse(await readFile(join(dir, 'load.corpus.json'), 'utf8')) as { latencyMs?: number };
    expect(corpus.latencyMs).to.be.a('number').above(0);
  });

  it('sizes GOMAXPROCS to the rate, within the cores there are, unless the user set it', () => {
    expect(k6Procs(10, 8, undefined)).to.equal(1);
    expect(k6Procs(RPS_PER_PROC, 8, undefined)).to.equal(1);
    expect(k6Procs(RPS_PER_PROC + 1, 8, undefined)).to.equal(2);
    expect(k6Procs(2000, 2, undefined)).to.equal(2);
    expect(k6Procs(300, 2, '4')).to.equal(undefined);
  });
});
