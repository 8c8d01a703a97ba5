// The house plan (issue 25) holds: every source file's imports go down the layers (cli/ → conformance/ | load/ →
// core/node/ → core/, devnet/ and scripts/ beside, test/support/imports.ts says exactly which may import which), the two
// halves never import each other, and no import goes round in a cycle. A failure names the file, the line and the import.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Import, importCycles, importsOf, layerViolations, projectImports, shown, sourceFiles, whyNot } from './support/imports.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Known {
  from: string;
  to: string;
  why: string;
}

/** Imports that break the layering today, each until the change that removes it lands: then delete it here. */
const KNOWN_UPWARD: Known[] = [];

/**
 * Import cycles today, each named by the imports that close it (left out of the graph, the rest must hold no cycle),
 * until the change that breaks it lands: then delete it here. Type-only imports count: a circle of types is still a circle.
 */
const KNOWN_CYCLES: Known[] = [];

const isKnown = (known: Known[]) => (i: Import) => known.some((k) => k.from === i.from && k.to === i.to);

describe('architecture: imports only go down the layers, and never round in a cycle', function () {
  const imports = projectImports(ROOT);

  it('reads the imports of every source file', () => {
    // A reader that found nothing would pass every rule below.
    expect(sourceFiles(ROOT)).to.include.members(['core/node/errors.ts', 'load/k6/scenario.ts', 'bin/rpc-certify.js']).and.to.have.length.greaterThan(100);
    const files = new Set(imports.map((i) => i.from));
    expect([...files]).to.include.members(['cli/main.ts', 'load/run/run.ts', 'conformance/framework/runner.ts', 'bin/rpc-certify.js']).and.to.have.length.greaterThan(80);
    expect(imports.some((i) => i.from === 'cli/main.ts' && i.to === 'cli/conformance.ts'), 'a dynamic import()').to.equal(true);
    expect(imports.some((i) => i.typeOnly), 'type-only imports').to.equal(true);
  });

  it('no import goes up or sideways (load/ and conformance/ import neither cli/, scripts/ nor each other; devnet/ no scripts/; core/ no core/node/)', () => {
    const broken = layerViolations(imports).filter((i) => !isKnown(KNOWN_UPWARD)(i));
    expect(broken.map((i) => `${shown(i)}: ${whyNot(i)}`)).to.deep.equal([]);
  });

  it('the k6-safe base (core/ outside core/node/) imports no Node builtin: k6 bundles it, and has none', () => {
    const nodeOnly = sourceFiles(ROOT)
      .filter((f) => f.startsWith('core/') && !f.startsWith('core/node/') && f.endsWith('.ts'))
      .filter((f) => /from ['"]node:|import\(['"]node:/.test(readFileSync(`${ROOT}/${f}`, 'utf8')));
    expect(nodeOnly, 'move it under core/node/').to.deep.equal([]);
  });

  it('no import cycle', () => {
    const cycles = importCycles(imports.filter((i) => !isKnown(KNOWN_CYCLES)(i)));
    expect(cycles.map((c) => `${c.files.length} files: ${c.path.map(shown).join(' → ')}`)).to.deep.equal([]);
  });

  it('every known exception still exists (once it is gone, delete it from this file)', () => {
    const violations = layerViolations(imports);
    for (const k of KNOWN_UPWARD) expect(violations.some((i) => i.from === k.from && i.to === k.to), `${k.from} → ${k.to} (${k.why}) no longer breaks the layering`).to.equal(true);
    const inCycle = importCycles(imports).flatMap((c) => c.files);
    for (const k of KNOWN_CYCLES) {
      const edge = imports.some((i) => i.from === k.from && i.to === k.to);
      expect(edge && inCycle.includes(k.from) && inCycle.includes(k.to), `${k.from} → ${k.to} (${k.why}) no longer closes a cycle`).to.equal(true);
    }
  });

  describe('the rules catch what they are for (made-up files)', () => {
    const file = (path: string, source: string) => importsOf(path, source);

    it('an upward import: load/ from cli/, named with its file and line', () => {
      const found = layerViolations(file('load/run/run.ts', "// load\nimport { INTERRUPTED_EXIT } from '../../cli/interrupt.ts';\n"));
      expect(found.map(shown)).to.deep.equal(["load/run/run.ts:2 imports '../../cli/interrupt.ts' (cli/interrupt.ts)"]);
      expect(whyNot(found[0]!)).to.equal('load/ may import only load/shared/, load/k6/, core/node/, core/, not cli/');
    });

    it('sideways and downward-only layers: conformance/ ↔ load/, devnet/ from scripts/, core/ from core/node/, the k6 code from Node code, a test', () => {
      const found = layerViolations([
        ...file('conformance/report/x.ts', "import { METHODS } from '../../load/shared/answer-classes.ts';"),
        ...file('load/plan/x.ts', "import type { Exchange } from '../../conformance/framework/rpc-client.ts';"),
        ...file('devnet/x.ts', "const g = await import('../scripts/setup-geth.ts');"),
        ...file('core/x.ts', "export { writeFileAtomic } from './node/atomic.ts';"),
        ...file('load/shared/x.ts', "import { EXIT } from '../../core/node/errors.ts';"),
        ...file('cli/x.ts', "import { expect } from '../test/support/cli.ts';"),
      ]);
      expect(found.map((i) => i.from)).to.deep.equal(['conformance/report/x.ts', 'load/plan/x.ts', 'devnet/x.ts', 'core/x.ts', 'load/shared/x.ts', 'cli/x.ts']);
    });

    it('allows what goes down, data files and imports within a layer', () => {
      const found = layerViolations([
        ...file('cli/x.ts', "import { runLoad } from '../load/run/run.ts';\nimport { certify } from '../conformance/report/index.ts';\nimport { ensureK6 } from '../core/node/tools/k6.ts';"),
        ...file('load/run/x.ts', "import { x } from '../report/y.ts';\nimport schema from '../../schemas/files/load-report.json' with { type: 'json' };"),
        ...file('core/node/x.ts', "import { redact } from '../redact.ts';"),
      ]);
      expect(found.map(shown)).to.deep.equal([]);
    });

    it('a cycle, however long, and through type-only imports too; named by the imports that go round it', () => {
      const cycles = importCycles([
        ...file('conformance/a.ts', "import { b } from './b.ts';"),
        ...file('conformance/b.ts', "import type { C } from './c.ts';"),
        ...file('conformance/c.ts', "import { a } from './a.ts';\nimport { d } from './d.ts';"),
        ...file('conformance/d.ts', "import { e } from './e.ts';"),
      ]);
      expect(cycles.map((c) => c.files)).to.deep.equal([['conformance/a.ts', 'conformance/b.ts', 'conformance/c.ts']]);
      expect(cycles[0]!.path.map((i) => `${i.from}→${i.to}`)).to.deep.equal(['conformance/a.ts→conformance/b.ts', 'conformance/b.ts→conformance/c.ts', 'conformance/c.ts→conformance/a.ts']);
      expect(importCycles(file('core/self.ts', "import { x } from './self.ts';")).map((c) => c.files)).to.deep.equal([['core/self.ts']]);
    });

    it('reads imports as TypeScript does: not those in comments or strings; multi-line, re-exports, side effects and import() are imports', () => {
      const found = file(
        'cli/x.ts',
        [
          "// import { a } from './comment.ts';",
          "/* import { b } from './block.ts'; */",
          "const s = \"import { c } from './string.ts'\";",
          "const r = /from '\\.\\/regex.ts'/;",
          'import {',
          '  one,',
          '  type Two,',
          "} from './multi.ts';",
          "export * from './star.ts';",
          "export type { T } from './types.ts';",
          "import './side.ts';",
          "const lazy = () => import('./lazy.ts');",
          'console.log(s, r, one, lazy);',
        ].join('\n'),
      );
      expect(found.map((i) => `${i.to}:${i.line}${i.typeOnly ? ' (type)' : ''}`).sort()).to.deep.equal(['cli/lazy.ts:12', 'cli/multi.ts:8', 'cli/side.ts:11', 'cli/star.ts:9', 'cli/types.ts:10 (type)']);
    });
  });
});
