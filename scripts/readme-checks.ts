// Writes the check catalogue and the field table into docs/checks.md between their markers, and the spec's clauses
// with their checks into docs/spec.md (npm run docs); the README test fails when either and the suite disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { allSuites } from '../conformance/methods.ts';
import { allFields, type Tie } from '../core/fields.ts';
import { catalogueMarkdown } from '../conformance/framework/catalogue.ts';
import { specMarkdown } from '../conformance/framework/spec-doc.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|');

const checksTable = (): string => catalogueMarkdown(allSuites);

/** The checks that tie each field or tag (CheckSpec.ties), in catalogue order. */
export function tyingChecks(): Map<Tie, string[]> {
  const out = new Map<Tie, string[]>(allFields().map(({ tie }) => [tie, []]));
  for (const s of allSuites) for (const { spec } of s.checks) for (const tie of new Set(spec.ties ?? [])) out.get(tie)?.push(spec.id);
  return out;
}

/**
 * What test/conformance/field-proofs.test.ts showed failing, per row: the field corrupted consistently, and with what
 * commits to it recomputed as well (an honest-looking liar).
 */
type Proof = { consistent: string[]; recomputed?: { what: string; failed: string[] } };
const proofs = (): Record<string, Proof> => JSON.parse(readFileSync(new URL('../docs/field-proofs.json', import.meta.url), 'utf8')) as Record<string, Proof>;
const ids = (list: string[]) => list.map((id) => `\`${id}\``).join(', ');

function fieldsTable(): string {
  const by = tyingChecks();
  const shown = proofs();
  const rows = allFields().map(({ tie, entry }) => {
    const tying = by.get(tie) ?? [];
    const how = entry.none ? `none can exist: ${entry.none}` : (entry.how ?? '');
    const { consistent = [], recomputed } = shown[tie] ?? {};
    const liar = recomputed ? `; with \`${recomputed.what}\` recomputed too: ${recomputed.failed.length ? ids(recomputed.failed) : 'none'}` : '';
    const proof = entry.unproven ? `not proven: ${entry.unproven}` : consistent.length ? `${ids(consistent)}${liar}` : 'not proven';
    return `| \`${tie}\` | ${tying.length ? ids(tying) : '—'} | ${cell(proof)} | ${cell(how)} |`;
  });
  return ['| field or tag | checks that tie its value | fatal checks its consistent corruption failed | how, or why none can |', '|---|---|---|---|', ...rows].join('\n');
}

const TABLES = [
  { begin: '<!-- checks:begin (npm run docs) -->', end: '<!-- checks:end -->', table: checksTable },
  { begin: '<!-- fields:begin (npm run docs) -->', end: '<!-- fields:end -->', table: fieldsTable },
];

const SPEC_TABLES = [{ begin: '<!-- clauses:begin (npm run docs) -->', end: '<!-- clauses:end -->', table: () => specMarkdown(allSuites) }];

/** docs/spec.md with its clauses and their checks as the suite has them. */
export const withClauses = (spec: string): string => withTable(spec, SPEC_TABLES, 'docs/spec.md');

export function withTable(readme: string, tables = TABLES, file = 'docs/checks.md'): string {
  let out = readme;
  for (const { begin, end, table } of tables) {
    const a = out.indexOf(begin);
    const b = out.indexOf(end);
    if (a < 0 || b < a) throw new Error(`${file} has no ${begin} … ${end} markers`);
    out = `${out.slice(0, a + begin.length)}\n${table()}\n${out.slice(b)}`;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = new URL('../docs/checks.md', import.meta.url);
  writeFileSync(path, withTable(readFileSync(path, 'utf8')));
  const spec = new URL('../docs/spec.md', import.meta.url);
  writeFileSync(spec, withClauses(readFileSync(spec, 'utf8')));
  const untied = [...tyingChecks()].filter(([, ids]) => ids.length === 0).length;
  console.log(`docs/checks.md: ${allSuites.reduce((n, s) => n + s.checks.length, 0)} checks listed; ${allFields().length} fields and tags, ${untied} tied by no check`);
}
