// Why a load run got its verdict, in the order a reader needs it: the reasons the decision gives (verdict.ts),
// or what held; for capacity, the knee per method with its confidence. load.html and the terminal summary open
// with these lines; they print the decision, never judge. Pure.
import { decide } from './verdict.ts';
import type { CapacityResult, LoadReport } from '../shared/load-report.ts';

export interface Headline {
  /** One line under the verdict. */
  summary: string;
  /** The reasons, most decisive first. */
  reasons: string[];
}

const CONFIDENCE: Record<CapacityResult['confidence'], string> = {
  confirmed: 'confirmed (the step above it broke the SLO again when repeated)',
  unsteady: 'unsteady (a step broke the SLO once and held when repeated: a noisy endpoint or machine)',
  'lower bound': 'a lower bound (the endpoint never broke the SLO)',
};

export function headline(r: LoadReport): Headline {
  const { verdict, checks, reasons, failed: failures } = decide(r);
  // The summary line says why the run is incomplete; the other reasons follow.
  const stopped = checks.find((c) => c.kind === 'run')?.failure;
  if (verdict === 'incomplete') return { summary: r.incompleteReason ?? 'the run was stopped early', reasons: [...reasons.filter((x) => x !== stopped), ...generatorCaveat(r)] };
  const unjudged = reasons.length - failures;
  const failed = failures
    ? `${failures} reason${failures === 1 ? '' : 's'} to fail${unjudged ? `, ${unjudged} check${unjudged === 1 ? '' : 's'} not judged` : ''}`
    : unjudged
      ? `no failure, but ${unjudged} check${unjudged === 1 ? '' : 's'} could not be judged: no pass`
      : undefined;
  if (r.capacity) {
    const knees = capacityHeadline(r.capacity, r);
    return failed ? { summary: `${failed}; ${knees.summary}`, reasons: [...reasons, ...knees.reasons] } : knees;
  }
  if (failed) return { summary: failed, reasons: [...reasons, ...generatorCaveat(r)] };
  const requests = Object.values(r.methods).reduce((a, m) => a + m.requests, 0);
  const held = [
    `${r.thresholds.length} threshold${r.thresholds.length === 1 ? '' : 's'} held (per method p95, p99 and failure rate${r.thresholds.some((t) => t.metric === 'dropped_iterations') ? ', dropped iterations' : ''})`,
    `no wrong answer among ${requests} requests`,
    ...(r.baseline ? [`no regression against ${r.baseline.file} (tolerance +${r.baseline.tolerance * 100}%${r.baseline.runs ? `, ${r.baseline.runs}-run baseline` : ''})${r.baseline.note ? `; ${r.baseline.note}` : ''}`] : []),
    `eth_blockNumber never went back (${r.head.checks} checks)`,
    ...headLagHeld(r),
  ];
  return { summary: 'every check held', reasons: [...held, ...generatorCaveat(r)] };
}

/** What a passing run says of the head lag: its figures, or that it was not judged (never a pass on it). */
function headLagHeld(r: LoadReport): string[] {
  const h = r.headLag;
  if (!h) return [];
  if (h.notJudged !== undefined) return [`head lag not judged (${h.notJudged})`];
  return h.seconds ? [`head lag against the reference within ${h.maxLagSec} s (max ${h.seconds.max} s, ${h.blocks?.max ?? 0} blocks, in ${h.judged ?? 0} samples)`] : [];
}

/** Whether k6 sent what was planned; for capacity per scenario, so it never contradicts the knees. */
export function generatorSentence(r: LoadReport): { ok: boolean; text: string } {
  if (r.capacity) {
    const bound = Object.entries(r.capacity).filter(([, c]) => c.limitedBy === 'generator').map(([n]) => n);
    return bound.length ? { ok: false, text: `k6 could not offer the last step's load for ${bound.join(', ')} (their knees are lower bounds)` } : { ok: true, text: "k6 offered every step's load up to the knees" };
  }
  return plannedLoadSent(r);
}

/** Whether k6 sent the whole run's planned load: the generator line, and a reason under any verdict but capacity's. */
function plannedLoadSent(r: LoadReport): { ok: boolean; text: string } {
  return r.generator.keptUp ? { ok: true, text: 'the generator sent the planned load' } : { ok: false, text: `the generator did NOT send the planned load: ${r.generator.note ?? ''}` };
}

function generatorCaveat(r: LoadReport): string[] {
  const sent = plannedLoadSent(r);
  return sent.ok ? [] : [sent.text];
}

function capacityHeadline(capacity: Record<string, CapacityResult>, r: LoadReport): Headline {
  const entries = Object.entries(capacity);
  const bound = entries.filter(([, c]) => c.limitedBy === 'generator');
  const reasons = entries.map(([n, c]) => {
    const last = c.steps.at(-1);
    const end = c.throttledAtRps !== undefined
      ? `THROTTLED at ~${c.throttledAtRps} rps by the key's rate limit, not a latency knee (at ${last?.offeredRps} rps offered: ${last?.reason ?? ''}): the budget, not the service, is what this measured`
      : c.limitedBy === 'steps' ? 'every step held: raise --max-steps or --step-rate' : `${c.limitedBy === 'endpoint' ? 'the endpoint broke the SLO' : 'k6 could not offer more'} at ${last?.offeredRps} rps${last?.reason ? ` (${last.reason})` : ''}`;
    const knee = c.sustainableRps > 0 ? `knee ${c.sustainableRps} rps` : `no step within the SLO (the first, ${c.steps[0]?.offeredRps} rps, broke it)`;
    return `${n}: ${knee}, ${CONFIDENCE[c.confidence]}; ${end}`;
  });
  const slo = `SLO p99 ≤ ${r.plan.slo.p99Ms} ms, success ≥ ${Math.round((1 - r.plan.slo.maxFailureRate) * 10000) / 100}%`;
  const generator = bound.length ? `; ${bound.length} of ${entries.length} ended generator-bound (their knee is a lower bound: add --segments or use k8s)` : '';
  return { summary: `the highest rate within the ${slo}, per method${generator}`, reasons };
}

/**
 * The target's lag at sampling, in the open (plan/sample.ts): how far behind its reference it was, how far its head
 * went back, how many hits it did not know above its own head (left out) or knew only past the grace. None: undefined.
 */
export function samplingLag(corpus: LoadReport['corpus']): string | undefined {
  const t = corpus.targetHead;
  const methods = Object.entries(corpus.methods);
  const above = methods.flatMap(([m, c]) => (c.aboveTargetHead ? [`${m} ${c.aboveTargetHead.count}`] : []));
  const late = methods.reduce((a, [, c]) => a + (c.lateWithinGrace ?? 0), 0);
  const parts = [
    ...(t?.behindReference ? [`${t.behindReference} block${t.behindReference === 1 ? '' : 's'} behind the reference at sampling (its head ${t.head} at most, the reference's ${corpus.head})`] : []),
    ...(t?.wentBack ? [`its eth_blockNumber went back ${t.wentBack} block${t.wentBack === 1 ? '' : 's'} (one of its nodes behind another)`] : []),
    ...(above.length ? [`hits above its own head it did not know, left out as its lag: ${above.join(', ')}`] : []),
    ...(late ? [`${late} hit${late === 1 ? '' : 's'} known only when asked again past the grace`] : []),
  ];
  return parts.length ? `target lag: ${parts.join('; ')}` : undefined;
}
