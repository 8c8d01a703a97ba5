// Why a load run got its verdict, in the order a reader needs it: what failed (thresholds, regressions,
// methods not served, wrong answers, head, drift), or what held; for capacity, the knee per method with
// its confidence. load.html and the terminal summary open with these lines. Pure.
import { describeCheck } from './compare.ts';
import type { CapacityResult } from './analysis.ts';
import { type LoadReport, sampledFaults } from './report.ts';

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
  if (r.verdict === 'incomplete') return { summary: r.incompleteReason ?? 'the run was stopped early', reasons: [...failures(r), ...generatorCaveat(r)] };
  if (r.capacity) return capacityHeadline(r.capacity, r);
  const failed = failures(r);
  if (failed.length) return { summary: `${failed.length} reason${failed.length === 1 ? '' : 's'} to fail`, reasons: [...failed, ...generatorCaveat(r)] };
  const held = [
    `${r.thresholds.length} threshold${r.thresholds.length === 1 ? '' : 's'} held (per method p95, p99 and failure rate${r.thresholds.some((t) => t.metric === 'dropped_iterations') ? ', dropped iterations' : ''})`,
    ...(r.baseline ? [`no regression against ${r.baseline.file} (tolerance +${r.baseline.tolerance * 100}%)`] : []),
    `eth_blockNumber never went back (${r.head.checks} checks)`,
  ];
  return { summary: 'every check held', reasons: [...held, ...generatorCaveat(r)] };
}

/**
 * Why a completed run failed on its own (a regression against its own baseline aside), for `compare` and `load --baseline`:
 * such a run is no baseline (its limits would allow the same failures), and no current run that could pass a comparison.
 */
export function failedOnItsOwn(r: LoadReport, which: string): string | undefined {
  const own = r.verdict === 'fail' ? failures(r, false) : [];
  if (own.length === 0) return undefined;
  const shown = own.slice(0, 3).join('; ');
  return `${which} is a failed run (${shown}${own.length > 3 ? `; ${own.length - 3} more` : ''})`;
}

/** What fails a gating run, most decisive first. */
function failures(r: LoadReport, withBaseline = true): string[] {
  return [
    ...sampledFaults(r).map((f) => (f.notServed ? `Not served: ${f.text}` : `sampling found ${f.text}`)),
    ...thresholdFailures(r),
    ...((withBaseline && r.baseline?.checks.filter((c) => !c.ok).map((c) => `regressed against ${r.baseline?.file}: ${describeCheck(c)}`)) || []),
    ...(r.head.regressions ? [`eth_blockNumber went back ${r.head.regressions} times (up to ${r.head.deepestBlocks} blocks)`] : []),
    ...Object.entries(r.drift ?? {})
      .filter(([, d]) => d.drifted)
      .map(([n, d]) => `${n} drifted: p95 ${d.startP95Ms} ms at the start, ${d.endP95Ms} ms at the end`),
    ...Object.entries(r.methods)
      .filter(([, m]) => m.classes.wrong > 0)
      .map(([n, m]) => `${n}: ${m.classes.wrong} wrong answers`),
  ];
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

/** Failed thresholds, one line per method: "eth_getBlockByHash: p(95) 521.1 ms (threshold < 500), p(99) 607.5 ms (< 1000)". */
function thresholdFailures(r: LoadReport): string[] {
  const byMethod = new Map<string, string[]>();
  for (const t of r.thresholds.filter((x) => !x.ok)) {
    const m = /^(latency|failed)_(.+)$/.exec(t.metric);
    const [stat, limit] = t.expression.split(/(?=[<>=!])/, 2);
    const value = t.value === undefined ? 'n/a' : m?.[1] === 'failed' ? `${Math.round(t.value * 10000) / 100}%` : `${t.value}${m ? ' ms' : ''}`;
    const what = m?.[1] === 'failed' ? 'failure rate' : (stat ?? t.expression);
    const list = byMethod.get(m?.[2] ?? t.metric) ?? [];
    const failedLimit = /^rate\s*([<>=!]+)\s*([\d.]+)$/.exec(t.expression);
    list.push(`${what} ${value} (threshold ${m?.[1] === 'failed' && failedLimit ? `${failedLimit[1]} ${Math.round(Number(failedLimit[2]) * 10000) / 100}%` : (limit ?? '')})`);
    byMethod.set(m?.[2] ?? t.metric, list);
  }
  return [...byMethod].map(([name, parts]) => `${name}: ${parts.join(', ')}`);
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
    const end = c.limitedBy === 'steps' ? 'every step held: raise --max-steps or --step-rate' : `${c.limitedBy === 'endpoint' ? 'the endpoint broke the SLO' : 'k6 could not offer more'} at ${last?.offeredRps} rps${last?.reason ? ` (${last.reason})` : ''}`;
    const knee = c.sustainableRps > 0 ? `knee ${c.sustainableRps} rps` : `no step within the SLO (the first, ${c.steps[0]?.offeredRps} rps, broke it)`;
    return `${n}: ${knee}, ${CONFIDENCE[c.confidence]}; ${end}`;
  });
  const slo = `SLO p99 ≤ ${r.plan.slo.p99Ms} ms, success ≥ ${Math.round((1 - r.plan.slo.maxFailureRate) * 10000) / 100}%`;
  const generator = bound.length ? `; ${bound.length} of ${entries.length} ended generator-bound (their knee is a lower bound: add --segments or use k8s)` : '';
  return { summary: `the highest rate within the ${slo}, per method${generator}`, reasons };
}
