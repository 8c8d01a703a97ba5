// conformance.junit.xml for CI: one testsuite per method, one testcase per check. Only fatal failures and
// unexpected passes are <failure>s, so a CI job goes red exactly when the run's verdict is fail.
import { newJunitBuilder, type TestCase, type TestSuite } from '../../core/node/junit.ts';
import type { CheckResult } from '../framework/check.ts';
import { xmlSafe } from '../../core/inert.ts';
import { writeFileAtomic } from '../../core/node/atomic.ts';
import { type ConformanceReport, methodsOf, outcomeOf, percent } from './model.ts';
import { exchangeMeta, inapplicableGroups, judgedLine, notServedLine, perMethodLine, reasonGroups, referenceLines, requestText, responseText, uncertified } from './text.ts';

export function junitXml(report: ConformanceReport): string {
  const builder = newJunitBuilder().name('rpc-certify');
  runCases(builder.testSuite().name('rpc-certify').timestamp(report.run.startedAt), report);
  const skips: string[] = [];
  for (const method of methodsOf(report)) {
    const checks = report.checks.filter((c) => c.method === method);
    const suite = builder
      .testSuite()
      .name(method)
      .timestamp(report.run.startedAt)
      .time(seconds(checks.reduce((s, c) => s + c.durationMs, 0)));
    for (const check of checks) addCase(suite.testCase(), check, report.run.strict, skips);
  }
  // What a --methods subset left out is named, last (so its skip messages stay in order): not certified, never silently absent.
  const left = uncertified(report);
  if (left.length) {
    const suite = builder.testSuite().name('not certified (--methods)').timestamp(report.run.startedAt);
    for (const method of left) {
      suite.testCase().className('rpc-certify.scope').name(`${method} not certified`).skipped();
      skips.push(`not certified: ${method} was left out of this run by --methods`);
    }
  }
  return withSkipMessages(builder.build(), skips);
}

/** Several endpoints side by side: one suite per endpoint, its run's findings first, then every check (class rpc-certify.<name>.<method>). */
export function sideBySideJunitXml(endpoints: ReadonlyArray<{ name: string; verdict: string; report?: ConformanceReport; notPassed: ReadonlyArray<{ reason: string }> }>): string {
  const builder = newJunitBuilder().name('rpc-certify side by side');
  const skips: string[] = [];
  for (const e of endpoints) {
    const suite = builder.testSuite().name(xmlSafe(e.name));
    if (!e.report) {
      // Not usable, or never run (stopped before its turn): its reason, never a silent absence.
      const why = e.notPassed[0]?.reason ?? 'not run';
      suite.testCase().className(`rpc-certify.${e.name}`).name(e.verdict === 'incomplete' ? 'endpoint run' : 'endpoint usable').failure(xmlSafe(e.verdict === 'incomplete' ? why : `not usable: ${why}`), e.verdict);
      continue;
    }
    const report = e.report;
    suite.timestamp(report.run.startedAt).time(seconds(report.checks.reduce((s, c) => s + c.durationMs, 0)));
    runCases(suite, report, `rpc-certify.${e.name}`);
    for (const check of report.checks) addCase(suite.testCase(), check, report.run.strict, skips, `rpc-certify.${e.name}.${check.method}`);
    for (const method of uncertified(report)) {
      suite.testCase().className(`rpc-certify.${e.name}.scope`).name(`${method} not certified`).skipped();
      skips.push(`not certified: ${method} was left out of this run by --methods`);
    }
  }
  return withSkipMessages(builder.build(), skips);
}

/**
 * The run's own findings, first: the judged share, each method not served (a failure unless the --expect file accounts for it), and a
 * run that cannot pass without failing a check (no answers, interrupted), which still turns CI red.
 */
function runCases(suite: TestSuite, report: ConformanceReport, className = 'rpc-certify.run'): void {
  const { verdict, verdictReason, notServed = [], judged } = report.summary;
  const open = verdict === 'inconclusive' || verdict === 'incomplete';
  // The judged share leads: part of the verdict, so below the floor it is a failure of its own (the run is INCONCLUSIVE).
  const share = suite.testCase().className(className).name(xmlSafe(`judged share ${judged.judged}/${judged.of} (${percent(judged.share)})`));
  const detail = [judgedLine(judged), perMethodLine(judged), ...reasonGroups(inapplicableGroups(judged)).map((l) => `not on this chain: ${l}`), ...reasonGroups(judged.notJudged).map((l) => `not judged: ${l}`)].join('\n');
  share.standardOutput(xmlSafe(detail));
  if (judged.share < judged.floor) share.failure(xmlSafe(`${judgedLine(judged)}; ${reasonGroups(judged.notJudged.slice(0, 3)).join('; ')}`), 'below-min-judged');
  // The reference section: its findings fail their own checks (reference/*); here, what it measured.
  const ref = report.run.reference;
  if (ref) suite.testCase().className(className).name(xmlSafe(`reference ${ref.endpoint}`)).standardOutput(xmlSafe(referenceLines(ref, Infinity).join('\n')));
  for (const m of notServed) {
    const tc = suite.testCase().className(className).name(xmlSafe(`${m.method} ${m.expected ? 'not served (expected)' : 'NOT SERVED'}`));
    const line = xmlSafe(notServedLine(m, report.run.expectations?.file));
    if (m.expected) tc.standardOutput(line);
    else tc.failure(line, 'not-served');
  }
  if (open) {
    const why = verdict === 'incomplete' ? (report.run.incompleteReason ?? 'the run stopped early') : (verdictReason ?? 'too much could not be tested');
    suite
      .testCase()
      .className(className)
      .name(`run verdict ${verdict.toUpperCase()}`)
      .failure(xmlSafe(`${verdict.toUpperCase()}: ${why}`), verdict);
  }
}

/** junit-report-builder writes a bare <skipped/>; CI shows a skip's reason from its message attribute, so each
 * one gets its check's reason, in the order the cases were added (the order they are written in). */
function withSkipMessages(xml: string, messages: string[]): string {
  let i = 0;
  return xml.replace(/<skipped\/>/g, () => `<skipped message="${escapeAttribute(xmlSafe(messages[i++] ?? ''))}"/>`);
}

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"\n\r\t]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\n': '&#10;', '\r': '&#13;', '\t': '&#9;' })[ch] ?? ch);
}

export async function writeJunitReport(report: ConformanceReport, path: string): Promise<void> {
  await writeFileAtomic(path, junitXml(report));
}

function addCase(tc: TestCase, c: CheckResult, strict: boolean, skips: string[], className = `rpc-certify.${c.method}`): void {
  // The id alone names the case (stable across runs and short in a CI's list); the clause and the title are its properties.
  tc.className(className).name(c.id).time(seconds(c.durationMs)).property('clause', xmlSafe(c.clause)).property('title', xmlSafe(c.title));
  const reason = c.reason ?? '';
  const text = (prefix: string) => cdata(`${prefix}${reason}${details(c)}`);
  // junit-report-builder's <skipped/> takes no message: withSkipMessages() adds it; the details go to system-out.
  switch (outcomeOf(c, strict)) {
    case 'fail':
      tc.failure(xmlSafe(reason || 'failed'), c.layer).stacktrace(text(`${c.id} [${c.clause}] (${c.layer}): `));
      break;
    case 'unexpected-pass':
      tc.failure(`unexpected pass: listed as failing (${c.expectation?.reason ?? ''}), yet it passed; take it out of the --expect file`, 'unexpected-pass');
      break;
    case 'advisory':
      tc.standardOutput(text('advisory: '));
      break;
    case 'expected':
      tc.standardOutput(text(`expected failure (${c.expectation?.reason ?? ''}): `));
      break;
    case 'skip':
      tc.skipped().standardOutput(text('skipped: '));
      skips.push(`skipped: ${reason}`);
      break;
    case 'inconclusive':
      tc.skipped().standardOutput(text('inconclusive: '));
      skips.push(`inconclusive: ${reason}`);
      break;
    case 'pass':
      // A pass that judged only part of what its title says says so where CI shows it.
      if (c.partial) tc.standardOutput(cdata(`passed, judged in part: ${c.partial}${c.note ? `\n${c.note}` : ''}`));
      break;
  }
}

/** The lines after the reason: where, what was wanted and seen, and the first exchange. */
function details(c: CheckResult): string {
  const lines: string[] = [];
  if (c.pointer !== undefined) lines.push(`pointer:  ${c.pointer || '(whole response)'}`);
  if (c.expected !== undefined) lines.push(`expected: ${c.expected}`);
  if (c.actual !== undefined) lines.push(`actual:   ${c.actual}`);
  const [first, ...more] = c.evidence;
  if (first) {
    lines.push('', `request:\n${requestText(first)}`, '', `response (${exchangeMeta(first)}):\n${responseText(first)}`);
    if (more.length > 0) lines.push('', `(+${more.length} more exchange(s) in conformance.json)`);
  }
  return lines.map((l) => `\n${l}`).join('');
}

function seconds(ms: number): number {
  return Math.round(ms) / 1000;
}

// xmlbuilder escapes only the first "]]>" of a CDATA section; an endpoint's body may hold several, and
// a second one would end the section early and break the XML.
function cdata(text: string): string {
  return xmlSafe(text).replaceAll(']]>', ']]&gt;');
}
