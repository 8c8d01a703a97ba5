// The project's import graph and its house rules (issue 25): imports only go down, cli/ → conformance/ | load/
// (siblings, never each other) → core/node/ → core/, with devnet/ and scripts/ beside, and no import cycle.
// test/architecture.test.ts applies the rules to the real tree and to small made-up graphs (that they can fail).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { transformSync } from 'esbuild';

/** One relative import: the importing file, the file it names (both from the project root) and how it is written. */
export interface Import {
  from: string;
  to: string;
  specifier: string;
  line: number;
  /** `import type` only: erased when the code runs, still a dependency. */
  typeOnly: boolean;
}

/** The folders that hold source, with what each may import besides itself (the longest matching folder is a file's layer). */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  'core/': [],
  'core/node/': ['core/'],
  // The pure load code the k6 bundle and Node both import: nothing of Node's own or above.
  'load/shared/': ['core/'],
  'load/k6/': ['load/shared/', 'core/'],
  'load/': ['load/shared/', 'load/k6/', 'core/node/', 'core/'],
  'conformance/': ['core/node/', 'core/'],
  'devnet/': ['core/node/', 'core/'],
  // Entry points: `npm run docs` reads the suite's checks, the blob fixture is signed with the devnet's accounts.
  'scripts/': ['conformance/', 'load/', 'load/shared/', 'load/k6/', 'devnet/', 'core/node/', 'core/'],
  'cli/': ['conformance/', 'load/', 'load/shared/', 'load/k6/', 'devnet/', 'scripts/', 'core/node/', 'core/'],
  'bin/': ['cli/', 'conformance/', 'load/', 'load/shared/', 'load/k6/', 'devnet/', 'scripts/', 'core/node/', 'core/'],
};

/** Outside the layering, and never imported by what is inside it. */
const OUTSIDE = ['test/', 'bench/'];
const SOURCE = /\.(ts|js|mjs|cjs)$/;

/** The layer a file belongs to: the longest folder of LAYERS it sits in, OUTSIDE's name, or undefined (data: schemas, fixtures). */
export function layerOf(file: string): string | undefined {
  const layer = Object.keys(LAYERS)
    .filter((l) => file.startsWith(l))
    .sort((a, b) => b.length - a.length)[0];
  return layer ?? OUTSIDE.find((o) => file.startsWith(o));
}

/** Every source file of the layers (tests and benchmarks are outside them), from the project root. */
export function sourceFiles(root: string): string[] {
  const roots = [...new Set(Object.keys(LAYERS).map((l) => l.split('/')[0]!))];
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : SOURCE.test(e.name) ? [join(dir, e.name)] : []));
  return roots.flatMap(walk).sort();
}

/**
 * The relative imports of one file: static, re-exports, dynamic import() with a literal, and type-only ones (a type
 * is a dependency too). esbuild parses the file
 * (comments and strings cannot fool it), once as it is and once with `import type` made a plain import;
 * verbatimModuleSyntax keeps every import that is left, used or not.
 */
export function importsOf(file: string, source: string): Import[] {
  const runtime = specifiersIn(file, source);
  const untyped = source
    .replace(/\bimport\s+type\s+(?=[{*]|[\w$]+\s*(?:,|from\b))/g, 'import ')
    .replace(/\bexport\s+type\s+(?=(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)\s*from\b)/g, 'export ');
  const lines = source.split('\n');
  return [...specifiersIn(file, untyped)]
    .filter((s) => s.startsWith('.'))
    .map((specifier) => ({
      from: file,
      to: normalize(join(dirname(file), specifier)),
      specifier,
      line: lines.findIndex((l) => l.includes(`'${specifier}'`) || l.includes(`"${specifier}"`)) + 1,
      typeOnly: !runtime.has(specifier),
    }));
}

function specifiersIn(file: string, source: string): Set<string> {
  const js = transformSync(source, { loader: file.endsWith('.ts') ? 'ts' : 'js', format: 'esm', tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } } }).code;
  return new Set([
    ...[...js.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"/gm)].map((m) => m[1]!),
    ...[...js.matchAll(/^import\s*"([^"]+)"/gm)].map((m) => m[1]!),
    ...[...js.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]!),
  ]);
}

/** The import graph of the whole tree. */
export function projectImports(root: string): Import[] {
  return sourceFiles(root).flatMap((f) => importsOf(f, readFileSync(join(root, f), 'utf8')));
}

/** An import as a reader looks for it: the file, the line and what it names. */
export function shown(i: Import): string {
  return `${i.from}:${i.line} imports ${i.typeOnly ? 'types from ' : ''}'${i.specifier}' (${i.to})`;
}

/** Every import that goes up or sideways: to a layer its own may not import, or to a test or a benchmark. */
export function layerViolations(imports: readonly Import[]): Import[] {
  return imports.filter((i) => {
    const from = layerOf(i.from);
    const to = layerOf(i.to);
    if (!from || OUTSIDE.includes(from) || to === undefined || to === from) return false;
    return !(LAYERS[from] ?? []).includes(to);
  });
}

export function whyNot(i: Import): string {
  const from = layerOf(i.from) ?? '?';
  return `${from} may import only ${(LAYERS[from] ?? []).join(', ') || 'itself'}, not ${layerOf(i.to) ?? i.to}`;
}

/**
 * Every import cycle, type-only imports included (two files whose types need each other cannot be read apart, which
 * is what the rule is for): the strongly connected components of the graph of source files (Tarjan's algorithm),
 * each with its files and one way round it.
 */
export function importCycles(imports: readonly Import[]): Array<{ files: string[]; path: Import[] }> {
  const edges = new Map<string, Import[]>();
  for (const i of imports) {
    if (!SOURCE.test(i.to)) continue;
    edges.set(i.from, [...(edges.get(i.from) ?? []), i]);
  }
  const nodes = [...new Set(imports.flatMap((i) => [i.from, i.to]))].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const { to } of edges.get(v) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    const selfImport = (edges.get(v) ?? []).some((e) => e.to === v);
    if (component.length > 1 || selfImport) components.push(component.sort());
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return components.map((files) => ({ files, path: cycleThrough(new Set(files), edges) }));
}

/** One cycle inside a strongly connected component: from its first file, the shortest way back to it. */
function cycleThrough(component: Set<string>, edges: Map<string, Import[]>): Import[] {
  const start = [...component][0]!;
  const cameBy = new Map<string, Import>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const e of edges.get(v) ?? []) {
      if (!component.has(e.to)) continue;
      if (e.to === start) {
        const path = [e];
        for (let at = v; at !== start; at = cameBy.get(at)!.from) path.unshift(cameBy.get(at)!);
        return path;
      }
      if (!cameBy.has(e.to)) {
        cameBy.set(e.to, e);
        queue.push(e.to);
      }
    }
  }
  return [];
}
