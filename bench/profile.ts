// Figure 1d, the profiles behind the overhead figure: where k6's CPU goes per request (Go's CPU profile, split
// by the goroutine roots that own it: http.post and the transport, the script's JavaScript, the metric
// pipeline, GC) for bare k6, the floor (bare plus the harness's one metric sample), the judged floor (plus reading
// the corpus line and recognising the answer: lib.ts) and the harness as users
// run it (runLoad, gate profile: no thresholds, summary or dashboard, its figures through k6's OpenTelemetry output), all at one steady rate against the same responder; and
// which allocation sites hold the memory k6 gained meanwhile (heap profiles after a collection, before and after).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureK6 } from '../core/node/tools/k6.ts';
import { harnessScenario, round, runBare, runHarness, sampledLatencyMs, saveFigure, startResponder, type Responder } from './support/lib.ts';
import { type CpuParts, cpuParts, fetchProfile, pprofTop } from './support/pprof.ts';

const RATE = Number(process.argv[2] ?? 2000);
/** Profiling starts this far into the run (VUs started, heap at its working size) and lasts WINDOW_SEC. */
const WARM_SEC = 8;
const WINDOW_SEC = 20;
const RUN_SEC = WARM_SEC + WINDOW_SEC + 6;

interface Profiled {
  /** Requests the responder served during the CPU window. */
  requests: number;
  /** µs of k6 CPU per request, by part. */
  usPerRequest: CpuParts & { total: number };
  /** The live heap's growth over the window (after a collection each time), and the allocation sites holding most of it. */
  heapGrowthKiB: number;
  growthBytesPerRequest: number;
  topGrowth: Array<{ site: string; kib: number }>;
}

const k6 = await ensureK6();
const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-profile-'));
const responder = await startResponder('fast');
const latencyMs = await sampledLatencyMs(responder.url);

/** Runs a generator with pprof on, profiles its window, and reads the profiles. */
async function profiled(name: string, start: (onApi: (api: string) => void) => Promise<unknown>): Promise<Profiled> {
  let api: string | undefined;
  const running = start((url) => (api = url));
  const file = (what: string) => join(dir, `${name}-${what}.pb.gz`);
  const window = (async () => {
    await sleep(WARM_SEC * 1000);
    if (!api) throw new Error(`${name}: k6's REST API never listened`);
    await fetchProfile(api, 'heap?gc=1', file('heap0'));
    const before = await served(responder);
    await fetchProfile(api, `profile?seconds=${WINDOW_SEC}`, file('cpu'));
    const requests = (await served(responder)) - before;
    await fetchProfile(api, 'heap?gc=1', file('heap1'));
    return requests;
  })();
  const [requests] = await Promise.all([window, running]);
  const cpu = await pprofTop(k6.path, file('cpu'), { unit: 'ms', cum: true });
  const parts = cpuParts(cpu);
  const perRequest = (ms: number) => round((ms * 1000) / requests, 1);
  const heap = await pprofTop(k6.path, file('heap1'), { unit: 'kB', base: file('heap0'), sampleIndex: 'inuse_space' });
  const growthKiB = heap.rows.reduce((a, r) => a + r.flat, 0);
  const topGrowth = heap.rows
    .filter((r) => r.flat > 0)
    .sort((a, b) => b.flat - a.flat)
    .slice(0, 3)
    .map((r) => ({ site: r.name, kib: round(r.flat, 0) }));
  return {
    requests,
    usPerRequest: { total: perRequest(cpu.total), ...(Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, perRequest(v)])) as CpuParts) },
    heapGrowthKiB: round(growthKiB, 0),
    growthBytesPerRequest: round((growthKiB * 1024) / requests, 1),
    topGrowth,
  };
}

try {
  const scenario = harnessScenario(RATE, RUN_SEC, latencyMs);
  const bare = await profiled('bare', (onApi) => runBare(responder.url, scenario, RUN_SEC, 'bare', onApi));
  const floor = await profiled('floor', (onApi) => runBare(responder.url, scenario, RUN_SEC, 'floor', onApi));
  const judged = await profiled('judged', (onApi) => runBare(responder.url, scenario, RUN_SEC, 'judged', onApi));
  const harness = await profiled('harness', (onApi) => runHarness(responder.url, RATE, RUN_SEC, { pprof: onApi, latencyMs }));
  const parts = (p: Profiled) => {
    const u = p.usPerRequest;
    return `${u.total} µs (http ${u.http}, script ${u.script}, metrics ${u.metrics}, GC ${u.gc}, other ${u.other})`;
  };
  const growth = (p: Profiled) => `${p.heapGrowthKiB} KiB (${p.growthBytesPerRequest} B/request: ${p.topGrowth.map((g) => `${g.site} ${g.kib} KiB`).join(', ')})`;
  await saveFigure('profile', {
    rate: RATE,
    windowSec: WINDOW_SEC,
    bare,
    floor,
    judged,
    harness,
    rows: [
      [`k6 CPU per request at ${RATE} rps, by part (Go CPU profile over ${WINDOW_SEC} s)`, `bare ${parts(bare)}; floor ${parts(floor)}; judged floor ${parts(judged)}; harness ${parts(harness)}`, '-', 'n/a'],
      [`k6 live heap growth over the same ${WINDOW_SEC} s (heap profiles after a collection; top allocation sites)`, `bare ${growth(bare)}; harness ${growth(harness)}`, '-', 'n/a'],
    ],
  });
} finally {
  responder.stop();
  await rm(dir, { recursive: true, force: true });
}

async function served(r: Responder): Promise<number> {
  return (await r.served()).served;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
