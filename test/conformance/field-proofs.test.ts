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
import { allFields } from '../../core/fields.ts';
import type { Targets } from '../../core/targets.ts';
import { tyingChecks } from '../../scripts/readme-checks.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import { corruptField, liarField, liarRecomputes } from '../support/field-corruption.ts';
import { RpcClient } from '../../core/node/rpc-client.ts';
import { toQuantity } from '../../core/hex.ts';
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
  /** With what commits to the field recomputed (the liar), the checks that failed. */
  const shownLiar = new Map<string, string[]>();
  /** The clean chain, every block with its full transactions and receipts: what the liar recomputes from. */
  const chain = { blocks: [] as Array<Record<string, unknown>>, receipts: new Map<string, Array<Record<string, unknown>>>() };
  const tying = tyingChecks();
  faultyDevnet((d, p) => ([devnet, proxy] = [d, p]));

  before(async () => {
    // Found once on the clean endpoint: a corruption never moves the targets the checks are run on.
    const clean = await runConformance({ suites: only([]), url: proxy.url, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
    targets = clean.targets!;
    const client = new RpcClient({ url: devnet.url });
    try {
      const head = BigInt(await client.call<string>('eth_blockNumber', []));
      for (let n = 0n; n <= head; n++) {
        const block = await client.call<Record<string, unknown>>('eth_getBlockByNumber', [toQuantity(n), true]);
        chain.blocks.push(block);
        chain.receipts.set(String(block['hash']), await client.call<Array<Record<string, unknown>>>('eth_getBlockReceipts', [block['hash']]));
      }
    } finally {
      client.close();
    }
  });

  /** The fatal failures of a run beyond what the chain's own deviations explain, and every verdict to say why not. */
  const judge = (r: Awaited<ReturnType<typeof runConformance>>) => ({
    failed: r.checks.filter((c) => c.verdict === 'fail' && c.layer !== 'advisory' && !explains(expectationFor(c.id, embedded, '0000-01-01'), c)).map((c) => c.id).sort(),
    said: r.checks.map((c) => `${c.id}: ${c.verdict}${c.reason ? ` (${c.reason.slice(0, 160)})` : ''}`).join('\n'),
  });

  for (const { tie, entry } of allFields()) {
    it(`${tie}${entry.unproven ? ' (no consistent corruption can be caught: none fails)' : ''}`, async () => {
      const ids = tying.get(tie) ?? [];
      proxy.fault = corruptField(tie);
      const { failed, said } = judge(await runConformance({ suites: only(ids), url: proxy.url, targets }));
      shown.set(tie, failed);
      if (entry.unproven) expect(failed, `${tie} is said unprovable, yet a check failed: drop its reason\n${said}`).to.deep.equal([]);
      else expect(failed, `${tie}: no fatal check that ties it failed on its consistent corruption\n${said}`).to.not.deep.equal([]);
    });
  }

  for (const { tie, entry } of allFields().filter(({ tie: row, entry: e }) => liarRecomputes(row) && !e.unproven)) {
    const recomputed = liarRecomputes(tie)!;
    it(`${tie}, with ${recomputed} recomputed as an honest-looking liar would: a fatal check that ties either still fails`, async () => {
      const ids = [...new Set([...(tying.get(tie) ?? []), ...(tying.get(recomputed) ?? [])])];
      proxy.fault = await liarField(tie, chain);
      const { failed, said } = judge(await runConformance({ suites: only(ids), url: proxy.url, targets }));
      shownLiar.set(tie, failed);
      expect(failed, `${tie} (${entry.how ?? ''}), ${recomputed} recomputed: no fatal check failed\n${said}`).to.not.deep.equal([]);
    });
  }

  it('an uncle listed under the sha3Uncles of no uncles, every method alike: the whole suite FAILS (exit 1), not inconclusive', async () => {
    proxy.fault = corruptField('block.uncles');
    const r = await runConformance({ suites: allSuites, url: proxy.url, targets, expect: embedded });
    expect(summarize(r.checks, false, r.complete).verdict).to.equal('fail');
    expect(r.checks.find((c) => c.id === 'eth_getBlockByHash/sha3-uncles-empty')?.reason).to.match(/lists 1 uncle\(s\) under the sha3Uncles of no uncles/);
  });

  it('docs/field-proofs.json says, row by row, exactly which checks failed', () => {
    const proofs = Object.fromEntries(allFields().map(({ tie }) => [tie, { consistent: shown.get(tie) ?? ['not run'], ...(shownLiar.has(tie) ? { recomputed: { what: liarRecomputes(tie), failed: shownLiar.get(tie) } } : {}) }]));
    if (process.env['RC_WRITE_PROOFS']) writeFileSync(PROOFS, `${JSON.stringify(proofs, null, 2)}\n`);
    expect(JSON.parse(readFileSync(PROOFS, 'utf8'))).to.deep.equal(proofs);
  });
});
