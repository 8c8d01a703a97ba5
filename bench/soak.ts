// Figure 1c, memory over a soak: k6's resident memory (RSS) while the harness sends at a steady rate, at the
// start of sending (after a warm-up) and at its end, against bare k6 under the same plan. A generator whose
// memory grows with the number of requests cannot soak. k6 itself keeps every sample of each built-in Trend
// (its http_req_* timings) while thresholds or the end-of-test summary are on: bare k6 (the default script, with
// both) shows that growth; the harness runs k6 with neither, nor a dashboard (load/run/instances.ts).
// The length is a parameter: `npm run bench:soak -- 300` (seconds; 1800 by default), the rate a second one, and a
// third, `harness`, leaves out the bare k6 run (half the time: bare k6's growth is known, the harness's is the question).
import { readFile } from 'node:fs/promises';
import { harnessScenario, round, runBare, runHarness, sampleGenerator, saveFigure, startResponder, type Responder } from './support/lib.ts';

const seconds = Number(process.argv[2] ?? process.env['RPC_CERTIFY_SOAK_SEC'] ?? 1800);
const rate = Number(process.argv[3] ?? 1000);
const harnessOnly = process.argv[4] === 'harness';
if (!(seconds >= 60) || !(rate > 0) || (process.argv[4] !== undefined && !harnessOnly)) throw new Error('usage: tsx bench/soak.ts [seconds >= 60] [rate] [harness]');
/** RSS right after the VUs start is not the working set yet: the start figure is taken this far into sending. */
const warmUpSec = Math.min(60, seconds / 10);

interface Rss {
  startMiB: number;
  endMiB: number;
  /** RSS at each quarter of the time from the start figure to the end: growth that levels off is the heap reaching its working size, growth that keeps on is kept per request. */
  quartersMiB: number[];
  growth: number;
  requests: number;
  /** Iterations k6 could not start: it was adding VUs (each holds memory), so the rate was not sustained here. */
  dropped?: number;
}

/** k6's RSS once a second while `run` sends: at warmUpSec into sending, and at the last second it sent. */
async function rssWhile(responder: Responder, run: () => Promise<object>): Promise<Rss> {
  const { result, samples } = await sampleGenerator(responder, 1000, rssKiB, run);
  const dropped = 'dropped' in result && typeof result.dropped === 'number' ? result.dropped : undefined;
  const sending = samples.filter((s) => s.sending);
  const first = sending[0];
  const start = sending.find((s) => first && s.at - first.at >= warmUpSec * 1000);
  const end = sending.at(-1);
  if (!first || !start || !end) throw new Error('the RSS sampler saw no sending');
  const at = (t: number) => sending.find((s) => s.at >= t) ?? end;
  const quartersMiB = [1, 2, 3].map((q) => round(at(start.at + ((end.at - start.at) * q) / 4).value / 1024, 1));
  return { startMiB: round(start.value / 1024, 1), endMiB: round(end.value / 1024, 1), quartersMiB, growth: round(end.value / start.value - 1, 3), requests: end.served - first.served, ...(dropped === undefined ? {} : { dropped }) };
}

/** A process's resident memory in KiB, from /proc. */
async function rssKiB(pid: number | undefined): Promise<number | undefined> {
  const status = pid === undefined ? '' : await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return Number.isFinite(kib) ? kib : undefined;
}

const responder = await startResponder('fast');
try {
  const harness = await rssWhile(responder, () => runHarness(responder.url, rate, seconds));
  const bare = harnessOnly ? undefined : await rssWhile(responder, () => runBare(responder.url, harnessScenario(rate, seconds), seconds));
  const row = (r: Rss) => `${[r.startMiB, ...r.quartersMiB, r.endMiB].join(' → ')} MiB (${r.growth >= 0 ? '+' : ''}${round(r.growth * 100, 1)}%, ${r.requests} requests${r.dropped === undefined ? '' : `, ${r.dropped} dropped`})`;
  await saveFigure('soak', {
    seconds,
    rate,
    warmUpSec,
    harness,
    bare,
    rows: [[`k6 RSS over a ${round(seconds / 60, 1)}-minute soak at ${rate} rps (from ${warmUpSec} s into sending to its end)`, `harness ${row(harness)}${bare ? `; bare k6 ${row(bare)}` : ' (bare k6 not run)'}`, '< 10% growth', harness.growth < 0.1 ? 'yes' : 'no']],
  });
} finally {
  responder.stop();
}
