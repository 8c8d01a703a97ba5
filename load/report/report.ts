// load.json: what a run measured, per method, with its run metadata, built from the merged results of
// every k6 instance. Checked against schemas/files/load-report.json before it is written, and read back by
// `compare` and `--baseline`.
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Ajv, type ValidateFunction } from 'ajv';
import schema from '../../schemas/files/load-report.json' with { type: 'json' };
import { reportHeader } from '../../core/node/report-header.ts';
import { coresGiven, driftOf, SATURATED_CPU_SHARE } from './analysis.ts';
import { compositionOf, type Corpus, type DepthSampled, type MethodSampling } from '../shared/corpus.ts';
import { STRATA } from '../../core/history.ts';
import { quantile, RELATIVE_ERROR } from '../shared/histogram.ts';
import { FRESH_METHODS, type FreshnessShard } from '../shared/freshness.ts';
import type { Measurement } from '../shared/measurement.ts';
import { judgeThresholds } from './judge.ts';
import type { RpcMethod } from '../../core/methods.ts';
import { expectedIterations, type Plan, RPS_PER_PROC } from '../shared/profiles.ts';
import { failureRate, latencyOf, requestsOf, type SubjectShard } from '../shared/shard.ts';
import { round } from '../shared/summary.ts';
import { withVerdict } from './verdict.ts';
import type { CapacityResult, CorpusInfo, DepthReport, Freshness, FreshChase, GateSample, HeadLag, LoadReport, MethodReport } from '../shared/load-report.ts';
import { CONFIDENCE, gateSample, percentileInterval } from './intervals.ts';

export interface ReportInput {
  /** Redacted. */
  endpoint: string;
  plan: Plan;
  corpus: CorpusInfo;
  corpusFile: string;
  k6: { version: string; source: string };
  measurement: Measurement;
  capacity?: Record<string, CapacityResult>;
  /** The head lag against the reference (head-lag.ts), or why it was not judged. */
  headLag?: HeadLag;
  /** Whether the head was chased (fresh reads), and why. */
  freshChase?: FreshChase;
}

/** A generator that keeps up starts at least this share of the planned requests. */
const KEEP_UP_SHARE = 0.99;
/** Planned requests neither counted nor dropped beyond this share (and 2 a scenario): the figures do not cover the run. */
const UNCOUNTED_SHARE = 0.01;

export function buildReport(input: ReportInput): LoadReport {
  const { plan, measurement } = input;
  const { merged, timeline, findings } = measurement;
  const methods: Record<string, MethodReport> = {};
  const ran = secondsRun(plan, merged.durationMs);
  for (const s of plan.scenarios) {
    const subject = merged.subjects[s.name];
    if (!subject) continue;
    const requests = requestsOf(subject.classes);
    const invalidSample = findings.invalid[s.name];
    const wrongSample = findings.wrong[s.name];
    methods[s.name] = {
      requests,
      targetRps: s.rps,
      achievedRps: round(requests / (ran(s) || s.durationSec), 2),
      dropped: subject.dropped,
      latencyMs: latencyOf(subject),
      ...precision(gateSample(subject.latency, timeline.counts?.map((c) => c[s.name]))),
      classes: subject.classes,
      errorCodes: cappedCodes(timeline.codes[s.name] ?? {}),
      failureRate: round(failureRate(subject.classes), 4),
      validated: subject.validated,
      parsed: subject.parsed,
      ...(invalidSample ? { invalidSample } : {}),
      ...(wrongSample ? { wrongSample } : {}),
      ...((depth) => (depth.length ? { depth } : {}))(depthReport(subject, input.corpus.methods[s.name]?.depth, input.corpus.depth)),
    };
  }
  const { corpus } = input;
  const report: LoadReport = {
    ...reportHeader('rpc-certify-load', 3),
    createdAt: new Date().toISOString(),
    profile: plan.profile,
    endpoint: input.endpoint,
    verdict: 'pass',
    k6: { version: input.k6.version, source: input.k6.source, exitCode: measurement.exitCode, ...(measurement.merged.recognition ? { recognition: measurement.merged.recognition } : {}), ...(measurement.merged.inGo === undefined ? {} : { inGo: measurement.merged.inGo }) },
    plan: {
      rate: plan.rate,
      durationSec: plan.durationSec,
      totalSec: plan.totalSec,
      periodSec: plan.periodSec,
      validateShare: plan.validateShare,
      instances: plan.instances,
      latencyRelativeError: round(RELATIVE_ERROR, 6),
      slo: plan.slo,
    },
    corpus: { file: input.corpusFile, ...corpus },
    durationSec: round((merged.durationMs || measurement.wallSec * 1000) / 1000, 1),
    methods,
    thresholds: judgeThresholds(plan.thresholds, merged),
    head: { checks: merged.head.checks, regressions: merged.head.regressions, deepestBlocks: merged.head.deepest, ...(findings.headRegression ? { sample: findings.headRegression } : {}) },
    generator: generator(plan, methods, measurement, ran),
    timeline: { periodSec: plan.periodSec, ...(timeline.startMs === undefined ? {} : { startedAt: new Date(timeline.startMs).toISOString() }), points: timeline.points },
    ...(input.freshChase ? { freshChase: input.freshChase } : {}),
    ...(plan.fresh ? { freshness: freshnessReport(plan.fresh.graceMs, merged.freshness ?? {}, findings.stale ?? {}) } : {}),
    ...(input.headLag ? { headLag: input.headLag } : {}),
    ...(input.capacity ? { capacity: input.capacity } : {}),
  };
  if (plan.profile === 'soak') {
    report.drift = {};
    for (const s of plan.scenarios) {
      const drift = driftOf(s.name, timeline.points);
      if (drift) report.drift[s.name] = drift;
    }
  }
  return withVerdict(report);
}

/** A method's gate sample, and its p95 and p99 intervals from it (none where it has no success). */
function precision(gate: GateSample): Pick<MethodReport, 'gate' | 'latencyIntervals'> {
  if (gate.histogram.count === 0) return {};
  const interval = (q: number): [number, number] | null => {
    const i = percentileInterval(gate.histogram, q, gate.designEffect[q === 0.95 ? 'p95' : 'p99']);
    return i ? [round(i.low, 3), round(i.high, 3)] : null;
  };
  return { latencyIntervals: { confidence: CONFIDENCE, p95: interval(0.95), p99: interval(0.99) }, gate };
}

/** The freshness section: per method asked, its stale reads and time to visible (percentiles from the histogram, max exact). */
export function freshnessReport(graceMs: number, shard: FreshnessShard, samples: Record<string, string>): Freshness {
  const methods: Freshness['methods'] = {};
  for (const m of FRESH_METHODS) {
    const f = shard[m];
    if (!f) continue;
    const v = f.visible;
    methods[m] = {
      requests: f.requests,
      stale: f.stale,
      staleRate: round(f.requests ? f.stale / f.requests : 0, 4),
      latestBehind: f.latestBehind,
      reorged: f.reorged,
      notJudgeable: f.notJudgeable,
      failed: f.failed,
      wrong: f.wrong,
      visibleMs: v.count ? { count: v.count, p50: round(quantile(v, 0.5)), p95: round(quantile(v, 0.95)), max: round(v.max) } : null,
      ...(samples[m] ? { staleSample: samples[m] } : {}),
      ...(f.consistent ? { consistentMs: { count: f.consistent.count, max: round(f.consistent.max) } } : {}),
    };
  }
  const seen = Math.max(0, ...FRESH_METHODS.map((m) => shard[m]?.reorgs ?? 0));
  return { graceMs, methods, ...(seen ? { reorgs: { seen, maxDepth: Math.max(0, ...FRESH_METHODS.map((m) => shard[m]?.reorgDepth ?? 0)) } } : {}) };
}

/**
 * A method's hits per depth stratum, shallowest first: each stratum measured under load, and each whose hits sampling
 * found all pruned as not served (never as failures: the corpus left them out).
 */
export function depthReport(subject: SubjectShard, sampled: MethodSampling['depth'], blocks: readonly DepthSampled[] = []): DepthReport[] {
  return STRATA.flatMap((stratum): DepthReport[] => {
    const measured = subject.depth?.[stratum];
    const tried = sampled?.[stratum];
    const drawn = blocks.find((b) => b.stratum === stratum);
    if (measured) {
      const ok = measured.latency.count > 0;
      return [{ stratum, requests: requestsOf(measured.classes), failureRate: round(failureRate(measured.classes), 4), latencyMs: ok ? { p50: round(quantile(measured.latency, 0.5)), p90: round(quantile(measured.latency, 0.9)), p99: round(quantile(measured.latency, 0.99)) } : null }];
    }
    if (tried && tried.tried > 0 && tried.pruned === tried.tried) return [{ stratum, requests: 0, failureRate: 0, latencyMs: null, notServed: `not served: all ${tried.tried} hit(s) sampled here were answered as pruned history` }];
    // No hit to try: every block drawn at this depth was answered as pruned history.
    if (!tried && drawn && drawn.blocks === 0 && drawn.pruned > 0) return [{ stratum, requests: 0, failureRate: 0, latencyMs: null, notServed: `not served: all ${drawn.pruned} block(s) drawn at this depth were answered as pruned history` }];
    return [];
  });
}

/** What the report says of a corpus, for the methods selected (those it has nothing to ask included). */
export function corpusInfo(corpus: Corpus, selected: readonly RpcMethod[]): CorpusInfo {
  const { seed, missShare, chainId, head, finalBlock, blocksSampled, depth, targetHead } = corpus;
  const methods = Object.fromEntries(selected.map((m) => [m, { ...compositionOf(corpus.entries[m] ?? []), ...corpus.sampling[m] }]));
  return { seed, missShare, chainId, head, ...(finalBlock === undefined ? {} : { finalBlock }), blocksSampled, ...(depth ? { depth } : {}), ...(targetHead ? { targetHead } : {}), methods };
}

/** Error codes per class in load.json: the most frequent few, the rest added up under "other" (an endpoint can answer any number of codes). */
const MAX_CODES = 8;
export function cappedCodes(byClass: Record<string, Record<string, number>>): Record<string, Record<string, number>> {
  return Object.fromEntries(
    Object.entries(byClass).map(([cls, codes]) => {
      if (Object.keys(codes).length <= MAX_CODES) return [cls, codes];
      // k6 counts a VU's codes past its first few as "other" already (scenario.ts).
      const { other = 0, ...own } = codes;
      const sorted = Object.entries(own).sort(([, a], [, b]) => b - a);
      return [cls, { ...Object.fromEntries(sorted.slice(0, MAX_CODES - 1)), other: other + sorted.slice(MAX_CODES - 1).reduce((a, [, n]) => a + n, 0) }];
    }),
  );
}

/** How long each scenario actually ran: its planned duration, or less when the run was stopped early (Ctrl-C),
 * so that rates and what was planned are counted over the time run, not the time planned. */
function secondsRun(plan: Plan, durationMs: number): (s: Plan['scenarios'][number]) => number {
  const elapsed = durationMs / 1000;
  return (s) => (elapsed > 0 ? Math.min(s.durationSec, Math.max(0, elapsed - s.startSec)) : s.durationSec);
}

function generator(plan: Plan, methods: Record<string, MethodReport>, m: ReportInput['measurement'], ran: (s: Plan['scenarios'][number]) => number): LoadReport['generator'] {
  const availableCores = coresGiven(m, availableParallelism());
  const cpuCores = m.cpuSec === undefined || m.wallSec <= 0 ? undefined : round(m.cpuSec / m.wallSec, 2);
  const planned = plan.scenarios.reduce((a, s) => a + expectedIterations(s) * (ran(s) / s.durationSec), 0);
  const sent = Object.values(methods).reduce((a, x) => a + x.requests, 0);
  const droppedIterations = Object.values(methods).reduce((a, x) => a + x.dropped, 0);
  const keptUp = sent >= planned * KEEP_UP_SHARE;
  const note = keptUp
    ? undefined
    : cpuCores !== undefined && cpuCores >= availableCores * SATURATED_CPU_SHARE
      ? m.procs !== undefined && availableCores < availableParallelism()
        ? `k6 used ${cpuCores} of the ${availableCores} cores it was given (GOMAXPROCS=${m.procs}, sized for ${RPS_PER_PROC} requests a second each): the generator itself was saturated; set GOMAXPROCS higher (up to ${availableParallelism()} here) and run again`
        : `k6 used ${cpuCores} of ${availableCores} cores: the generator itself was saturated; lower --rate, or spread the load (--segments on a bigger machine, k8s)`
      : droppedIterations > 0
        ? `${droppedIterations} requests were not sent: every VU was waiting for an answer (the target slowed down) at the planned rate`
        : // An open-model executor sends each planned request or counts it dropped: a shortfall with none dropped
          // is time counted while k6 was not sending (starting up, or stopped early), never the target's doing.
          `${Math.round(planned - sent)} fewer requests than planned were started and none was dropped: k6 started late or stopped early (not the target's doing)`;
  // An open-model executor starts or drops every planned request: over the whole planned time (a run stopped early is
  // judged incomplete elsewhere), requests neither counted nor dropped are figures that never reached the harness (a
  // metrics export lost, red team: a dead endpoint's last 14 s read as a short, passing run).
  // Iterations that threw are in no class either: counted apart (any makes the run inconclusive), not as figures lost.
  // A logged one whose count did not arrive is one all the same.
  const scriptErrors = Math.max(m.merged.scriptErrors, m.findings.scriptError ? 1 : 0);
  const full = plan.scenarios.reduce((a, s) => a + expectedIterations(s), 0);
  const missing = Math.round(full - sent - droppedIterations - scriptErrors);
  const uncounted = missing > Math.max(2 * plan.scenarios.length, full * UNCOUNTED_SHARE) ? missing : undefined;
  return {
    keptUp,
    droppedIterations,
    availableCores,
    instances: m.instances,
    ...(cpuCores === undefined ? {} : { cpuCores }),
    ...(note ? { note } : {}),
    ...(uncounted ? { uncounted, planned: Math.round(full) } : {}),
    ...(scriptErrors ? { scriptErrors, ...(m.findings.scriptError ? { scriptError: m.findings.scriptError } : {}) } : {}),
  };
}

// Compiled at first use (~0.25 s of one core): at import it would hold every command that loads this module, and a
// Ctrl-C in that time with it.
let validator: ValidateFunction | undefined;

/** Throws with the schema faults when a report does not match schemas/files/load-report.json. */
export function assertReport(report: unknown): asserts report is LoadReport {
  validator ??= new Ajv({ allErrors: true, strict: false }).compile(schema);
  if (validator(report)) return;
  const faults = (validator.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  throw new Error(`load report does not match schemas/files/load-report.json: ${faults.join('; ')}`);
}

/** A report as read: one written before the shared header (version 2) is read in today's shape (upgraded()). */
export async function readReport(path: string): Promise<LoadReport> {
  const parsed = upgraded(JSON.parse(await readFile(path, 'utf8')) as unknown);
  // Another harness report (conformance.json) is named as such, not listed as a load report's missing fields.
  const kind = (parsed as { kind?: unknown } | null)?.kind;
  if (typeof kind === 'string' && kind !== 'rpc-certify-load') throw new Error(`a ${kind.replace(/^rpc-certify-/, '')} report (kind ${kind}), not a load report: compare and --baseline take a load.json`);
  assertReport(parsed);
  return parsed;
}

/** The header of a version-2 report turned into today's: only the header changed since; it named no harness version. */
function upgraded(report: unknown): unknown {
  if (report === null || typeof report !== 'object' || Array.isArray(report)) return report;
  const { version, ...rest } = report as Record<string, unknown>;
  if (version !== 2 || rest['kind'] !== 'rpc-certify-load' || 'schemaVersion' in rest) return report;
  return { ...rest, schemaVersion: 3, harness: { name: 'rpc-certify', version: UNKNOWN_HARNESS } };
}

/** The harness version of a report written before reports named it. */
export const UNKNOWN_HARNESS = 'unknown (a version 2 report)';
