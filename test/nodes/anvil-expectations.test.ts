// The suite against raw anvil, judged with its shipped --expect file (fixtures/expectations/anvil.json): the
// run must pass, so an unexpected failure or an unexpected pass (anvil or a check changed) fails this test.
import { expect } from 'chai';
import { startAnvil, type Anvil } from '../../devnet/anvil.ts';
import { seedChain } from '../../devnet/seed.ts';
import { runConformance } from '../../conformance/framework/runner.ts';
import { expectationFor, loadExpectations } from '../../conformance/framework/expectations.ts';
import { explains, summarize } from '../../conformance/report/model.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';

describe('raw anvil fails exactly its listed deviations', function () {
  let anvil: Anvil;
  after(async () => anvil?.stop());

  it('passes with fixtures/expectations/anvil.json: every listed check an expected failure, nothing else failed', async function () {
    const expectations = await loadExpectations('fixtures/expectations/anvil.json', checkIds(allSuites));
    anvil = await startAnvil();
    const seed = await seedChain(anvil.url);
    const run = await runConformance({ suites: allSuites, url: anvil.url, fixtures: [{ targets: { reverts: seed.reverts }, source: 'seed' }], expect: expectations });
    const summary = summarize(run.checks, false, run.complete);
    const failed = run.checks.filter((c) => c.verdict === 'fail').map((c) => c.id).sort();
    expect(failed, 'failures of raw anvil').to.deep.equal(expectations.fail.map((e) => e.id).sort());
    expect(run.checks.filter((c) => c.verdict === 'fail' && !explains(expectationFor(c.id, expectations, '0000-01-01'), c)).map((c) => `${c.id}: ${JSON.stringify(c.violations ?? [c.reason])}`), 'each failure the one its entry describes').to.deep.equal([]);
    expect(summary.expectedFailures).to.equal(expectations.fail.length);
    expect(summary).to.include({ unexpectedPasses: 0, fatalFailures: 0, verdict: 'pass' });
    expect(run.checks.filter((c) => c.verdict === 'inconclusive').map((c) => c.id)).to.deep.equal([]);
  });
});
