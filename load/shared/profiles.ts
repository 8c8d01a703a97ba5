// Load profiles turned into a k6 plan: open-model scenarios (arrival rates, so a slow target cannot
// slow the generator down and hide its tail), one capacity step, thresholds, and the target rate at any
// moment (for "achieved vs target"). Pure: the plan is computed in Node and compiled into the k6 bundle.
import { METHOD_FACTS, METHODS, type RpcMethod } from '../../core/methods.ts';
import { HEAD_SCENARIO, MIX_SCENARIO, metricName, type Subject } from './answer-classes.ts';
import { FRESH_SCENARIO } from './freshness.ts';
import { createRng } from './rng.ts';
import { durationMs } from '../../core/duration.ts';

/** Share of requests that should miss (unknown hash, index out of range), and the most capacity steps per subject. */
export const DEFAULT_MISS_SHARE = 0.1;
export const DEFAULT_MAX_STEPS = 20;

export const PROFILES = ['smoke', 'gate', 'capacity', 'soak'] as const;
export type Profile = (typeof PROFILES)[number];

export interface Slo {
  p95Ms: number;
  p99Ms: number;
  /** Share of requests outside the success classes (1 - the success share). */
  maxFailureRate: number;
  /** Share of the planned requests k6 could not start (no free VU). */
  maxDroppedShare: number;
}

/** An SLO's figures, each with, in one line, why it is that figure. */
type Reasoned<T> = { [K in keyof T]: { value: T[K]; why: string } };

interface ProfileDefaults {
  /** The question a run of the profile answers, in one line. */
  question: string;
  /** Per method: the constant rate, or for capacity the first step (and the step size). */
  rate: number;
  /** Per scenario; for capacity, per step. */
  durationSec: number;
  /** Share of answers fully validated (schemas and the answers recorded at sampling). */
  validateShare: number;
  slo: Reasoned<Slo>;
  /** Thresholds decide the exit code; capacity only measures where the SLO breaks. */
  gating: boolean;
}

// The spec states no latency or failure figure (§8: rate limits and quotas "not shown"): these are the harness's
// defaults, each overridable (--slo-p99, --slo-success, --slo-max-dropped).
const SERVICE_SLO: Reasoned<Slo> = {
  p95Ms: { value: 500, why: 'a dapp makes several of these reads to draw one screen: past half a second for 1 read in 20, users wait' },
  p99Ms: { value: 1000, why: 'the tail may be twice p95, no more: a read over a second is a stall, not a slow answer' },
  maxFailureRate: { value: 0.01, why: 'one failed answer in 100 is what a client retrying once still hides; more is an outage its users see' },
  maxDroppedShare: { value: 0.01, why: 'with more than 1% of the planned requests never started, the run did not offer the load it reports' },
};
const DEFAULTS: Record<Profile, ProfileDefaults> = {
  smoke: {
    question: 'does every method answer, and answer right, under a little load (CI-sized)?',
    rate: 5,
    durationSec: 10,
    validateShare: 1,
    slo: {
      ...SERVICE_SLO,
      p95Ms: { value: 1000, why: 'twice the service\'s: smoke asks whether it works, not how fast, on a CI machine the endpoint may share' },
      p99Ms: { value: 2000, why: 'twice the service\'s, as p95: at 5 rps for 10 s, the tail is the slowest one or two answers of 50' },
    },
    gating: true,
  },
  gate: { question: 'does this release hold each method\'s thresholds (and, with --baseline, the last release\'s figures)?', rate: 20, durationSec: 120, validateShare: 0.05, slo: SERVICE_SLO, gating: true },
  capacity: { question: 'at what rate does each method alone, then the weighted mix, stop meeting the SLO?', rate: 50, durationSec: 10, validateShare: 0.05, slo: SERVICE_SLO, gating: false },
  soak: { question: 'does a steady rate held for half an hour keep its thresholds, with no drift in latency?', rate: 10, durationSec: 1800, validateShare: 0.05, slo: SERVICE_SLO, gating: true },
};

/** A profile's default rate (per method) and duration. */
export function planDefaults(profile: Profile): { rate: number; durationSec: number } {
  return { rate: DEFAULTS[profile].rate, durationSec: DEFAULTS[profile].durationSec };
}

/** The question a profile answers. */
export function profileQuestion(profile: Profile): string {
  return DEFAULTS[profile].question;
}

/** A profile's default SLO, figure by figure, with the reason for each. */
export function sloReasons(profile: Profile): Array<{ figure: keyof Slo; value: number; why: string }> {
  const slo = DEFAULTS[profile].slo;
  return (Object.keys(slo) as Array<keyof Slo>).map((figure) => ({ figure, ...slo[figure] }));
}

function figures(slo: Reasoned<Slo>): Slo {
  return { p95Ms: slo.p95Ms.value, p99Ms: slo.p99Ms.value, maxFailureRate: slo.maxFailureRate.value, maxDroppedShare: slo.maxDroppedShare.value };
}

/** Requests a second one OS thread of Go's scheduler serves: the harness's k6 spends 0.3 ms of CPU a request on a
 * quiet machine and up to ~0.9 ms on a busy one (docs/benchmarks.md), so a thread stays under ~25% busy. At 500 rps
 * on one thread k6 fell behind on this busy 2-core machine (2,582 of 20,000 iterations dropped, 731 on two). */
export const RPS_PER_PROC = 250;

/**
 * GOMAXPROCS for an instance sending `rps`: Go's default (every core) makes k6 spread a light load over idle threads,
 * and 44% of bare k6's CPU at 300 rps was system time (scheduler wake-ups); one thread per RPS_PER_PROC requests a
 * second, at most the cores there are. A user's own GOMAXPROCS wins.
 */
export function k6Procs(rps: number, cores: number, userSetting: string | undefined): number | undefined {
  if (userSetting) return undefined;
  return Math.max(1, Math.min(cores, Math.ceil(rps / RPS_PER_PROC)));
}

/** Marks thresholds that only make k6 report a sub-metric (dropped iterations, histogram buckets); never a verdict. */
export const BOOKKEEPING = 'count>=0';
const REQUEST_TIMEOUT = '10s';
const MAX_VUS = 1000;
const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)', 'count'];
// No `url` tag (it carries /v3/<KEY>) and no `error` tag (k6 error strings quote the URL).
const SYSTEM_TAGS = ['status', 'method', 'name', 'group', 'check', 'error_code', 'scenario', 'expected_response'];

export interface ScenarioPlan {
  /** The k6 scenario name: the method, or "mix". */
  name: Subject;
  startSec: number;
  durationSec: number;
  rps: number;
}

export interface PlanInput {
  profile: Profile;
  methods: readonly RpcMethod[];
  seed: number;
  rate?: number;
  duration?: string;
  validateShare?: number;
  slo?: Partial<Slo>;
  /** k6 processes sharing the test through execution segments (default 1). */
  instances?: number;
  /** Capacity only: the one step this plan runs. */
  step?: { subject: Subject; rps: number };
  /** Chase the head alongside (freshness.ts): on for a chain that moves. */
  fresh?: { graceMs: number };
  /** The endpoint's answer time seen while sampling (the corpus's latencyMs): k6's VUs are pre-allocated for it. */
  latencyMs?: number;
}

export interface Plan {
  profile: Profile;
  methods: RpcMethod[];
  rate: number;
  durationSec: number;
  totalSec: number;
  /** Aggregation period of the timeline (timeline.ts). */
  periodSec: number;
  validateShare: number;
  slo: Slo;
  gating: boolean;
  instances: number;
  requestTimeout: string;
  scenarios: ScenarioPlan[];
  /** The capacity mix as a seeded method sequence: iteration i calls mix[i % length]. */
  mix: RpcMethod[];
  /** What decides pass or fail, judged on the merged results of every instance (judge.ts), not by k6. */
  thresholds: Record<string, string[]>;
  /** The head-chasing scenario (freshness.ts), when on; its stale reads fail the run (report/verdict.ts). */
  fresh?: { graceMs: number };
  /** The k6 `options` export (the script adds the histogram sub-metrics). */
  options: Record<string, unknown>;
}

export function buildPlan(input: PlanInput): Plan {
  const d = DEFAULTS[input.profile];
  const rate = input.rate ?? d.rate;
  if (!Number.isInteger(rate) || rate < 1) throw new Error(`--rate must be a whole number of requests per second >= 1, got ${rate}`);
  const durationSec = input.duration === undefined ? d.durationSec : parseDuration(input.duration);
  const methods = METHODS.filter((m) => input.methods.includes(m));
  if (methods.length === 0) throw new Error('no method selected');
  const instances = input.instances ?? 1;
  if (!Number.isInteger(instances) || instances < 1) throw new Error(`--segments must be a whole number >= 1, got ${instances}`);
  const validateShare = input.validateShare ?? d.validateShare;
  if (!(validateShare >= 0 && validateShare <= 1)) throw new Error(`--validate-share takes a number from 0 to 1, got ${validateShare}`);
  if (input.profile === 'capacity' && !input.step) throw new Error('a capacity plan runs one step');

  const scenarios: ScenarioPlan[] = input.step
    ? [{ name: input.step.subject, startSec: 0, durationSec, rps: input.step.rps }]
    : methods.map((name) => ({ name, startSec: 0, durationSec, rps: rate }));
  const totalSec = Math.max(...scenarios.map((s) => s.startSec + s.durationSec));
  const slo = { ...figures(d.slo), ...input.slo };
  // A VU waits for its answer, so VUs needed = rate x latency: twice the SLO's p99 when measuring capacity, seconds elsewhere.
  const latencyBudgetSec = d.gating ? 2 : (2 * slo.p99Ms) / 1000;

  const plan: Plan = {
    profile: input.profile,
    methods,
    rate,
    durationSec,
    totalSec,
    periodSec: Math.min(60, Math.max(1, Math.round(totalSec / 150))),
    validateShare,
    slo,
    gating: d.gating,
    instances,
    requestTimeout: REQUEST_TIMEOUT,
    scenarios,
    mix: scenarios.some((s) => s.name === MIX_SCENARIO) ? mixSequence(methods, input.seed) : [],
    thresholds: {},
    options: {},
    ...(input.fresh ? { fresh: input.fresh } : {}),
  };
  plan.thresholds = d.gating ? thresholds(plan) : {};
  plan.options = {
    scenarios: {
      ...Object.fromEntries(scenarios.map((s) => [s.name, k6Scenario(s, latencyBudgetSec, instances, input.latencyMs)])),
      // One eth_blockNumber a second per instance, from one VU, so its answers come in order.
      [HEAD_SCENARIO]: { executor: 'constant-arrival-rate', exec: 'headCheck', rate: instances, timeUnit: '1s', duration: `${totalSec}s`, preAllocatedVUs: instances, maxVUs: instances, gracefulStop: '2s' },
      // One head-chasing VU per instance: its announcements and the answers judged against them come in order.
      ...(input.fresh ? { [FRESH_SCENARIO]: { executor: 'constant-vus', exec: 'freshCheck', vus: instances, duration: `${totalSec}s`, gracefulStop: '2s' } } : {}),
    },
    thresholds: Object.fromEntries(scenarios.map((s) => [`dropped_iterations{scenario:${s.name}}`, [BOOKKEEPING]])),
    summaryTrendStats: SUMMARY_TREND_STATS,
    systemTags: SYSTEM_TAGS,
  };
  return plan;
}

/** What a capacity run steps through: each method alone, then the weighted mix (when there is more than one). */
export function capacitySubjects(methods: readonly RpcMethod[]): Subject[] {
  const ordered = METHODS.filter((m) => methods.includes(m));
  return ordered.length > 1 ? [...ordered, MIX_SCENARIO] : ordered;
}

/** Pre-allocated VUs wait for answers this many times as long as sampling saw (its p90), at least MIN_ANSWER_SEC. */
const ANSWER_HEADROOM = 2;
const MIN_ANSWER_SEC = 0.01;

/** VUs k6 starts before the test: `latencyMs` known (sampling timed the endpoint), for the rate asked at twice that
 * answer time and a 2 s stall at low rates (up to 16 VUs); maxVUs still allows for the worst case, started when due. */
export function preAllocatedVUs(rps: number, instances: number, latencyMs: number | undefined): number {
  // Every instance needs VUs of its own (k6 splits them between execution segments). An iteration with no
  // idle VU is dropped, and so is each one due while k6 starts another VU mid-run. Without a latency (a corpus
  // written before it), enough VUs wait for 250 ms answers, a 2 s stall at low rates and a 1 s stall up to 100 VUs
  // (bench:omission: ~30% fewer dropped at 100 rps with them). A VU starts in ~3.6-6 ms of CPU and holds ~0.4 MB
  // and more of JavaScript, and k6 hands iterations to its idle VUs in turn, so each one it holds beyond the rate's
  // need makes every iteration run colder in the CPU's caches (bench: 24 VUs instead of 250, -10% CPU).
  const stall = Math.min(rps * 2, 16);
  const wanted = latencyMs === undefined ? Math.max(rps * 0.25, stall, Math.min(rps, 100)) : rps * Math.max((ANSWER_HEADROOM * latencyMs) / 1000, MIN_ANSWER_SEC) + stall;
  return Math.max(instances, Math.min(250, Math.ceil(wanted) + 2));
}

function k6Scenario(s: ScenarioPlan, latencyBudgetSec: number, instances: number, latencyMs: number | undefined): Record<string, unknown> {
  const preAllocated = preAllocatedVUs(s.rps, instances, latencyMs);
  return {
    executor: 'constant-arrival-rate',
    exec: 'call',
    rate: s.rps,
    timeUnit: '1s',
    duration: `${s.durationSec}s`,
    startTime: `${s.startSec}s`,
    preAllocatedVUs: preAllocated,
    maxVUs: Math.min(MAX_VUS, Math.max(preAllocated, Math.ceil(s.rps * latencyBudgetSec))),
    gracefulStop: '2s',
  };
}

function thresholds(plan: Plan): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of plan.methods) {
    out[metricName.latency(m)] = [`p(95)<${plan.slo.p95Ms}`, `p(99)<${plan.slo.p99Ms}`];
    out[metricName.failed(m)] = [`rate<${plan.slo.maxFailureRate}`];
  }
  // The generator (or a stalled target) could not start the planned requests: the run is not the planned load.
  const planned = plan.scenarios.reduce((a, s) => a + expectedIterations(s), 0);
  out[DROPPED] = [`count<=${Math.max(1, Math.floor(planned * plan.slo.maxDroppedShare))}`];
  return out;
}

/** The threshold on iterations the method scenarios could not start (the head sampler's are not counted). */
export const DROPPED = 'dropped_iterations';

function mixSequence(methods: RpcMethod[], seed: number): RpcMethod[] {
  const rng = createRng(seed ^ 0x5eed);
  const total = methods.reduce((a, m) => a + METHOD_FACTS[m].weight, 0);
  return Array.from({ length: 1000 }, () => {
    let x = rng.next() * total;
    return methods.find((m) => (x -= METHOD_FACTS[m].weight) < 0) ?? (methods[0] as RpcMethod);
  });
}

/** Requests a scenario should start. */
export function expectedIterations(s: ScenarioPlan): number {
  return s.rps * s.durationSec;
}

/** The rate a scenario asks for at `tSec` after the test start (0 outside its window). */
export function targetRpsAt(s: ScenarioPlan, tSec: number): number {
  return tSec >= s.startSec && tSec < s.startSec + s.durationSec ? s.rps : 0;
}

/** "90", "45s", "5m", "1h30m" -> seconds. */
export function parseDuration(text: string): number {
  const sec = durationMs(text, { wholeSeconds: true }) / 1000;
  if (!Number.isFinite(sec) || sec < 1) throw new Error(`invalid duration "${text}" (examples: 30s, 5m, 1h30m)`);
  return sec;
}
