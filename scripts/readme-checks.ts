// Writes the check catalogue table into docs/checks.md between its markers (npm run docs); the README test
// fails when the table and the suite disagree.
import { readFileSync, writeFileSync } from 'node:fs';
import { allSuites } from '../conformance/methods.ts';

const BEGIN = '<!-- checks:begin (npm run docs) -->';
const END = '<!-- checks:end -->';

function checksTable(): string {
  const rows = allSuites.flatMap((s) => s.checks.map(({ spec }) => `| \`${s.id(spec.intent)}\` | ${spec.layer} | ${spec.clause} | ${spec.title.replace(/\|/g, '\\|')} |`));
  return ['| id | layer | clause | what it checks |', '|---|---|---|---|', ...rows].join('\n');
}

export function withTable(readme: string): string {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/checks.md has no ${BEGIN} … ${END} markers`);
  return `${readme.slice(0, a + BEGIN.length)}\n${checksTable()}\n${readme.slice(b)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = new URL('../docs/checks.md', import.meta.url);
  writeFileSync(path, withTable(readFileSync(path, 'utf8')));
  console.log(`docs/checks.md: ${allSuites.reduce((n, s) => n + s.checks.length, 0)} checks listed`);
}
