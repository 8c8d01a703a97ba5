// Figure 5, the gate by simulation: gate runs drawn from known latency distributions (bench/support/gate-sim.ts),
// unchanged and 10%, 20%, 30% slower, judged by compare.ts against a baseline of 1 and of 5 runs. Per behaviour:
// the share of runs with a false alarm (any comparison regressed on an unchanged endpoint), that passed, and the
// power per method (methods regressed, of all) and per run (any regressed), at the gate profile's size.
// `npm run bench:gate-simulation -- [trials]` (default 100 a cell).
import { BEHAVIOURS, simulate } from './support/gate-sim.ts';
import { DEFAULT_TOLERANCE, FAMILY_ALPHA } from '../load/report/compare.ts';
import { planDefaults } from '../load/shared/profiles.ts';
import { type Row, saveFigure } from './support/lib.ts';

const trials = Number(process.argv[2] ?? 100);
const { rate, durationSec } = planDefaults('gate');
const SHIFTS = [1, 1.1, 1.2, 1.3];
const pct = (n: number, of: number) => `${Math.round((100 * n) / of)}%`;
const rows: Row[] = [];
const table: string[] = [`| behaviour | baseline runs | unchanged: false alarm / pass / inconclusive | +10%: caught (run / method) | +20% | +30% |`, '|---|---|---|---|---|---|'];
let seed = 1;
for (const behaviour of BEHAVIOURS) {
  for (const baselineRuns of [1, 5]) {
    const cells = SHIFTS.map((shift) => simulate({ behaviour, shift, trials, baselineRuns, rate, seconds: durationSec, seed: seed++ }));
    const [unchanged, ...shifted] = cells;
    if (!unchanged) continue;
    table.push(`| ${behaviour.name} | ${baselineRuns} | ${pct(unchanged.regressed, trials)} / ${pct(unchanged.held, trials)} / ${pct(unchanged.inconclusive, trials)} | ${shifted.map((t) => `${pct(t.regressed, trials)} / ${pct(t.methodsRegressed, t.methods)}`).join(' | ')} |`);
    rows.push([`${behaviour.name}, ${baselineRuns}-run baseline: unchanged runs with a false alarm`, pct(unchanged.regressed, trials), `at most ${FAMILY_ALPHA * 100}%`, unchanged.regressed <= FAMILY_ALPHA * trials ? 'yes' : 'no']);
  }
}
console.log(`gate profile: ${rate} rps x ${durationSec} s per method, tolerance ${DEFAULT_TOLERANCE * 100}%, ${trials} trials a cell\n${table.join('\n')}`);
await saveFigure('gate-simulation', { trials, rate, durationSec, tolerance: DEFAULT_TOLERANCE, table, rows });
