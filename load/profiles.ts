// Load profiles turned into a k6 plan: open-model scenarios (arrival rates, so a slow target cannot
// slow the generator down and hide its tail), thresholds, and the target rate at any moment (for
// "achieved vs target"). Pure: the plan is computed in Node and compiled into the k6 bundle.
import { METHODS, MIX_SCENARIO, metricName, type RpcMethod, type Subject } from './methods.ts';
import { createRng } from './rng.ts';

export const PROFILES = ['smoke', 'gate', 'capacity', 'soak'] as const;
export type Profile = (typeof PROFILES)[number];

export interface Slo {
  p95Ms: number;
  p99Ms: number;
  /** Share of requests outside the success classes. */
  maxFailureRate: number;
}

interface ProfileDefaults {
  /** Per method: the constant rate, or for capacity the peak of each ramp. */
  rate: number;
  /** Per scenario (capacity runs one ramp per method, then the mix). */
  durationSec: number;
  /** Validate one response in N against the schemas. */
  validateEvery: number;
  slo: Slo;
  /** Thresholds decide the exit code; capacity only measures where the SLO breaks. */
  gating: boolean;
}

const SERVICE_SLO: Slo = { p95Ms: 500, p99Ms: 1000, maxFailureRate: 0.01 };
const DEFAULTS: Record<Profile, ProfileDefaults> = {
  smoke: { rate: 5, durationSec: 10, validateEvery: 1, slo: { p95Ms: 1000, p99Ms: 2000, maxFailureRate: 0.01 }, gating: true },
  gate: { rate: 20, durationSec: 60, validateEvery: 10, slo: SERVICE_SLO, gating: true },
  capacity: { rate: 2000, durationSec: 30, validateEvery: 100, slo: SERVICE_SLO, gating: false },
  soak: { rate: 10, durationSec: 1800, validateEvery: 20, slo: SERVICE_SLO, gating: true },
};

/** Share of each method in the capacity mix: lookups by hash dominate real read traffic. */
const MIX_WEIGHTS: Record<RpcMethod, number> = {
  eth_getTransactionReceipt: 25,
  eth_getTransactionByHash: 20,
  eth_getBlockByHash: 15,
  eth_estimateGas: 15,
  eth_getBlockReceipts: 10,
  eth_getTransactionByBlockNumberAndIndex: 10,
  eth_getUncleByBlockNumberAndIndex: 2.5,
  eth_getUncleByBlockHashAndIndex: 2.5,
};

/** Marks thresholds that only make k6 report a sub-metric (per-scenario dropped iterations); never a verdict. */
export const BOOKKEEPING = 'count>=0';
const RAMP_GAP_SEC = 2;
const REQUEST_TIMEOUT = '10s';
const MAX_VUS = 1000;
const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'];
// No `url` tag (it carries /v3/<KEY>) and no `error` tag (k6 error strings quote the URL).
const SYSTEM_TAGS = ['status', 'method', 'name', 'group', 'check', 'error_code', 'scenario', 'expected_response'];

export interface Segment {
  durationSec: number;
  fromRps: number;
  toRps: number;
}

export interface ScenarioPlan {
  /** The k6 scenario name: the method, or "mix". */
  name: Subject;
  startSec: number;
  segments: Segment[];
}

export interface PlanInput {
  profile: Profile;
  methods: readonly RpcMethod[];
  seed: number;
  rate?: number;
  duration?: string;
}

export interface Plan {
  profile: Profile;
  methods: RpcMethod[];
  rate: number;
  durationSec: number;
  totalSec: number;
  /** Aggregation period of the timeline (k6 web dashboard). */
  periodSec: number;
  validateEvery: number;
  slo: Slo;
  gating: boolean;
  requestTimeout: string;
  scenarios: ScenarioPlan[];
  /** The capacity mix as a seeded method sequence: iteration i calls mix[i % length]. */
  mix: RpcMethod[];
  /** The k6 `options` export. */
  options: Record<string, unknown>;
}

export function buildPlan(input: PlanInput): Plan {
  const d = DEFAULTS[input.profile];
  const rate = input.rate ?? d.rate;
  if (!Number.isInteger(rate) || rate < 1) throw new Error(`--rate must be a whole number of requests per second >= 1, got ${rate}`);
  const durationSec = input.duration === undefined ? d.durationSec : parseDuration(input.duration);
  const methods = METHODS.filter((m) => input.methods.includes(m));
  if (methods.length === 0) throw new Error('no method selected');

  const scenarios: ScenarioPlan[] =
    input.profile === 'capacity'
      ? ([...methods, MIX_SCENARIO] as Subject[]).map((name, i) => ({
          name,
          startSec: i * (durationSec + RAMP_GAP_SEC),
          segments: [{ durationSec, fromRps: Math.max(1, Math.round(rate / 20)), toRps: rate }],
        }))
      : methods.map((name) => ({ name, startSec: 0, segments: [{ durationSec, fromRps: rate, toRps: rate }] }));
  const totalSec = Math.max(...scenarios.map((s) => s.startSec + s.segments.reduce((a, g) => a + g.durationSec, 0)));
  // A VU waits for its answer, so VUs needed = rate x latency: allow the SLO latency at capacity, seconds elsewhere.
  const latencyBudgetSec = d.gating ? 2 : d.slo.p95Ms / 1000;

  const plan: Plan = {
    profile: input.profile,
    methods,
    rate,
    durationSec,
    totalSec,
    periodSec: Math.min(60, Math.max(1, Math.round(totalSec / 150))),
    validateEvery: d.validateEvery,
    slo: d.slo,
    gating: d.gating,
    requestTimeout: REQUEST_TIMEOUT,
    scenarios,
    mix: input.profile === 'capacity' ? mixSequence(methods, input.seed) : [],
    options: {},
  };
  plan.options = {
    scenarios: Object.fromEntries(scenarios.map((s) => [s.name, k6Scenario(s, latencyBudgetSec)])),
    thresholds: thresholds(plan),
    summaryTrendStats: SUMMARY_TREND_STATS,
    systemTags: SYSTEM_TAGS,
  };
  return plan;
}

function k6Scenario(s: ScenarioPlan, latencyBudgetSec: number): Record<string, unknown> {
  const peak = Math.max(...s.segments.map((g) => Math.max(g.fromRps, g.toRps)));
  const preAllocatedVUs = Math.min(100, Math.ceil(peak * 0.02) + 1);
  const common = {
    exec: 'call',
    startTime: `${s.startSec}s`,
    timeUnit: '1s',
    preAllocatedVUs,
    maxVUs: Math.min(MAX_VUS, Math.max(preAllocatedVUs, Math.ceil(peak * latencyBudgetSec))),
    gracefulStop: '2s',
  };
  const [first] = s.segments;
  if (s.segments.length === 1 && first && first.fromRps === first.toRps) {
    return { executor: 'constant-arrival-rate', rate: first.toRps, duration: `${first.durationSec}s`, ...common };
  }
  return {
    executor: 'ramping-arrival-rate',
    startRate: first?.fromRps ?? 0,
    stages: s.segments.map((g) => ({ target: g.toRps, duration: `${g.durationSec}s` })),
    ...common,
  };
}

function thresholds(plan: Plan): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const s of plan.scenarios) out[`dropped_iterations{scenario:${s.name}}`] = [BOOKKEEPING];
  if (!plan.gating) return out;
  for (const m of plan.methods) {
    out[metricName.latency(m)] = [`p(95)<${plan.slo.p95Ms}`, `p(99)<${plan.slo.p99Ms}`];
    out[metricName.failed(m)] = [`rate<${plan.slo.maxFailureRate}`];
  }
  // The generator (or a stalled target) could not start 1% of the planned requests: the run is not the planned load.
  const planned = plan.scenarios.reduce((a, s) => a + expectedIterations(s), 0);
  out['dropped_iterations'] = [`count<=${Math.max(1, Math.floor(planned * 0.01))}`];
  return out;
}

function mixSequence(methods: RpcMethod[], seed: number): RpcMethod[] {
  const rng = createRng(seed ^ 0x5eed);
  const total = methods.reduce((a, m) => a + MIX_WEIGHTS[m], 0);
  return Array.from({ length: 1000 }, () => {
    let x = rng.next() * total;
    return methods.find((m) => (x -= MIX_WEIGHTS[m]) < 0) ?? (methods[0] as RpcMethod);
  });
}

/** Requests a scenario should start: the integral of its rate. */
export function expectedIterations(s: ScenarioPlan): number {
  return s.segments.reduce((a, g) => a + ((g.fromRps + g.toRps) / 2) * g.durationSec, 0);
}

/** The rate a scenario asks for at `tSec` after the test start (0 outside its window). */
export function targetRpsAt(s: ScenarioPlan, tSec: number): number {
  let start = s.startSec;
  for (const g of s.segments) {
    if (tSec >= start && tSec < start + g.durationSec) return g.fromRps + ((g.toRps - g.fromRps) * (tSec - start)) / g.durationSec;
    start += g.durationSec;
  }
  return 0;
}

/** "90", "45s", "5m", "1h30m" -> seconds. */
export function parseDuration(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$/.exec(text.trim());
  const sec = m && text.trim() !== '' ? Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) : NaN;
  if (!Number.isFinite(sec) || sec < 1) throw new Error(`invalid duration "${text}" (examples: 30s, 5m, 1h30m)`);
  return sec;
}
