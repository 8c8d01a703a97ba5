// One load run, end to end: sample (or replay) the corpus, run the plan on one or more k6 instances
// (or step through capacity), judge the merged result (thresholds, head, baseline) and write load.json,
// load.html and load.junit.xml. Used by `rpc-certify load` and, after
// the conformance run, by `start`.
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { EndpointError, EXIT, failureOf, Interrupted, ToolError, UsageError } from '../../core/node/errors.ts';
import { removeEarlierReports, writeFileAtomic } from '../../core/node/atomic.ts';
import { abortedAs } from '../../core/node/interrupt.ts';
import { LOAD_FILES } from '../../core/report-files.ts';
import { isObject } from '../../core/hex.ts';
import { inert } from '../../core/inert.ts';
import { redact, redactDeep, redactUrl, registerUrlSecrets, schemaVocabulary } from '../../core/redact.ts';
import loadSchema from '../../schemas/files/load-report.json' with { type: 'json' };
import type { Targets } from '../../core/targets.ts';
import { ensureK6 } from '../../core/node/tools/k6.ts';
import { findCapacity, type StepOptions } from './capacity.ts';
import { type BaselineRuns, compareReports, DEFAULT_TOLERANCE, FAMILY_ALPHA, gateOutcome, type RunShape, shapeDifferences, shapeOf } from '../report/compare.ts';
import { baselineFault, readBaselineRuns, spreadText } from './baseline.ts';
import { type Corpus, fromLearnedCorpus, type LearnedCorpus } from '../shared/corpus.ts';
import { renderHtml } from '../report/html.ts';
import { measure } from './instances.ts';
import type { Measurement } from '../shared/measurement.ts';
import { renderJunit } from '../report/junit.ts';
import { LiveProgress } from './progress.ts';
import { isRpcMethod, METHODS, type RpcMethod } from '../../core/methods.ts';
import type { Subject } from '../shared/answer-classes.ts';
import { buildPlan, capacitySubjects, DEFAULT_MAX_STEPS, DEFAULT_MISS_SHARE, type Plan, type PlanInput, type Profile, type Slo } from '../shared/profiles.ts';
import { assertReport, buildReport, corpusInfo } from '../report/report.ts';
import { exitCodeOf, withVerdict } from '../report/verdict.ts';
import { sampleCorpus } from '../plan/sample.ts';
import { summaryText } from '../report/text.ts';
import type { LoadReport } from '../shared/load-report.ts';
import { DEFAULT_GRACE_MS } from '../shared/freshness.ts';
import { type FreshChase, headMoves } from './moving.ts';
import { networkOf } from '../../core/networks.ts';
import { assertSameChain, HeadLagSampler } from './head-lag.ts';
import { DEFAULT_MAX_HEAD_LAG_BLOCKS, DEFAULT_MAX_HEAD_LAG_S, headLagReport } from '../report/head-lag.ts';
import { type Recognition, recognitionNote } from '../shared/recognition.ts';

/** What shapes the test itself, for a run here or for k6-operator pods (k8s.ts). */
export interface TestOptions {
  profile: Profile;
  rate?: number;
  duration?: string;
  methods?: string[];
  seed?: number;
  /** Replay this corpus file instead of sampling a new one. */
  corpus?: string;
  missShare?: number;
  /** Sample the corpus from this endpoint instead of the target (the target still answers the pre-flight). */
  referenceUrl?: string;
  /** Discovery's or fixtures' targets: uncles and known reverts a walk from the head cannot find. */
  targets?: Partial<Pick<Targets, 'reverts' | 'uncleBlock'>>;
  validateShare?: number;
  slo?: Partial<Slo>;
  /**
   * Chase the head alongside and fail on stale reads (load/shared/freshness.ts), or not, and why (--fresh, --no-fresh,
   * an embedded default known to move or stand); absent: chased when sampling sees the head move (run/moving.ts).
   */
  fresh?: FreshChase;
  /** --near-head-window N (§8): sampling keeps the two lookups by hash inside the window. */
  nearHeadWindow?: number;
  /** --rate-limit N: the key's budget, requests a second; a plan whose peak rate is above it is refused before it starts. */
  rateLimit?: number;
}

export interface LoadOptions extends TestOptions {
  url: string;
  out: string;
  baseline?: string;
  tolerance?: number;
  /** k6 processes on this machine, each running an execution segment of the test. */
  segments?: number;
  /** Capacity: how the offered rate steps (the first step is --rate). */
  steps?: Partial<Omit<StepOptions, 'startRps'>>;
  /** --network: the endpoint must serve this chain. */
  network?: { name: string; chainId: string };
  /** The endpoint's name in the report instead of its redacted URL: the embedded default, on another free port each run. */
  endpointName?: string;
  /** The gate's limit on the head lag behind --reference-url, in seconds (report/head-lag.ts has the default). */
  maxHeadLagSec?: number;
  /** And in blocks, on a chain of 1 s blocks or slower (core/head-lag.ts). */
  maxHeadLagBlocks?: number;
  /** Keep the bundle, k6's shards and event records (their directory is printed). */
  keepWork?: boolean;
  log?: (line: string) => void;
  /** Ctrl-C / SIGTERM: k6 stops, and the report of what it measured is marked incomplete. */
  signal?: AbortSignal;
  /** Runs k6 with its pprof endpoints on and hands each instance's REST API URL here (the benches profile the generator as users run it). */
  pprof?: (api: string) => void;
}

export interface LoadOutcome {
  exitCode: number;
  reportPaths: string[];
  summary: string;
}

/** The load report's own words (verdicts, classes, field names): kept whatever the key. */
const LOAD_WORDS = new Set([...schemaVocabulary(loadSchema), ...METHODS]);

/** A run's lines on stderr: they quote k6 and the endpoint, so redacted, capped, control characters shown rather than obeyed. */
export function stderrLog(line: string): void {
  process.stderr.write(`${inert(redact(line), 500)}\n`);
}

/** A corpus as k6 reads it: its entries as sampled (their params must stay exact), what sampling said about the endpoint redacted. */
export async function writeCorpus(path: string, corpus: Corpus): Promise<void> {
  await writeFileAtomic(path, JSON.stringify({ ...corpus, sampling: redactDeep(corpus.sampling, LOAD_WORDS) }));
}

/** Runs a load test; expected failures (bad options, unusable endpoint, no k6) come back as exit code 2. */
export async function runLoad(opts: LoadOptions): Promise<LoadOutcome> {
  const log = opts.log ?? stderrLog;
  registerUrlSecrets(opts.url);
  if (opts.referenceUrl) registerUrlSecrets(opts.referenceUrl);
  return expectedFailures('load', () => run(opts, log), opts.signal);
}

/**
 * Usage mistakes, unusable endpoints and tool failures become exit code 2 with a one-line reason; any of
 * them caused by Ctrl-C before k6 measured anything (sampling stopped at once) is exit 130 instead.
 */
export async function expectedFailures(command: string, body: () => Promise<LoadOutcome>, signal?: AbortSignal): Promise<LoadOutcome> {
  try {
    return await body();
  } catch (e) {
    const failure = failureOf(e);
    if (failure.kind === 'unexpected') throw e;
    if (failure.kind === 'interrupted' || signal?.aborted) return { exitCode: EXIT.interrupted, reportPaths: [], summary: redact(`${command}: ${failure.kind === 'interrupted' ? failure.message : `interrupted by ${String(signal?.reason)} before k6 measured anything: no report`}`) };
    return { exitCode: failure.exitCode, reportPaths: [], summary: redact(`${command}: ${failure.message}`) };
  }
}

async function run(opts: LoadOptions, log: (line: string) => void): Promise<LoadOutcome> {
  // Nothing to report yet: a signal ends the preparation (a k6 build, say) at once.
  const stopped = abortedAs(opts.signal, 'before sampling: no report');
  const prepared = Promise.all([
    prepareTest(opts, opts.segments ?? 1),
    ensureK6(log).catch((e: unknown) => {
      throw new ToolError(e instanceof Error ? e.message : String(e));
    }),
    readBaseline(opts.baseline, opts.out),
  ]);
  const [test, k6, baseline] = await Promise.race([prepared, stopped.promise]).finally(() => stopped.release());
  const recognition: Recognition = k6.extension ? 'go' : 'js';

  await mkdir(opts.out, { recursive: true });
  await removeEarlierReports(opts.out, Object.values(LOAD_FILES), opts.corpus ? [opts.corpus] : []);
  const work = await mkdtemp(join(tmpdir(), 'rpc-certify-load-'));
  try {
    // k6 resolves open() against the script's directory: the corpus path must be absolute.
    const corpusFile = resolve(opts.corpus ?? join(opts.out, LOAD_FILES.corpus));
    const { corpus, methods, selected, freshChase } = await test.corpus(log, opts.signal);
    if (opts.network && BigInt(opts.network.chainId) !== BigInt(corpus.chainId)) {
      throw new EndpointError(`--network ${opts.network.name} is chain ${opts.network.chainId}, but the ${opts.corpus ? 'corpus was sampled from' : 'endpoint serves'} chain ${corpus.chainId}: not the network asked for`);
    }
    if (baseline) {
      const capacity = opts.profile === 'capacity';
      const { durationSec } = test.planFor(methods, capacity ? { subject: methods[0] as RpcMethod, rps: test.rate } : undefined);
      refuseUnlike(baseline, { profile: opts.profile, rate: test.rate, durationSec, methods: capacity ? [...capacitySubjects(methods)] : methods, endpoint: opts.endpointName ?? redactUrl(opts.url), chainId: corpus.chainId });
    }
    if (!opts.corpus) await writeCorpus(corpusFile, corpus);
    let runs = 0;
    // While k6 runs, log lines go above the live progress block (progress.ts), never through it.
    let live: LiveProgress | undefined;
    let lastTitle = '';
    const show = (line: string) => (live ? live.print(redact(line)) : log(line));
    const subjects = capacitySubjects(methods);
    const measurePlan = async (plan: Plan): Promise<Measurement> => {
      if (opts.signal?.aborted) throw new ToolError(`interrupted by ${String(opts.signal.reason)} before this step`);
      // The same subject and rate twice in a row: capacity repeating the step that broke the SLO.
      const title = progressTitle(opts, plan, subjects);
      const shown = title === lastTitle ? `${title} (repeated)` : title;
      lastTitle = title;
      live = plan.totalSec >= PROGRESS_FROM_SEC ? new LiveProgress({ title: shown, subjects: plan.scenarios, totalSec: plan.totalSec, out: opts.log ? { write: (t) => (log(t.trimEnd()), true) } : process.stderr }) : undefined;
      try {
        return await measure({ plan, k6: k6.path, recognition, url: opts.url, corpusFile, work: join(work, `run-${runs++}`), log: show, ...(opts.signal ? { signal: opts.signal } : {}), ...(live ? { onTotals: live.addInstance.bind(live), onTestStart: live.testStarted.bind(live) } : {}), ...(opts.pprof ? { pprof: opts.pprof } : {}) });
      } finally {
        live?.stop();
        live = undefined;
      }
    };

    log(`load: k6 ${k6.version}, ${opts.profile} profile, ${methods.length} methods${test.instances > 1 ? `, ${test.instances} instances` : ''}; ${recognitionNote(recognition)}`);
    const common = { endpoint: opts.endpointName ?? redactUrl(opts.url), corpus: corpusInfo(corpus, selected), corpusFile: relative(resolve(opts.out), corpusFile), k6, freshChase };
    let report: LoadReport;
    // The head lag is read beside k6 for as long as it measures (a capacity run: every step).
    const lagOptions = opts.referenceUrl ? { url: opts.url, referenceUrl: opts.referenceUrl, ...(opts.signal ? { signal: opts.signal } : {}) } : undefined;
    if (lagOptions) await assertSameChain(lagOptions);
    const sampler = lagOptions ? new HeadLagSampler(lagOptions) : undefined;
    const headLag = async (plan: Plan) => headLagReport(await sampler?.stop(), { seconds: opts.maxHeadLagSec ?? DEFAULT_MAX_HEAD_LAG_S, blocks: opts.maxHeadLagBlocks ?? DEFAULT_MAX_HEAD_LAG_BLOCKS }, plan.periodSec);
    try {
      if (opts.profile === 'capacity') {
        const steps = { startRps: test.rate, stepRps: opts.steps?.stepRps ?? test.rate, maxSteps: opts.steps?.maxSteps ?? DEFAULT_MAX_STEPS };
        const outcome = await findCapacity({ subjects: capacitySubjects(methods), steps, planFor: (subject, rps) => test.planFor(methods, { subject, rps }), measure: measurePlan, log, ...(opts.signal ? { signal: opts.signal } : {}) });
        report = buildReport({ ...common, plan: outcome.plan, measurement: outcome.measurement, capacity: outcome.capacity, headLag: await headLag(outcome.plan) });
      } else {
        const plan = test.planFor(methods);
        const measurement = await measurePlan(plan);
        if (measurement.timeline.points.length === 0) log(`load: no timeline: k6 ${k6.version} exported no period of its metrics`);
        report = buildReport({ ...common, plan, measurement, headLag: await headLag(plan) });
      }
    } finally {
      await sampler?.stop();
    }
    if (opts.keepWork) log(`load: work files kept in ${work}`);
    if (opts.signal?.aborted) report = withVerdict({ ...report, incompleteReason: `interrupted by ${String(opts.signal.reason)}: the figures cover the run until then` });
    return await conclude(report, opts, baseline, { corpus: !opts.corpus });
  } finally {
    if (!opts.keepWork) await rm(work, { recursive: true, force: true });
  }
}

export interface PreparedTest {
  instances: number;
  /** The rate per method (for capacity, the first step's). */
  rate: number;
  /** The plan for the methods the corpus can ask (for capacity, one step). */
  planFor: (methods: RpcMethod[], step?: { subject: Subject; rps: number }) => Plan;
  /** Samples (or replays) the corpus; `methods`: the selected ones it has entries for, which the test runs. */
  corpus: (log: (line: string) => void, signal?: AbortSignal) => Promise<{ corpus: Corpus; methods: RpcMethod[]; selected: RpcMethod[]; freshChase: FreshChase }>;
}

/** The most requests a second the plan's scenarios offer at once (the fresh reads' client comes on top: a few a second). */
function peakRps(plan: Plan): number {
  const at = (t: number) => plan.scenarios.filter((s) => s.startSec <= t && t < s.startSec + s.durationSec).reduce((a, s) => a + s.rps, 0);
  return Math.max(0, ...plan.scenarios.map((s) => at(s.startSec)));
}

/** Checks the options before anything starts, and returns how to get the corpus and the plan. */
export async function prepareTest(opts: TestOptions & { url?: string }, instances: number): Promise<PreparedTest> {
  const methods = selectMethods(opts.methods);
  const replayed = opts.corpus ? await readCorpus(opts) : undefined;
  const seed = replayed?.seed ?? opts.seed ?? 1;
  const input: Omit<PlanInput, 'methods'> = { profile: opts.profile, seed, rate: opts.rate, duration: opts.duration, validateShare: opts.validateShare, slo: opts.slo, instances };
  const chase = (decided: FreshChase): FreshChase => {
    if (decided.chased) input.fresh = { graceMs: DEFAULT_GRACE_MS };
    return decided;
  };
  if (opts.fresh) chase(opts.fresh);
  // The endpoint's answer time at sampling sizes the VUs k6 starts with (profiles.ts): known once the corpus is.
  let latencyMs = replayed?.latencyMs;
  const planFor = (only: RpcMethod[], step?: PlanInput['step']) => planOrUsageError(() => buildPlan({ ...input, methods: only, ...(step ? { step } : {}), ...(latencyMs === undefined ? {} : { latencyMs }) }));
  const checked = planFor(methods, opts.profile === 'capacity' ? { subject: methods[0] as RpcMethod, rps: opts.rate ?? 1 } : undefined);
  // A plan above the key's budget measures the budget: refused, before a request is sent (a capacity run steps into it on purpose).
  const peak = peakRps(checked);
  if (opts.rateLimit !== undefined && opts.profile !== 'capacity' && peak > opts.rateLimit) {
    usage(`the ${opts.profile} plan sends ${peak} requests a second at its peak (${checked.scenarios.length} scenario(s) at ${checked.rate} rps each), above the key's budget of ${opts.rateLimit} a second (--rate-limit): it would measure the budget, not the service; lower --rate or pick fewer --methods (fresh reads, when chased, come on top: a few requests a second)`);
  }
  return {
    instances,
    rate: checked.rate,
    planFor,
    corpus: async (log, signal) => {
      if (!replayed && !opts.url) usage('an endpoint (--url or --network) to sample the corpus from, or --corpus FILE');
      const since = Date.now();
      // Sampling stops at once on a signal: what it holds then is no corpus to run, nor to write for a later --corpus.
      const stopped = () => new Interrupted(`interrupted by ${String(signal?.reason)} while sampling the corpus: no report, no corpus written`);
      const corpus =
        replayed ??
        (await sampleCorpus({ url: opts.url ?? '', referenceUrl: opts.referenceUrl, seed, missShare: opts.missShare ?? DEFAULT_MISS_SHARE, methods, targets: opts.targets, ...(opts.nearHeadWindow ? { nearHeadWindow: opts.nearHeadWindow } : {}), ...(signal ? { signal } : {}) }).catch((e: unknown) => {
          throw signal?.aborted ? stopped() : e;
        }));
      if (signal?.aborted) throw stopped();
      // A chain that moves is chased unless the user said otherwise: a stale `latest` fails the run without a flag.
      const watched = opts.referenceUrl ?? opts.url;
      // A public network always moves (fixtures/networks.json): its endpoint is chased whatever its head shows, so one
      // frozen at its head is judged stale; elsewhere the head is watched (run/moving.ts).
      const network = networkOf(corpus.chainId);
      const freshChase =
        opts.fresh ??
        chase(network ? { chased: true, why: `chain ${BigInt(corpus.chainId)} is ${network[0]} (fixtures/networks.json), a network that always moves` } : watched ? await headMoves(watched, BigInt(corpus.head), since, signal) : { chased: false, why: 'no endpoint given whose head to watch' });
      if (signal?.aborted) throw stopped();
      log(`load: fresh reads ${freshChase.chased ? 'chased' : 'not chased'}: ${freshChase.why}`);
      latencyMs = corpus.latencyMs;
      const askable = methods.filter((m) => corpus.entries[m]?.length);
      for (const m of methods.filter((x) => !askable.includes(x))) log(`load: ${m} is not measured: the corpus has nothing to ask it (the report fails it)`);
      if (askable.length === 0) throw new EndpointError(`the corpus has no entry for any selected method${notServed(corpus, methods)}`);
      for (const m of askable) if (corpus.sampling[m]?.status === 'not served') log(`load: ${m} is NOT SERVED: ${corpus.sampling[m]?.reason ?? ''}`);
      return { corpus, methods: askable, selected: methods, freshChase };
    },
  };
}

function notServed(corpus: Corpus, methods: RpcMethod[]): string {
  const reasons = methods.flatMap((m) => (corpus.sampling[m]?.reason ? [`${m}: ${corpus.sampling[m]?.reason}`] : []));
  return reasons.length ? ` (${reasons.join('; ')})` : '';
}

/** The baseline, read before the run; never the load.json this run is about to write over. */
export async function readBaseline(path: string | undefined, out: string): Promise<BaselineRuns | undefined> {
  if (!path) return undefined;
  await refuseOverwrite(path, out);
  const runs = await readBaselineRuns(path).catch((e: unknown) => usage(`--baseline ${path}: ${(e as Error).message}`));
  const { incomplete, failed } = baselineFault(runs, (file) => `--baseline ${file}`);
  if (incomplete) return usage(`${incomplete}: give the report of a completed run`);
  if (failed) return usage(`${failed}: its limits would allow the same failures; give the report of a passing run`);
  return { file: path, runs: runs.map((r) => r.report) };
}

/** The README's first gate (`--baseline reports/load.json` with the default --out) would replace its own baseline. */
export async function refuseOverwrite(baseline: string, out: string): Promise<void> {
  const written = join(out, LOAD_FILES.json);
  const real = (p: string) => realpath(p).catch(() => resolve(p));
  if ((await real(baseline)) !== (await real(written))) return;
  usage(`--baseline ${baseline} is the load.json this run writes (--out ${out}), so the run would overwrite its own baseline: keep the baseline elsewhere (cp ${written} baselines/gate.json, then --baseline baselines/gate.json) or give --out another directory`);
}

/** A baseline of another test (profile, rate, duration, methods, endpoint, chain) is no baseline: refused before the run. */
export function refuseUnlike(baseline: BaselineRuns, current: RunShape): void {
  const differences = baseline.runs.flatMap((r) => shapeDifferences(shapeOf(r), current)).filter((d, i, all) => all.indexOf(d) === i);
  if (differences.length) usage(`--baseline is not the same test, so its figures are not comparable: ${differences.join('; ')}`);
}

/** Judges the report against the baseline, writes it, and says how the run went. */
export async function conclude(report: LoadReport, opts: { out: string; baseline?: string; tolerance?: number }, baseline: BaselineRuns | undefined, extra: { corpus: boolean }): Promise<LoadOutcome> {
  if (baseline) refuseUnlike(baseline, shapeOf(report));
  // The one decision (verdict.ts), taken on the report as written: load.json stores it, the other files, the summary and
  // the exit code print it.
  const judged = withVerdict(baseline ? withBaseline(report, baseline, opts.tolerance ?? DEFAULT_TOLERANCE) : report);
  const reportPaths = await writeReports(judged, opts.out, extra);
  return { exitCode: exitCodeOf(judged.verdict), reportPaths, summary: summaryText(judged, reportPaths) };
}

async function writeReports(loaded: LoadReport, dir: string, extra: { corpus: boolean }): Promise<string[]> {
  // Values, not the serialised text, are redacted: a key such as `true` cannot cut through the JSON.
  const report = redactDeep(loaded, LOAD_WORDS);
  assertReport(report);
  const out = (name: string) => join(dir, name);
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(out(LOAD_FILES.json), `${JSON.stringify(report, null, 2)}\n`);
  await writeFileAtomic(out(LOAD_FILES.html), renderHtml(report));
  await writeFileAtomic(out(LOAD_FILES.junit), renderJunit(report));
  return [LOAD_FILES.json, LOAD_FILES.html, LOAD_FILES.junit, ...(extra.corpus ? [LOAD_FILES.corpus] : [])].map(out);
}

function withBaseline(report: LoadReport, baseline: BaselineRuns, tolerance: number): LoadReport {
  const checks = compareReports(baseline, report, tolerance);
  const outcome = gateOutcome(checks);
  const notes = [...baseline.runs.map((b) => freshNote(b, report)).filter((n, i, all): n is string => n !== undefined && all.indexOf(n) === i)];
  return {
    ...report,
    baseline: { file: baseline.file, tolerance, ok: outcome.verdict !== 'regressed', checks, runs: baseline.runs.length, spread: spreadText(baseline.runs), familyAlpha: FAMILY_ALPHA, outcome, ...(notes.length ? { note: notes.join('; ') } : {}) },
  };
}

/** Fresh reads chased in one run only: never compared (their figures are judged on their own), but said. */
function freshNote(baseline: LoadReport, report: LoadReport): string | undefined {
  if (Boolean(baseline.freshness) === Boolean(report.freshness)) return undefined;
  const which = report.freshness ? 'this run chased the head and the baseline did not' : 'the baseline chased the head and this run did not';
  return `${which}: compared on the per-method figures both runs have; the fresh reads are judged on their own, and their requests (a few a second) were load on the endpoint in one run only`;
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

export function usage(message: string): never {
  throw new UsageError(message);
}

export async function readCorpus(opts: TestOptions): Promise<Corpus> {
  const path = opts.corpus ?? '';
  // A reference then only serves the head lag (run/head-lag.ts).
  const clash = (['seed', 'missShare', 'targets', 'nearHeadWindow'] as const).filter((k) => opts[k] !== undefined);
  if (clash.length) usage(`--corpus replays a corpus as it was sampled; it does not take ${clash.join(', ')}`);
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => usage(`--corpus ${path}: cannot read it (${e.code ?? e.message})`));
  let corpus: Omit<Corpus, 'version'> & { version: unknown };
  try {
    corpus = JSON.parse(text) as typeof corpus;
  } catch (e) {
    return usage(`--corpus ${path}: not JSON, so not a corpus written by rpc-certify load (${(e as Error).message.replace(/\s+/g, " ")})`);
  }
  const entriesOk = isObject(corpus?.entries) && Object.values(corpus.entries).every(Array.isArray) && typeof corpus.chainId === 'string';
  if (![1, 2, 3].includes(corpus?.version as number) || !entriesOk) usage(`--corpus ${path}: not a corpus written by rpc-certify load`);
  if (corpus.version === 3) return corpus as Corpus;
  return fromLearnedCorpus(corpus as unknown as LearnedCorpus);
}

/** Runs shorter than this end before a progress line could say anything. */
const PROGRESS_FROM_SEC = 5;

function progressTitle(opts: LoadOptions, plan: Plan, subjects: readonly Subject[]): string {
  const [only] = plan.scenarios;
  if (opts.profile !== 'capacity' || !only) return `load ${opts.profile}`;
  const step = Math.round((only.rps - plan.rate) / (opts.steps?.stepRps ?? plan.rate)) + 1;
  return `capacity ${only.name} (${subjects.indexOf(only.name) + 1} of ${subjects.length}), step ${step}: ${only.rps} rps`;
}
