// load.json: what a run measured, per method, with its run metadata. Checked against
// schemas/load-report.json before it is written, and read back by `compare` and `--baseline`.
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Ajv } from 'ajv';
import { redactUrl } from '../core/redact.ts';
import schema from '../schemas/load-report.json' with { type: 'json' };
import { type CapacityResult, capacityOf, type DriftResult, driftOf } from './analysis.ts';
import type { RegressionCheck } from './compare.ts';
import type { Corpus } from './corpus.ts';
import type { K6Result } from './k6.ts';
import type { RpcClass } from './methods.ts';
import { expectedIterations, type Plan, type Profile, type Slo, targetRpsAt } from './profiles.ts';
import { droppedIterations, type K6Summary, type Latency, methodCounts, round, type ThresholdResult, thresholdResults } from './summary.ts';
import type { Timeline, TimelinePoint } from './timeline.ts';

export interface MethodReport {
  requests: number;
  /** Mean rate the plan asked for over the scenario, and what was sent. */
  targetRps: number;
  achievedRps: number;
  /** Iterations k6 could not start (no free VU). */
  dropped: number;
  latencyMs: Latency | null;
  classes: Record<RpcClass, number>;
  /** JSON-RPC error codes seen, per class ("rpc_error" -> {"-32000": 4}). */
  errorCodes: Record<string, Record<string, number>>;
  failureRate: number;
  /** The first schema fault seen, when validation found one. */
  invalidSample?: string;
}

export interface LoadReport {
  version: 1;
  kind: 'rpc-certify-load';
  createdAt: string;
  profile: Profile;
  endpoint: string;
  verdict: 'pass' | 'fail' | 'measured';
  k6: { version: string; source: string; exitCode: number };
  plan: { rate: number; durationSec: number; totalSec: number; periodSec: number; validateEvery: number; slo: Slo };
  corpus: { file: string; seed: number; missShare: number; chainId: string; head: string; blocksSampled: number; deviations: string[]; dropped: Record<string, number> };
  durationSec: number;
  /** Per method, plus "mix" for the capacity profile's weighted mix. */
  methods: Record<string, MethodReport>;
  thresholds: ThresholdResult[];
  generator: { keptUp: boolean; droppedIterations: number; availableCores: number; cpuCores?: number; note?: string };
  timeline: { periodSec: number; points: TimelinePoint[] };
  capacity?: Record<string, CapacityResult>;
  drift?: Record<string, DriftResult>;
  baseline?: { file: string; tolerance: number; ok: boolean; checks: RegressionCheck[] };
}

export interface ReportInput {
  url: string;
  plan: Plan;
  corpus: Corpus;
  corpusFile: string;
  k6: { version: string; source: string };
  run: K6Result;
  summary: K6Summary;
  timeline: Timeline;
  invalidSamples: Record<string, string>;
}

/** A generator that keeps up starts at least this share of the planned requests. */
const KEEP_UP_SHARE = 0.99;
/** k6 using this share of the machine's cores is itself the bottleneck. */
const SATURATED_CPU_SHARE = 0.8;

export function buildReport(input: ReportInput): LoadReport {
  const { plan, summary, timeline, run } = input;
  const methods: Record<string, MethodReport> = {};
  for (const s of plan.scenarios) {
    const counts = methodCounts(summary, s.name);
    const activeSec = s.segments.reduce((a, g) => a + g.durationSec, 0);
    const invalidSample = input.invalidSamples[s.name];
    methods[s.name] = {
      requests: counts.requests,
      targetRps: round(expectedIterations(s) / activeSec, 2),
      achievedRps: round(counts.requests / activeSec, 2),
      dropped: droppedIterations(summary, s.name),
      latencyMs: counts.latencyMs,
      classes: counts.classes,
      errorCodes: timeline.codes[s.name] ?? {},
      failureRate: round(counts.failureRate, 4),
      ...(invalidSample ? { invalidSample } : {}),
    };
  }
  const report: LoadReport = {
    version: 1,
    kind: 'rpc-certify-load',
    createdAt: new Date().toISOString(),
    profile: plan.profile,
    endpoint: redactUrl(input.url),
    verdict: 'pass',
    k6: { version: input.k6.version, source: input.k6.source, exitCode: run.exitCode },
    plan: { rate: plan.rate, durationSec: plan.durationSec, totalSec: plan.totalSec, periodSec: plan.periodSec, validateEvery: plan.validateEvery, slo: plan.slo },
    corpus: {
      file: input.corpusFile,
      seed: input.corpus.seed,
      missShare: input.corpus.missShare,
      chainId: input.corpus.chainId,
      head: input.corpus.head,
      blocksSampled: input.corpus.blocksSampled,
      deviations: input.corpus.deviations,
      dropped: input.corpus.dropped,
    },
    durationSec: round((summary.state?.testRunDurationMs ?? run.wallSec * 1000) / 1000, 1),
    methods,
    thresholds: thresholdResults(summary),
    generator: generator(plan, methods, run),
    timeline: { periodSec: plan.periodSec, points: withTargets(plan, timeline.points) },
  };
  if (plan.profile === 'capacity') report.capacity = Object.fromEntries(plan.scenarios.map((s) => [s.name, capacityOf(s, timeline.points, plan.periodSec, plan.slo)]));
  if (plan.profile === 'soak') {
    report.drift = {};
    for (const s of plan.scenarios) {
      const drift = driftOf(s.name, timeline.points);
      if (drift) report.drift[s.name] = drift;
    }
  }
  return withVerdict(report);
}

/** Adds to each period the rate the plan asked for (at the period's middle), for achieved vs target. */
function withTargets(plan: Plan, points: TimelinePoint[]): TimelinePoint[] {
  return points.map((p, i) => ({
    ...p,
    methods: Object.fromEntries(
      Object.entries(p.methods).map(([name, stats]) => {
        const scenario = plan.scenarios.find((s) => s.name === name);
        const from = points[i - 1]?.t ?? 0;
        return [name, scenario ? { ...stats, targetRps: round(targetRpsAt(scenario, (from + p.t) / 2), 2) } : stats];
      }),
    ),
  }));
}

/** pass/fail from thresholds, drift and the baseline; capacity only measures. */
export function withVerdict(report: LoadReport): LoadReport {
  if (report.profile === 'capacity') return { ...report, verdict: 'measured' };
  const failed =
    report.thresholds.some((t) => !t.ok) || Object.values(report.drift ?? {}).some((d) => d.drifted) || report.baseline?.ok === false;
  return { ...report, verdict: failed ? 'fail' : 'pass' };
}

function generator(plan: Plan, methods: Record<string, MethodReport>, run: K6Result): LoadReport['generator'] {
  const availableCores = availableParallelism();
  const cpuCores = run.cpuSec === undefined || run.wallSec <= 0 ? undefined : round(run.cpuSec / run.wallSec, 2);
  const planned = plan.scenarios.reduce((a, s) => a + expectedIterations(s), 0);
  const sent = Object.values(methods).reduce((a, m) => a + m.requests, 0);
  const droppedIterations = Object.values(methods).reduce((a, m) => a + m.dropped, 0);
  const keptUp = sent >= planned * KEEP_UP_SHARE;
  const note = keptUp
    ? undefined
    : cpuCores !== undefined && cpuCores >= availableCores * SATURATED_CPU_SHARE
      ? `k6 used ${cpuCores} of ${availableCores} cores: the generator itself was saturated; lower --rate or run k6 on a bigger machine`
      : `${droppedIterations} requests were not sent: every VU was waiting for an answer (the target slowed down) at the planned rate`;
  return { keptUp, droppedIterations, availableCores, ...(cpuCores === undefined ? {} : { cpuCores }), ...(note ? { note } : {}) };
}

const validator = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** Throws with the schema faults when a report does not match schemas/load-report.json. */
export function assertReport(report: unknown): asserts report is LoadReport {
  if (validator(report)) return;
  const faults = (validator.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  throw new Error(`load report does not match schemas/load-report.json: ${faults.join('; ')}`);
}

export async function readReport(path: string): Promise<LoadReport> {
  const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
  assertReport(parsed);
  return parsed;
}
