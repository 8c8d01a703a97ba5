// The check catalogue: one row per check, in suite order, as docs/checks.md (npm run docs) and `rpc-certify checks`
// print it. The clause is printed by renderClause, as in the reports and the Mocha titles.
import type { Layer, MethodSuite } from './check.ts';
import { renderClause } from './clause.ts';

export interface CatalogueRow {
  id: string;
  layer: Layer;
  clause: string;
  title: string;
  /** The file that declares the check: the suite's own, or the shared builder's when the builder composes the id. */
  file: string;
}

export function catalogueRows(suites: readonly MethodSuite[]): CatalogueRow[] {
  return suites.flatMap((s) => s.checks.map(({ spec, file }) => ({ id: spec.id, layer: spec.layer, clause: renderClause(spec.clause), title: spec.title, file })));
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function catalogueMarkdown(suites: readonly MethodSuite[]): string {
  const rows = catalogueRows(suites).map((r) => `| \`${r.id}\` | ${r.layer} | ${cell(r.clause)} | ${cell(r.title)} | ${r.file} |`);
  return ['| id | layer | clause | what it checks | file |', '|---|---|---|---|---|', ...rows].join('\n');
}
