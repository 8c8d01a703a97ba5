// Writes the three reports of a run side by side and words the CLI's closing lines.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeHtmlReport } from './html.ts';
import { writeJsonReport } from './json.ts';
import { writeJunitReport } from './junit.ts';
import { type ConformanceReport, expectedButUnjudged, outcomeOf } from './model.ts';
import { inert } from '../../core/inert.ts';
import { CONFORMANCE_FILES } from '../../core/report-files.ts';
import { blockCoverageText, formatDuration, inapplicableGroups, judgedLine, notServedLine, perMethodLine, reasonGroups, historyLines, rateLimitLine, referenceLines, reorgLines, scopeLine, windowLine } from './text.ts';

export type { ConformanceReport } from './model.ts';
export { summarize } from './model.ts';

export interface ReportPaths {
  json: string;
  junit: string;
  html: string;
}

const LISTED_FAILURES = 10;
/** Reasons a check was not judged, listed in the terminal; the HTML lists them all. */
const LISTED_REASONS = 6;

export async function writeReports(report: ConformanceReport, outDir: string): Promise<ReportPaths> {
  await mkdir(outDir, { recursive: true });
  const paths = { json: join(outDir, CONFORMANCE_FILES.json), junit: join(outDir, CONFORMANCE_FILES.junit), html: join(outDir, CONFORMANCE_FILES.html) };
  // All three are attempted: a schema bug in the JSON must not also cost the user the HTML page.
  const results = await Promise.allSettled([writeJsonReport(report, paths.json), writeJunitReport(report, paths.junit), writeHtmlReport(report, paths.html)]);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return paths;
}

/** The few lines the CLI prints last: verdict, counts, the fatal failures, where the reports are. */
export function formatSummary(report: ConformanceReport, paths: ReportPaths): string {
  const s = report.summary;
  const notServed = s.notServed ?? [];
  const lines = [
    `conformance: ${s.verdict.toUpperCase()}  (${s.total} checks in ${formatDuration(report.run.durationMs)}, ${report.run.requestCount} requests${report.run.strict ? ', strict' : ''})`,
    // Named first: one method missing is one finding, not the twenty failures below it.
    ...notServed.map((m) => `  ${notServedLine(m, report.run.expectations?.file)}`),
    // Then why the run failed, each reason whole (the CLI caps a line at 500 characters, a reason keeps 450 of them).
    ...failureLines(report),
    // Then the judged share: it is part of the verdict (a pass that judged half the catalogue is no pass).
    `  ${judgedLine(s.judged)}`,
    `  ${perMethodLine(s.judged)}`,
    ...[scopeLine(report), windowLine(report)].filter((l) => l !== undefined).map((l) => `  ${l}`),
    ...historyLines(report),
    // Every check in exactly one count, so they add up to the total above (an expected failure, an unexpected pass included).
    `  ${s.pass} passed, ${s.fatalFailures} failed, ${s.advisoryFailures} advisory, ${s.inconclusive} inconclusive, ${s.skip} skipped${s.expectedFailures ? `, ${s.expectedFailures} expected failure(s)` : ''}${s.unexpectedPasses ? `, ${s.unexpectedPasses} unexpected pass(es)` : ''}`,
  ];
  if (report.run.reference) lines.push(...referenceLines(report.run.reference).map((l) => `  ${l}`));
  const exp = report.run.expectations;
  if (exp) {
    const overdue = report.checks.filter((c) => c.expectation?.overdue).length;
    // An entry whose check did not run to a verdict was neither confirmed nor refuted: named, never silent.
    const unjudged = expectedButUnjudged(report.checks);
    const notJudged = unjudged.length ? `; expected to fail but not judged (${unjudged.map((c) => `${c.id}: ${c.how}`).join(', ')})` : '';
    lines.push(`  expectations: ${exp.file}: ${s.expectedFailures} expected failure(s), ${s.unexpectedPasses} unexpected pass(es)${overdue ? `, ${overdue} entr${overdue === 1 ? 'y' : 'ies'} past their review date` : ''}${notJudged}`);
  }
  // Passes only, as summary.partialChecks and the HTML: a check that ended skip or inconclusive judged no part to pass.
  const partial = report.checks.filter((c) => c.verdict === 'pass' && c.partial);
  // One line a check: a list on one line is cut by the terminal's line cap (inertLines) before its last ids.
  if (partial.length) lines.push(`  judged in part (a request budget; each check's note names what it left out):`, ...partial.map((c) => `    ${c.id}: ${c.partial}`));
  const coverage = coverageLine(report);
  if (coverage) lines.push(coverage);
  const blocks = blockCoverageText(report);
  if (blocks) lines.push(`  blocks judged: ${blocks}`);
  const notHere = inapplicableGroups(s.judged);
  if (notHere.length) lines.push(`  not on this chain (left out of the judged share):`, ...reasonGroups(notHere).map((l) => `    ${l}`));
  // What could not be judged, and why, whenever the share is short of whole: the reader sees what the verdict leaves out.
  if (s.judged.notJudged.length) {
    lines.push(`  not judged (${s.judged.of - s.judged.judged} fatal check(s)):`, ...reasonGroups(s.judged.notJudged.slice(0, LISTED_REASONS)).map((l) => `    ${l}`));
    if (s.judged.notJudged.length > LISTED_REASONS) lines.push(`    … and ${s.judged.notJudged.length - LISTED_REASONS} more reason(s) (see the HTML report)`);
  }
  if (!report.run.complete) lines.push(`  incomplete: ${report.run.incompleteReason ?? 'the run stopped early'}`);
  if (s.verdict === 'inconclusive' && s.verdictReason) lines.push(`  inconclusive: ${s.verdictReason}`);
  if (report.run.deadlineReached) lines.push(`  deadline: the run deadline passed; what was unfinished is inconclusive (--deadline)`);
  const reorgs = reorgLines(report);
  if (reorgs.length) lines.push(...reorgs);
  const budget = rateLimitLine(report);
  if (budget) lines.push(budget);
  lines.push(`  reports: ${paths.html}`, `           ${paths.junit}`, `           ${paths.json}`);
  return lines.join('\n');
}

/** A reason in the summary: whole, on one line (a terminal wraps it; the CLI prints summary lines up to SUMMARY_LINE). */
const REASON_CHARS = 4000;
/** The longest line the summary holds: what the CLI caps its lines at. */
export const SUMMARY_LINE = REASON_CHARS + 200;

/** The fatal failures (but a method not served's, named above) and the unexpected passes, each with its id, clause and whole reason. */
function failureLines(report: ConformanceReport): string[] {
  const missing = new Set((report.summary.notServed ?? []).map((m) => m.method));
  const listed = report.checks.filter((c) => outcomeOf(c, report.run.strict) === 'fail' && !missing.has(c.method));
  const lines: string[] = [];
  if (listed.length > 0) {
    lines.push(missing.size > 0 ? '  failed (besides the methods not served):' : '  failed:');
    for (const c of listed.slice(0, LISTED_FAILURES)) lines.push(`    ${c.id} [${c.clause}]`, ...(c.reason ? [`      ${inert(firstLine(c.reason), REASON_CHARS)}`] : []));
    if (listed.length > LISTED_FAILURES) lines.push(`    … and ${listed.length - LISTED_FAILURES} more (see the HTML report)`);
  }
  const unexpected = report.checks.filter((c) => outcomeOf(c, report.run.strict) === 'unexpected-pass');
  if (unexpected.length > 0) {
    lines.push('  unexpected passes (listed as failing in the --expect file; take them out):');
    for (const c of unexpected) lines.push(`    ${c.id} (${inert(firstLine(c.expectation?.reason ?? ''), REASON_CHARS)})`);
  }
  return lines;
}

/** What discovery found: target classes found or not (what the checks judged of the blocks is blockCoverageText's). */
function coverageLine(report: ConformanceReport): string | undefined {
  const t = report.targets;
  if (!t?.coverage) return undefined;
  const entries = Object.entries(t.coverage).filter(([k]) => !k.startsWith('era.'));
  const found = entries.filter(([, c]) => c.status === 'found').length;
  const missing = (status: string) => entries.filter(([, c]) => c.status === status).map(([k]) => k);
  const absent = missing('absent');
  const budget = missing('out-of-budget');
  const malformed = missing('malformed');
  const notLooked = missing('not-looked-for');
  return [
    `  targets: ${found} of ${entries.length} classes found in ${t.scanned.blocks} blocks walked`,
    absent.length ? `; not on this chain within them: ${absent.join(', ')}` : '',
    budget.length ? `; OUT OF BUDGET (--discovery-budget): ${budget.join(', ')}` : '',
    malformed.length ? `; FOUND, MALFORMED (in a block failing its shape): ${malformed.join(', ')}` : '',
    notLooked.length ? `; NOT LOOKED FOR (deadline/interrupted): ${notLooked.join(', ')}` : '',
  ].join('');
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}
