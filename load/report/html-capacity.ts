// The capacity section of load.html: per subject, every step's figures and the highest rate within the
// SLO, and charts of latency and success against the offered rate.
import { escapeHtml as esc } from '../../core/inert.ts';
import { lineChart, PALETTE, type Series } from './svg.ts';
import type { CapacityStep, LoadReport } from '../shared/load-report.ts';

const VERDICT = { within: 'within the SLO', slo: 'SLO broken by the endpoint', generator: 'generator-bound (not the endpoint)' };

export function capacitySection(r: LoadReport): string {
  if (!r.capacity) return '';
  const subjects = Object.entries(r.capacity);
  const slo = r.plan.slo;
  const series = (value: (s: CapacityStep) => number | null): Series[] =>
    subjects.map(([name, c], i) => ({
      name,
      color: PALETTE[i % PALETTE.length] ?? '#000',
      points: c.steps.flatMap((s): Array<[number, number]> => {
        const v = value(s);
        return v === null ? [] : [[s.offeredRps, v]];
      }),
    }));
  // The SLO's own figure as a dashed line across each chart: where a method's line crosses it, the knee.
  const xMax = Math.max(0, ...subjects.flatMap(([, c]) => c.steps.map((s) => s.offeredRps)));
  const sloLine = (name: string, value: number): Series[] => (xMax > 0 ? [{ name, color: '#999', dashed: true, points: [[0, value], [xMax, value]] }] : []);
  const legend = `<p class="legend">${subjects.map(([n], i) => `<span><i style="background:${PALETTE[i % PALETTE.length]}"></i>${esc(n)}</span>`).join('')}<span><i style="background:#999"></i>the SLO (dashed)</span></p>`;
  const summary = subjects.map(
    ([n, c]) =>
      `<tr><td>${esc(n)}</td><td><b>${c.sustainableRps}</b></td><td class="${c.confidence === 'confirmed' ? 'pass' : 'muted'}">${esc(c.confidence)}</td><td>${c.steps.length}</td><td class="text ${c.limitedBy === 'endpoint' ? 'fail' : 'muted'}">${esc(c.throttledAtRps !== undefined ? `THROTTLED at ~${c.throttledAtRps} rps by the key's rate limit, not a latency knee: ${limit(c.limitedBy, c.steps.at(-1))}` : limit(c.limitedBy, c.steps.at(-1)))}</td></tr>`,
  );
  const steps = subjects.flatMap(([n, c]) =>
    c.steps.map(
      (s) =>
        `<tr class="${s.verdict === 'generator' ? 'muted' : ''}"><td>${esc(n)}</td><td>${s.offeredRps}${s.repeat ? ' (repeated)' : ''}</td><td>${s.achievedRps}</td><td>${s.p50Ms ?? '–'}</td><td>${s.p99Ms ?? '–'}</td><td>${(s.successRate * 100).toFixed(2)}%</td><td>${(s.droppedShare * 100).toFixed(2)}%</td><td>${s.cpuCores ?? '–'}</td><td class="text ${s.verdict === 'slo' ? 'fail' : s.verdict === 'within' ? 'pass' : ''}">${esc(VERDICT[s.verdict])}${s.reason ? `: ${esc(s.reason)}` : ''}</td></tr>`,
    ),
  );
  return `<h2>Capacity (SLO: p99 ≤ ${slo.p99Ms} ms, success ≥ ${round((1 - slo.maxFailureRate) * 100)}%, not started ≤ ${round(slo.maxDroppedShare * 100)}%)</h2>
<p class="muted">One k6 run per step, stopped at the first step not within the SLO, which is run once more to confirm it (confirmed: it broke the SLO twice; unsteady: it held the second time, and the steps went on); "Per method" above shows each scenario's highest step within it.</p>
<div class="scroll"><table><tr><th>scenario</th><th>knee: highest rate within the SLO (rps)</th><th>confidence</th><th>steps</th><th class="text">what ended the steps</th></tr>${summary.join('')}</table></div>
<h3>p99 latency against the offered rate</h3>
${lineChart({ series: [...series((s) => s.p99Ms), ...sloLine(`SLO p99 ${slo.p99Ms} ms`, slo.p99Ms)], xLabel: 'offered requests/s', yLabel: 'p99 ms' })}
${legend}
<h3>Success against the offered rate</h3>
${lineChart({ series: [...series((s) => round(s.successRate * 100)), ...sloLine(`SLO success ${round((1 - slo.maxFailureRate) * 100)}%`, round((1 - slo.maxFailureRate) * 100))], xLabel: 'offered requests/s', yLabel: 'success %' })}
${legend}
<div class="scroll"><table><tr><th>scenario</th><th>offered rps</th><th>achieved rps</th><th>p50 ms</th><th>p99 ms</th><th>success</th><th>not started</th><th>k6 cores</th><th class="text">step</th></tr>${steps.join('')}</table></div>`;
}

function limit(by: 'endpoint' | 'generator' | 'steps', last: CapacityStep | undefined): string {
  if (by === 'steps') return 'the last step was within the SLO: raise --max-steps or --step-rate';
  return `${by === 'endpoint' ? 'the endpoint broke the SLO' : 'the generator could not offer more (run --segments or k8s)'} at ${last?.offeredRps} rps${last?.reason ? `: ${last.reason}` : ''}`;
}

const round = (x: number) => Math.round(x * 100) / 100;
