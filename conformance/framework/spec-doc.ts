// docs/spec.md: the service spec in the project's words (spec-text.ts), clause by clause, each with the ids of the
// checks that enforce it, and the protocol invariants with theirs; generated from the suites like docs/checks.md
// (`npm run docs`), so a clause and its checks cannot drift apart. specAnchor links a report's clause to its place.
import type { MethodSuite } from './check.ts';
import { type ClauseRef, INVARIANTS, type Invariant, refsOf, type Section } from './clause.ts';
import { SPEC_TEXT } from './spec-text.ts';

/** The sections in the spec's order (an object lists integer-like keys first, so they are sorted here). */
const SECTIONS = (Object.keys(SPEC_TEXT) as Section[]).sort((a, b) => {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)];
  return (x[0] ?? 0) - (y[0] ?? 0) || (x[1] ?? 0) - (y[1] ?? 0);
});

const sectionAnchor = (s: string) => `s${s.replace('.', '-')}`;
const invariantAnchor = (i: string) => `inv-${i.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

/** The place in docs/spec.md of a clause as the reports print it (renderClause): its first section, else its first invariant. */
export function specAnchor(clause: string): string | undefined {
  const section = /§(\d+(?:\.\d+)?)/.exec(clause)?.[1];
  if (section) return sectionAnchor(section);
  const invariant = (Object.keys(INVARIANTS) as Invariant[]).find((i) => clause.includes(i));
  return invariant && invariantAnchor(invariant);
}

interface Citation {
  id: string;
  ref: ClauseRef;
}

function citations(suites: readonly MethodSuite[]): Citation[] {
  const seen = new Set<string>();
  const out: Citation[] = [];
  for (const s of suites) {
    for (const { spec } of s.checks) {
      for (const ref of refsOf(spec.clause)) {
        const key = `${spec.id} ${JSON.stringify(ref)}`;
        if (!seen.has(key)) out.push({ id: spec.id, ref });
        seen.add(key);
      }
    }
  }
  return out;
}

/** What of the clause a citation enforces (a part, a field; "not stated" when the spec is silent on it), or '' for the whole. */
function enforces(c: Citation): string {
  const r = c.ref as { part?: string; field?: string; unstated?: true; per?: string };
  return [r.part, r.field, r.unstated ? 'not stated' : undefined, r.per].filter(Boolean).join(', ');
}

/** The checks cited, each once: a check citing the clause twice (its id and its batch part, say) shows both parts. */
function list(cs: Citation[]): string {
  const byId = new Map<string, Citation[]>();
  for (const c of cs) byId.set(c.id, [...(byId.get(c.id) ?? []), c]);
  const items = [...byId].map(([id, group]) => {
    const whats = [...new Set(group.map(enforces).filter(Boolean))];
    return `\`${id}\`${whats.length ? ` (${whats.join('; ')})` : ''}`;
  });
  return items.length ? items.join(', ') : '*no check*';
}

export function specMarkdown(suites: readonly MethodSuite[]): string {
  const all = citations(suites);
  const out: string[] = [];
  for (const s of SECTIONS) {
    const text = SPEC_TEXT[s];
    const here = all.filter((c) => 'section' in c.ref && c.ref.section === s);
    out.push(`<a id="${sectionAnchor(s)}"></a>`, `### §${s} ${text.title}`, '', ...text.says.map((line) => `- ${line}`));
    for (const [n, rule] of Object.entries(text.rules ?? {})) {
      const ids = here.filter((c) => (c.ref as { rule?: number }).rule === Number(n));
      out.push(`- **Rule ${n}.** ${rule} Checked by: ${list(ids)}.`);
    }
    const general = here.filter((c) => (c.ref as { rule?: number }).rule === undefined);
    out.push('', `Checked by: ${list(general)}.`, '');
  }
  out.push('### Protocol invariants', '', 'What a chain must hold whatever the service says of it, recomputed or cross-checked by the suite.', '');
  for (const [name, source] of Object.entries(INVARIANTS)) {
    const ids = all.filter((c) => 'invariant' in c.ref && c.ref.invariant === name);
    out.push(`<a id="${invariantAnchor(name)}"></a>`, `- **${name}** (${source}). Checked by: ${list(ids)}.`);
  }
  return out.join('\n');
}
