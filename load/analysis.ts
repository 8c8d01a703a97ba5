// What a timeline says beyond the totals: where a capacity ramp stops meeting the SLO, and how a soak's
// latency drifts from its start to its end. Pure.
import type { Subject } from './methods.ts';
import type { ScenarioPlan, Slo } from './profiles.ts';
import { targetRpsAt } from './profiles.ts';
import { round } from './summary.ts';
import type { PeriodStats, TimelinePoint } from './timeline.ts';

export interface CapacityResult {
  peakTargetRps: number;
  maxAchievedRps: number;
  /** The highest rate achieved in a period that met the SLO and kept up with the ramp, before it broke. */
  sustainedRps: number;
  /** The first of two periods in a row that did not (absent: the SLO held up to the peak). */
  brokeAt?: { t: number; targetRps: number; achievedRps: number; reason: string };
}

export interface DriftResult {
  /** Median of the per-period p95 over the first and the last tenth of the run. */
  startP95Ms: number;
  endP95Ms: number;
  ratio: number;
  drifted: boolean;
}

/** A period must deliver this share of the rate the ramp asked for to count as keeping up. */
const KEEP_UP_SHARE = 0.9;
/** Drift is flagged beyond +50% p95 and more than 5 ms (sub-millisecond loopback noise is no drift). */
const DRIFT_RATIO = 1.5;
const DRIFT_FLOOR_MS = 5;

export function capacityOf(scenario: ScenarioPlan, points: TimelinePoint[], periodSec: number, slo: Slo): CapacityResult {
  const peakTargetRps = Math.max(...scenario.segments.map((g) => g.toRps));
  const end = scenario.startSec + scenario.segments.reduce((a, g) => a + g.durationSec, 0);
  let maxAchievedRps = 0;
  let sustainedRps = 0;
  let failing: CapacityResult['brokeAt'];
  let brokeAt: CapacityResult['brokeAt'];
  points.forEach((p, i) => {
    const from = points[i - 1]?.t ?? 0;
    const stats = p.methods[scenario.name];
    // The first period of a ramp is partly before its start, the last may run past its end.
    if (!stats || from < scenario.startSec + periodSec / 2 || p.t > end + periodSec / 2) return;
    const targetRps = targetRpsAt(scenario, (from + p.t) / 2);
    maxAchievedRps = Math.max(maxAchievedRps, stats.rps);
    const reason = sloBreach(stats, targetRps, slo);
    if (!reason) {
      failing = undefined;
      if (!brokeAt) sustainedRps = Math.max(sustainedRps, stats.rps);
    } else if (!failing) failing = { t: p.t, targetRps: round(targetRps, 1), achievedRps: stats.rps, reason };
    // One bad period can be a hiccup; two in a row is where the SLO breaks.
    else brokeAt ??= failing;
  });
  return { peakTargetRps, maxAchievedRps, sustainedRps, ...(brokeAt ? { brokeAt } : {}) };
}

function sloBreach(stats: PeriodStats, targetRps: number, slo: Slo): string | undefined {
  if (stats.failureRate > slo.maxFailureRate) return `failures ${pct(stats.failureRate)} > ${pct(slo.maxFailureRate)}`;
  if ((stats.p95 ?? Infinity) > slo.p95Ms) return `p95 ${stats.p95 === undefined ? 'n/a' : `${stats.p95} ms`} > ${slo.p95Ms} ms`;
  if (stats.rps < targetRps * KEEP_UP_SHARE) return `achieved ${stats.rps} rps < ${KEEP_UP_SHARE * 100}% of the ${round(targetRps, 1)} rps asked`;
  return undefined;
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
