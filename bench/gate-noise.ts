// Figure 6, the gate's own noise: the embedded default behind a proxy that adds log-normal latency (median 15 ms,
// σ 0.4, and 1 answer in 50 150 ms later), a baseline of BASELINE_RUNS gate runs (baseline add), then RERUNS gates
// of the same, unchanged endpoint against it, then SLOWER_RUNS with every delay 30% longer. How many unchanged reruns
// were flagged (false alarms), passed or stayed inconclusive, and how many slower ones the gate caught.
// `npm run bench:gate-noise -- [seconds per run] [reruns]` (defaults: the gate profile's 120 s, 20 reruns).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { startDevnet } from '../devnet/index.ts';
import { runLoad } from '../load/run/run.ts';
import { addToBaseline } from '../load/run/baseline.ts';
import { rng } from './support/gate-sim.ts';
import { startDelayProxy } from './support/delay-proxy.ts';
import { type Row, saveFigure } from './support/lib.ts';

const seconds = Number(process.argv[2] ?? 120);
const reruns = Number(process.argv[3] ?? 20);
const BASELINE_RUNS = 5;
const SLOWER_RUNS = 3;
const random = rng(40);
let slowdown = 1;

/** The jitter: a log-normal delay, and the spike now and then, both stretched by `slowdown`. */
function delayMs(): number {
  const z = Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  return slowdown * (15 * Math.exp(0.4 * z) + (random() < 0.02 ? 150 : 0));
}

const devnet = await startDevnet();
const proxy = await startDelayProxy(devnet.url, delayMs);
const { url } = proxy;
// Kept (reports/ is generated output): every run's load.json, to judge again offline (`compare reports/gate-noise/baseline …`).
const dir = join('reports', 'gate-noise');
await rm(dir, { recursive: true, force: true });
try {
  let corpus: string | undefined;
  const gate = async (name: string, baseline?: string) => {
    const out = join(dir, name);
    const r = await runLoad({ url, endpointName: 'jittery embedded default', profile: 'gate', duration: `${seconds}s`, fresh: { chased: false, why: '--no-fresh' }, out, log: () => undefined, ...(corpus ? { corpus } : {}), ...(baseline ? { baseline } : {}) });
    corpus ??= join(out, 'load.corpus.json');
    console.log(`${name}: exit ${r.exitCode}${r.exitCode ? `: ${r.summary.split('\n').filter((l) => /regress|not judged/i.test(l)).slice(0, 3).join(' | ')}` : ''}`);
    return { exitCode: r.exitCode, json: join(out, 'load.json') };
  };
  const baseline = join(dir, 'baseline');
  for (let i = 1; i <= BASELINE_RUNS; i++) {
    const run = await gate(`base-${i}`);
    if (run.exitCode !== 0) throw new Error(`baseline run ${i} did not pass (exit ${run.exitCode})`);
    await addToBaseline(baseline, run.json);
  }
  const tally = (codes: number[]) => ({ pass: codes.filter((c) => c === 0).length, fail: codes.filter((c) => c === 1).length, inconclusive: codes.filter((c) => c === 3).length, other: codes.filter((c) => ![0, 1, 3].includes(c)).length });
  const unchanged: number[] = [];
  for (let i = 1; i <= reruns; i++) unchanged.push((await gate(`rerun-${i}`, baseline)).exitCode);
  slowdown = 1.3;
  const slower: number[] = [];
  for (let i = 1; i <= SLOWER_RUNS; i++) slower.push((await gate(`slower-${i}`, baseline)).exitCode);
  const u = tally(unchanged);
  const s = tally(slower);
  const rows: Row[] = [
    [`unchanged reruns flagged as a regression (${seconds} s gates, ${BASELINE_RUNS}-run baseline)`, `${u.fail} of ${reruns}`, 'at most 5% (1 in 20)', u.fail <= Math.max(1, Math.floor(reruns * 0.05)) ? 'yes' : 'no'],
    ['unchanged reruns that passed', `${u.pass} of ${reruns} (${u.inconclusive} inconclusive${u.other ? `, ${u.other} other` : ''})`, 'at least 80%', u.pass >= 0.8 * reruns ? 'yes' : 'no'],
    ['30% slower reruns declared regressed (exit 1)', `${s.fail} of ${SLOWER_RUNS}`, 'all', s.fail === SLOWER_RUNS ? 'yes' : 'no'],
  ];
  await saveFigure('gate-noise', { seconds, reruns, baselineRuns: BASELINE_RUNS, jitter: 'log-normal, median 15 ms, σ 0.4; 1 in 50 +150 ms', rows });
} finally {
  await proxy.close();
  await devnet.stop();
}
