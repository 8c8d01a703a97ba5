// load.json's head-lag section from the sampler's record (run/head-lag.ts): the lag's figures in blocks and seconds,
// the reference's own lag behind the endpoint, and whether the samples can judge the run at all. verdict.ts decides
// from this section alone. Pure.
import type { HeadLag, HeadLagPoint, LagFigures } from '../shared/load-report.ts';
import type { HeadLagRecord, HeadLagSample } from '../shared/measurement.ts';
import { round } from '../shared/summary.ts';
import { blocksJudged, type LagAllowance } from '../../core/head-lag.ts';

/** The default limit on the head lag, in seconds: one fact, shared with conformance (core/head-lag.ts says why 5 s). */
export { DEFAULT_MAX_HEAD_LAG_BLOCKS, DEFAULT_MAX_HEAD_LAG_S } from '../../core/head-lag.ts';

export const NO_REFERENCE = 'no --reference-url';

type Judged = HeadLagSample & Required<Pick<HeadLagSample, 'lagBlocks' | 'lagSec' | 'referenceBehindBlocks' | 'referenceBehindSec' | 'endpoint' | 'reference'>>;
const isJudged = (s: HeadLagSample): s is Judged => s.unjudged === undefined && s.lagSec !== undefined;

/** `timelineSec`: the report's timeline period, the chart's resolution (no coarser than the sampling). */
export function headLagReport(record: HeadLagRecord | undefined, allowance: LagAllowance, timelineSec: number): HeadLag {
  const maxLagSec = allowance.seconds;
  if (!record) return { maxLagSec, notJudged: NO_REFERENCE };
  const judged = record.samples.filter(isJudged);
  const blockTimeSec = blockTime(judged);
  const unjudged: Record<string, number> = {};
  for (const s of record.samples) if (s.unjudged !== undefined) unjudged[s.unjudged] = (unjudged[s.unjudged] ?? 0) + 1;
  const worst = judged.reduce<Judged | undefined>((w, s) => (!w || s.lagSec > w.lagSec ? s : w), undefined);
  const behind = judged.filter((s) => s.referenceBehindBlocks > 0);
  const behindWorst = behind.reduce<Judged | undefined>((w, s) => (!w || s.referenceBehindSec > w.referenceBehindSec ? s : w), undefined);
  const report: HeadLag = {
    maxLagSec,
    ...(blockTimeSec === undefined ? {} : { blockTimeSec: round(blockTimeSec, 3) }),
    // The block allowance holds on a chain of 1 s blocks or slower only (core/head-lag.ts).
    ...(blocksJudged(blockTimeSec) ? { maxLagBlocks: allowance.blocks } : {}),
    periodSec: record.periodSec,
    durationSec: record.durationSec,
    samples: record.samples.length,
    judged: judged.length,
    blocks: figures(judged.map((s) => s.lagBlocks)),
    seconds: figures(judged.map((s) => s.lagSec)),
    ...(worst && worst.lagBlocks > 0 ? { worst: describe(worst) } : {}),
    referenceBehind: {
      samples: behind.length,
      maxBlocks: Math.max(0, ...behind.map((s) => s.referenceBehindBlocks)),
      maxSec: Math.max(0, ...behind.map((s) => s.referenceBehindSec)),
      ...(behindWorst ? { sample: `at ${behindWorst.t} s the reference showed block ${behindWorst.reference[1]} while the endpoint had shown ${behindWorst.endpoint} for ${behindWorst.referenceBehindSec} s` } : {}),
    },
    unjudged,
    timeline: timeline(judged, Math.max(timelineSec, record.periodSec)),
  };
  const why = inconclusive(record, judged, report, maxLagSec);
  return why ? { ...report, inconclusive: why } : report;
}

/**
 * Why the samples cannot judge the run: none judged; a stretch with no judged sample longer than the limit (a lag that
 * came and went there is unseen: the reference failed or stopped answering, most often); or a reference itself behind
 * the endpoint beyond the limit (it cannot show whether the endpoint keeps up; not blamed on the endpoint).
 */
function inconclusive(record: HeadLagRecord, judged: Judged[], report: HeadLag, maxLagSec: number): string | undefined {
  const failures = (from: number, to: number) => {
    const counted = new Map<string, number>();
    for (const s of record.samples) if (s.unjudged !== undefined && s.t >= from && s.t <= to) counted.set(s.unjudged, (counted.get(s.unjudged) ?? 0) + 1);
    const shown = [...counted].sort(([, a], [, b]) => b - a).slice(0, 3).map(([why, n]) => `${why} (${n}×)`);
    return shown.length ? shown.join('; ') : 'no sample taken';
  };
  if (judged.length === 0) return `no head-lag sample could be judged in ${record.durationSec} s: ${failures(0, Infinity)}`;
  const limit = Math.max(3 * record.periodSec, maxLagSec);
  const times = [0, ...judged.map((s) => s.t), record.durationSec];
  let gap = { from: 0, to: 0 };
  for (let i = 1; i < times.length; i++) {
    const [from, to] = [times[i - 1] ?? 0, times[i] ?? 0];
    if (to - from > gap.to - gap.from) gap = { from, to };
  }
  if (gap.to - gap.from > limit) {
    return `no head-lag sample judged for ${round(gap.to - gap.from, 1)} s (from ${gap.from} s to ${gap.to} s of ${record.durationSec} s; more than ${limit} s): ${failures(gap.from, gap.to)}`;
  }
  const behind = report.referenceBehind;
  if (behind && behind.maxSec > maxLagSec) {
    return `the reference was itself behind the endpoint, by up to ${behind.maxBlocks} blocks and ${behind.maxSec} s (more than the ${maxLagSec} s limit): it cannot show whether the endpoint keeps up (not blamed on the endpoint)${behind.sample ? `; ${behind.sample}` : ''}`;
  }
  return undefined;
}

/** The reference's block interval over the judged samples (its head's rise over their span), when it rose. */
function blockTime(judged: Judged[]): number | undefined {
  const [first, last] = [judged[0], judged.at(-1)];
  if (!first || !last) return undefined;
  const rise = last.reference[1] - first.reference[0];
  return rise > 0 && last.t > first.t ? (last.t - first.t) / rise : undefined;
}

function describe(s: Judged): string {
  return `at ${s.t} s the endpoint was at block ${s.endpoint} while the reference showed ${s.reference[0]}: ${s.lagBlocks} block${s.lagBlocks === 1 ? '' : 's'} behind, ${s.lagSec} s after the reference showed block ${s.endpoint + 1}`;
}

/** Nearest-rank percentiles: every sample is kept, so they are exact. */
function figures(values: number[]): LagFigures | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
  return { p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? 0 };
}

/** The highest figures per period, for the chart. */
function timeline(judged: Judged[], periodSec: number): HeadLagPoint[] {
  const points = new Map<number, HeadLagPoint>();
  for (const s of judged) {
    const t = round(Math.max(1, Math.ceil(s.t / periodSec)) * periodSec, 3);
    const p = points.get(t) ?? { t, lagSec: 0, lagBlocks: 0, referenceBehindSec: 0 };
    points.set(t, { t, lagSec: Math.max(p.lagSec, s.lagSec), lagBlocks: Math.max(p.lagBlocks, s.lagBlocks), referenceBehindSec: Math.max(p.referenceBehindSec, s.referenceBehindSec) });
  }
  return [...points.values()].sort((a, b) => a.t - b.t);
}

/** Whether the judged samples went beyond the limit: in seconds, or in blocks where the block limit holds (maxLagBlocks set). */
export function lagBeyond(h: Pick<HeadLag, 'seconds' | 'blocks' | 'maxLagSec' | 'maxLagBlocks'>): { seconds: boolean; blocks: boolean } {
  return { seconds: !!h.seconds && h.seconds.max > h.maxLagSec, blocks: !!h.blocks && h.maxLagBlocks !== undefined && h.blocks.max > h.maxLagBlocks };
}
