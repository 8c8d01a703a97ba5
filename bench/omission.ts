// Figure 3, coordinated omission: the responder stalls for 1 s every 10 s. The ground truth is what
// an open-model schedule meets: a call sent every 1/RATE s, answered per the stall schedule. The
// harness (open model, arrival rate) must report that tail; a bare k6 script under the same open-model
// plan shows how much of the harness's error is k6's own (and the machine's: answers released together
// at a stall's end queue in the generator); a closed-loop script (fixed VUs, each waiting for its answer
// before the next call) sends almost nothing during a stall, and under-reports it.
import { BASE_MS, delayMs } from './support/endpoint.ts';
import { harnessScenario, percentile, round, runBare, runHarness, saveFigure, startResponder, withinTarget } from './support/lib.ts';

const RATE = 200;
const SEC = 30; // three stalls
const CLOSED_VUS = (RATE * BASE_MS) / 1000; // the same throughput as the open model between stalls

const intended = Array.from({ length: RATE * SEC }, (_, i) => delayMs('stall', i, (i * 1000) / RATE));
const truth = { p99: percentile(intended, 0.99), p999: percentile(intended, 0.999), max: Math.max(...intended) };

async function onStallingResponder<T>(run: (url: string) => Promise<T>): Promise<T> {
  const responder = await startResponder('stall'); // fresh: its stalls count from its first call
  try {
    return await run(responder.url);
  } finally {
    responder.stop();
  }
}

const harness = await onStallingResponder((url) => runHarness(url, RATE, SEC));
const open = await onStallingResponder((url) => runBare(url, harnessScenario(RATE, SEC), SEC));
const closed = await onStallingResponder((url) => runBare(url, { executor: 'constant-vus', vus: CLOSED_VUS, duration: `${SEC}s` }, SEC));
const h = { p99: harness.latencyMs?.p99 ?? NaN, p999: harness.latencyMs?.['p99.9'] ?? NaN, max: harness.latencyMs?.max ?? NaN };
const ms = (n: number) => `${round(n, 1)} ms`;
await saveFigure('omission', {
  rate: RATE,
  durationSec: SEC,
  truth: { p99: round(truth.p99), p999: round(truth.p999), max: round(truth.max) },
  harness: { requests: harness.requests, dropped: harness.dropped, p99: h.p99, p999: h.p999, max: h.max },
  bareOpen: { requests: open.requests, p99: round(open.latencyMs.p99), p999: round(open.latencyMs.p999), max: round(open.latencyMs.max) },
  closedLoop: { vus: CLOSED_VUS, requests: closed.requests, p99: round(closed.latencyMs.p99), p999: round(closed.latencyMs.p999), max: round(closed.latencyMs.max) },
  rows: [
    [
      'Coordinated omission, harness (open model): p99 / p99.9 / max',
      `${ms(h.p99)} / ${ms(h.p999)} / ${ms(h.max)} vs truth ${ms(truth.p99)} / ${ms(truth.p999)} / ${ms(truth.max)}; ${harness.dropped} dropped; bare k6, same plan: ${ms(open.latencyMs.p99)} / ${ms(open.latencyMs.p999)} / ${ms(open.latencyMs.max)}`,
      'p99 within 2% of truth',
      withinTarget(h.p99, truth.p99) ? 'yes' : 'no',
    ],
    [
      `Coordinated omission, closed loop (${CLOSED_VUS} VUs): p99 / p99.9`,
      `${ms(closed.latencyMs.p99)} / ${ms(closed.latencyMs.p999)} vs truth ${ms(truth.p99)} / ${ms(truth.p999)}: p99 under-reported ×${round(truth.p99 / closed.latencyMs.p99, 0)}`,
      'shows the under-report',
      'n/a',
    ],
  ],
});
