// The field table proven from the other side (issue 43): each field and tag docs/checks.md says a check ties is
// corrupted consistently (test/support/field-corruption.ts: the same wrong value in every method's answer, nothing
// recomputed), and only the checks that tie it run: at least one fatal check must fail, beyond what the chain's own
// deviations explain. What failed is what docs/field-proofs.json says, row by row (RC_WRITE_PROOFS=1 writes it; `npm run
// docs` puts it in the table), so the table claims no more than was shown. A row no consistent corruption can be caught
// on says why (fields.ts, `unproven`), and nothing may fail on it then.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { runConformance } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds, MethodSuite } from '../../conformance/framework/check.ts';
import { expectationFor, parseExpectations } from '../../conformance/framework/expectations.ts';
import { explains, summarize } from '../../conformance/report/model.ts';
import { allFields } from '../../conformance/framework/fields.ts';
import type { Targets } from '../../core/targets.ts';
import { tyingChecks } from '../../scripts/readme-checks.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import { corruptField } from '../support/field-corruption.ts';
import type { Devnet } from '../../devnet/index.ts';

const PROOFS = new URL('../../docs/field-proofs.json', import.meta.url);
const embedded = parseExpectations(readFileSync(new URL('../../fixtures/expectations/embedded.json', import.meta.url), 'utf8'), 'fixtures/expectations/embedded.json', checkIds(allSuites));

/** The suites cut down to these checks. */
const only = (ids: readonly string[]) =>
  allSuites.map((s) => {
    const cut = new MethodSuite(s.method, s.file);
    for (const c of s.checks) if (ids.includes(c.spec.id)) cut.check(c.spec, c.body, c.file);
    return cut;
  });

describe('the field table proven: each tied field, corrupted consistently, fails a fatal check that ties it', function () {
  this.timeout(120_000);
  let devnet: Devnet;
  let proxy: FaultProxy;
  let targets: Targets;
  const shown = new Map<string, string[]>();
  const tying = tyingChecks();
  faultyDevnet((d, p) => ([devnet, proxy] = [d, p]));

  before(async () => {
    // Found once on the clean endpoint: a corruption never moves the targets the checks are run on.
    const clean = await runConformance({ suites: only([]), url: proxy.url, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
    targets = clean.targets!;
  });

  for (const { tie, entry } of allFields()) {
    it(`${tie}${entry.unproven ? ' (no consistent corruption can be caught: none fails)' : ''}`, async () => {
      const ids = tying.get(tie) ?? [];
      proxy.fault = corruptField(tie);
      const r = await runConformance({ suites: only(ids), url: proxy.url, targets });
      const failed = r.checks.filter((c) => c.verdict === 'fail' && c.layer !== 'advisory' && !explains(expectationFor(c.id, embedded, '0000-01-01'), c)).map((c) => c.id).sort();
      shown.set(tie, failed);
      const said = r.checks.map((c) => `${c.id}: ${c.verdict}${c.reason ? ` (${c.reason.slice(0, 160)})` : ''}`).join('\n');
      if (entry.unproven) expect(failed, `${tie} is said unprovable, yet a check failed: drop its reason\n${said}`).to.deep.equal([]);
      else expect(failed, `${tie}: no fatal check that ties it failed on its consistent corruption\n${said}`).to.not.deep.equal([]);
    });
  }

  it('an uncle listed under the sha3Uncles of no uncles, every method alike: the whole suite FAILS (exit 1), not inconclusive', async () => {
    proxy.fault = corruptField('block.uncles');
    const r = await runConformance({ suites: allSuites, url: proxy.url, targets, expect: embedded });
    expect(summarize(r.checks, false, r.complete).verdict).to.equal('fail');
    expect(r.checks.find((c) => c.id === 'eth_getBlockByHash/sha3-uncles-empty')?.reason).to.match(/lists 1 uncle\(s\) under the sha3Uncles of no uncles/);
  });

  it('docs/field-proofs.json says, row by row, exactly which checks failed', () => {
    const proofs = Object.fromEntries(allFields().map(({ tie }) => [tie, shown.get(tie) ?? ['not run']]));
    if (process.env['RC_WRITE_PROOFS']) writeFileSync(PROOFS, `${JSON.stringify(proofs, null, 2)}\n`);
    expect(JSON.parse(readFileSync(PROOFS, 'utf8'))).to.deep.equal(proofs);
  });
});
