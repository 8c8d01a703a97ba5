// A baseline: one load.json, or a directory of runs of one test that `rpc-certify baseline add` keeps (baseline.json
// lists them), so the gate sees how much runs of an unchanged release differ before it calls a difference a regression.
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { incompleteness, SPREAD_WIDENING, shapeDifferences, shapeOf } from '../report/compare.ts';
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

/** Why a baseline's runs cannot serve, if one cannot: an incomplete run (its figures cover part of the test), or a
 * failed one (its limits would allow the same failures); `label` names a run as the caller's messages do. */
export function baselineFault(runs: ReadonlyArray<{ report: LoadReport; file: string }>, label: (file: string) => string): { incomplete?: string; failed?: string } {
  for (const { report, file } of runs) {
    const incomplete = incompleteness(report, label(file));
    if (incomplete) return { incomplete };
  }
  for (const { report, file } of runs) {
    const failed = failedOnItsOwn(report, label(file));
    if (failed) return { failed };
  }
  return {};
}

/** A report written before load reports kept their latency histograms: the gate can judge none of its percentiles. */
function lacksHistograms(r: LoadReport): boolean {
  return Object.values(r.methods).some((m) => m.latencyMs && !m.gate);
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

async function readIndex(dir: string): Promise<BaselineIndex | undefined> {
  const text = await readFile(join(dir, BASELINE_INDEX), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  let index: BaselineIndex;
  try {
    index = JSON.parse(text) as BaselineIndex;
  } catch (e) {
    throw new Error(`${join(dir, BASELINE_INDEX)} is not JSON (${(e as Error).message}): not a baseline's index`);
  }
  if (index?.kind !== 'rpc-certify-baseline' || !Array.isArray(index.runs) || index.runs.some((r) => typeof r?.file !== 'string' || basename(r.file) !== r.file)) {
    throw new Error(`${join(dir, BASELINE_INDEX)} is not a baseline's index (written by rpc-certify baseline add)`);
  }
  return index;
}

/** A baseline's runs, each with its file: a load.json alone, or every run a baseline directory lists. */
export async function readBaselineRuns(path: string): Promise<Array<{ report: LoadReport; file: string }>> {
  if (!(await isDirectory(path))) return [{ report: await readReport(path), file: path }];
  const index = await readIndex(path);
  if (!index?.runs.length) throw new Error(`a directory with no runs in it: add runs with \`rpc-certify baseline add ${path} <load.json>\``);
  const runs: Array<{ report: LoadReport; file: string }> = [];
  for (const run of index.runs) {
    const file = join(path, run.file);
    runs.push({ report: await readReport(file).catch((e: unknown) => Promise.reject(new Error(`${file}: ${(e as Error).message}`))), file });
  }
  // Checked again here, not only by baseline add: an index edited by hand is read the same way.
  const twice = runs.find((r, i) => runs.findIndex((o) => o.report.createdAt === r.report.createdAt) !== i);
  if (twice) throw new Error(`${join(path, BASELINE_INDEX)} lists one run twice (${twice.file}, written at ${twice.report.createdAt}): the same run twice would show less spread than there is`);
  const old = runs.find((r) => lacksHistograms(r.report));
  if (old) throw new Error(`${old.file} was written before load reports kept their latency histograms: a baseline of several runs needs them; run it again`);
  return runs;
}

/** Adds a run to a baseline directory (made when missing): refused when it is no baseline, another test, or there already. */
export async function addToBaseline(dir: string, reportPath: string): Promise<{ runs: LoadReport[]; file: string }> {
  if (await isDirectory(reportPath)) throw new Error(`${reportPath} is a directory: give a load.json`);
  const report = await readReport(reportPath).catch((e: unknown) => Promise.reject(new Error(`${reportPath}: ${(e as Error).message}`)));
  const fault = baselineFault([{ report, file: reportPath }], (f) => f);
  if (fault.incomplete) throw new Error(`${fault.incomplete}: add the report of a completed run`);
  if (fault.failed) throw new Error(`${fault.failed}: its limits would allow the same failures; add the report of a passing run`);
  if (lacksHistograms(report)) throw new Error(`${reportPath} was written before load reports kept their latency histograms: the gate could judge none of its figures; run the test again`);
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
