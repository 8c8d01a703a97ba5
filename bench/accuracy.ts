// Figure 2, accuracy: the harness's p50/p99/max (from its load.json) against the ground truth, the
// responder's own timestamps for the same calls, under a known delay schedule: 20 ms fixed, and 20 ms
// with every 100th call taking 200 ms. The truth uses k6's percentile definition on the same calls.
// With exactly 1 call in 100 slow, p99 falls on the slowest call of the 20 ms body, and max shows the
// 200 ms tail itself. A bare k6 script runs the same plan beside it: the share of the error that is
// k6's and the machine's.
import { type Mode } from './support/endpoint.ts';
import { harnessScenario, percentile, type Row, round, runBare, runHarness, saveFigure, startResponder, withinTarget } from './support/lib.ts';

const RATE = 200;
const SEC = 10;
const SCHEDULES: Array<[Mode, string]> = [
  ['fixed', '20 ms fixed'],
  ['tail', '20 ms, 1 in 100 at 200 ms'],
];
const QUANTILES = { p50: 0.5, p99: 0.99, max: 1 } as const;
type Quantiles = Record<keyof typeof QUANTILES, number>;

/** One run against a fresh responder (its schedule starts at its first call): measured and true quantiles. */
async function measure(mode: Mode, run: (url: string) => Promise<{ requests: number; latencyMs: Quantiles | null }>) {
  const responder = await startResponder(mode);
  try {
    const { requests, latencyMs } = await run(responder.url);
    const { served, durations } = await responder.served();
    const stats = (of: (name: keyof Quantiles) => number) => Object.fromEntries(Object.keys(QUANTILES).map((k) => [k, round(of(k as keyof Quantiles), 3)])) as Quantiles;
    const truth = stats((k) => percentile(durations, QUANTILES[k]));
    return { requests, served, measured: stats((k) => latencyMs?.[k] ?? NaN), truth };
  } finally {
    responder.stop();
  }
}

const signed = (n: number) => `${n >= 0 ? '+' : ''}${round(n, 3)}`;
const results: Record<string, unknown> = {};
const rows: Row[] = [];
for (const [mode, label] of SCHEDULES) {
  const bare = await measure(mode, (url) => runBare(url, harnessScenario(RATE, SEC), SEC));
  const harness = await measure(mode, (url) => runHarness(url, RATE, SEC));
  results[mode] = { harness, bare };
  for (const q of Object.keys(QUANTILES) as Array<keyof Quantiles>) {
    const [h, t] = [harness.measured[q], harness.truth[q]];
    const bareError = bare.measured[q] - bare.truth[q];
    rows.push([`Accuracy, ${label}: ${q}`, `${h} ms vs truth ${t} ms (${signed(h - t)} ms); bare k6 ${signed(bareError)} ms`, '±2% or ±0.5 ms', withinTarget(h, t) ? 'yes' : 'no']);
  }
  if (harness.requests !== harness.served) rows.push([`Accuracy, ${label}: calls`, `harness counted ${harness.requests}, responder served ${harness.served}`, 'equal', 'no']);
}
await saveFigure('accuracy', { rate: RATE, durationSec: SEC, ...results, rows });
