// load.junit.xml: the decision's checks (verdict.ts), one test case each, so CI shows which limit a run crossed:
// the run having completed, each threshold, head freshness, per method sampled (served, and answering as its
// entries' kinds require), per method measured (no wrong answer), the head lag against a reference, per baseline
// comparison and per drift check. A test case fails exactly when the decision counts it failed, with the reason the
// summary lists; one that could not be judged is an error, one not asked of the run (no reference) skipped.
import { newJunitBuilder } from '../../core/node/junit.ts';
import { type CheckKind, decide } from './verdict.ts';
import type { LoadReport } from '../shared/load-report.ts';

/** The test suites, in order, and the kinds of check each holds. */
const SUITES: Array<[kinds: CheckKind[], title: (r: LoadReport) => string]> = [
  [['run', 'threshold', 'head'], () => 'thresholds on the merged result'],
  [['sampling'], () => 'what sampling found'],
  [['answers'], () => 'answers under load'],
  [['fresh'], (r) => `fresh reads (grace ${r.freshness?.graceMs ?? 0} ms)`],
  [['headLag'], (r) => `head lag against a reference (limit ${r.headLag?.maxLagSec ?? 0} s)`],
  [['baseline'], (r) => `regression against ${r.baseline?.file ?? ''}`],
  [['drift'], () => 'latency drift'],
];

export function renderJunit(r: LoadReport): string {
  const builder = newJunitBuilder().name('rpc-certify load');
  const { checks } = decide(r);
  for (const [kinds, title] of SUITES) {
    const mine = checks.filter((c) => kinds.includes(c.kind));
    if (mine.length === 0) continue;
    const suite = builder.testSuite().name(`rpc-certify load (${r.profile}): ${title(r)}`);
    for (const check of mine) {
      const c = suite.testCase().className(check.className).name(check.name);
      if (check.failure !== undefined) c.failure(check.failure);
      // Not judged is never a pass: an error (the check could not run to a verdict); not asked of this run, skipped.
      else if (check.inconclusive !== undefined) c.error(check.inconclusive);
      else if (check.skipped !== undefined) c.skipped().standardOutput(check.skipped);
    }
  }
  return builder.build();
}
