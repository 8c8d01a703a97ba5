// A baseline: one load.json, or a directory of runs of one test that `rpc-certify baseline add` keeps (baseline.json
// lists them), so the gate sees how much runs of an unchanged release differ before it calls a difference a regression.
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type BaselineRuns, incompleteness, SPREAD_WIDENING, shapeDifferences, shapeOf } from '../report/compare.ts';
import { readReport } from '../report/report.ts';
import { failedOnItsOwn } from '../report/verdict.ts';
import { writeFileAtomic } from '../../core/node/atomic.ts';
import type { LoadReport } from '../shared/load-report.ts';

export const BASELINE_INDEX = 'baseline.json';

interface BaselineIndex {
  kind: 'rpc-certify-baseline';
  version: 1;
  /** The runs, as files in the directory, in the order added. */
  runs: Array<{ file: string; createdAt: string; source: string }>;
}

/** Why a report cannot be a baseline's run (or the baseline), if it cannot. */
function unfit(r: LoadReport, which: string): string | undefined {
  return incompleteness(r, which) ?? ((f) => (f ? `${f}: its limits would allow the same failures; give the report of a passing run` : undefined))(failedOnItsOwn(r, which));
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

async function readIndex(dir: string): Promise<BaselineIndex | undefined> {
  const text = await readFile(join(dir, BASELINE_INDEX), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const index = JSON.parse(text) as BaselineIndex;
  if (index.kind !== 'rpc-certify-baseline' || !Array.isArray(index.runs)) throw new Error(`${join(dir, BASELINE_INDEX)} is not a baseline's index`);
  return index;
}

/** A baseline's runs: a load.json alone, or every run a baseline directory lists; each checked as `--baseline` checks one. */
export async function readBaselineRuns(path: string): Promise<BaselineRuns> {
  if (!(await isDirectory(path))) {
    const report = await readReport(path);
    const why = unfit(report, `--baseline ${path}`);
    if (why) throw new Error(why);
    return { file: path, runs: [report] };
  }
  const index = await readIndex(path);
  if (!index?.runs.length) throw new Error(`${path} is a directory with no runs in it: add runs with \`rpc-certify baseline add ${path} <load.json>\``);
  const runs: LoadReport[] = [];
  for (const run of index.runs) {
    const file = join(path, run.file);
    const report = await readReport(file);
    const why = unfit(report, file);
    if (why) throw new Error(why);
    runs.push(report);
  }
  return { file: path, runs };
}

/** Adds a run to a baseline directory (made when missing): refused when it is no baseline, another test, or there already. */
export async function addToBaseline(dir: string, reportPath: string): Promise<{ runs: LoadReport[]; file: string }> {
  const report = await readReport(reportPath);
  const why = unfit(report, reportPath);
  if (why) throw new Error(why);
  if (Object.values(report.methods).some((m) => m.latencyMs && !m.gate)) throw new Error(`${reportPath} was written before load reports kept their latency histograms: the gate could judge none of its figures; run the test again`);
  if (await isDirectory(reportPath)) throw new Error(`${reportPath} is a directory: give a load.json`);
  await mkdir(dir, { recursive: true });
  const index = (await readIndex(dir)) ?? { kind: 'rpc-certify-baseline', version: 1, runs: [] };
  const runs: LoadReport[] = [];
  for (const run of index.runs) runs.push(await readReport(join(dir, run.file)));
  const first = runs[0];
  if (first) {
    const differences = shapeDifferences(shapeOf(first), shapeOf(report));
    if (differences.length) throw new Error(`${reportPath} is not the same test as the baseline's runs (${differences.join('; ')}): a baseline holds runs of one test`);
  }
  // The same run twice would show less spread between runs than there is.
  if (runs.some((r) => r.createdAt === report.createdAt)) throw new Error(`${reportPath} is already in ${dir} (a run written at ${report.createdAt})`);
  const file = `run-${String(index.runs.length + 1).padStart(3, '0')}.json`;
  await copyFile(reportPath, join(dir, file));
  index.runs.push({ file, createdAt: report.createdAt, source: basename(reportPath) });
  await writeFileAtomic(join(dir, BASELINE_INDEX), `${JSON.stringify(index, null, 2)}\n`);
  return { runs: [...runs, report], file };
}

/** What a baseline's runs say of drift: how many, and how far apart their p95s are per method (the largest over the smallest). */
export function spreadText(runs: readonly LoadReport[]): string {
  if (runs.length < 2) return '1 run: the gate cannot tell drift between runs from a regression (add runs with `rpc-certify baseline add`)';
  const methods = Object.keys(runs[0]?.methods ?? {});
  const spreads = methods.flatMap((m) => {
    const p95 = runs.map((r) => r.methods[m]?.latencyMs?.p95).filter((v): v is number => v !== undefined && v > 0);
    return p95.length === runs.length ? [`${m} ${Math.round((Math.max(...p95) / Math.min(...p95) - 1) * 100)}%`] : [];
  });
  const widened = SPREAD_WIDENING[runs.length];
  return `${runs.length} runs${widened ? ` (fewer than 5: their spread is widened x${widened})` : ''}; p95 spread between runs (largest over smallest): ${spreads.join(', ')}`;
}
