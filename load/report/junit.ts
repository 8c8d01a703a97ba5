// load.junit.xml: one test case for the run having completed, one per threshold, for head freshness, per method sampled (served, and
// answering as its entries' kinds require), per baseline comparison and per drift check, so CI shows
// which limit a run crossed.
import junitModule, { type Builder } from 'junit-report-builder';
import { describeCheck } from './compare.ts';
import { type LoadReport, sampledFaults } from './report.ts';

// Under Node the CJS build's module.exports (the builder) is what the default import yields.
const junit = junitModule as unknown as Builder;

export function renderJunit(r: LoadReport): string {
  const builder = junit.newBuilder().name('rpc-certify load');
  const thresholds = builder.testSuite().name(`rpc-certify load (${r.profile}): thresholds on the merged result`);
  // A run stopped early measured part of its test: never green, whatever its thresholds say.
  const whole = thresholds.testCase().className(`load.${r.profile}.run`).name('the run completed as planned');
  if (r.verdict === 'incomplete') whole.failure(`incomplete: ${r.incompleteReason ?? 'stopped early'}`);
  for (const t of r.thresholds) {
    const c = thresholds.testCase().className(`load.${r.profile}.${t.metric}`).name(`${t.metric} ${t.expression}`);
    if (!t.ok) c.failure(`${t.metric} ${t.expression} crossed: measured ${t.value ?? 'n/a'}`);
  }
  const head = thresholds.testCase().className(`load.${r.profile}.head`).name('eth_blockNumber never goes back');
  if (r.head.regressions) head.failure(`went back ${r.head.regressions} times in ${r.head.checks} checks, up to ${r.head.deepestBlocks} blocks`);
  const methods = Object.keys(r.corpus.methods ?? {});
  if (methods.length) {
    const suite = builder.testSuite().name(`rpc-certify load (${r.profile}): what sampling found`);
    const faults = sampledFaults(r);
    for (const method of methods) {
      const c = suite.testCase().className(`load.sampling.${method}`).name(`${method} served, every entry answering as its kind requires`);
      const mine = faults.filter((f) => f.method === method).map((f) => f.text);
      if (mine.length) c.failure(mine.join('\n'));
    }
  }
  if (r.baseline) {
    const suite = builder.testSuite().name(`rpc-certify load (${r.profile}): regression against ${r.baseline.file}`);
    for (const check of r.baseline.checks) {
      const c = suite.testCase().className(`load.baseline.${check.method}`).name(`${check.method} ${check.metric}`);
      if (!check.ok) c.failure(`regressed: ${describeCheck(check)}`);
    }
  }
  if (r.drift) {
    const suite = builder.testSuite().name(`rpc-certify load (${r.profile}): latency drift`);
    for (const [name, d] of Object.entries(r.drift)) {
      const c = suite.testCase().className(`load.drift.${name}`).name(`${name} p95 drift`);
      if (d.drifted) c.failure(`p95 went from ${d.startP95Ms} ms to ${d.endP95Ms} ms (x${d.ratio})`);
    }
  }
  return builder.build();
}
