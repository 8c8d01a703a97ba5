// conformance.html: the page a person opens first. One self-contained file (inline CSS, a two-line
// script), verdict at a glance, then the matrices, then the failures with their evidence. Every text
// goes through esc(): responses, reasons and even check ids come from or depend on an untrusted endpoint.
import { escapeHtml as esc } from '../../core/inert.ts';
import { BLOCK_TAGS, isRpcMethod } from '../../core/methods.ts';
import type { BlockRef, CoverageEntry, Targets } from '../../core/targets.ts';
import type { CheckResult, Evidence } from '../framework/check.ts';
import type { ExpectationNote } from '../framework/expectations.ts';
import { COVERAGE_CLASSES } from '../framework/discovery.ts';
import { existsSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomic } from '../../core/node/atomic.ts';
import { specAnchor } from '../framework/spec-doc.ts';
import { STYLE } from './html-style.ts';
import { type ConformanceReport, methodsOf, type Outcome, OUTCOMES, outcomeOf, percent } from './model.ts';
import { blockCoverage, blockCoverageText, curlText, curlWhere, exchangeMeta, failingFirst, formatDuration, headLagText, historyLines, inapplicableGroups, reorgLines, requestText, responseText, scopeLine, uncertified } from './text.ts';

/** docs/spec.md in the installed harness (this module sits two levels below the root, as does the bundled CLI). */
const SPEC_DOC = fileURLToPath(new URL('../../docs/spec.md', import.meta.url));

export async function writeHtmlReport(report: ConformanceReport, path: string): Promise<void> {
  // A clause links to its place in docs/spec.md, relative to the page so a copied reports folder beside the project keeps it.
  await writeFileAtomic(path, renderHtml(report, existsSync(SPEC_DOC) ? relative(dirname(path), SPEC_DOC).split(sep).join('/') : undefined));
}

type Judged = CheckResult & { outcome: Outcome };

/** A pass that judged only part of what its title covers: shown as a card of its own, never among the plain passes. */
const inPart = (c: Judged): boolean => c.outcome === 'pass' && c.partial !== undefined;

export function renderHtml(report: ConformanceReport, specHref?: string): string {
  clauseLink = (clause) => {
    const anchor = specHref && specAnchor(clause);
    return anchor ? `<a class="pill plain" href="${esc(`${specHref}#${anchor}`)}" title="this clause in docs/spec.md">${esc(clause)}</a>` : `<span class="pill plain">${esc(clause)}</span>`;
  };
  const checks: Judged[] = report.checks.map((c) => ({ ...c, outcome: outcomeOf(c, report.run.strict) }));
  const only = (o: Outcome) => checks.filter((c) => c.outcome === o);
  const { verdict } = report.summary;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`rpc-certify ${verdict.toUpperCase()}: ${report.run.endpoint}`)}</title>
<style>${STYLE}</style></head>
<body>
${hero(report)}
${notServedBanner(report)}${scopeBanner(report)}${windowBanner(report)}${historyBanner(report)}${reorgBanner(report)}
${report.summary.verdictReason && report.summary.verdict === 'inconclusive' ? `<div class="banner"><div class="wrap">Inconclusive: ${esc(report.summary.verdictReason)}. A run cannot pass on what it could not judge.</div></div>` : ''}
${report.run.complete ? '' : `<div class="banner"><div class="wrap">Incomplete run: ${esc(report.run.incompleteReason ?? 'the run stopped before every check ran')}. Passing checks prove nothing about the ones that did not run.</div></div>`}
${stickyBar(report)}
<main class="wrap">
${whySection(checks)}
${judgedSection(report)}
${referenceSection(report)}
${methodMatrix(report, checks)}
${coverageMatrix(report, checks)}
${cardSection(report.run.endpoint, 'failures', 'Failures', only('fail'), 'No fatal failures.')}
${cardSection(report.run.endpoint, 'unexpected', 'Unexpected passes', only('unexpected-pass'), '', `listed as failing in ${report.run.expectations?.file ?? 'the --expect file'}, yet they passed: they fail the run until the file is updated`)}
${cardSection(report.run.endpoint, 'advisory', 'Advisory failures', only('advisory'), '', 'they do not fail the run; --strict makes them fatal')}
${cardSection(report.run.endpoint, 'expected', 'Expected failures', only('expected'), '', `known deviations listed in ${report.run.expectations?.file ?? 'the --expect file'}: they do not fail the run`)}
${cardSection(report.run.endpoint, 'inconclusive', 'Inconclusive', only('inconclusive'), '', 'the endpoint could not be tested (rate limits, timeouts): they neither pass nor fail')}
${cardSection(report.run.endpoint, 'partial', 'Passed, judged in part', checks.filter(inPart), '', 'a request budget left part of what their title covers unjudged: each names what; the pass covers only the rest')}
${skippedSection(only('skip'))}
${passedSection(only('pass').filter((c) => !inPart(c)))}
${targetsSection(report)}
</main>
<footer>${esc(`${report.harness.name} ${report.harness.version}`)} · finished ${esc(when(report.run.finishedAt))}</footer>
<script>
// Links into the collapsed list of passes must open it.
function reveal(){var e=document.getElementById(decodeURIComponent(location.hash.slice(1)));if(!e)return;for(var p=e;p;p=p.parentElement)if(p.tagName==='DETAILS')p.open=true;e.scrollIntoView()}
addEventListener('hashchange',reveal);reveal();
</script>
</body></html>
`;
}

/** How a clause is shown: a link into docs/spec.md when the page knows where it is (set by renderHtml). */
let clauseLink: (clause: string) => string = (clause) => `<span class="pill plain">${esc(clause)}</span>`;

/**
 * Why the run failed, right under the verdict: each fatal failure and unexpected pass with its id (a link to its card and
 * evidence), its clause and its whole reason. The load page does the same with its reasons.
 */
function whySection(checks: Judged[]): string {
  const failed = checks.filter((c) => c.outcome === 'fail' || c.outcome === 'unexpected-pass');
  if (!failed.length) return '';
  const items = failed.map((c) => {
    const reason = c.outcome === 'unexpected-pass' ? `unexpected pass: listed as failing (${c.expectation?.reason ?? ''}), yet it passed` : (c.reason ?? 'failed');
    return `<li><a href="#${esc(c.id)}"><code>${esc(c.id)}</code></a> ${clauseLink(c.clause)} ${esc(reason)}</li>`;
  });
  return `<section id="why" class="why"><h2>Why it failed <span class="n">${esc(plural(failed.length, 'check'))}</span></h2><ol>${items.join('')}</ol></section>`;
}

function hero(report: ConformanceReport): string {
  const { run, summary } = report;
  const missing = (summary.notServed ?? []).filter((m) => !m.expected).length;
  const sub =
    summary.verdict === 'incomplete'
      ? 'stopped early'
      : summary.verdict === 'fail'
        ? missing > 0
          ? `${missing} ${missing === 1 ? 'method' : 'methods'} not served`
          : plural(summary.fatalFailures, 'fatal failure')
        : summary.verdict === 'inconclusive'
          ? summary.judged.share < summary.judged.floor
            ? `${percent(summary.judged.share)} judged`
            : 'not enough answers'
          : `${summary.pass} of ${summary.total} passed`;
  const facts: Array<[string, string | undefined]> = [
    ['Network', run.network && esc(run.network)],
    ['Chain id', run.chainId && esc(withDecimal(run.chainId))],
    ['Client', run.clientVersion && esc(run.clientVersion)],
    ['Head before', run.headBefore && blockHtml(run.headBefore, true)],
    ['Head after', run.headAfter && blockHtml(run.headAfter, true)],
    ['Started', esc(when(run.startedAt))],
    ['Duration', esc(formatDuration(run.durationMs))],
    ['Requests', esc(run.requestCount.toLocaleString('en-US'))],
    ['Mode', run.strict ? 'strict: advisory checks are fatal' : 'default: advisory checks inform'],
    ['Expectations', run.expectations && esc(`${run.expectations.file} (${run.expectations.entries} ${run.expectations.entries === 1 ? 'entry' : 'entries'}${run.expectations.client ? `, for ${run.expectations.client}` : ''})`)],
    // The spec's methods: the service's own checks (envelope, batches) are no method of it.
    ['Methods', esc(uncertified(report).length ? `${plural(run.methods.filter(isRpcMethod).length, 'method')}: a subset (--methods); not certified: ${uncertified(report).join(', ')}` : `${plural(run.methods.filter(isRpcMethod).length, 'method')}${run.methods.includes('service') ? ' and the service\'s own checks' : ''}`)],
  ];
  return `<header class="hero"><div class="wrap">
<div class="badge v-${esc(summary.verdict)}">${esc(summary.verdict.toUpperCase())}<small>${esc(sub)}</small></div>
<div class="about"><h1>JSON-RPC conformance</h1><div class="endpoint">${esc(run.endpoint)}</div>
<dl class="facts">${facts
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${v}</dd></div>`)
    .join('')}</dl></div>
</div></header>`;
}

/** The judged share, before the matrices: part of the verdict. Per method, what this chain cannot have, and why the rest was not judged. */
function judgedSection(report: ConformanceReport): string {
  const j = report.summary.judged;
  const rows = j.perMethod
    .filter((m) => m.of > 0)
    .map((m) => `<tr><td>${esc(m.method)}</td><td class="num">${m.judged}</td><td class="num">${m.of}</td><td class="num">${esc(percent(m.judged / m.of))}</td><td class="num">${m.leftOut}</td></tr>`);
  const groups = (title: string, list: Array<{ reason: string; checks: string[] }>) =>
    list.length ? `<h3>${esc(title)}</h3><ul>${list.map((g) => `<li><b>${g.checks.length}</b> × ${esc(g.reason)} <span class="muted">${esc(g.checks.join(', '))}</span></li>`).join('')}</ul>` : '';
  const below = j.share < j.floor;
  return `<section id="judged"><h2>Judged <span class="n">${esc(`${j.judged} of the ${j.of} fatal checks this chain can have: ${percent(j.share)} (--min-judged ${percent(j.floor)})`)}</span>${below ? ' <span class="pill o-inconclusive">below the floor: not a pass</span>' : ''}</h2>
<table class="list"><thead><tr><th>method</th><th>judged</th><th>of</th><th>share</th><th>left out (not on this chain)</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>
${groups('Not judged (skipped or inconclusive), by reason', j.notJudged)}
${groups('Not on this chain (left out of the share)', inapplicableGroups(j))}</section>`;
}

/** The reference node (--reference-url): the head lag at the start and the end, per method the calls that agreed, each difference with both answers. */
function referenceSection(report: ConformanceReport): string {
  const ref = report.run.reference;
  if (!ref) return '';
  const lag = (at: 'start' | 'end') => `<tr><td>${at}</td><td>${esc(headLagText(ref.headLag[at]))}</td></tr>`;
  const agreement = ref.agreement.map((a) => `<tr><td>${esc(a.method)}</td><td class="num">${a.compared}</td><td class="num">${a.agreed}</td><td class="num">${a.differences.length}</td><td class="muted">${esc([...a.notCompared.map((n) => `not compared: ${n}`), ...a.noted.map((n) => `noted: ${n}`)].slice(0, 8).join('; '))}</td></tr>`);
  const diffs = ref.agreement.flatMap((a) => a.differences.map((d) => `<tr><td>${esc(a.method)}</td><td>${esc(d.call)}</td><td><code>${esc(d.path)}</code></td><td><code>${esc(d.ours)}</code></td><td><code>${esc(d.reference)}</code>${d.why ? ` <span class="muted">${esc(d.why)}</span>` : ''}</td></tr>`));
  return `<section id="reference"><h2>Reference <span class="n">${esc(`${ref.endpoint}, chain ${BigInt(ref.chainId)}${ref.clientVersion ? `, ${ref.clientVersion}` : ''}; head lag allowance ${ref.maxHeadLagS} s, ${ref.maxHeadLagBlocks} blocks (1 s blocks or slower)`)}</span>${ref.failed ? ' <span class="pill o-inconclusive">failed during the run</span>' : ''}</h2>
${ref.failed ? `<p>The reference failed during the run (${esc(ref.failed)}): the checks that needed it after that are inconclusive, not blamed on the endpoint.</p>` : ''}
<h3>Head lag</h3><table class="list"><thead><tr><th>at</th><th>read</th></tr></thead><tbody>${lag('start')}${lag('end')}</tbody></table>
<h3>Answers compared</h3><table class="list"><thead><tr><th>method</th><th>compared</th><th>agreed</th><th>differences</th><th>not compared, noted</th></tr></thead><tbody>${agreement.join('\n')}</tbody></table>
${diffs.length ? `<h3>Differences</h3><table class="list"><thead><tr><th>method</th><th>call</th><th>field</th><th>ours</th><th>the reference's</th></tr></thead><tbody>${diffs.join('\n')}</tbody></table>` : ''}</section>`;
}

/** Each method not served, named before anything else: one finding, not the twenty failed checks it causes. */
/** A verdict on a --methods subset says so above everything else: it certifies only what it ran. */
function scopeBanner(report: ConformanceReport): string {
  const line = scopeLine(report);
  return line ? `<div class="banner"><div class="wrap">${esc(line)}</div></div>` : '';
}

/** The declared near-head window (§8) and the lookups older than it: listed as archive not served (or served), never judged. */
function windowBanner(report: ConformanceReport): string {
  const w = report.run.nearHeadWindow;
  if (!w) return '';
  const archive = report.summary.archive ?? [];
  const item = (a: NonNullable<ConformanceReport['summary']['archive']>[number]) =>
    `<li><b>${esc(a.method)}</b> ${esc(a.hash)} of block ${esc(String(BigInt(a.block)))}, ${a.depth} blocks below the head: <span class="pill o-expected">${esc(a.answer === 'served' ? 'served' : 'archive not served')}</span> <span class="muted">${esc(a.answer)}</span></li>`;
  return `<div class="banner not-served"><div class="wrap">${esc(`Near-head window (§8): ${w.blocks} blocks (${w.from}). Lookups older than it, not judged:`)}${archive.length ? `<ul>${archive.map(item).join('')}</ul>` : ' none made (no transaction just below the window).'}</div></div>`;
}

/** How deep each kind of history is served, against what declares it kept. */
function historyBanner(report: ConformanceReport): string {
  const lines = historyLines(report);
  const failed = report.checks.some((c) => c.history && c.verdict === 'fail');
  return lines.length ? `<div class="banner${failed ? ' not-served fatal' : ''}"><div class="wrap">${lines.map((l) => esc(l.trim())).join('<br>')}</div></div>` : '';
}

/** The reorgs the run saw, and why its checks ran again: the verdict is the last run's. */
function reorgBanner(report: ConformanceReport): string {
  const lines = reorgLines(report);
  return lines.length ? `<div class="banner"><div class="wrap">${lines.map((l) => esc(l.trim())).join('<br>')}</div></div>` : '';
}

function notServedBanner(report: ConformanceReport): string {
  const all = report.summary.notServed ?? [];
  if (all.length === 0) return '';
  const item = (m: NonNullable<ConformanceReport['summary']['notServed']>[number]) =>
    `<li><b>${esc(m.method)}</b> ${m.expected ? '<span class="pill o-expected">not served (expected)</span>' : '<span class="pill o-fail">NOT SERVED</span>'} <span class="muted">${esc(`all ${m.calls} well-formed calls: ${m.answers.join('; ')}`)} · ${esc(m.expected ? `${report.run.expectations?.file ?? 'the --expect file'} lists its ${m.failedChecks} failed check(s)` : `${m.failedChecks} of its ${m.checks} checks fail on it`)}</span></li>`;
  const fatal = all.some((m) => !m.expected);
  return `<div class="banner not-served${fatal ? ' fatal' : ''}"><div class="wrap">${fatal ? 'Methods this endpoint does not serve: the run fails on them.' : 'Methods this endpoint does not serve, a known gap the --expect file accounts for.'}<ul>${all.map(item).join('')}</ul></div></div>`;
}

function stickyBar(report: ConformanceReport): string {
  const s = report.summary;
  const stat = (o: Outcome | 'total', n: number, label: string, href: string) =>
    n > 0 ? `<a class="stat o-${o}" href="#${href}"><b>${n}</b>${label}</a>` : `<span class="stat o-${o} zero"><b>0</b>${label}</span>`;
  return `<nav class="bar"><div class="wrap">
<span class="chip v-${esc(s.verdict)}">${esc(s.verdict.toUpperCase())}</span>
${stat('total', s.total, 'checks', 'matrix')}
${stat('fail', s.fatalFailures, 'failed', 'failures')}
${s.unexpectedPasses > 0 ? stat('unexpected-pass', s.unexpectedPasses, 'unexpected passes', 'unexpected') : ''}
${stat('advisory', s.advisoryFailures, 'advisory', 'advisory')}
${s.expectedFailures > 0 ? stat('expected', s.expectedFailures, 'expected', 'expected') : ''}
${stat('inconclusive', s.inconclusive, 'inconclusive', 'inconclusive')}
${stat('skip', s.skip, 'skipped', 'skipped')}
${stat('pass', s.pass, 'passed', 'passed')}
${s.partial > 0 ? stat('inconclusive', s.partial, 'of them judged in part', 'partial') : ''}
<span class="spacer"></span>
<a href="#matrix">Matrix</a> · <a href="#coverage">Coverage</a> · <a href="#targets">Target coverage</a>
</div></nav>`;
}

const LEGEND: Record<Outcome, string> = { pass: 'pass', fail: 'fail', 'unexpected-pass': 'unexpected pass', advisory: 'advisory fail', expected: 'expected fail', inconclusive: 'inconclusive', skip: 'skipped' };

function legend(extra = ''): string {
  const items = [...OUTCOMES].reverse().map((o) => `<span><i class="sq o-${o}"></i>${LEGEND[o]}</span>`);
  return `<div class="legend">${items.join('')}${extra}</div>`;
}

function methodMatrix(report: ConformanceReport, checks: Judged[]): string {
  const rows = methodsOf(report).map((method) => {
    const own = checks.filter((c) => c.method === method);
    const squares = own.map((c) => `<a class="sq o-${c.outcome}" href="#${esc(c.id)}" title="${esc(tooltip(c))}"></a>`).join('');
    const missing = report.summary.notServed?.find((m) => m.method === method);
    const tallyText = missing ? (missing.expected ? 'not served (expected)' : 'NOT SERVED') : own.length === 0 ? 'no checks' : `${own.filter((c) => c.outcome === 'pass').length}/${own.length} pass`;
    return `<tr><th scope="row">${esc(method)}</th><td class="tally" title="${esc(tally(own))}">${tallyText}</td><td><div class="squares">${squares}</div></td></tr>`;
  });
  return `<section id="matrix"><h2>Methods × checks</h2>${legend('<span class="muted">· hover a square for the check, click for its details</span>')}
<table class="matrix checks"><tbody>${rows.join('\n')}</tbody></table></section>`;
}

function coverageMatrix(report: ConformanceReport, checks: Judged[]): string {
  const columns = [...new Set(checks.flatMap((c) => c.covers))].sort(byCoverage);
  if (columns.length === 0) return `<section id="coverage"><h2>Coverage</h2><p class="empty">No check declared what it covers.</p></section>`;
  const split = columns.map((key) => {
    const at = key.indexOf(':');
    return at < 0 ? { key, group: undefined, label: key } : { key, group: key.slice(0, at), label: key.slice(at + 1) };
  });
  // Two header rows: "tag" spans latest/pending/..., "type" spans 0x0..0x4; ungrouped ones span both rows.
  const top: string[] = [];
  for (let i = 0; i < split.length; ) {
    const { group, label } = split[i]!;
    if (group === undefined) {
      top.push(`<th rowspan="2">${esc(label)}</th>`);
      i++;
      continue;
    }
    let span = 0;
    while (split[i + span]?.group === group) span++;
    top.push(`<th colspan="${span}">${esc(group)}</th>`);
    i += span;
  }
  const second = split.filter((c) => c.group !== undefined).map((c) => `<th>${esc(c.label)}</th>`);
  const rows = methodsOf(report).map((method) => {
    const cells = columns.map((key) => {
      const hits = checks.filter((c) => c.method === method && c.covers.includes(key));
      // A skip ran nothing: it shows only when no check of the cell ran, not over a pass.
      const ran = hits.filter((c) => c.outcome !== 'skip');
      const worst = OUTCOMES.find((o) => (ran.length > 0 ? ran : hits).some((c) => c.outcome === o));
      if (!worst) return `<td class="none" title="${esc(`${method} × ${key}: not exercised`)}"></td>`;
      return `<td title="${esc(`${method} × ${key}: ${tally(hits)}`)}"><i class="sq o-${worst}"></i></td>`;
    });
    return `<tr><th scope="row">${esc(method)}</th>${cells.join('')}</tr>`;
  });
  return `<section id="coverage"><h2>Coverage <span class="n">worst outcome of the checks that ran for each case · grey: all skipped · blank: no check</span></h2>${legend()}
<div class="scroll"><table class="coverage matrix"><thead><tr><th rowspan="2">method</th>${top.join('')}</tr><tr>${second.join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div></section>`;
}

const COVERAGE_GROUPS = ['hit', 'miss', 'tag', 'type', 'revert', 'robustness'];
const TAG_ORDER: readonly string[] = BLOCK_TAGS;

function byCoverage(a: string, b: string): number {
  const rank = (k: string) => {
    const [group = k, label = ''] = k.split(':', 2);
    const g = COVERAGE_GROUPS.indexOf(group);
    const t = TAG_ORDER.indexOf(label);
    return [g < 0 ? COVERAGE_GROUPS.length : g, t < 0 ? TAG_ORDER.length : t] as const;
  };
  const [ga, ta] = rank(a);
  const [gb, tb] = rank(b);
  return ga - gb || ta - tb || a.localeCompare(b);
}

function cardSection(endpoint: string, id: string, title: string, checks: Judged[], whenEmpty: string, note = ''): string {
  if (checks.length === 0 && !whenEmpty) return '';
  const body = checks.length === 0 ? `<p class="empty">${esc(whenEmpty)}</p>` : checks.map((c) => card(c, endpoint)).join('\n');
  return `<section id="${id}"><h2>${esc(title)} <span class="n">${checks.length}${note ? ` · ${esc(note)}` : ''}</span></h2>${body}</section>`;
}

function card(c: Judged, endpoint: string): string {
  const detail: Array<[string, string | undefined]> = [
    ['pointer', c.pointer !== undefined ? `<code>${esc(c.pointer || '(whole response)')}</code>` : undefined],
    ['expected', c.expected !== undefined ? `<pre>${esc(c.expected)}</pre>` : undefined],
    ['actual', c.actual !== undefined ? `<pre>${esc(c.actual)}</pre>` : undefined],
  ];
  const shown = detail.filter(([, v]) => v !== undefined);
  const failed = c.outcome !== 'pass' && c.outcome !== 'skip' && c.outcome !== 'inconclusive' && c.outcome !== 'unexpected-pass';
  const [first, ...more] = failingFirst(c.evidence, failed);
  return `<article class="check o-${c.outcome}" id="${esc(c.id)}">
<div class="head"><span class="pill o-${c.outcome}">${LEGEND[c.outcome]}</span>${c.partial !== undefined ? '<span class="pill o-inconclusive">judged in part</span>' : ''}<code class="id">${esc(c.id)}</code>${clauseLink(c.clause)}<span class="pill plain">${esc(c.layer)}</span><span class="dur">${esc(formatDuration(c.durationMs))}</span></div>
<h3>${esc(c.title)}</h3>
${c.reason ? `<p class="reason">${esc(c.reason)}</p>` : ''}${c.violations ? `<ul class="violations">${c.violations.map((v) => `<li>${esc(v)}</li>`).join('')}</ul>` : ''}
${c.partial !== undefined ? `<p class="reason">judged in part: ${esc(c.partial)}</p>${c.note ? `<p class="muted">${esc(c.note)}</p>` : ''}` : ''}
${c.expectation ? expectationHtml(c.expectation) : ''}
${shown.length ? `<dl class="detail">${shown.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>` : ''}
${first ? exchange(first, endpoint, failed && more.length > 0 ? 'the failing exchange (the last the check made)' : '') : '<p class="empty">No exchange recorded.</p>'}
${more.length ? `<details><summary>${plural(more.length, failed ? 'earlier exchange' : 'more exchange')}${failed ? ' (controls and lookups, in the order they ran)' : ''}</summary>${more.map((e) => exchange(e, endpoint)).join('')}</details>` : ''}
</article>`;
}

function expectationHtml(e: ExpectationNote): string {
  const review = e.review ? ` · review by ${esc(e.review)}${e.overdue ? ' <b>(overdue)</b>' : ''}` : '';
  const link = e.link ? ` · <a href="${esc(e.link)}" rel="noreferrer">${esc(e.link)}</a>` : '';
  return `<p class="expectation">expected to ${e.kind}: ${esc(e.reason)}${link}${review}</p>`;
}

function exchange(ev: Evidence, endpoint: string, label = ''): string {
  return `<div class="exchange"><div class="meta">${label ? `<b>${esc(label)}</b> · ` : ''}${esc(exchangeMeta(ev))}</div><div class="io">
<figure><figcaption>request</figcaption><pre>${esc(requestText(ev))}</pre></figure>
<figure><figcaption>response</figcaption><pre>${esc(responseText(ev))}</pre></figure></div>
${ev.reference || ev.peer !== undefined ? '</div>' : `<details class="curl"><summary>copy as curl (${esc(curlWhere(endpoint))})</summary><pre>${esc(curlText(ev, endpoint))}</pre></details></div>`}`;
}

function skippedSection(checks: Judged[]): string {
  if (checks.length === 0) return '';
  const rows = checks.map((c) => `<tr id="${esc(c.id)}"><td>${esc(c.id)}</td><td>${clauseLink(c.clause)}</td><td>${esc(c.title)}</td><td>${esc(c.reason ?? '')}${c.expectation ? ` <span class="muted">(expected: ${esc(c.expectation.reason)})</span>` : ''}</td></tr>`);
  return `<section id="skipped"><h2>Skipped <span class="n">${checks.length} · nothing on this endpoint to run them against</span></h2>
<table class="list"><thead><tr><th>check</th><th>clause</th><th>title</th><th>reason</th></tr></thead><tbody>${rows.join('\n')}</tbody></table></section>`;
}

function passedSection(checks: Judged[]): string {
  if (checks.length === 0) return '';
  const rows = checks.map(
    (c) => `<tr id="${esc(c.id)}"><td>${esc(c.id)}</td><td>${clauseLink(c.clause)}</td><td>${esc(c.layer)}</td><td>${esc(c.title)}${c.note ? `<div class="muted">${esc(c.note)}</div>` : ''}</td><td class="num">${esc(formatDuration(c.durationMs))}</td></tr>`,
  );
  return `<section id="passed"><details class="passed"><summary>${plural(checks.length, 'passed check')}</summary>
<table class="list"><thead><tr><th>check</th><th>clause</th><th>layer</th><th>title</th><th>time</th></tr></thead><tbody>${rows.join('\n')}</tbody></table></details></section>`;
}

const COVERAGE_LABEL: Record<CoverageEntry['status'], string> = { found: 'found', malformed: 'found, malformed', absent: 'not on this chain', 'out-of-budget': 'out of budget', 'not-looked-for': 'not looked for (deadline/interrupted)' };
const COVERAGE_CLASS: Record<CoverageEntry['status'], string> = { found: 'o-pass', malformed: 'o-fail', absent: 'o-skip', 'out-of-budget': 'o-inconclusive', 'not-looked-for': 'o-inconclusive' };

function targetsSection(report: ConformanceReport): string {
  const t = report.targets;
  if (!t) return `<section id="targets"><h2>Targets</h2><p class="empty">No targets recorded for this run.</p></section>`;
  const labels = new Map<string, string>(COVERAGE_CLASSES.map(([k, l]) => [k, l]));
  const coverage = t.coverage ?? {};
  const keys = [...new Set([...COVERAGE_CLASSES.map(([k]) => k), ...Object.keys(coverage)])];
  const rows = keys.map((key) => {
    const entry = coverage[key];
    const label = labels.get(key) ?? (key.startsWith('txByType.') ? `transaction of type ${key.slice(9)}` : key.startsWith('era.') ? `${key.slice(4)} era block` : key);
    const value = key.startsWith('txByType.') ? t.txByType[key.slice(9)] : key.startsWith('era.') ? t.eraBlocks?.[key.slice(4)] : labels.has(key) ? (t as unknown as Record<string, Targets[keyof Targets] | undefined>)[key] : undefined; // a class key is the Targets field holding its value
    const status = entry
      ? `<span class="pill ${COVERAGE_CLASS[entry.status]}">${esc(COVERAGE_LABEL[entry.status])}</span>${entry.status !== 'found' && entry.within !== undefined ? ` <span class="muted">within ${esc(String(entry.within))} blocks</span>` : ''}`
      : '';
    const where = targetValue(value) ?? '';
    const note = entry?.note ? ` <span class="muted">${esc(entry.note)}</span>` : '';
    return `<tr><td>${esc(label)}</td><td>${status}</td><td>${where}${note}</td><td>${entry?.source ?? t.sources[key] ? `<span class="pill plain">${esc(entry?.source ?? t.sources[key] ?? '')}</span>` : ''}</td></tr>`;
  });
  const walk = `${t.scanned.blocks} block(s) walked (${decimal(t.scanned.from) ?? t.scanned.from} → ${decimal(t.scanned.to) ?? t.scanned.to})${t.scanned.requests !== undefined ? `, ${t.scanned.requests} requests` : ''}${t.scanned.stoppedBy ? `, ended: ${STOPPED[t.scanned.stoppedBy]}` : ''}`;
  const reverts = t.reverts.map(
    (r) => `<tr><td>${esc(`reverting call (${r.kind})`)}</td><td></td><td><code>${esc(r.to ?? '(create)')}</code>${r.reason ? ` <span class="muted">“${esc(r.reason)}”</span>` : ''}</td><td>${t.sources['reverts'] ? `<span class="pill plain">${esc(t.sources['reverts'])}</span>` : ''}</td></tr>`,
  );
  const cov = blockCoverage(report);
  const judged = (t.judgedBlocks ?? []).map(
    (b) => `<tr><td>${blockHtml(b)}</td><td>${esc(b.era)}</td><td class="num">${b.txCount ?? ''}</td><td>${esc(b.why.join(', '))}</td><td class="num">${esc(`${cov.perBlock.get(b.hash) ?? 0} of ${cov.checks}`)}</td></tr>`,
  );
  return `<section id="targets"><h2>Target coverage <span class="n">chain ${esc(withDecimal(t.chainId))} · head ${blockHtml(t.head, true)} · ${esc(walk)}</span></h2>
<table class="list targets"><thead><tr><th>target class</th><th>coverage</th><th>target</th><th>source</th></tr></thead><tbody>${[...rows, ...reverts].join('\n')}</tbody></table>
<h3>Blocks judged <span class="n">${esc(blockCoverageText(report) ?? '')}</span></h3>
${judged.length ? `<table class="list"><thead><tr><th>block</th><th>era</th><th>txs</th><th>picked for</th><th>judged whole by (block-level checks)</th></tr></thead><tbody>${judged.join('\n')}</tbody></table>` : '<p class="empty">No block list recorded: the busiest and the empty block were judged.</p>'}</section>`;
}

const STOPPED: Record<NonNullable<Targets['scanned']['stoppedBy']>, string> = { 'all-found': 'every class found', range: 'range walked', budget: 'request budget spent', interrupted: 'stopped by the deadline or an interrupt' };

function targetValue(v: Targets[keyof Targets] | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return `<code>${esc(v)}</code>`;
  const { number, hash, ...rest } = v as BlockRef & Record<string, unknown>;
  return `${blockHtml({ number, hash })}${Object.entries(rest)
    .map(([k, x]) => ` <span class="muted">· ${esc(`${k} ${String(x)}`)}</span>`)
    .join('')}`;
}

/** "#19,554,802 0xab…" with the exact values on hover; `short` elides the hash for the header. */
function blockHtml(ref: BlockRef, short = false): string {
  const hash = short && ref.hash.length > 20 ? `${ref.hash.slice(0, 10)}…${ref.hash.slice(-6)}` : ref.hash;
  return `<span title="${esc(`${ref.number} ${ref.hash}`)}">#${esc(decimal(ref.number) ?? ref.number)} <code>${esc(hash)}</code></span>`;
}

/** "19,554,802" for a hex quantity; undefined for anything else (the endpoint may send garbage). */
function decimal(hex: string): string | undefined {
  return /^0x[0-9a-f]{1,64}$/i.test(hex) ? BigInt(hex).toLocaleString('en-US') : undefined;
}

function withDecimal(hex: string): string {
  return /^0x[0-9a-f]{1,16}$/i.test(hex) ? `${hex} (${BigInt(hex)})` : hex;
}

function when(iso: string): string {
  return iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ' UTC');
}

function tooltip(c: Judged): string {
  const intent = c.id.startsWith(`${c.method}/`) ? c.id.slice(c.method.length + 1) : c.id;
  return `${intent} [${c.clause}] ${LEGEND[c.outcome]}${c.partial !== undefined ? ' (judged in part)' : ''}: ${c.title}${c.reason ? `\n${c.reason}` : ''}${c.partial !== undefined ? `\njudged in part: ${c.partial}` : ''}`;
}

function tally(checks: Judged[]): string {
  return OUTCOMES.map((o) => [o, checks.filter((c) => c.outcome === o).length] as const)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${n} ${LEGEND[o]}`)
    .join(', ');
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

