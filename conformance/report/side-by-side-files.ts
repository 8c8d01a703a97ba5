// The files of a side-by-side run: conformance.json (schemas/files/conformance-side-by-side.json), conformance.junit.xml
// (one suite per endpoint) and conformance.html (the matrix first) in --out, and each endpoint's own three reports in
// --out/endpoints/<name>/, as a run of that endpoint alone writes them. The terminal's closing lines too.
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { escapeHtml as esc, inert } from '../../core/inert.ts';
import { writeFileAtomic } from '../../core/node/atomic.ts';
import { endpointDir } from '../../core/node/side-by-side.ts';
import { CONFORMANCE_FILES } from '../../core/report-files.ts';
import { formatDuration } from './text.ts';
import { percent } from './model.ts';
import { type ReportPaths, writeReports } from './index.ts';
import { STYLE } from './html-style.ts';
import { sideBySideJunitXml } from './junit.ts';
import { type EndpointRow, headText, sideBySideFaults, type SideBySideReport } from './side-by-side.ts';

export async function writeSideBySide(report: SideBySideReport, out: string): Promise<ReportPaths> {
  const faults = sideBySideFaults(report);
  if (faults.length) throw new Error(`harness bug: the side-by-side report does not match schemas/files/conformance-side-by-side.json:\n  ${faults.join('\n  ')}`);
  await mkdir(out, { recursive: true });
  for (const e of report.endpoints) if (e.report) await writeReports(e.report, endpointDir(out, e.name));
  const paths = { json: join(out, CONFORMANCE_FILES.json), junit: join(out, CONFORMANCE_FILES.junit), html: join(out, CONFORMANCE_FILES.html) };
  await writeFileAtomic(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFileAtomic(paths.junit, sideBySideJunitXml(report.endpoints));
  await writeFileAtomic(paths.html, sideBySideHtml(report));
  return paths;
}

/** Reasons listed per endpoint in the terminal; the HTML and each endpoint's own report list them all. */
const LISTED = 6;

export function sideBySideSummary(report: SideBySideReport, paths: ReportPaths): string {
  const s = report.summary;
  const methods = [...new Set(report.endpoints.flatMap((e) => e.methods.map((m) => m.method)))];
  const width = Math.max(8, ...report.endpoints.map((e) => e.name.length));
  const lines = [
    `conformance side by side: ${s.verdict.toUpperCase()}  (${s.endpoints} endpoints; the worst: ${s.worst.join(', ')}${report.targetsFrom ? `; targets from ${report.targetsFrom}` : ''})`,
    ...report.endpoints.map((e) => `  ${e.name.padEnd(width)} ${e.verdict.toUpperCase().padEnd(12)} ${e.judged ? `judged ${e.judged.judged}/${e.judged.of} (${percent(e.judged.share)})` : inert(e.notPassed[0]?.reason ?? '', 300)}${e.report ? `, ${e.report.run.requestCount} requests in ${formatDuration(e.report.run.durationMs)}` : ''}`),
    `  per method (F fail, a advisory failure, ? inconclusive, - not judged, . pass), in the order: ${methods.join(', ')}`,
    ...report.endpoints.filter((e) => e.methods.length).map((e) => `    ${e.name.padEnd(width)} ${methods.map((m) => ({ pass: '.', fail: 'F', advisory: 'a', inconclusive: '?', 'not judged': '-' })[e.methods.find((c) => c.method === m)?.verdict ?? 'not judged']).join('')}`),
    ...(report.chain ? [`  chain ${BigInt(report.chain.chainId)}${report.chain.genesis ? ` (genesis ${report.chain.genesis})` : ''}, served by ${report.chain.members.join(', ')}${report.chain.tie ? `: ${report.chain.tie}` : ''}`] : []),
    `  heads at the start: ${report.heads.start.heads.map(headText).join('; ')}`,
    `  heads at the end:   ${report.heads.end.heads.map(headText).join('; ')}`,
  ];
  if (report.differing.length) lines.push(`  they differ on ${report.differing.length} check(s):`, ...report.differing.slice(0, 12).map((d) => `    ${d.id}: ${d.outcomes.map((o) => `${o.name} ${o.outcome}`).join(', ')}`), ...(report.differing.length > 12 ? [`    … and ${report.differing.length - 12} more (see the HTML report)`] : []));
  for (const e of report.endpoints.filter((x) => x.notPassed.length)) {
    lines.push(`  ${e.name}: ${e.verdict === 'pass' ? 'passed, with' : 'did not pass:'}`);
    for (const r of e.notPassed.slice(0, LISTED)) lines.push(`    ${r.id ? `${r.id} (${r.outcome})` : r.outcome}: ${inert(r.reason.split('\n', 1)[0] ?? '', 600)}`);
    if (e.notPassed.length > LISTED) lines.push(`    … and ${e.notPassed.length - LISTED} more (${join(endpointDir('', e.name), CONFORMANCE_FILES.html)} under the reports)`);
  }
  lines.push(`  quorum: ${report.quorumNote}`, `  reports: ${paths.html}`, `           ${paths.junit}`, `           ${paths.json}`, `           each endpoint's own: ${endpointDir(join(paths.html, '..'), '<name>')}/`);
  return lines.join('\n');
}

/** Whether some quorum check passed (it compared at least one answer: a check that judged nothing never passes). */
function quorumPassed(r: SideBySideReport): boolean {
  return r.endpoints.some((e) => e.report?.checks.some((c) => c.method === 'quorum' && c.verdict === 'pass'));
}

const CELL: Record<string, string> = { pass: 'pass', fail: 'fail', inconclusive: 'inconclusive', 'not judged': 'skip', unusable: 'fail', incomplete: 'incomplete', advisory: 'advisory', skip: 'skip', expected: 'expected', 'unexpected-pass': 'unexpected' };

const EXTRA_STYLE = `
table.sbs { border-collapse: collapse; background: var(--panel); margin: 8px 0 24px; }
table.sbs th, table.sbs td { border: 1px solid var(--line); padding: 6px 10px; text-align: left; vertical-align: top; }
table.sbs td.c { text-align: center; font-weight: 600; }
.v-pass { background: var(--pass-bg); color: var(--pass); } .v-fail { background: var(--fail-bg); color: var(--fail); }
.v-inconclusive { background: var(--inconclusive-bg); color: var(--inconclusive); } .v-skip { background: var(--skip-bg); color: var(--skip); }
.v-advisory { background: var(--advisory-bg); color: var(--advisory); } .v-expected { background: var(--expected-bg); color: var(--expected); }
.v-unexpected { background: var(--unexpected-bg); color: var(--unexpected); } .v-incomplete { color: var(--incomplete); }
section.sbs { padding: 16px 0; }
`;

function cell(verdict: string, text: string): string {
  return `<td class="c v-${CELL[verdict] ?? 'skip'}">${esc(text)}</td>`;
}

/** conformance.html of a side-by-side run: the matrix first, then where they differ, their heads, and each one's reasons. */
export function sideBySideHtml(r: SideBySideReport): string {
  const methods = [...new Set(r.endpoints.flatMap((e) => e.methods.map((m) => m.method)))];
  const link = (e: EndpointRow) => (e.report ? `<a href="${esc(`endpoints/${encodeURIComponent(e.name)}/${CONFORMANCE_FILES.html}`)}">${esc(e.name)}</a>` : esc(e.name));
  const matrix = r.endpoints.map((e) => `<tr><th>${link(e)}<div class="muted">${esc(e.endpoint)}</div></th>${cell(e.verdict, `${e.verdict.toUpperCase()}${e.judged ? ` · ${percent(e.judged.share)}` : ''}`)}${methods.map((m) => {
    const c = e.methods.find((x) => x.method === m);
    return c ? cell(c.verdict, `${c.verdict === 'not judged' ? '–' : c.verdict} ${c.judged}/${c.of}`) : cell('not judged', '–');
  }).join('')}</tr>`);
  const heads = r.endpoints.map((e) => {
    const at = (h: SideBySideReport['heads']['start']) => h.heads.find((x) => x.name === e.name);
    const text = (h: ReturnType<typeof at>) => (h?.head === undefined ? `no head (${h?.error ?? 'not read'})` : `${h.head}${h.behind ? ` (${h.behind} behind)` : ' (freshest)'}`);
    return `<tr><th>${esc(e.name)}</th><td>${esc(text(at(r.heads.start)))}</td><td>${esc(text(at(r.heads.end)))}</td></tr>`;
  });
  const names = r.endpoints.filter((e) => e.report).map((e) => e.name);
  const differ = r.differing.map((d) => `<tr><th><code>${esc(d.id)}</code></th>${names.map((n) => {
    const o = d.outcomes.find((x) => x.name === n);
    return o ? cell(o.outcome, o.outcome) : cell('skip', '–');
  }).join('')}</tr>`);
  const quorum = r.endpoints.flatMap((e) => e.notPassed.filter((p) => p.id?.startsWith('quorum/')).map((p) => `<tr><th>${esc(e.name)}</th><td><code>${esc(p.id ?? '')}</code></td>${cell(p.outcome, p.outcome)}<td>${esc(p.reason)}</td></tr>`));
  const reasons = r.endpoints.map((e) => `<h3>${link(e)} · ${esc(e.verdict.toUpperCase())}</h3>${e.notPassed.length ? `<table class="sbs"><tbody>${e.notPassed.map((p) => `<tr>${cell(p.outcome === 'verdict' ? e.verdict : p.outcome, p.id ?? p.outcome)}<td>${esc(p.reason)}</td></tr>`).join('')}</tbody></table>` : '<p class="muted">every check passed or was not on this chain</p>'}`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>rpc-certify: ${r.endpoints.length} endpoints side by side: ${esc(r.summary.verdict.toUpperCase())}</title><style>${STYLE}${EXTRA_STYLE}</style></head><body>
<header class="hero"><div class="wrap"><div class="badge" style="background: var(--${CELL[r.summary.verdict] === 'fail' ? 'fail' : CELL[r.summary.verdict] ?? 'skip'})">${esc(r.summary.verdict.toUpperCase())}<small>the worst of ${r.endpoints.length}</small></div>
<div><h1>Conformance side by side</h1><p class="muted">${esc(r.startedAt)} · the worst: ${esc(r.summary.worst.join(', '))}${r.chain ? ` · chain ${esc(String(BigInt(r.chain.chainId)))}, served by ${esc(r.chain.members.join(', '))}${r.chain.tie ? ` (${esc(r.chain.tie)})` : ''}` : ''}${r.targetsFrom ? ` · every endpoint judged on the targets ${r.endpoints.some((e) => e.name === r.targetsFrom) ? 'found on' : 'of'} ${esc(r.targetsFrom)}` : ''}</p></div></div></header>
<main class="wrap">
<section class="sbs"><h2>Endpoint × method <span class="n">verdict · judged of what this chain can have</span></h2>
<table class="sbs"><thead><tr><th>endpoint</th><th>run</th>${methods.map((m) => `<th><code>${esc(m)}</code></th>`).join('')}</tr></thead><tbody>${matrix.join('\n')}</tbody></table></section>
<section class="sbs"><h2>Where they differ <span class="n">${r.differing.length} check(s) with another outcome on some endpoint</span></h2>
${names.length < 2 ? `<p class="muted">${names.length} endpoint(s) certified: nothing to compare</p>` : differ.length ? `<table class="sbs"><thead><tr><th>check</th>${names.map((n) => `<th>${esc(n)}</th>`).join('')}</tr></thead><tbody>${differ.join('\n')}</tbody></table>` : '<p class="muted">every check has the same outcome on every endpoint certified</p>'}</section>
<section class="sbs"><h2>Where their answers disagree <span class="n">quorum/*: each endpoint's immutable answers against the majority's</span></h2>
${quorum.length ? `<table class="sbs"><thead><tr><th>endpoint</th><th>check</th><th>outcome</th><th>reason</th></tr></thead><tbody>${quorum.join('\n')}</tbody></table>` : quorumPassed(r) ? '<p class="muted">every answer compared agreed with the majority</p>' : '<p class="muted">no quorum check judged anything: nothing was compared</p>'}
<p class="muted">${esc(r.quorumNote)}. Null answers, errors and absent fields never vote; a tie is reported as no majority.</p></section>
<section class="sbs"><h2>Heads <span class="n">read at the same instant, against the freshest</span></h2>
<table class="sbs"><thead><tr><th>endpoint</th><th>start (${esc(r.heads.start.at)})</th><th>end (${esc(r.heads.end.at)})</th></tr></thead><tbody>${heads.join('\n')}</tbody></table></section>
<section class="sbs"><h2>Every reason each did not pass</h2>${reasons.join('\n')}</section>
</main></body></html>
`;
}
