// Writes the check catalogue and the field table into docs/checks.md between their markers (npm run docs); the README
// test fails when the tables and the suite disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { allSuites } from '../conformance/methods.ts';
import { allFields, type Tie } from '../conformance/framework/fields.ts';
import { catalogueMarkdown } from '../conformance/framework/catalogue.ts';

const cell = (text: string) => text.replace(/\|/g, '\\|');

const checksTable = (): string => catalogueMarkdown(allSuites);

/** The checks that tie each field or tag (CheckSpec.ties), in catalogue order. */
export function tyingChecks(): Map<Tie, string[]> {
  const out = new Map<Tie, string[]>(allFields().map(({ tie }) => [tie, []]));
  for (const s of allSuites) for (const { spec } of s.checks) for (const tie of new Set(spec.ties ?? [])) out.get(tie)?.push(spec.id);
  return out;
}

function fieldsTable(): string {
  const by = tyingChecks();
  const rows = allFields().map(({ tie, entry }) => {
    const ids = by.get(tie) ?? [];
    const how = entry.none ? `none can exist: ${entry.none}` : (entry.how ?? '');
    return `| \`${tie}\` | ${ids.length ? ids.map((id) => `\`${id}\``).join(', ') : '—'} | ${cell(how)} |`;
  });
  return ['| field or tag | checks that tie its value | how, or why none can |', '|---|---|---|', ...rows].join('\n');
}

const TABLES = [
  { begin: '<!-- checks:begin (npm run docs) -->', end: '<!-- checks:end -->', table: checksTable },
  { begin: '<!-- fields:begin (npm run docs) -->', end: '<!-- fields:end -->', table: fieldsTable },
];

export function withTable(readme: string): string {
  let out = readme;
  for (const { begin, end, table } of TABLES) {
    const a = out.indexOf(begin);
    const b = out.indexOf(end);
    if (a < 0 || b < a) throw new Error(`docs/checks.md has no ${begin} … ${end} markers`);
    out = `${out.slice(0, a + begin.length)}\n${table()}\n${out.slice(b)}`;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = new URL('../docs/checks.md', import.meta.url);
  writeFileSync(path, withTable(readFileSync(path, 'utf8')));
  const untied = [...tyingChecks()].filter(([, ids]) => ids.length === 0).length;
  console.log(`docs/checks.md: ${allSuites.reduce((n, s) => n + s.checks.length, 0)} checks listed; ${allFields().length} fields and tags, ${untied} tied by no check`);
}
