// Figure 7, conformance over a real network (issue 41): the seeded embedded default behind a proxy holding every
// request for a round trip (50, 100, 250 ms), the checks run at once (--concurrency, the default 8) and one at a time
// (as before issue 41), each beside the run without the delay: wall time, requests, and whether every check's verdict
// and reason are the same. `npm run bench:conformance-rtt -- [runs]` (runs a cell, the median kept; default 3).
import { runConformance, type RunResult } from '../conformance/framework/runner.ts';
import { allSuites } from '../conformance/methods.ts';
import { summarize } from '../conformance/report/model.ts';
import { checkIds } from '../conformance/framework/check.ts';
import { parseExpectations } from '../conformance/framework/expectations.ts';
import { readFileSync } from 'node:fs';
import { startDevnet } from '../devnet/index.ts';
import { startDelayProxy } from './support/delay-proxy.ts';
import { type Row, saveFigure } from './support/lib.ts';

const RUNS = Number(process.argv[2] ?? 3);
const RTTS = [50, 100, 250];
/** The issue's bound: behind a 100 ms round trip, a certificate in at most this long. */
const TARGET_MS = 10_000;

const devnet = await startDevnet();
const fixtures = [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' as const }];
// As `npm start` judges the embedded default: its own deviations (anvil's) excused by name.
const expect = parseExpectations(readFileSync('fixtures/expectations/embedded.json', 'utf8'), 'fixtures/expectations/embedded.json', checkIds(allSuites));

/** What two runs must share: every check's verdict and reason, in the catalogue's order. */
const outcome = (r: RunResult) => r.checks.map((c) => `${c.id}: ${c.verdict}${c.reason ? ` (${c.reason})` : ''}`);
function differences(a: RunResult, b: RunResult): string[] {
  const [x, y] = [outcome(a), outcome(b)];
  return x.flatMap((line, i) => (line === y[i] ? [] : [`${line} ≠ ${y[i] ?? 'nothing'}`])).concat(y.length > x.length ? y.slice(x.length).map((l) => `nothing ≠ ${l}`) : []);
}

async function timed(url: string, checksAtOnce?: number): Promise<{ ms: number; run: RunResult }> {
  const t0 = performance.now();
  const run = await runConformance({ suites: allSuites, url, fixtures, expect, ...(checksAtOnce ? { checksAtOnce } : {}) });
  return { ms: Math.round(performance.now() - t0), run };
}

try {
  const direct = await timed(devnet.url);
  const verdict = (r: RunResult) => summarize(r.checks, false, r.complete).verdict;
  const cells: Array<{ rttMs: number; mode: string; runsMs: number[]; medianMs: number; requests: number; verdict: string; differences: string[] }> = [];
  for (const rttMs of RTTS) {
    const proxy = await startDelayProxy(devnet.url, () => rttMs);
    try {
      for (const [mode, checksAtOnce, runs] of [['concurrent', undefined, RUNS], ['one at a time', 1, 1]] as const) {
        const taken = [];
        for (let i = 0; i < runs; i++) taken.push(await timed(proxy.url, checksAtOnce));
        const sorted = [...taken].sort((a, b) => a.ms - b.ms);
        const median = sorted[Math.floor(sorted.length / 2)]!;
        const differ = [...new Set(taken.flatMap((t) => differences(direct.run, t.run)))];
        cells.push({ rttMs, mode, runsMs: taken.map((t) => t.ms), medianMs: median.ms, requests: median.run.requestCount, verdict: verdict(median.run), differences: differ });
        console.log(`${rttMs} ms, ${mode}: ${taken.map((t) => t.ms).join(', ')} ms; ${median.run.requestCount} requests; ${differ.length} check(s) differing from the run without delay`);
      }
    } finally {
      await proxy.close();
    }
  }
  const cell = (rtt: number, mode: string) => cells.find((c) => c.rttMs === rtt && c.mode === mode)!;
  const same = (c: (typeof cells)[number]) => (c.differences.length === 0 ? `same ${direct.run.checks.length} verdicts and reasons as without delay` : `${c.differences.length} check(s) differ: ${c.differences.slice(0, 2).join('; ')}`);
  const rows: Row[] = [
    ['Conformance, no delay (embedded default)', `${direct.ms} ms, ${direct.run.requestCount} requests, ${direct.run.checks.length} checks, verdict ${verdict(direct.run)}`, '-', 'n/a'],
    ...RTTS.map((rtt): Row => {
      const [c, s] = [cell(rtt, 'concurrent'), cell(rtt, 'one at a time')];
      const met = rtt === 100 ? (c.medianMs <= TARGET_MS && c.differences.length === 0 ? 'yes' : 'no') : c.differences.length === 0 ? 'yes' : 'no';
      return [`Conformance behind a ${rtt} ms round trip: checks at once (8) vs one at a time`, `${c.medianMs} ms (median of ${c.runsMs.length}: ${c.runsMs.join(', ')}), ${c.requests} requests, ${same(c)}; one at a time ${s.medianMs} ms, ${s.requests} requests, ${same(s)} (×${(s.medianMs / c.medianMs).toFixed(1)})`, rtt === 100 ? `≤ ${TARGET_MS / 1000} s, same verdicts` : 'same verdicts', met];
    }),
  ];
  await saveFigure('conformance-rtt', { runsPerCell: RUNS, direct: { ms: direct.ms, requests: direct.run.requestCount }, cells, rows });
} finally {
  await devnet.stop();
}
