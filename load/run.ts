// One load run, end to end: sample (or replay) the corpus, bundle the scenario, run k6, read what it
// measured, judge it (thresholds, baseline) and write load.json, load.html, load.junit.xml and k6's
// own dashboard next to them. Used by `rpc-certify load` and, after the conformance run, by `start`.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { UsageError } from '../cli/networks.ts';
import { writeFileAtomic } from '../conformance/report/atomic.ts';
import { redact, registerUrlSecrets } from '../core/redact.ts';
import type { Targets } from '../core/targets.ts';
import { ensureK6 } from '../scripts/setup-k6.ts';
import { bundleScenario } from './bundle.ts';
import { compareReports, DEFAULT_TOLERANCE } from './compare.ts';
import type { Corpus } from './corpus.ts';
import { renderHtml } from './html.ts';
import { K6_THRESHOLDS_FAILED, runK6 } from './k6.ts';
import { renderJunit } from './junit.ts';
import { isRpcMethod, METHODS, type RpcMethod } from './methods.ts';
import { buildPlan, type Plan, type Profile } from './profiles.ts';
import { assertReport, buildReport, type LoadReport, readReport, withVerdict } from './report.ts';
import { EndpointError, sampleCorpus } from './sample.ts';
import type { K6Summary } from './summary.ts';
import { summaryText } from './text.ts';
import { parseTimeline } from './timeline.ts';

export interface LoadOptions {
  url: string;
  profile: Profile;
  out: string;
  /** Discovery's or fixtures' targets: uncles and known reverts a walk from the head cannot find. */
  targets?: Partial<Pick<Targets, 'reverts' | 'uncleBlock'>>;
  rate?: number;
  duration?: string;
  methods?: string[];
  seed?: number;
  baseline?: string;
  tolerance?: number;
  /** Replay this corpus file instead of sampling a new one. */
  corpus?: string;
  missShare?: number;
  /** Sample the corpus from this endpoint instead of the target (the target still answers the pre-flight). */
  referenceUrl?: string;
  /** Keep the bundle, k6's raw summary and event record (their directory is printed). */
  keepWork?: boolean;
  log?: (line: string) => void;
}

export interface LoadOutcome {
  exitCode: number;
  reportPaths: string[];
  summary: string;
}

export const DEFAULT_MISS_SHARE = 0.1;
const FILES = { json: 'load.json', html: 'load.html', junit: 'load.junit.xml', dashboard: 'load.k6-dashboard.html', corpus: 'load.corpus.json' };

/** Runs a load test; expected failures (bad options, unusable endpoint, no k6) come back as exit code 2. */
export async function runLoad(opts: LoadOptions): Promise<LoadOutcome> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${redact(line)}\n`));
  registerUrlSecrets(opts.url);
  if (opts.referenceUrl) registerUrlSecrets(opts.referenceUrl);
  try {
    return await run(opts, log);
  } catch (e) {
    if (!(e instanceof UsageError || e instanceof EndpointError || e instanceof ToolError)) throw e;
    const reason = redact(`load: ${e instanceof EndpointError ? 'endpoint not usable: ' : ''}${e.message}`);
    return { exitCode: 2, reportPaths: [], summary: reason };
  }
}

/** k6 missing, unbuildable, or failing for a reason other than thresholds. */
class ToolError extends Error {}

async function run(opts: LoadOptions, log: (line: string) => void): Promise<LoadOutcome> {
  const methods = selectMethods(opts.methods);
  const replayed = opts.corpus ? await readCorpus(opts) : undefined;
  const seed = replayed?.seed ?? opts.seed ?? 1;
  const planFor = (only: RpcMethod[]) => planOrUsageError(() => buildPlan({ profile: opts.profile, methods: only, seed, rate: opts.rate, duration: opts.duration }));
  planFor(methods); // options are checked before anything starts
  const k6 = await ensureK6(log).catch((e: unknown) => {
    throw new ToolError(e instanceof Error ? e.message : String(e));
  });
  const baseline = opts.baseline ? await readReport(opts.baseline).catch((e: unknown) => usage(`--baseline ${opts.baseline}: ${(e as Error).message}`)) : undefined;

  await mkdir(opts.out, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'rpc-certify-load-'));
  try {
    // k6 resolves open() against the script's directory: the corpus path must be absolute.
    const corpusFile = resolve(opts.corpus ?? join(opts.out, FILES.corpus));
    const corpus = replayed ?? (await sampleCorpus({ url: opts.url, referenceUrl: opts.referenceUrl, seed, missShare: opts.missShare ?? DEFAULT_MISS_SHARE, methods, targets: opts.targets }));
    if (!replayed) await writeFileAtomic(corpusFile, JSON.stringify(corpus));
    const askable = methods.filter((m) => corpus.entries[m]?.length);
    for (const m of methods.filter((x) => !askable.includes(x))) log(`load: skipping ${m}: the corpus has nothing to ask it`);
    if (askable.length === 0) throw new EndpointError('the corpus has no entry for any selected method');
    const plan = planFor(askable);

    const script = join(work, 'scenario.js');
    await bundleScenario(plan, script);
    const paths = workPaths(work);
    log(`load: k6 ${k6.version}, ${opts.profile} profile, ${plan.methods.length} methods, ${plan.totalSec} s`);
    const ticker = plan.totalSec >= 60 ? setInterval(progress(plan, log), 30_000) : undefined;
    const env = k6Environment(opts.url, corpusFile, plan, paths);
    const result = await runK6({ binary: k6.path, script, env, onLine: (line) => log(`k6: ${line}`) }).finally(() => clearInterval(ticker));
    const summaryJson = await readFile(paths.summary, 'utf8').catch(() => undefined);
    if ((result.exitCode !== 0 && result.exitCode !== K6_THRESHOLDS_FAILED) || !summaryJson) {
      throw new ToolError(`k6 failed (exit ${result.exitCode}): ${result.log.at(-1)?.line ?? 'no output'}`);
    }

    const timeline = parseTimeline(await recordLines(paths.record), plan.scenarios.map((s) => s.name));
    if (timeline.points.length === 0) log(`load: no timeline: k6 ${k6.version}'s dashboard record was missing or not understood`);
    let report = buildReport({
      url: opts.url,
      plan,
      corpus,
      corpusFile: relative(resolve(opts.out), corpusFile),
      k6,
      run: result,
      summary: JSON.parse(summaryJson) as K6Summary,
      timeline,
      invalidSamples: invalidSamples(await readFile(paths.console, 'utf8').catch(() => '')),
    });
    if (baseline && opts.baseline) report = withBaseline(report, baseline, opts.baseline, opts.tolerance ?? DEFAULT_TOLERANCE);
    assertReport(report);
    const reportPaths = await writeReports(report, opts.out, paths.dashboard, !replayed);
    if (opts.keepWork) log(`load: work files kept in ${work}`);
    return { exitCode: report.verdict === 'fail' ? 1 : 0, reportPaths, summary: summaryText(report, reportPaths) };
  } finally {
    if (!opts.keepWork) await rm(work, { recursive: true, force: true });
  }
}

type WorkPaths = ReturnType<typeof workPaths>;

function workPaths(work: string) {
  return { summary: join(work, 'summary.json'), record: join(work, 'record.ndjson.gz'), dashboard: join(work, 'dashboard.html'), console: join(work, 'console.log') };
}

/** The URL reaches k6 only through its environment (not its arguments, not the bundle). */
function k6Environment(url: string, corpusFile: string, plan: Plan, paths: WorkPaths): Record<string, string> {
  return {
    RPC_CERTIFY_URL: url,
    RPC_CERTIFY_CORPUS: corpusFile,
    RPC_CERTIFY_SUMMARY: paths.summary,
    K6_CONSOLE_OUTPUT: paths.console,
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_HOST: '127.0.0.1',
    K6_WEB_DASHBOARD_PORT: '-1', // no listening server: only the export and the record
    K6_WEB_DASHBOARD_PERIOD: `${plan.periodSec}s`,
    K6_WEB_DASHBOARD_TAGS: 'code', // splits the class counters by JSON-RPC error code
    K6_WEB_DASHBOARD_EXPORT: paths.dashboard,
    K6_WEB_DASHBOARD_RECORD: paths.record,
  };
}

async function writeReports(report: LoadReport, dir: string, dashboardPath: string, withCorpus: boolean): Promise<string[]> {
  const out = (name: string) => join(dir, name);
  await writeFileAtomic(out(FILES.json), `${JSON.stringify(report, null, 2)}\n`);
  await writeFileAtomic(out(FILES.html), renderHtml(report, FILES.dashboard));
  await writeFileAtomic(out(FILES.junit), renderJunit(report));
  const dashboard = await readFile(dashboardPath).catch(() => undefined);
  if (dashboard) await writeFileAtomic(out(FILES.dashboard), dashboard);
  return [FILES.json, FILES.html, FILES.junit, ...(dashboard ? [FILES.dashboard] : []), ...(withCorpus ? [FILES.corpus] : [])].map(out);
}

function withBaseline(report: LoadReport, baseline: LoadReport, file: string, tolerance: number): LoadReport {
  const checks = compareReports(baseline, report, tolerance);
  return withVerdict({ ...report, baseline: { file, tolerance, ok: checks.every((c) => c.ok), checks } });
}

function selectMethods(names: string[] | undefined): RpcMethod[] {
  if (!names || names.length === 0) return [...METHODS];
  const unknown = names.filter((n) => !isRpcMethod(n));
  if (unknown.length) usage(`unknown method ${unknown.join(', ')}; known: ${METHODS.join(', ')}`);
  return names.filter(isRpcMethod);
}

function planOrUsageError(make: () => Plan): Plan {
  try {
    return make();
  } catch (e) {
    return usage((e as Error).message);
  }
}

function usage(message: string): never {
  throw new UsageError(message);
}

async function readCorpus(opts: LoadOptions): Promise<Corpus> {
  const path = opts.corpus ?? '';
  const clash = (['seed', 'missShare', 'referenceUrl', 'targets'] as const).filter((k) => opts[k] !== undefined);
  if (clash.length) usage(`--corpus replays a corpus as it was sampled; it does not take ${clash.join(', ')}`);
  const corpus = JSON.parse(await readFile(path, 'utf8').catch(() => usage(`--corpus ${path}: cannot read it`))) as Corpus;
  if (corpus?.version !== 1 || typeof corpus.entries !== 'object') usage(`--corpus ${path}: not a corpus written by rpc-certify load`);
  return corpus;
}

async function recordLines(path: string): Promise<string[]> {
  const gz = await readFile(path).catch(() => undefined);
  return gz ? gunzipSync(gz).toString('utf8').split('\n') : [];
}

/** The first schema fault per method that the scenario logged ("rpc-certify invalid <method> <fault>"). */
function invalidSamples(consoleLog: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of consoleLog.matchAll(/rpc-certify invalid (\S+) ((?:[^"\\]|\\.)*)/g)) {
    if (m[1] && m[2] && !out[m[1]]) out[m[1]] = m[2].replace(/\\(.)/g, '$1');
  }
  return out;
}

function progress(plan: Plan, log: (line: string) => void): () => void {
  const started = Date.now();
  return () => log(`load: ${Math.round((Date.now() - started) / 1000)} s of ${plan.totalSec} s`);
}
