// The few lines a load run prints when it ends: the decision (verdict.ts) and its reasons first, then the figures.
import { ENTRY_KINDS, isDegenerate } from '../shared/corpus.ts';
import { ESTIMATE_SPREAD } from '../shared/bounds.ts';
import { generatorSentence, headline, samplingLag } from './headline.ts';
import { decide } from './verdict.ts';
import { briefCheck } from './compare.ts';
import { lagBeyond } from './head-lag.ts';
import { recognitionNote } from '../shared/recognition.ts';
import type { DepthReport, LoadReport, MethodCorpus } from '../shared/load-report.ts';

/** p95 and p99 beside their intervals, per method: how far the run's own figures can be trusted. */
function intervalLines(r: LoadReport): string[] {
  const rows = Object.entries(r.methods).flatMap(([name, m]) => {
    const l = m.latencyMs;
    const i = m.latencyIntervals;
    if (!l || !i) return [];
    const cell = (v: number, at: [number, number] | null) => `${v} (${at ? `${at[0]}-${at[1]}` : 'unbounded: too few answers above it'})`;
    return [`  ${name.padEnd(40)}p95 ${cell(l.p95, i.p95)}  p99 ${cell(l.p99, i.p99)}`];
  });
  const confidence = Object.values(r.methods).find((m) => m.latencyIntervals)?.latencyIntervals?.confidence;
  return rows.length && confidence ? [`latency intervals, ms (${confidence * 100}%; order statistics, widened for the run's own wander: docs/load.md):`, ...rows] : [];
}

/** The comparison with the baseline, per method: its verdict, and the comparisons that did not hold. */
function baselineLines(r: LoadReport): string[] {
  const b = r.baseline;
  if (!b?.outcome) return [];
  return [
    `against the baseline ${b.file}: a regression is a ratio's interval above x${1 + b.tolerance} (or 2 ms over the baseline), false alarms at most ${(b.familyAlpha ?? 0) * 100}% a run; ${b.spread ?? `${b.runs ?? 1} run(s)`}`,
    ...Object.entries(b.outcome.methods).map(([method, o]) => `  ${method.padEnd(40)}${o.verdict.toUpperCase().padEnd(14)}${b.checks.filter((c) => c.method === method).map(briefCheck).join('; ')}`),
  ];
}

export function summaryText(r: LoadReport, reportPaths: string[]): string {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const lines = [
    `load ${r.profile}: ${decide(r).verdict.toUpperCase()} in ${r.durationSec} s against ${r.endpoint} (k6 ${r.k6.version}, corpus seed ${r.corpus.seed})`,
    // Why, first: the reader should not have to scroll past the table to learn which threshold or method failed
    // (the reasons carry the details: a wrong answer's rate and example, how far the head went back, the drift).
    ...(({ summary, reasons }) => [`  ${summary}${reasons.length ? ':' : ''}`, ...reasons.map((x) => `  - ${x}`)])(headline(r)),
    `${'method'.padEnd(42)}${pad('requests', 9)}${pad('rps/target', 14)}${pad('p50 ms', 9)}${pad('p95', 9)}${pad('p99', 9)}${pad('failures', 10)}${pad('wrong', 7)}`,
    ...Object.entries(r.methods).map(([name, m]) => {
      const l = m.latencyMs;
      const latency = l ? `${pad(l.p50, 9)}${pad(l.p95, 9)}${pad(l.p99, 9)}` : pad(m.requests ? 'no successful answer' : 'completed no request', 27);
      return `${name.padEnd(42)}${pad(m.requests, 9)}${pad(`${m.achievedRps}/${m.targetRps}`, 14)}${latency}${pad(`${(m.failureRate * 100).toFixed(2)}%`, 10)}${pad(m.classes.wrong, 7)}`;
    }),
    ...intervalLines(r),
    ...baselineLines(r),
    ...depthLines(r),
    ...freshLines(r),
    ...headLagLines(r),
    ...archiveLines(r),
    `corpus per method (as sampled; "compared": answers checked against the one sampled, an estimate at a final block within ${ESTIMATE_SPREAD * 100}% of it):`,
    ...Object.entries(r.corpus.methods).map(([name, c]) => `  ${name.padEnd(40)}${describeCorpus(c)}`),
    ...((lag) => (lag ? [`  ${lag}`] : []))(samplingLag(r.corpus)),
    `generator: ${r.generator.instances > 1 ? `${r.generator.instances} k6 instances, merged; ` : ''}${generatorSentence(r).text.replace(/^the generator /, '')}${r.generator.cpuCores === undefined ? '' : ` (k6 used ${r.generator.cpuCores} of ${r.generator.availableCores} cores)`}${r.k6.recognition ? `; ${recognitionNote(r.k6.recognition, r.k6.inGo)}` : ''}`,
    `reports: ${reportPaths.join(', ')}`,
  ];
  return lines.join('\n');
}

/** The hits per depth stratum, per method: what cold history costs beside the head, and the strata not served. */
export function depthLines(r: LoadReport): string[] {
  const rows = Object.entries(r.methods).filter(([, m]) => m.depth?.length);
  if (!rows.length) return [];
  const cell = (d: DepthReport) => (d.notServed ? `${d.stratum} NOT SERVED (pruned at sampling)` : `${d.stratum} ${d.requests} req ${d.latencyMs ? `p50/p90/p99 ${d.latencyMs.p50}/${d.latencyMs.p90}/${d.latencyMs.p99} ms` : 'no successful answer'} ${(d.failureRate * 100).toFixed(2)}% failed`);
  const sampled = (r.corpus.depth ?? []).map((d) => `${d.stratum} ${d.blocks}${d.pruned ? ` (+${d.pruned} pruned)` : ''}`).join(', ');
  return [`by depth (hits by how far back their block is; blocks sampled: ${sampled || 'not recorded'}):`, ...rows.map(([name, m]) => `  ${name.padEnd(40)}${m.depth!.map(cell).join('; ')}`)];
}

/** Lookups answered null or an error after their block left the declared near-head window (§8): counted apart, not judged. */
function archiveLines(r: LoadReport): string[] {
  const counts = Object.entries(r.methods).filter(([, m]) => (m.classes.archive ?? 0) > 0);
  return counts.length ? [`archive not served (§8: the block left the declared near-head window since sampling; not judged): ${counts.map(([name, m]) => `${name} ${m.classes.archive}`).join(', ')}`] : [];
}

/** The fresh reads per method: stale reads past the grace, and the time from announcement to visible. */
function freshLines(r: LoadReport): string[] {
  if (!r.freshness) return r.freshChase ? [`fresh reads: not chased (${r.freshChase.why})`] : [];
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  return [
    ...(r.freshChase ? [`fresh reads: chased (${r.freshChase.why})`] : []),
    `fresh reads (head chased; grace ${r.freshness.graceMs} ms)${''.padEnd(4)}${pad('requests', 9)}${pad('stale', 7)}${pad('latest behind', 15)}${pad('wrong', 7)}${pad('reorged', 9)}${pad('failed', 8)}${pad('not judgeable', 15)}   visible p50/p95/max ms`,
    ...Object.entries(r.freshness.methods).map(([name, f]) => {
      const v = f.visibleMs ? `${f.visibleMs.p50}/${f.visibleMs.p95}/${f.visibleMs.max}` : '-';
      return `  ${name.padEnd(40)}${pad(f.requests, 9)}${pad(f.requests || f.stale ? f.stale : '-', 7)}${pad(f.latestBehind, 15)}${pad(f.wrong ?? '-', 7)}${pad(f.reorged, 9)}${pad(f.failed ?? '-', 8)}${pad(f.notJudgeable ?? '-', 15)}   ${v}`;
    }),
    ...(Object.values(r.freshness.methods).some((f) => f.notJudgeable)
      ? ["  not judgeable: `latest` answers that name no block they were read at (an estimate, an uncle lookup, an empty block's receipts), never counted as fresh"]
      : []),
    `  ${reorgText(r.freshness)}`,
  ];
}

/** What the fresh reads saw of reorgs, and what that judgement can and cannot see: the terminal's line and the page's. */
export function reorgText(f: NonNullable<LoadReport['freshness']>): string {
  const blind = 'only answers mixing forks are judged: an endpoint always on the old fork looks like a chain that never reorganised';
  if (!f.reorgs) return `reorgs: none noticed, so what is served after one was NOT JUDGED (${blind})`;
  const slowest = Object.entries(f.methods).filter(([, m]) => m.consistentMs).sort((a, b) => b[1].consistentMs!.max - a[1].consistentMs!.max)[0];
  return `reorgs: ${f.reorgs.seen} noticed, the deepest ${f.reorgs.maxDepth} block(s); an orphaned-fork answer past the grace is wrong${slowest ? `; consistent again within ${slowest[1].consistentMs!.max} ms at most (${slowest[0]}; per method in load.json)` : ''} (${blind})`;
}

/** The head lag against the reference: its figures and whether they judge the run, or why it was not judged. */
export function headLagLines(r: Pick<LoadReport, 'headLag'>): string[] {
  const h = r.headLag;
  if (!h) return [];
  if (h.notJudged !== undefined) return [`head lag: not judged (${h.notJudged})`];
  const s = h.seconds;
  const b = h.blocks;
  const figures = s && b ? `p50/p95/max ${s.p50}/${s.p95}/${s.max} s, ${b.p50}/${b.p95}/${b.max} blocks` : 'no figure';
  const beyond = lagBeyond(h);
  const judged = beyond.seconds || beyond.blocks ? 'BEYOND the limit' : h.inconclusive !== undefined ? `INCONCLUSIVE: ${h.inconclusive}` : 'within the limit';
  const behind = h.referenceBehind?.samples ? `; the reference trailed the endpoint in ${h.referenceBehind.samples} (up to ${h.referenceBehind.maxBlocks} blocks, ${h.referenceBehind.maxSec} s)` : '';
  return [`head lag against the reference (limit ${h.maxLagSec} s${h.maxLagBlocks === undefined ? '' : ` and ${h.maxLagBlocks} blocks`}): ${figures} in ${h.judged ?? 0} of ${h.samples ?? 0} samples${behind}: ${judged}`];
}

/** A method's corpus in one line: entries per kind, distinct requests, compared answers, what sampling left out. */
function describeCorpus(c: MethodCorpus): string {
  const kinds = ENTRY_KINDS.filter((k) => c.kinds[k] > 0).map((k) => `${c.kinds[k]} ${k}`);
  const rejected = Object.entries(c.rejected ?? {}).map(([why, n]) => `${n} ${why}`);
  return [
    c.entries ? `${isDegenerate(c) ? 'DEGENERATE: ' : ''}${c.entries} entries (${kinds.join(', ')}), ${c.distinct} distinct, ${c.compared} compared` : 'no entry',
    ...(rejected.length ? [`left out: ${rejected.join(', ')}`] : []),
    ...(c.aboveTargetHead ? [`${c.aboveTargetHead.count} above the target's own head (its lag), left out`] : []),
    ...(c.status === undefined ? ['replayed from a corpus that did not record its sampling'] : []),
  ].join('; ');
}
