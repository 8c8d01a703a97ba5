// The conformance report: one JSON value (schemas/conformance-report.json) that the JSON, JUnit and
// HTML writers all render, so the three can never disagree about a verdict.
import type { CheckResult } from '../framework/check.ts';
import type { BlockRef, Targets } from '../../core/targets.ts';

export interface ConformanceReport {
  schemaVersion: 1;
  harness: { name: 'rpc-certify'; version: string };
  run: {
    startedAt: string;
    finishedAt: string;
    durationMs: number;
    /** Already redacted by the caller: the writers print it as given. */
    endpoint: string;
    network?: string;
    chainId?: string;
    clientVersion?: string;
    headBefore?: BlockRef;
    headAfter?: BlockRef;
    strict: boolean;
    requestCount: number;
    methods: string[];
    complete: boolean;
    incompleteReason?: string;
    /** The --expect file the run was judged with. */
    expectations?: { file: string; client?: string; entries: number };
  };
  targets?: Targets;
  summary: {
    total: number;
    /** Passed checks the --expect file does not expect to fail. */
    pass: number;
    /** Every failed check: fatalFailures + advisoryFailures + expectedFailures. */
    fail: number;
    skip: number;
    inconclusive: number;
    fatalFailures: number;
    /** Failures that do not fail the run (advisory layer without --strict). */
    advisoryFailures: number;
    /** Failures the --expect file lists: they do not fail the run. */
    expectedFailures: number;
    /** Checks the --expect file lists as failing that passed: they fail the run (the file is out of date). */
    unexpectedPasses: number;
    verdict: 'pass' | 'fail' | 'incomplete';
  };
  checks: CheckResult[];
}

/**
 * How a check counts for this run: 'advisory' is an advisory-layer failure that --strict would make fatal;
 * 'expected' a failure the --expect file lists; 'unexpected-pass' a pass of a check it lists as failing.
 */
export type Outcome = 'pass' | 'fail' | 'unexpected-pass' | 'advisory' | 'expected' | 'skip' | 'inconclusive';

/** Worst first: the order the HTML report lists sections in and ranks coverage cells by. */
export const OUTCOMES: readonly Outcome[] = ['fail', 'unexpected-pass', 'advisory', 'inconclusive', 'expected', 'skip', 'pass'];

export function outcomeOf(check: Pick<CheckResult, 'layer' | 'verdict' | 'expectation'>, strict: boolean): Outcome {
  const expectedToFail = check.expectation?.kind === 'fail';
  if (check.verdict === 'pass') return expectedToFail ? 'unexpected-pass' : 'pass';
  if (check.verdict !== 'fail') return check.verdict;
  if (expectedToFail) return 'expected';
  return check.layer === 'advisory' && !strict ? 'advisory' : 'fail';
}

export function summarize(checks: CheckResult[], strict: boolean, complete: boolean): ConformanceReport['summary'] {
  const count = (o: Outcome) => checks.filter((c) => outcomeOf(c, strict) === o).length;
  const fatalFailures = count('fail');
  const advisoryFailures = count('advisory');
  const expectedFailures = count('expected');
  const unexpectedPasses = count('unexpected-pass');
  return {
    total: checks.length,
    pass: count('pass'),
    fail: fatalFailures + advisoryFailures + expectedFailures,
    skip: count('skip'),
    inconclusive: count('inconclusive'),
    fatalFailures,
    advisoryFailures,
    expectedFailures,
    unexpectedPasses,
    // A run cut short proves nothing either way, whatever its failures so far.
    verdict: !complete ? 'incomplete' : fatalFailures > 0 || unexpectedPasses > 0 ? 'fail' : 'pass',
  };
}

/** The methods of the run in their configured order, then any a check reported that the list lacks. */
export function methodsOf(report: ConformanceReport): string[] {
  return [...new Set([...report.run.methods, ...report.checks.map((c) => c.method)])];
}
