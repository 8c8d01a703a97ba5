// load.html: one self-contained page a person reads after a run (charts are inline SVG); the verdict and its reasons
// are the decision's (verdict.ts).
import { describeCheck } from './compare.ts';
import { STYLE } from './style.ts';
import { CLASSES, type RpcClass } from '../shared/answer-classes.ts';
import { ENTRY_KINDS, isDegenerate } from '../shared/corpus.ts';
import { ESTIMATE_SPREAD } from '../shared/bounds.ts';
import { generatorSentence, headline, samplingLag } from './headline.ts';
import { capacitySection } from './html-capacity.ts';
import { freshSection } from './html-fresh.ts';
import { lagBeyond } from './head-lag.ts';
import { decide } from './verdict.ts';
import { recognitionNote } from '../shared/recognition.ts';
import { escapeHtml as esc } from '../../core/inert.ts';
import { groupedBars, lineChart, PALETTE, stackedBars } from './svg.ts';
import type { LoadReport } from '../shared/load-report.ts';

const CLASS_COLORS: Record<RpcClass, string> = {
  ok: '#2ca02c',
  ok_null: '#98df8a',
  ok_error: '#bcbd22',
  null_unexpected: '#ff7f0e',
  archive: '#c7c7c7',
  rpc_error: '#d62728',
  rate_limited: '#9467bd',
  http_error: '#8c564b',
  timeout: '#000000',
  invalid: '#e377c2',
  wrong: '#ff00aa',
};

export function renderHtml(r: LoadReport): string {
  const { verdict } = decide(r);
  const names = Object.keys(r.methods);
  const color = (name: string) => PALETTE[names.indexOf(name) % PALETTE.length] ?? '#000';
  const series = (key: 'p95' | 'rps' | 'targetRps', dashed = false) =>
    names.map((n) => ({
      name: `${n}${dashed ? ' (target)' : ''}`,
      color: color(n),
      dashed,
      points: r.timeline.points.flatMap((p): Array<[number, number]> => {
        const v = p.methods[n as keyof typeof p.methods]?.[key];
        return v === undefined ? [] : [[p.t, v]];
      }),
    }));
  const legend = `<p class="legend">${names.map((n) => `<span><i style="background:${color(n)}"></i>${esc(n)}</span>`).join('')}</p>`;

  return charts(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>rpc-certify load: ${esc(r.profile)} ${esc(verdict)}</title>
<style>${STYLE}</style></head><body>
<h1>Load test: <span class="${verdict}">${esc(verdict.toUpperCase())}</span> <span class="muted">(${esc(r.profile)} profile)</span></h1>
${whyBox(r)}
<p>Endpoint ${esc(r.endpoint)} · chain ${esc(r.corpus.chainId)} · k6 ${esc(r.k6.version)} · ${r.durationSec} s · corpus seed ${r.corpus.seed}, ${Math.round(r.corpus.missShare * 100)}% misses · ${esc(r.createdAt)}</p>
<p>${generatorLine(r)}
${r.generator.cpuCores === undefined ? '' : ` k6 used ${r.generator.cpuCores} of ${r.generator.availableCores} cores.`}${r.k6.recognition ? ` ${esc(`${recognitionNote(r.k6.recognition, r.k6.inGo).replace(/^a/, 'A')}`)}.` : ''}</p>
<p class="muted">${r.generator.instances > 1 ? `Merged from ${r.generator.instances} k6 instances (execution segments): counts add up exactly; ` : ''}percentiles and averages are read from mergeable histograms (within ±${r.plan.latencyRelativeError * 100}%), maxima are exact${r.generator.instances > 1 ? "; a period's percentile in the timeline is the highest instance's" : ''}. ${Math.round(r.plan.validateShare * 100)}% of the answers were fully validated.</p>
${headLine(r)}
${capacitySection(r)}
<h2>Per method</h2>
<div class="scroll"><table><tr><th>method</th><th>requests</th><th>target rps</th><th>achieved rps</th><th>dropped</th><th>p50 ms</th><th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th><th>failures</th><th>validated</th><th>wrong</th></tr>
${names
  .map((n) => {
    const m = r.methods[n]!;
    const l = m.latencyMs;
    const cell = (v: number | undefined) => `<td>${v ?? '–'}</td>`;
    const within = (v: number, at: [number, number] | null | undefined) => `<td>${v}${at === undefined ? '' : `<br><span class="small muted" title="${(m.latencyIntervals?.confidence ?? 0) * 100}% interval">${at ? `${at[0]}–${at[1]}` : 'unbounded'}</span>`}</td>`;
    const latency = l ? `${cell(l.p50)}${cell(l.p90)}${within(l.p95, m.latencyIntervals?.p95)}${within(l.p99, m.latencyIntervals?.p99)}${cell(l['p99.9'])}${cell(l.max)}` : `<td colspan="6" class="fail">${m.requests ? 'no successful answer' : 'completed no request'}</td>`;
    return `<tr><td>${esc(n)}</td><td>${m.requests}</td><td>${m.targetRps}</td><td>${m.achievedRps}</td><td>${m.dropped}</td>${latency}<td class="${m.failureRate > r.plan.slo.maxFailureRate ? 'fail' : ''}">${(m.failureRate * 100).toFixed(2)}%</td><td>${m.validated}</td><td class="${m.classes.wrong ? 'fail' : ''}">${m.classes.wrong}</td></tr>`;
  })
  .join('\n')}
</table></div>

<h2>Latency percentiles (successful answers)</h2>
${groupedBars({
  unit: 'ms',
  groups: names.map((n) => {
    const l = r.methods[n]?.latencyMs;
    return { label: n, bars: l ? [{ name: 'p50', value: l.p50, color: '#9ecae1' }, { name: 'p95', value: l.p95, color: '#3182bd' }, { name: 'p99', value: l.p99, color: '#08519c' }] : [] };
  }),
})}
<p class="legend"><span><i style="background:#9ecae1"></i>p50</span><span><i style="background:#3182bd"></i>p95</span><span><i style="background:#08519c"></i>p99</span></p>
${depthSection(r)}

<h2>p95 latency over time</h2>
${lineChart({ series: series('p95'), xLabel: `seconds (one point per ${r.timeline.periodSec} s)`, yLabel: 'p95 ms' })}
${legend}

<h2>Throughput: achieved (solid) vs target (dashed)</h2>
${lineChart({ series: [...series('targetRps', true), ...series('rps')], xLabel: 'seconds', yLabel: 'requests/s' })}
${legend}

<h2>Outcome classes</h2>
${stackedBars(names.map((n) => ({ label: n, parts: CLASSES.map((c) => ({ name: c, value: r.methods[n]!.classes[c] ?? 0, color: CLASS_COLORS[c] })) })))}
<p class="legend">${CLASSES.map((c) => `<span><i style="background:${CLASS_COLORS[c]}"></i>${c}</span>`).join('')}</p>
${classDetails(r)}
${freshSection(r)}${headLagSection(r)}${driftSection(r)}${baselineSection(r)}
<h2>Thresholds</h2>
<div class="scroll"><table><tr><th>metric</th><th>threshold</th><th>measured</th><th>result</th></tr>
${r.thresholds.map((t) => `<tr><td>${esc(t.metric)}</td><td>${esc(t.expression)}</td><td>${t.value ?? '–'}</td><td class="${t.ok ? 'pass' : 'fail'}">${t.ok ? 'pass' : 'fail'}</td></tr>`).join('\n') || '<tr><td colspan="4" class="muted">none (this profile only measures)</td></tr>'}
</table></div>
${corpusSection(r)}
</body></html>
`);
}

/** Charts keep a readable size on a narrow screen and scroll sideways, rather than shrink to illegible text. */
function charts(html: string): string {
  return html.replace(/<svg[\s\S]*?<\/svg>/g, (svg) => `<div class="chart">${svg}</div>`);
}

/** The verdict and why, first on the page: which threshold, regression or method (headline.ts). */
function whyBox(r: LoadReport): string {
  const h = headline(r);
  const { verdict } = decide(r);
  return `<div class="why ${verdict}"><b>${esc(verdict === 'measured' ? 'Capacity' : verdict.toUpperCase())}: ${esc(h.summary)}</b><ul>${h.reasons.map((x) => `<li>${esc(x)}</li>`).join('')}</ul></div>`;
}

function generatorLine(r: LoadReport): string {
  const g = generatorSentence(r);
  const text = `${g.text.startsWith('k6') ? g.text : `${g.text.charAt(0).toUpperCase()}${g.text.slice(1)}`}.`;
  return g.ok ? esc(text) : `<b class="fail">${esc(text)}</b>`;
}

function classDetails(r: LoadReport): string {
  const rows = Object.entries(r.methods).flatMap(([n, m]) => [
    ...Object.entries(m.errorCodes).flatMap(([cls, codes]) => Object.entries(codes).map(([code, count]) => `<li>${esc(n)}: ${esc(cls)} code ${esc(code)} × ${count}</li>`)),
    ...(m.invalidSample ? [`<li>${esc(n)}: invalid, e.g. ${esc(m.invalidSample)}</li>`] : []),
    ...(m.wrongSample ? [`<li>${esc(n)}: wrong answer, e.g. ${esc(m.wrongSample)}</li>`] : []),
  ]);
  return rows.length ? `<ul>${rows.join('')}</ul>` : '';
}

/** What each method's figures rest on: the corpus per kind, and what sampling left out or found. */
function corpusSection(r: LoadReport): string {
  const rows = Object.entries(r.corpus.methods).map(([n, c]) => {
    const status = c.status ?? 'not recorded';
    const findings = (c.findings ?? []).map((f) => `${f.count} ${f.kind} answered ${f.cls}${f.code === undefined ? '' : ` ${f.code}`}, e.g. ${f.example}`);
    return `<tr><td>${esc(n)}</td><td class="${status === 'served' ? 'pass' : 'fail'}">${esc(status)}</td>${ENTRY_KINDS.map((k) => `<td>${c.kinds[k]}</td>`).join('')}<td class="${c.entries && isDegenerate(c) ? 'fail' : ''}">${c.distinct}</td><td>${c.compared}</td><td>${esc([...Object.entries(c.rejected ?? {}).map(([why, k]) => `${k} ${why}`), ...(c.aboveTargetHead ? [`${c.aboveTargetHead.count} above the target's own head (its lag), e.g. ${c.aboveTargetHead.example}`] : [])].join(', ') || '–')}</td><td class="${findings.length ? 'fail' : ''}">${esc([c.reason ?? '', ...findings].filter(Boolean).join('; ') || '–')}</td></tr>`;
  });
  return `<h2>Corpus per method</h2>
<p class="muted">What each method's figures rest on: entries per kind (hit: a value is due; empty and miss: null; revert: error 3), distinct requests (fewer than 3, marked, measure a cache rather than a method), answers compared with the one recorded at sampling${r.corpus.finalBlock ? ` (by hash, and by number up to the final block ${esc(r.corpus.finalBlock)}; an estimate at a final block within ${ESTIMATE_SPREAD * 100}% of it)` : ' (by hash)'}, candidates sampling left out, and answers that contradicted their entry's kind.</p>
<div class="scroll"><table><tr><th>method</th><th>status</th>${ENTRY_KINDS.map((k) => `<th>${k}</th>`).join('')}<th>distinct</th><th>compared</th><th>left out</th><th>findings</th></tr>
${rows.join('\n')}
</table></div>${((lag) => (lag ? `\n<p>${esc(lag)}.</p>` : ''))(samplingLag(r.corpus))}`;
}

function headLine(r: LoadReport): string {
  const h = r.head;
  if (h.regressions === 0) return `<p>Head freshness: eth_blockNumber checked ${h.checks} times, never went back.</p>`;
  return `<p class="fail">Head freshness: eth_blockNumber went back ${h.regressions} times (up to ${h.deepestBlocks} blocks) in ${h.checks} checks${h.sample ? `, e.g. ${esc(h.sample)}` : ''}.</p>`;
}

/** The head lag against the reference (docs/load.md, "Head lag against a reference"): figures, and the lag over time. */
function headLagSection(r: LoadReport): string {
  const h = r.headLag;
  if (!h) return '';
  const title = `<h2>Head lag against the reference (limit ${h.maxLagSec} s${h.maxLagBlocks === undefined ? '' : ` and ${h.maxLagBlocks} blocks on ${h.blockTimeSec ?? '?'} s blocks`})</h2>`;
  if (h.notJudged !== undefined) return `${title}<p class="muted">Not judged (${esc(h.notJudged)}).</p>`;
  const s = h.seconds;
  const over = lagBeyond(h);
  const beyond = over.seconds || over.blocks;
  const cls = beyond ? 'fail' : h.inconclusive !== undefined ? 'inconclusive' : 'pass';
  const row = (name: string, f: typeof s, unit: string) => `<tr><td>${name}</td><td>${f ? `${f.p50} ${unit}` : '–'}</td><td>${f ? `${f.p95} ${unit}` : '–'}</td><td>${f ? `${f.max} ${unit}` : '–'}</td></tr>`;
  const behind = h.referenceBehind;
  const unjudged = Object.entries(h.unjudged ?? {}).map(([why, n]) => `<li>${esc(why)} × ${n}</li>`).join('');
  const points = h.timeline ?? [];
  // The limit spans the whole sampling, so a stretch with no judged sample shows as a gap in the lag's line.
  const limitLine = points.length ? [{ name: `limit ${h.maxLagSec} s`, color: '#999', dashed: true, points: [[0, h.maxLagSec], [Math.max(h.durationSec ?? 0, points.at(-1)?.t ?? 0), h.maxLagSec]] as Array<[number, number]> }] : [];
  return `${title}
<p class="${cls}">${beyond ? `Beyond the limit: the endpoint trailed the reference by up to ${s?.max ?? '?'} s and ${h.blocks?.max ?? '?'} blocks${h.worst ? `; ${esc(h.worst)}` : ''}.` : h.inconclusive !== undefined ? `Not judged: ${esc(h.inconclusive)}.` : `Within the limit in ${h.judged ?? 0} samples.`}</p>
<p class="muted">Sampled every ${h.periodSec ?? '–'} s beside k6: the reference's eth_blockNumber, the endpoint's, the reference's again. Blocks: the reference's first head above the endpoint's; seconds: how long the reference had already shown the first block the endpoint lacked. ${h.judged ?? 0} of ${h.samples ?? 0} samples judged.</p>
<div class="scroll"><table><tr><th>head lag</th><th>p50</th><th>p95</th><th>max</th></tr>${row('seconds', s, 's')}${row('blocks', h.blocks, 'blocks')}</table></div>
${behind?.samples ? `<p>The reference trailed the endpoint in ${behind.samples} samples (up to ${behind.maxBlocks} blocks, ${behind.maxSec} s): reported, not blamed on the endpoint${behind.sample ? `; ${esc(behind.sample)}` : ''}.</p>` : ''}
${unjudged ? `<p>Samples not judged:</p><ul>${unjudged}</ul>` : ''}
<h3>Head lag over time</h3>
${lineChart({
  series: [
    { name: 'endpoint behind the reference (s)', color: '#d62728', points: points.map((p): [number, number] => [p.t, p.lagSec]) },
    { name: 'reference behind the endpoint (s)', color: '#1f77b4', points: points.map((p): [number, number] => [p.t, p.referenceBehindSec]) },
    ...limitLine,
  ],
  xLabel: 'seconds from the sampler\'s start (highest per period)',
  yLabel: 'head lag s',
  height: 220,
})}
<p class="legend"><span><i style="background:#d62728"></i>endpoint behind the reference</span><span><i style="background:#1f77b4"></i>reference behind the endpoint</span><span><i style="background:#999"></i>limit (dashed)</span></p>`;
}

/** Latency and failures by depth: one table, a row per method and stratum (not served: pruned at sampling, never failures). */
function depthSection(r: LoadReport): string {
  const rows = Object.entries(r.methods).flatMap(([n, m]) =>
    (m.depth ?? []).map((d) =>
      d.notServed
        ? `<tr><td>${esc(n)}</td><td>${esc(d.stratum)}</td><td colspan="5" class="fail">${esc(d.notServed)}</td></tr>`
        : `<tr><td>${esc(n)}</td><td>${esc(d.stratum)}</td><td>${d.requests}</td><td>${d.latencyMs?.p50 ?? '-'}</td><td>${d.latencyMs?.p90 ?? '-'}</td><td>${d.latencyMs?.p99 ?? '-'}</td><td>${(d.failureRate * 100).toFixed(2)}%</td></tr>`,
    ),
  );
  if (!rows.length) return '';
  const sampled = (r.corpus.depth ?? []).map((d) => `${d.stratum}: ${d.blocks} block(s)${d.pruned ? `, ${d.pruned} pruned` : ''}`).join('; ');
  return `<h2>By depth: what cold history costs</h2><p>Hits by how far back their block is (head: the latest 128 blocks; then 128, 1k, 10k, 100k and 1M blocks back). Blocks sampled: ${esc(sampled || 'not recorded')}.</p><div class="scroll"><table><tr><th>method</th><th>depth</th><th>requests</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>failures</th></tr>${rows.join('')}</table></div>`;
}

function driftSection(r: LoadReport): string {
  if (!r.drift) return '';
  const rows = Object.entries(r.drift).map(
    ([n, d]) => `<tr><td>${esc(n)}</td><td>${d.startP95Ms}</td><td>${d.endP95Ms}</td><td>${d.ratio}</td><td class="${d.drifted ? 'fail' : 'pass'}">${d.drifted ? 'drifted' : 'stable'}</td></tr>`,
  );
  return `<h2>Drift (p95, first vs last tenth of the run)</h2><div class="scroll"><table><tr><th>method</th><th>start ms</th><th>end ms</th><th>ratio</th><th></th></tr>${rows.join('')}</table></div>`;
}

function baselineSection(r: LoadReport): string {
  const b = r.baseline;
  if (!b) return '';
  const label = (c: (typeof b.checks)[number]) => c.judgement ?? (c.ok ? 'pass' : 'regressed');
  const css = (j: string) => (j === 'regressed' ? 'fail' : j === 'held' || j === 'pass' ? 'pass' : 'inconclusive');
  const rows = b.checks.map((c) => `<tr><td>${esc(describeCheck(c))}</td><td class="${css(label(c))}">${esc(label(c))}</td></tr>`);
  const methods = Object.entries(b.outcome?.methods ?? {}).map(([m, o]) => `<tr><td>${esc(m)}</td><td class="${css(o.verdict)}">${esc(o.verdict)}</td><td>${esc(o.why ?? '')}</td></tr>`);
  const how = b.outcome ? `<p>A comparison regressed when the interval of current over baseline lies above x${1 + b.tolerance} (false alarms at most ${(b.familyAlpha ?? 0) * 100}% a run, over all its comparisons), held when it lies below, and is unclear across it; unjudgeable when the runs are too small or noisy to tell. ${esc(b.spread ?? '')}.</p><div class="scroll"><table><tr><th>method</th><th>verdict</th><th></th></tr>${methods.join('')}</table></div>` : '';
  return `<h2>Against the baseline ${esc(b.file)} (tolerance ${b.tolerance * 100}%)</h2>${b.note ? `<p>${esc(b.note)}.</p>` : ''}${how}<div class="scroll"><table>${rows.join('')}</table></div>`;
}
