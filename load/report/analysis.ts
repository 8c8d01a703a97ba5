// What a run says beyond the totals: where the capacity steps stop meeting the SLO (and whether the
// endpoint or the generator is to blame), and how a soak's latency drifts from its start to its end. Pure.
import type { Subject } from '../shared/answer-classes.ts';
import type { Slo } from '../shared/profiles.ts';
import { failureRate, latencyOf, requestsOf, type SubjectShard } from '../shared/shard.ts';
import { round } from '../shared/summary.ts';
import type { Measurement, TimelinePoint } from '../shared/measurement.ts';
import type { CapacityResult, CapacityStep, DriftResult } from '../shared/load-report.ts';

export interface StepInput {
  offeredRps: number;
  durationSec: number;
  measured: SubjectShard;
  /** The VUs k6 could use for the step: with a target answering fast, far fewer are busy. */
  maxVUs: number;
  cpuCores?: number;
  availableCores: number;
  slo: Slo;
}

/** k6 using this share of the cores is itself the bottleneck. */
export const SATURATED_CPU_SHARE = 0.8;

/** The cores k6 could use: the machine's, or fewer when the harness sized GOMAXPROCS to the rate (instances.ts). */
export function coresGiven(m: Pick<Measurement, 'procs' | 'instances'>, machineCores: number): number {
  return Math.min(machineCores, m.procs === undefined ? Infinity : m.procs * m.instances);
}
/** Dropped iterations while under this share of the VUs wait for answers: the target was idle, k6 was late. */
const IDLE_VU_SHARE = 0.5;
/** Drift is flagged beyond +50% p95 and more than 5 ms (sub-millisecond loopback noise is no drift). */
const DRIFT_RATIO = 1.5;
const DRIFT_FLOOR_MS = 5;

export function judgeStep(input: StepInput): CapacityStep {
  const { measured, slo } = input;
  const requests = requestsOf(measured.classes);
  const latency = latencyOf(measured);
  const planned = input.offeredRps * input.durationSec;
  const droppedShare = planned > 0 ? Math.min(1, measured.dropped / planned) : 0;
  const step: Omit<CapacityStep, 'verdict'> = {
    offeredRps: input.offeredRps,
    achievedRps: round(requests / input.durationSec, 2),
    requests,
    successRate: round(1 - failureRate(measured.classes), 4),
    droppedShare: round(droppedShare, 4),
    p50Ms: latency?.p50 ?? null,
    p99Ms: latency?.p99 ?? null,
    ...(input.cpuCores === undefined ? {} : { cpuCores: input.cpuCores }),
  };
  // Little's law: the VUs busy waiting for answers at this rate and latency.
  const busyVUs = input.offeredRps * ((latency?.avg ?? 0) / 1000);
  const saturated = input.cpuCores !== undefined && input.cpuCores >= input.availableCores * SATURATED_CPU_SHARE;
  // Failed answers are the endpoint's whatever else happened. A k6 short of CPU distorts every timing, so a
  // step it missed while saturated is the generator's; otherwise a latency breach is the endpoint's, unsent requests or not.
  // Unsent requests within the latency SLO blame k6 only when its VUs sat idle (it was late, the target was not slow).
  const throttled = measured.classes.rate_limited ?? 0;
  const throttledShare = requests > 0 && throttled > 0 ? round(throttled / requests, 4) : undefined;
  const failures = failureBreach(step, slo);
  // Mostly throttled: the key's budget ran out, not the endpoint's capacity; said so, with what got through.
  if (failures && throttledShare !== undefined && throttled * 2 >= requests * (1 - step.successRate)) {
    return { ...step, throttledShare, verdict: 'slo', reason: `${failures}: ${pct(throttledShare)} throttled by the endpoint's rate limit (HTTP 429 or -32005), about ${round(step.achievedRps * (1 - throttledShare), 1)} rps got through` };
  }
  if (throttledShare !== undefined) Object.assign(step, { throttledShare });
  if (failures) return { ...step, verdict: 'slo', reason: failures };
  const slow = latencyBreach(step, slo);
  const unsent = droppedShare > slo.maxDroppedShare ? `${pct(droppedShare)} not started` : undefined;
  // k6 short of CPU and the step short of the SLO: k6's own delays are in the figures (CPU and the requests together).
  if (saturated && (slow || unsent)) return { ...step, verdict: 'generator', reason: `k6 used ${input.cpuCores} of ${input.availableCores} cores while ${slow ?? unsent}` };
  if (slow) return { ...step, verdict: 'slo', reason: slow };
  if (unsent && busyVUs < input.maxVUs * IDLE_VU_SHARE) {
    return { ...step, verdict: 'generator', reason: `${unsent} while about ${Math.ceil(busyVUs)} of ${input.maxVUs} VUs waited for answers${input.cpuCores === undefined ? '' : ` (k6 used ${input.cpuCores} of ${input.availableCores} cores)`}` };
  }
  if (unsent) return { ...step, verdict: 'slo', reason: `${unsent}: every VU was waiting for answers` };
  return { ...step, verdict: 'within' };
}

function failureBreach(step: Omit<CapacityStep, 'verdict'>, slo: Slo): string | undefined {
  return step.successRate < 1 - slo.maxFailureRate ? `success ${pct(step.successRate)} < ${pct(1 - slo.maxFailureRate)}` : undefined;
}

function latencyBreach(step: Omit<CapacityStep, 'verdict'>, slo: Slo): string | undefined {
  return (step.p99Ms ?? Infinity) > slo.p99Ms ? `p99 ${step.p99Ms === null ? 'n/a' : `${step.p99Ms} ms`} > ${slo.p99Ms} ms` : undefined;
}

/** Sums up a subject's steps, which stop at the first one not within the SLO. */
export function capacityOf(steps: CapacityStep[]): CapacityResult {
  const last = steps.at(-1);
  const limitedBy = last?.verdict === 'slo' ? 'endpoint' : last?.verdict === 'generator' ? 'generator' : 'steps';
  const heldOnRepeat = steps.some((s) => s.repeat && s.verdict === 'within');
  const confidence = heldOnRepeat ? 'unsteady' : limitedBy === 'endpoint' && last?.repeat ? 'confirmed' : limitedBy === 'endpoint' ? 'unsteady' : 'lower bound';
  const throttledAt = last?.verdict === 'slo' && last.throttledShare !== undefined && last.reason?.includes('throttled by the endpoint\'s rate limit') ? round(last.achievedRps * (1 - last.throttledShare), 1) : undefined;
  return { sustainableRps: Math.max(0, ...steps.filter((s) => s.verdict === 'within').map((s) => s.offeredRps)), ...(throttledAt === undefined ? {} : { throttledAtRps: throttledAt }), limitedBy, confidence, steps };
}

export function driftOf(subject: Subject, points: TimelinePoint[]): DriftResult | undefined {
  const p95s = points.map((p) => p.methods[subject]?.p95).filter((v): v is number => v !== undefined);
  if (p95s.length < 4) return undefined;
  const tenth = Math.max(1, Math.floor(p95s.length / 10));
  const startP95Ms = median(p95s.slice(0, tenth));
  const endP95Ms = median(p95s.slice(-tenth));
  const ratio = startP95Ms > 0 ? round(endP95Ms / startP95Ms, 2) : 1;
  return { startP95Ms, endP95Ms, ratio, drifted: ratio > DRIFT_RATIO && endP95Ms - startP95Ms > DRIFT_FLOOR_MS };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

const pct = (x: number) => `${round(x * 100, 2)}%`;
