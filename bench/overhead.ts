// Figure 1, generator overhead, by a stated protocol (issue 26): every generator sends the bench's one call to the same
// fast loopback responder at 100, 300, 1,000 and 2,000 requests a second (rates all of them keep up with) and flat out,
// and each figure is the MEDIAN of RUNS runs (3 by default) taken in alternating rounds (round 1: every generator once,
// in order; round 2: the same...), never one generator's runs in a row, with the machine's noise over the bench beside
// it. CPU per request is each generator's CPU while it sends (whileSending: its whole process tree), requests and rate
// the responder's count. The generators:
// - bare k6 under the harness's own k6 scenario and k6 settings (its flags, less its OpenTelemetry output, and its
//   GOMAXPROCS for the rate): what the harness is held to;
// - today's default bare script: the same script, plain `k6 run` (the end-of-test summary on, Go's own GOMAXPROCS);
// - the floor (bare + the harness's one metric sample of an ok answer) and the judged floor (the floor + reading each
//   request's corpus line and recognising its answer exactly), both with the harness's k6 settings;
// - the harness (runLoad, gate profile), with its Node side's CPU (this process while runLoad runs: the OTLP receiver);
// - vegeta (classifies nothing) and chainbench (Locust; judges only two substrings of an answer's first KiB).
// Flat out, all are asked for the default bare script's closed-loop ceiling (median of RUNS), chainbench runs its
// single-method mode (users that never wait). `npm run bench:overhead -- --smoke`: one 3 s run at 300 rps, nothing saved;
// --runs N, --sec S, --rates 100,300,max and --only bare,harness,... set the protocol's parts (a run with --only or
// --smoke is not saved). RPC_CERTIFY_BENCH_ANSWER_KB=N in the environment: answers of N KiB (endpoint.ts), the figure
// saved as overhead-<N>kb.
import { parseArgs } from 'node:util';
import { CEILING, cpuMsPerRequest, harnessScenario, median, round, type Row, runBare, runBareAsHarness, runCeiling, runHarness, sampledLatencyMs, saveFigure, startResponder, whileSending } from './support/lib.ts';
import { CHAINBENCH_VERSION, ensureChainbench, runChainbench } from './support/chainbench.ts';
import { noiseMeter, noiseText } from './support/noise.ts';
import { ensureVegeta, runVegeta, VEGETA_VERSION } from './support/vegeta.ts';
import { ANSWER_KB } from './support/endpoint.ts';

const GENERATORS = ['bare', 'default', 'floor', 'judged', 'harness', 'vegeta', 'chainbench'] as const;
type Generator = (typeof GENERATORS)[number];
const LABEL: Record<Generator, string> = {
  bare: "bare k6 (the harness's k6 settings)",
  default: 'default bare script (plain k6 run)',
  floor: 'floor',
  judged: 'judged floor',
  harness: 'harness',
  vegeta: `vegeta ${VEGETA_VERSION}`,
  chainbench: `chainbench ${CHAINBENCH_VERSION}`,
};
/** Locust's version under chainbench (its requirement leaves it open), once installed. */
let locust: string | undefined;
const label = (g: Generator) => (g === 'chainbench' && locust ? `${LABEL[g]} (Locust ${locust})` : LABEL[g]);
/** At and above this rate the harness is held to ×HARNESS_RATIO of bare k6 (same settings); below it, to the default bare script. */
const STEADY_RPS = 2000;
const HARNESS_RATIO = 1.2;
/** Flat out, the harness's rate as a share of bare k6's must be at least this. */
const FLAT_OUT_SHARE = 0.8;
/** A generator below this share of the asked rate did not keep up with it. */
const KEPT_UP = 0.98;

const { values: opts } = parseArgs({ options: { runs: { type: 'string' }, sec: { type: 'string' }, rates: { type: 'string' }, only: { type: 'string' }, smoke: { type: 'boolean', default: false } } });
const RUNS = Number(opts.runs ?? (opts.smoke ? 1 : 3));
/** Seconds a run sends, at least: with MIN_REQUESTS, ~110 runs in ~14 minutes (each run's start-up besides: ~1 s for k6,
 * ~2 s for the harness, ~5 s for chainbench's Python processes and test data). */
const SEC = Number(opts.sec ?? (opts.smoke ? 3 : 5));
/** A run lasts long enough for this many requests (10 s at 100 rps): CPU is read in 10 ms ticks. */
const MIN_REQUESTS = opts.smoke ? 0 : 1000;
/** Below this rate a run is an idle one: it lasts IDLE_SEC, and its CPU per request is its CPU per second of idling. */
const IDLE_RPS = 10;
const IDLE_SEC = 10;
const secAt = (rps: number) => (rps < IDLE_RPS ? Math.max(SEC, IDLE_SEC) : Math.max(SEC, Math.ceil(MIN_REQUESTS / rps)));
const RATES: Array<number | 'max'> = (opts.rates ?? (opts.smoke ? '300' : '1,100,300,1000,2000,max')).split(',').map((r) => (r === 'max' ? 'max' : Number(r)));
const ONLY = opts.only?.split(',') as Generator[] | undefined;
if (!(RUNS >= 1) || !(SEC >= 1) || RATES.some((r) => r !== 'max' && !(r > 0)) || ONLY?.some((g) => !GENERATORS.includes(g))) {
  throw new Error(`usage: bench:overhead -- [--runs N] [--sec S] [--rates 100,300,...,max] [--only ${GENERATORS.join(',')}] [--smoke]`);
}
const chosen = GENERATORS.filter((g) => !ONLY || ONLY.includes(g));

interface Taken {
  cpuMs: number;
  rps: number;
  /** This process's CPU per request meanwhile (the harness's Node side; for the others, its own polling). */
  benchCpuMs: number;
}

const responder = await startResponder('fast');
// The plan sizes k6's VUs by the answer time sampling records, as it does for a user's corpus of this endpoint.
const latencyMs = await sampledLatencyMs(responder.url);
const log = (line: string) => process.stderr.write(`${line}\n`);
/** Runs done and planned (the generators at every rate, and the ceiling's), for the progress lines. */
const progress = { done: 0, planned: RUNS * (chosen.length * RATES.length + (RATES.includes('max') ? 1 : 0)) };

/** One run of `g` asked for `rps` (flat out: the ceiling rate), its figures taken while it sends. */
async function runOnce(g: Generator, rps: number, flatOut: boolean): Promise<Taken> {
  const sec = secAt(rps);
  const scenario = harnessScenario(rps, sec, latencyMs);
  const run = {
    bare: () => runBareAsHarness(responder, scenario, sec, 'bare', rps),
    default: () => runBare(responder.url, scenario, sec, 'bare'),
    floor: () => runBareAsHarness(responder, scenario, sec, 'floor', rps),
    judged: () => runBareAsHarness(responder, scenario, sec, 'judged', rps),
    harness: () => runHarness(responder.url, rps, sec, { latencyMs }),
    vegeta: () => runVegeta(responder, rps, sec),
    chainbench: () => runChainbench(responder, flatOut ? 0 : rps, sec),
  }[g];
  const f = await whileSending(responder, run, rps < IDLE_RPS ? 5 : 100);
  // The rate over the run's planned time: each generator's run lasts that long (k6's scenario, vegeta's -duration,
  // chainbench's --test-time, which its paced users fill in bursts), and the responder counts its every call.
  return { cpuMs: cpuMsPerRequest(f), rps: f.sent / sec, benchCpuMs: round((f.benchCpuSec / f.requests) * 1000, 3) };
}

interface Figures {
  cpuMs: number;
  cpuRange: [number, number];
  rps: number;
  benchCpuMs: number;
  keptUp: boolean;
}

/** Each generator's median figures at one rate (its runs alternating with the others'); `notTaken` gets why one has none
 * (`unavailable`: the generators that could not be installed, for every rate). */
async function atRate(rps: number, flatOut: boolean, unavailable: ReadonlyMap<Generator, string>, noise: { read(): void }): Promise<{ figures: Map<Generator, Figures>; notTaken: Map<Generator, string> }> {
  const notTaken = new Map(unavailable);
  const taken = new Map<Generator, Taken[]>();
  for (let r = 1; r <= RUNS; r++) {
    for (const g of chosen) {
      if (notTaken.has(g)) continue;
      try {
        const started = performance.now();
        const t = await runOnce(g, rps, flatOut);
        taken.set(g, [...(taken.get(g) ?? []), t]);
        log(`[${++progress.done}/${progress.planned}] ${flatOut ? 'flat out' : `${rps} rps`}, round ${r}/${RUNS}: ${g} ${t.cpuMs} ms CPU/request, ${round(t.rps, 0)} rps (${round((performance.now() - started) / 1000, 1)} s)`);
      } catch (e) {
        notTaken.set(g, e instanceof Error ? e.message.split('\n')[0] ?? '' : String(e));
        log(`${g}: not taken: ${notTaken.get(g)}`);
      }
      noise.read();
    }
  }
  // A generator with a failed run has no figure at this rate: a median of the runs that went well would hide the failure.
  const figures = new Map<Generator, Figures>();
  for (const [g, runs] of taken) {
    if (notTaken.has(g) || runs.length < RUNS) continue;
    const cpu = runs.map((t) => t.cpuMs);
    const rate = median(runs.map((t) => t.rps));
    figures.set(g, { cpuMs: round(median(cpu), 3), cpuRange: [Math.min(...cpu), Math.max(...cpu)], rps: round(rate, 0), benchCpuMs: round(median(runs.map((t) => t.benchCpuMs)), 3), keptUp: rps < IDLE_RPS || rate >= KEPT_UP * rps });
  }
  return { figures, notTaken };
}

/** The answers' size, where not the canned transaction's. */
const sized = ANSWER_KB > 0 ? `, ${ANSWER_KB} KiB answers` : '';
const protocol = (rps: number) => `median of ${RUNS} alternating run${RUNS > 1 ? 's' : ''} of ${secAt(rps)} s, CPU while sending`;
const ms = (f: Figures) => `${f.cpuMs} ms${RUNS > 1 ? ` (${f.cpuRange[0]}–${f.cpuRange[1]})` : ''}`;

/** A rate's row: each generator's CPU per request, the harness's ratio to bare k6 and its Node side; its target. */
function rateRow(rps: number, figures: Map<Generator, Figures>, notTaken: Map<Generator, string>): Row {
  const [harness, bare, dflt] = [figures.get('harness'), figures.get('bare'), figures.get('default')];
  const cells = chosen.map((g) => {
    const f = figures.get(g);
    if (!f) return `${label(g)} not taken (${notTaken.get(g) ?? 'no runs'})`;
    const behind = f.keptUp ? '' : ` (fell behind: ${f.rps} rps)`;
    const extra = g === 'harness' && bare ? ` = ×${round(f.cpuMs / bare.cpuMs, 2)} bare, its Node side ${f.benchCpuMs} ms (the bench process during bare k6's runs: ${bare.benchCpuMs} ms, its own polling)` : '';
    return `${label(g)} ${ms(f)}${extra}${behind}`;
  });
  if (rps < IDLE_RPS) return [`CPU of an idle run: ${rps} rps (${protocol(rps)}; CPU per request is about CPU per second)`, cells.join('; '), '-', 'n/a'];
  const steady = rps >= STEADY_RPS;
  const against = steady ? bare : dflt;
  const target = steady ? `harness ≤ ×${HARNESS_RATIO} bare k6 (same settings)` : 'harness ≤ the default bare script';
  const met = !harness || !against || !harness.keptUp || !against.keptUp ? 'unclear' : harness.cpuMs <= (steady ? HARNESS_RATIO : 1) * against.cpuMs ? 'yes' : 'no';
  return [`CPU per request at ${rps} rps${sized} (${protocol(rps)})`, `${cells.join('; ')}`, target, met];
}

/** The flat-out row: each generator's rate as a share of bare k6's (same settings), and its CPU per request. */
function flatOutRow(rate: number, figures: Map<Generator, Figures>, notTaken: Map<Generator, string>): Row {
  const [harness, bare] = [figures.get('harness'), figures.get('bare')];
  const cells = chosen.map((g) => {
    const f = figures.get(g);
    if (!f) return `${label(g)} not taken (${notTaken.get(g) ?? 'no runs'})`;
    return `${label(g)} ${f.rps} rps${bare && g !== 'bare' ? ` = ${round((f.rps / bare.rps) * 100, 1)}%` : ''}, ${ms(f)}`;
  });
  // The figure is about a rate k6 cannot exceed: if both kept up with it, the ceiling run was starved (the machine's
  // other tenants), and the share says nothing.
  const saturated = harness && bare && !(harness.keptUp && bare.keptUp);
  const share = harness && bare ? harness.rps / bare.rps : NaN;
  return [
    `Flat out${sized} (all asked for ${rate} rps, the default bare script's ceiling; chainbench in its single-method mode, users that never wait; ${protocol(rate)})`,
    `${saturated === false ? 'NOT SATURATED (bare k6 and the harness kept up: the ceiling run was starved; run again): ' : ''}${cells.join('; ')}`,
    `harness ≥ ${FLAT_OUT_SHARE * 100}% of bare k6's rate`,
    !saturated || Number.isNaN(share) ? 'unclear' : share >= FLAT_OUT_SHARE ? 'yes' : 'no',
  ];
}

try {
  // The peers are installed (vegeta built, chainbench pip-installed) before the first run, once: one that cannot be is
  // "not taken" at every rate, and says why.
  const unavailable = new Map<Generator, string>();
  const why = (g: Generator) => (e: unknown) => void unavailable.set(g, e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e));
  if (chosen.includes('vegeta')) await ensureVegeta(log).catch(why('vegeta'));
  if (chosen.includes('chainbench')) locust = await ensureChainbench(log).then((c) => c.locust, why('chainbench'));
  // From the first run on: an install's own CPU is no noise.
  const noise = noiseMeter();
  const rows: Row[] = [];
  const figure: Record<string, unknown> = { runs: RUNS, sec: SEC, minRequests: MIN_REQUESTS, generators: chosen };
  const failed = new Set<Generator>();
  for (const rate of RATES.filter((r): r is number => r !== 'max')) {
    const { figures, notTaken } = await atRate(rate, false, unavailable, noise);
    notTaken.forEach((_, g) => failed.add(g));
    figure[`at${rate}`] = { ...Object.fromEntries(figures), notTaken: Object.fromEntries(notTaken) };
    rows.push(rateRow(rate, figures, notTaken));
  }
  if (RATES.includes('max')) {
    const ceilings: Array<Awaited<ReturnType<typeof runCeiling>>> = [];
    for (let r = 0; r < RUNS; r++) {
      ceilings.push(await runCeiling(responder.url));
      log(`[${++progress.done}/${progress.planned}] k6 ceiling, run ${r + 1}/${RUNS}: ${round(ceilings.at(-1)?.rps ?? NaN, 0)} rps`);
    }
    const ceiling = { rps: round(median(ceilings.map((c) => c.rps)), 0), cpuMs: round(median(ceilings.map(cpuMsPerRequest)), 3) };
    const rate = Math.round(ceiling.rps / 100) * 100;
    rows.unshift([`k6 ceiling (default bare script, closed loop, ${CEILING.vus} VUs, median of ${RUNS})`, `${ceiling.rps} rps, ${ceiling.cpuMs} ms CPU/request`, '-', 'n/a']);
    const { figures, notTaken } = await atRate(rate, true, unavailable, noise);
    notTaken.forEach((_, g) => failed.add(g));
    Object.assign(figure, { askedRps: rate, ceiling, flatOut: { ...Object.fromEntries(figures), notTaken: Object.fromEntries(notTaken) } });
    rows.push(flatOutRow(rate, figures, notTaken));
  }
  const n = noise.stop();
  rows.unshift([`Machine noise during bench:overhead`, noiseText(n), '-', 'n/a']);
  figure['noise'] = n;
  if (locust) figure['locust'] = locust;
  if (opts.smoke || ONLY) {
    for (const [what, result, target, met] of rows) console.log(`${what}: ${result} (target ${target}: ${met})`);
    console.log('(a smoke or --only run: not saved to reports/bench.json)');
  } else await saveFigure(ANSWER_KB > 0 ? `overhead-${ANSWER_KB}kb` : 'overhead', { ...figure, answerKb: ANSWER_KB || undefined, rows });
  if (failed.has('bare') || failed.has('harness')) process.exitCode = 1;
} finally {
  responder.stop();
}
