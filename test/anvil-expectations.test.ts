// The suite against raw anvil: its known deviations are listed in fixtures/expectations/anvil.json, and
// the run must fail exactly those checks: an unexpected failure or an unexpected pass fails this test.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startAnvil, type Anvil } from '../devnet/anvil.ts';
import { seedChain } from '../devnet/seed.ts';
import { runConformance } from '../conformance/framework/runner.ts';

describe('raw anvil fails exactly its listed deviations', function () {
  let anvil: Anvil;
  after(async () => anvil?.stop());

  it('matches fixtures/expectations/anvil.json', async function () {
    const expected = JSON.parse(await readFile(new URL('../fixtures/expectations/anvil.json', import.meta.url), 'utf8')) as { fail: Record<string, string> };
    anvil = await startAnvil();
    const seed = await seedChain(anvil.url);
    const run = await runConformance({ url: anvil.url, fixtures: [{ targets: { reverts: seed.reverts }, source: 'seed' }] });
    const failed = run.checks.filter((c) => c.verdict === 'fail').map((c) => c.id).sort();
    expect(failed, 'failures of raw anvil').to.deep.equal(Object.keys(expected.fail).sort());
    expect(run.checks.filter((c) => c.verdict === 'inconclusive').map((c) => c.id)).to.deep.equal([]);
  });
});
