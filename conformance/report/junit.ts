// conformance.junit.xml for CI: one testsuite per method, one testcase per check. Only fatal failures and
// unexpected passes are <failure>s, so a CI job goes red exactly when the run's verdict is fail.
import junitModule, { type Builder, type TestCase } from 'junit-report-builder';
import type { CheckResult } from '../framework/check.ts';
import { writeFileAtomic } from './atomic.ts';
import { type ConformanceReport, methodsOf, outcomeOf } from './model.ts';
import { exchangeMeta, requestText, responseText } from './text.ts';

// The typings declare an ES default export, but under Node the CJS build's module.exports (the
// builder itself) is what a default import yields.
const junit = junitModule as unknown as Builder;

export function junitXml(report: ConformanceReport): string {
  // A fresh builder per report: the package's singleton would accumulate across runs in one process.
  const builder = junit.newBuilder().name('rpc-certify');
  for (const method of methodsOf(report)) {
    const checks = report.checks.filter((c) => c.method === method);
    const suite = builder
      .testSuite()
      .name(method)
      .timestamp(report.run.startedAt)
      .time(seconds(checks.reduce((s, c) => s + c.durationMs, 0)));
    for (const check of checks) addCase(suite.testCase(), check, report.run.strict);
  }
  return builder.build();
}

export async function writeJunitReport(report: ConformanceReport, path: string): Promise<void> {
  await writeFileAtomic(path, junitXml(report));
}

function addCase(tc: TestCase, c: CheckResult, strict: boolean): void {
  tc.className(`rpc-certify.${c.method}`).name(`${c.id} [${c.clause}] ${c.title}`).time(seconds(c.durationMs));
  const reason = c.reason ?? '';
  const text = (prefix: string) => cdata(`${prefix}${reason}${details(c)}`);
  // junit-report-builder's <skipped/> takes no message, so reasons go to system-out.
  switch (outcomeOf(c, strict)) {
    case 'fail':
      tc.failure(reason || 'failed', c.layer).stacktrace(text(`${c.id} [${c.clause}] (${c.layer}): `));
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
      break;
    case 'inconclusive':
      tc.skipped().standardOutput(text('inconclusive: '));
      break;
    case 'pass':
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
  return text.replaceAll(']]>', ']]&gt;');
}
