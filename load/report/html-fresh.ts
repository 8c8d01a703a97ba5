// load.html's fresh-reads section (docs/load.md, "Fresh reads"): stale reads per method, the time from announcement to
// visible, and both over time from the timeline's periods.
import { escapeHtml as esc } from '../../core/inert.ts';
import { lineChart, PALETTE, type Series } from './svg.ts';
import type { LoadReport } from '../shared/load-report.ts';
import { reorgText } from './text.ts';
import type { FreshMethod, FreshPeriod } from '../shared/freshness.ts';

export function freshSection(r: LoadReport): string {
  const why = r.freshChase ? `<p>Fresh reads ${r.freshChase.chased ? 'chased' : '<strong>not chased</strong>'}: ${esc(r.freshChase.why)}.</p>` : '';
  if (!r.freshness) return why && `<h2>Fresh reads</h2>${why}`;
  const names = Object.keys(r.freshness.methods);
  const rows = Object.entries(r.freshness.methods).map(([m, f]) => {
    const v = f.visibleMs;
    // Nothing judged (only `latest` answers naming no block): no stale figure to colour as held.
    const stale = f.requests || f.stale ? `<td class="${f.stale ? 'fail' : 'pass'}">${f.stale} (${(f.staleRate * 100).toFixed(2)}%)</td>` : '<td>–</td>';
    return `<tr><td>${esc(m)}</td><td>${f.requests}</td>${stale}<td>${f.latestBehind}</td><td>${f.wrong ?? '–'}</td><td>${f.reorged}</td><td>${f.failed ?? '–'}</td><td>${f.notJudgeable ?? '–'}</td><td>${v ? `${v.p50} / ${v.p95} / ${v.max}` : '–'}</td><td>${esc(f.staleSample ?? '–')}</td></tr>`;
  });
  return `<h2>Fresh reads (head chased; grace ${r.freshness.graceMs} ms)</h2>${why}<div class="scroll"><table><tr><th>method</th><th>fresh requests</th><th>stale</th><th>latest behind</th><th>of them wrong</th><th>reorged</th><th>failed requests</th><th>latest not judgeable against the head</th><th>visible ms p50 / p95 / max</th><th>first stale read</th></tr>${rows.join('')}</table></div>
<p>${esc(reorgText(r.freshness))}.</p>
${freshOverTime(r, names)}`;
}

/** Announcement to visible per period (p95 solid, max dashed) and stale reads per period, one colour a method. */
function freshOverTime(r: LoadReport, names: string[]): string {
  const periods = r.timeline.points.filter((p) => p.fresh !== undefined);
  if (periods.length === 0) return '<p class="muted">No fresh-read figures per period (the timeline was not recorded).</p>';
  const color = (n: string) => PALETTE[names.indexOf(n) % PALETTE.length] ?? '#000';
  const of = (p: (typeof periods)[number], n: string): FreshPeriod | undefined => p.fresh?.[n as FreshMethod];
  const visible = names.flatMap((n): Series[] =>
    (['p95', 'max'] as const).map((k) => ({
      name: `${n} ${k}`,
      color: color(n),
      dashed: k === 'max',
      points: periods.flatMap((p): Array<[number, number]> => {
        const v = of(p, n)?.visible;
        return v ? [[p.t, v[k]]] : [];
      }),
    })),
  );
  const staleNames = names.filter((n) => (r.freshness?.methods[n]?.stale ?? 0) > 0 || periods.some((p) => (of(p, n)?.stale ?? 0) > 0));
  const stale: Series[] = staleNames.map((n) => ({ name: `${n} stale`, color: color(n), points: periods.map((p): [number, number] => [p.t, of(p, n)?.stale ?? 0]) }));
  const legend = (shown: string[]) => `<p class="legend">${shown.map((n) => `<span><i style="background:${color(n)}"></i>${esc(n)}</span>`).join('')}</p>`;
  const seen = names.filter((n) => periods.some((p) => of(p, n)?.visible));
  return `<h3>Announcement to visible over time (p95 solid, max dashed)</h3>
${seen.length ? `${lineChart({ series: visible, xLabel: `seconds (one point per ${r.timeline.periodSec} s: the objects first seen in it; within 1%)`, yLabel: 'ms' })}\n${legend(seen)}` : '<p class="muted">No announced block\'s object was seen in any period.</p>'}
<h3>Stale reads over time</h3>
${stale.length ? `${lineChart({ series: stale, xLabel: `seconds (one point per ${r.timeline.periodSec} s)`, yLabel: 'stale reads' })}\n${legend(staleNames)}` : '<p class="pass">No stale read in any period.</p>'}`;
}
