// The catalogue leads to the code: each check's file is the one that declares it, its full id is written there (or,
// in a loop or a shared builder, composed there by a template from its method), and its clause names only sections
// the spec has and invariants of the one table, printed in one form.
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { allSuites } from '../../conformance/methods.ts';
import { catalogueRows } from '../../conformance/framework/catalogue.ts';
import { MethodSuite } from '../../conformance/framework/check.ts';
import { type Clause, INVARIANTS, renderClause } from '../../conformance/framework/clause.ts';

const source = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The id templates a file writes: `${suite.method}/…` or `<method>/…`, each `${…}` standing for some text. */
function idTemplates(text: string): RegExp[] {
  return [...text.matchAll(/`((?:\$\{suite\.method\}|[A-Za-z_]+)\/[^`]*)`/g)].map(([, t]) => new RegExp(`^${(t ?? '').split(/\$\{[^}]*\}/).map(escape).join('.+')}$`));
}

describe('check catalogue', function () {
  const rows = catalogueRows(allSuites);

  it('names, for each check, a file that declares its id: written out whole, or composed there by a template', () => {
    const unplaced: string[] = [];
    for (const r of rows) {
      expect(existsSync(new URL(`../../${r.file}`, import.meta.url)), `${r.id}: ${r.file}`).to.equal(true);
      const text = source(r.file);
      if (!text.includes(`'${r.id}'`) && !idTemplates(text).some((re) => re.test(r.id))) unplaced.push(`${r.id} (${r.file})`);
    }
    expect(unplaced).to.deep.equal([]);
  });

  it('names the suite file for an id written out whole, and a builder only for composed ids', () => {
    const verbatim = rows.filter((r) => source(r.file).includes(`'${r.id}'`));
    expect(verbatim.every((r) => !r.file.startsWith('conformance/framework/')), 'a builder cannot write a method\'s id whole').to.equal(true);
    expect(verbatim.length, 'ids written whole').to.be.greaterThan(0);
  });

  it('refuses a check whose id is not under its suite\'s method', () => {
    const suite = new MethodSuite('eth_probe', 'test/conformance/catalogue.test.ts');
    expect(() => suite.check({ id: 'eth_other/x', clause: { section: '1' }, layer: 'spec', title: 't' }, async () => {})).to.throw(/must start with "eth_probe\/"/);
    expect(() => suite.check({ id: 'eth_probe/x', clause: { section: '1' }, layer: 'spec', title: 't' }, async () => {})).not.to.throw();
  });

  it('prints a clause in one form: sections, then the invariants', () => {
    const cases: Array<[Clause, string]> = [
      [{ section: '4.8', rule: 1 }, '§4.8 rule 1'],
      [{ section: '2.4', field: 'effectiveGasPrice' }, '§2.4 effectiveGasPrice'],
      [{ invariant: 'receiptsRoot' }, 'invariant: receiptsRoot'],
      [[{ invariant: 'block hash' }, { section: '4.3' }], '§4.3; invariant: block hash'],
      [[{ section: '1', part: 'block tag' }, { section: '4.8' }], '§1 block tag, §4.8'],
      [[{ invariant: 'receiptsRoot' }, { invariant: 'EIP-1559', field: 'effectiveGasPrice' }], 'invariant: receiptsRoot, EIP-1559 (effectiveGasPrice)'],
      [{ section: '4', unstated: true }, '§4 (not shown)'],
      [{ section: '2.4', unstated: true, per: 'EIP-4844' }, '§2.4 (not shown; EIP-4844)'],
      [{ section: '1', part: 'batch', per: 'JSON-RPC 2.0' }, '§1 batch (JSON-RPC 2.0)'],
    ];
    for (const [clause, text] of cases) expect(renderClause(clause)).to.equal(text);
  });

  it('names only invariants of the one table, sections of the spec and fields of their objects', () => {
    const named = new Set(allSuites.flatMap((s) => s.checks.flatMap(({ spec }) => [spec.clause].flat().flatMap((r) => ('invariant' in r ? [r.invariant] : [])))));
    expect([...named].filter((n) => !(n in INVARIANTS))).to.deep.equal([]);
    // Types keep the rest out: a section the spec lacks, or an invariant outside the table, does not compile.
    // @ts-expect-error §4.9 is not a section of the spec
    const noSection: Clause = { section: '4.9' };
    // @ts-expect-error an invariant outside INVARIANTS
    const noInvariant: Clause = { invariant: 'made up' };
    // @ts-expect-error a receipt (§2.4) has no parentHash: fields come from the one field table
    const noField: Clause = { section: '2.4', field: 'parentHash' };
    // @ts-expect-error §4.8 defines no object, so names no field
    const notAnObject: Clause = { section: '4.8', field: 'to' };
    expect([noSection, noInvariant, noField, notAnObject]).to.have.length(4);
  });
});
