// Inline SVG charts for load.html: no script, no external asset, readable offline and in a CI artifact.
import { escapeHtml } from '../../core/inert.ts';

export interface Series {
  name: string;
  color: string;
  points: Array<[number, number]>;
  dashed?: boolean;
}

export interface Bar {
  name: string;
  value: number;
  color: string;
}

/** One colour per series (method), in order. */
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf', '#8c564b', '#e377c2', '#7f7f7f'];

const W = 900;
const M = { top: 16, right: 16, bottom: 36, left: 64 };

/** Lines over a shared x axis (time), y from 0. */
export function lineChart(opts: { series: Series[]; xLabel: string; yLabel: string; height?: number }): string {
  const h = opts.height ?? 260;
  const all = opts.series.flatMap((s) => s.points);
  if (all.length === 0) return '<p class="muted">no data</p>';
  const xMax = Math.max(...all.map(([x]) => x), 1);
  const yMax = niceMax(Math.max(...all.map(([, y]) => y)));
  const x = (v: number) => M.left + (v / xMax) * (W - M.left - M.right);
  const y = (v: number) => h - M.bottom - (v / yMax) * (h - M.top - M.bottom);
  const lines = opts.series
    .filter((s) => s.points.length > 0)
    .map((s) => {
      const d = s.points.map(([px, py], i) => `${i ? 'L' : 'M'}${x(px).toFixed(1)},${y(py).toFixed(1)}`).join('');
      return `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.6"${s.dashed ? ' stroke-dasharray="5 4"' : ''}><title>${escapeHtml(s.name)}</title></path>`;
    });
  return svg(h, [...axes(h, xMax, yMax, x, y, opts.xLabel, opts.yLabel), ...lines]);
}

/** Horizontal bars, one group per label (e.g. p50/p95/p99 per method). */
export function groupedBars(opts: { groups: Array<{ label: string; bars: Bar[] }>; unit: string }): string {
  const barH = 9;
  const groupH = Math.max(...opts.groups.map((g) => g.bars.length), 1) * barH + 10;
  const h = M.top + opts.groups.length * groupH + M.bottom;
  const left = 300;
  const xMax = niceMax(Math.max(...opts.groups.flatMap((g) => g.bars.map((b) => b.value)), 0));
  const x = (v: number) => left + (v / xMax) * (W - left - M.right - 70);
  const parts = opts.groups.flatMap((g, gi) => {
    const top = M.top + gi * groupH;
    return [
      `<text x="${left - 8}" y="${top + groupH / 2}" text-anchor="end" dominant-baseline="middle">${escapeHtml(g.label)}</text>`,
      ...g.bars.map((b, bi) => {
        const by = top + bi * barH;
        return `<rect x="${left}" y="${by}" width="${(x(b.value) - left).toFixed(1)}" height="${barH - 1}" fill="${b.color}"><title>${escapeHtml(`${g.label} ${b.name}: ${b.value} ${opts.unit}`)}</title></rect><text x="${x(b.value) + 4}" y="${by + barH / 2}" dominant-baseline="middle" class="small">${b.value}</text>`;
      }),
    ];
  });
  return svg(h, [`<line x1="${left}" y1="${M.top}" x2="${left}" y2="${h - M.bottom}" class="axis"/>`, `<text x="${left}" y="${h - 10}" class="small">0 … ${xMax} ${escapeHtml(opts.unit)}</text>`, ...parts]);
}

/** One 100% bar per label, split into parts (e.g. outcome classes per method). */
export function stackedBars(rows: Array<{ label: string; parts: Bar[] }>): string {
  const rowH = 22;
  const left = 300;
  const h = M.top + rows.length * rowH + 8;
  const parts = rows.flatMap((r, ri) => {
    const total = r.parts.reduce((a, p) => a + p.value, 0) || 1;
    let at = left;
    const y = M.top + ri * rowH;
    return [
      `<text x="${left - 8}" y="${y + rowH / 2}" text-anchor="end" dominant-baseline="middle">${escapeHtml(r.label)}</text>`,
      ...r.parts
        .filter((p) => p.value > 0)
        .map((p) => {
          const w = (p.value / total) * (W - left - M.right);
          const rect = `<rect x="${at.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${rowH - 4}" fill="${p.color}"><title>${escapeHtml(`${r.label} ${p.name}: ${p.value} (${((p.value / total) * 100).toFixed(1)}%)`)}</title></rect>`;
          at += w;
          return rect;
        }),
    ];
  });
  return svg(h, parts);
}

function axes(h: number, xMax: number, yMax: number, x: (v: number) => number, y: (v: number) => number, xLabel: string, yLabel: string): string[] {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return [
    `<line x1="${M.left}" y1="${h - M.bottom}" x2="${W - M.right}" y2="${h - M.bottom}" class="axis"/>`,
    `<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${h - M.bottom}" class="axis"/>`,
    ...ticks.map((t) => `<line x1="${M.left}" x2="${W - M.right}" y1="${y(t * yMax)}" y2="${y(t * yMax)}" class="grid"/><text x="${M.left - 6}" y="${y(t * yMax)}" text-anchor="end" dominant-baseline="middle" class="small">${fmt(t * yMax)}</text>`),
    ...ticks.map((t) => `<text x="${x(t * xMax)}" y="${h - M.bottom + 14}" text-anchor="middle" class="small">${fmt(t * xMax)}</text>`),
    `<text x="${(W + M.left) / 2}" y="${h - 4}" text-anchor="middle" class="small">${escapeHtml(xLabel)}</text>`,
    `<text x="12" y="${(h - M.bottom) / 2}" transform="rotate(-90 12 ${(h - M.bottom) / 2})" text-anchor="middle" class="small">${escapeHtml(yLabel)}</text>`,
  ];
}

function svg(h: number, parts: string[]): string {
  return `<svg viewBox="0 0 ${W} ${h}" width="100%" role="img" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}

/** 1, 2 or 5 times a power of ten, at or above v. */
function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

function fmt(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(v < 10 ? 2 : 1);
}
