// The capacity-knee finder: for each method alone, then the mix, offer a constant rate in steps (one k6
// run per step, over every instance), judge each step against the SLO and stop at the first one that is
// not within it. The report keeps every step's figures and, per subject, the highest step within the SLO.
import { availableParallelism } from 'node:os';
import { capacityOf, coresGiven, judgeStep } from '../report/analysis.ts';
import { emptyHistogram } from '../shared/histogram.ts';
import { CLASSES, type RpcClass, type Subject } from '../shared/answer-classes.ts';
import type { Plan } from '../shared/profiles.ts';
import { mergeFindings, type SubjectShard } from '../shared/shard.ts';
import { round } from '../shared/summary.ts';
import type { Measurement, TimelinePoint } from '../shared/measurement.ts';
import type { CapacityResult, CapacityStep } from '../shared/load-report.ts';

export interface StepOptions {
  /** The first step's rate, and how much each step adds. */
  startRps: number;
  stepRps: number;
  maxSteps: number;
}

export interface CapacityInput {
  subjects: readonly Subject[];
  steps: StepOptions;
  planFor: (subject: Subject, rps: number) => Plan;
  measure: (plan: Plan) => Promise<Measurement>;
  log: (line: string) => void;
  /** Ctrl-C: no further step starts; the report covers the steps run (the last one cut short). */
  signal?: AbortSignal;
}

export interface CapacityOutcome {
  capacity: Record<string, CapacityResult>;
  /** Every subject's highest step within the SLO (its first step if none was), as one run for the report. */
  plan: Plan;
  measurement: Measurement;
}

interface StepRun {
  plan: Plan;
  measurement: Measurement;
  step: CapacityStep;
  startSec: number;
}

export async function findCapacity(input: CapacityInput): Promise<CapacityOutcome> {
  const capacity: Record<string, CapacityResult> = {};
  const runs: StepRun[] = [];
  const kept: StepRun[] = [];
  let clock = 0;
  for (const subject of input.subjects) {
    const mine: StepRun[] = [];
    const runStep = async (rps: number, repeat: boolean): Promise<CapacityStep> => {
      const plan = input.planFor(subject, rps);
      const measurement = await input.measure(plan);
      const judged = judgeStep({
        offeredRps: rps,
        durationSec: plan.durationSec,
        measured: measurement.merged.subjects[subject] ?? emptySubject(),
        maxVUs: Number((plan.options['scenarios'] as Record<string, { maxVUs?: number }>)[subject]?.maxVUs ?? 1),
        ...(measurement.cpuSec === undefined ? {} : { cpuCores: round(measurement.cpuSec / measurement.wallSec, 2) }),
        // GOMAXPROCS sized to the step's rate: saturating the threads k6 was given is the generator's limit too.
        availableCores: coresGiven(measurement, availableParallelism()),
        slo: plan.slo,
      });
      const step = repeat ? { ...judged, repeat } : judged;
      input.log(`load: capacity ${subject} ${rps} rps${repeat ? ' (repeated)' : ''}: ${step.verdict}${step.reason ? ` (${step.reason})` : ''}, p99 ${step.p99Ms ?? '-'} ms, success ${round(step.successRate * 100, 2)}%`);
      mine.push({ plan, measurement, step, startSec: clock });
      clock += measurement.wallSec;
      return step;
    };
    let repeated = false;
    // After Ctrl-C no step starts, once one has run: the report covers the steps run.
    const stopped = () => input.signal?.aborted === true && runs.length + mine.length > 0;
    for (let k = 0; k < input.steps.maxSteps && !stopped(); k++) {
      const rps = input.steps.startRps + k * input.steps.stepRps;
      if ((await runStep(rps, false)).verdict === 'within') continue;
      // The deciding step once more: a knee read from a single step may be one stall of the endpoint or this machine.
      if (mine.at(-1)?.step.verdict === 'slo' && !repeated && !stopped()) {
        repeated = true;
        if ((await runStep(rps, true)).verdict === 'within') continue;
      }
      break;
    }
    if (mine.length === 0) break;
    capacity[subject] = capacityOf(mine.map((r) => r.step));
    kept.push(mine.filter((r) => r.step.verdict === 'within').at(-1) ?? (mine[0] as StepRun));
    runs.push(...mine);
  }
  return { capacity, ...asOneRun(kept, runs, clock) };
}

/** The kept steps as the report's methods; the timeline, head checks, findings and CPU of every step. */
function asOneRun(kept: StepRun[], all: StepRun[], totalSec: number): Omit<CapacityOutcome, 'capacity'> {
  const first = kept[0];
  if (!first) throw new Error('no capacity step ran');
  const ms = all.map((r) => r.measurement);
  const cpu = ms.map((m) => m.cpuSec);
  const measurement: Measurement = {
    merged: {
      ...first.measurement.merged,
      durationMs: round(totalSec * 1000),
      subjects: Object.fromEntries(kept.flatMap((r) => Object.entries(r.measurement.merged.subjects))),
      head: {
        checks: ms.reduce((a, m) => a + m.merged.head.checks, 0),
        regressions: ms.reduce((a, m) => a + m.merged.head.regressions, 0),
        deepest: Math.max(...ms.map((m) => m.merged.head.deepest)),
      },
    },
    timeline: {
      ...(all[0]?.measurement.timeline.startMs === undefined ? {} : { startMs: all[0].measurement.timeline.startMs }),
      points: all.flatMap((r) => r.measurement.timeline.points.map((p): TimelinePoint => ({ ...p, t: round(p.t + r.startSec, 1) }))),
      codes: Object.assign({}, ...kept.map((r) => r.measurement.timeline.codes)) as Measurement['timeline']['codes'],
    },
    findings: mergeFindings(ms.map((m) => m.findings)),
    instances: first.measurement.instances,
    exitCode: Math.max(...ms.map((m) => m.exitCode)),
    wallSec: totalSec,
    ...(cpu.every((c) => c !== undefined) ? { cpuSec: cpu.reduce((a, c) => a + (c ?? 0), 0) } : {}),
  };
  const plan: Plan = {
    ...first.plan,
    totalSec: round(totalSec, 1),
    scenarios: kept.flatMap((r) => r.plan.scenarios.map((s) => ({ ...s, startSec: round(r.startSec, 1) }))),
    mix: kept.find((r) => r.plan.mix.length)?.plan.mix ?? [],
  };
  return { plan, measurement };
}

/** A step whose instances sent nothing for the subject. */
function emptySubject(): SubjectShard {
  return { classes: Object.fromEntries(CLASSES.map((c) => [c, 0])) as Record<RpcClass, number>, dropped: 0, validated: 0, parsed: 0, latency: emptyHistogram() };
}
