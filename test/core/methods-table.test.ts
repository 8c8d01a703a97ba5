// The eight methods are listed in one table (core/methods.ts): no other source file may list them again, in an
// array, a record or a union type, where a ninth method or a changed fact would have to be found and edited too.
// A file may name a method it calls or handles (a call, a comparison, a switch case); tests and docs aside.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { METHOD_FACTS, METHODS } from '../../core/methods.ts';
import { methodLists } from '../support/method-lists.ts';
import { allSuites } from '../../conformance/methods.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The repository's TypeScript sources, but tests, the table itself and what is not the project's. */
function sources(): string[] {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  return files.filter((f) => !f.startsWith('test/') && !f.startsWith('docs/') && !f.startsWith('dist/') && f !== 'core/methods.ts' && !f.endsWith('.d.ts'));
}

describe('the method table (core/methods.ts)', () => {
  it('holds the eight methods of §4.1-4.8, in the spec\'s order', () => {
    expect(METHODS).to.have.length(8);
    expect(METHODS.map((m) => METHOD_FACTS[m].section)).to.deep.equal(['4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '4.7', '4.8']);
  });

  it('orders the conformance suites, and each block tag a method takes (its row\'s tags) is exercised by its suite, but the gap listed', () => {
    // The reference checks bracket the methods' suites: its head lag first, then the answers compared and its head lag at the end; then the answers held against other endpoints side by side.
    expect(allSuites.map((s) => s.method)).to.deep.equal(['reference', ...METHODS, 'reference', 'quorum', 'history', 'service']);
    // No check asks eth_estimateGas at "earliest" yet (an estimate against the genesis state).
    const gaps = ['eth_estimateGas tag:earliest'];
    const missing = METHODS.flatMap((m) => {
      const covered = new Set(allSuites.find((s) => s.method === m)?.checks.flatMap((c) => c.spec.covers ?? []));
      return METHOD_FACTS[m].tags.filter((tag) => !covered.has(`tag:${tag}`)).map((tag) => `${m} tag:${tag}`);
    });
    expect(missing).to.deep.equal(gaps);
  });

  it('sees a list of the methods in an array, a record or a union, and not a call, a comparison or a switch case', () => {
    const [a, b, c] = METHODS as [string, string, string];
    expect(methodLists(`const M = ['${a}', "${b}", \`${c}\`];`)).to.have.length(1);
    expect(methodLists(`const W: Record<string, number> = {\n  ${a}: 1,\n  '${b}': 2, // ${c}\n  ${c}: 3,\n};`)).to.have.length(1);
    expect(methodLists(`type M = '${a}' | '${b}' | '${c}';`)).to.have.length(1);
    expect(methodLists(`const x = new Set([\n  '${a}',\n  '${b}',\n  '${c}',\n] as const);`)).to.have.length(1);
    expect(methodLists(`const re = /['"]/; const M = ['${a}', '${b}', '${c}'];`), 'a regex with quotes in it').to.have.length(1);
    expect(methodLists(`const t = \`\${f({ x: '${a}' })} \${'}'}\`; const M = { '${a}': 1, '${b}': 2, '${c}': 3 };`), 'after a template with nested braces').to.have.length(1);
    // Naming what it calls or handles is not listing.
    expect(methodLists(`add('${a}', 1); add('${b}', 2); add('${c}', 3);`)).to.deep.equal([]);
    expect(methodLists(`function f(m: string) {\n  switch (m) {\n    case '${a}':\n    case '${b}':\n      return 1;\n    case '${c}':\n      return 2;\n  }\n  if (m === '${a}' || m === '${b}' || m === '${c}') return 3;\n}`)).to.deep.equal([]);
    expect(methodLists(`// ['${a}', '${b}', '${c}']\n/* { ${a}: 1, ${b}: 2, ${c}: 3 } */ const s = \`${a} ${b} ${c}\`;`)).to.deep.equal([]);
    expect(methodLists(`const two = ['${a}', '${b}'];`)).to.deep.equal([]);
  });

  it('drives the per-method code: no source file but the table spells five or more of the eight as string literals (calls and cases included)', () => {
    const spelled = sources().flatMap((f) => {
      const text = readFileSync(`${ROOT}/${f}`, 'utf8');
      const named = METHODS.filter((m) => new RegExp(`['"\`]${m}['"\`]`).test(text));
      return named.length >= 5 ? [`${f}: ${named.length} (${named.join(', ')})`] : [];
    });
    expect(spelled, 'derive the per-method behaviour from METHOD_FACTS (its parameter kinds, result shape, flags)').to.deep.equal([]);
  });

  it('is the only source file that lists the methods (tests and docs aside)', () => {
    const files = sources();
    expect(files.length, 'the sources were found').to.be.greaterThan(100);
    const lists = files.flatMap((f) => methodLists(readFileSync(`${ROOT}/${f}`, 'utf8')).map((l) => `${f}: ${l}`));
    expect(lists, 'read the fact from core/methods.ts (METHODS, METHOD_FACTS, factsOf) instead').to.deep.equal([]);
  });
});
