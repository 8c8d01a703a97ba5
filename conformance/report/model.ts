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
  };
  targets?: Targets;
  summary: {
    total: number;
    pass: number;
    /** Every failed check: fatalFailures + advisoryFailures. */
    fail: number;
    skip: number;
    inconclusive: number;
    fatalFailures: number;
    /** Failures that do not fail the run (advisory layer without --strict). */
    advisoryFailures: number;
    verdict: 'pass' | 'fail' | 'incomplete';
  };
  checks: CheckResult[];
}

/** How a check counts for this run: 'advisory' is an advisory-layer failure that --strict would make fatal. */
export type Outcome = 'pass' | 'fail' | 'advisory' | 'skip' | 'inconclusive';

/** Worst first: the order the HTML report lists sections in and ranks coverage cells by. */
export const OUTCOMES: readonly Outcome[] = ['fail', 'advisory', 'inconclusive', 'skip', 'pass'];

export function outcomeOf(check: Pick<CheckResult, 'layer' | 'verdict'>, strict: boolean): Outcome {
  if (check.verdict !== 'fail') return check.verdict;
  return check.layer === 'advisory' && !strict ? 'advisory' : 'fail';
}

export function summarize(checks: CheckResult[], strict: boolean, complete: boolean): ConformanceReport['summary'] {
  const count = (o: Outcome) => checks.filter((c) => outcomeOf(c, strict) === o).length;
  const fatalFailures = count('fail');
  const advisoryFailures = count('advisory');
  return {
    total: checks.length,
    pass: count('pass'),
    fail: fatalFailures + advisoryFailures,
    skip: count('skip'),
    inconclusive: count('inconclusive'),
    fatalFailures,
    advisoryFailures,
    // A run cut short proves nothing either way, whatever its failures so far.
    verdict: !complete ? 'incomplete' : fatalFailures > 0 ? 'fail' : 'pass',
  };
}

/** The methods of the run in their configured order, then any a check reported that the list lacks. */
export function methodsOf(report: ConformanceReport): string[] {
  return [...new Set([...report.run.methods, ...report.checks.map((c) => c.method)])];
}
