// `rpc-certify load`, `compare` and `doctor`: load tests with k6, the offline regression gate, and a
// look at the tools both need.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { inert, inertLines } from '../core/inert.ts';
import { redact, redactUrl } from '../core/redact.ts';
import { compareReports, DEFAULT_TOLERANCE, describeCheck, EMBEDDED_ENDPOINT, FAMILY_ALPHA, gateOutcome, incompleteness, shapeDifferences, shapeOf } from '../load/report/compare.ts';
import { METHODS } from '../core/methods.ts';
import { DEFAULT_MAX_STEPS, DEFAULT_MISS_SHARE, parseDuration, profileQuestion, PROFILES, type Profile, type Slo, sloReasons } from '../load/shared/profiles.ts';
import type { LoadOptions, TestOptions } from '../load/run/run.ts';
import { DEFAULT_MAX_HEAD_LAG_BLOCKS, DEFAULT_MAX_HEAD_LAG_S } from '../load/report/head-lag.ts';
import { findK6, K6_VERSION, toolsDir } from '../core/node/tools/k6.ts';
import { blockTimeHelp, movingSuffix } from '../devnet/moving.ts';
import { blockTime, embeddedChase, expectedNetwork, httpUrl, inputFile, methodList, outDir, perSecond, positive, seconds } from './networks.ts';
import { endpointsGiven, severalEndpointOptions, warnShortKeys } from './endpoints.ts';
import { LOAD_FILES } from '../core/report-files.ts';
import { EXIT, failureOf, isParseArgsError, UsageError } from '../core/node/errors.ts';
import { interruptSignal } from '../core/node/interrupt.ts';

/**
 * --fresh and --no-fresh as the run's decision; neither: the embedded default says whether it moves, an endpoint is
 * chased when sampling sees its head move (load/run/moving.ts).
 */
export function freshOption(fresh: boolean | undefined, noFresh: boolean | undefined, blockTimeS: number | undefined): Pick<LoadOptions, 'fresh'> {
  if (fresh && noFresh) throw new UsageError('--fresh and --no-fresh contradict each other: give one');
  if (noFresh && blockTimeS !== undefined) throw new UsageError('--no-fresh with --block-time: the moving embedded default is always chased');
  if (fresh) return { fresh: { chased: true, why: '--fresh' } };
  if (noFresh) return { fresh: { chased: false, why: '--no-fresh' } };
  return blockTimeS === undefined ? {} : { fresh: embeddedChase(blockTimeS) };
}

/** The options that shape the test, shared by `load` and `k8s`. */
export const TEST_OPTIONS_HELP = `  --profile NAME        smoke (default), gate, capacity or soak
  --rate N              requests per second per method (capacity: the first step)
  --duration D          per scenario (capacity: per step): 30s, 5m, 1h30m
  --methods a,b         only these methods (default: all eight)
  --seed N              corpus and request order seed (default 1)
  --miss-share F        share of requests that should miss (unknown hash, index out of range; default ${DEFAULT_MISS_SHARE})
  --corpus FILE         replay a corpus written by an earlier run (load.corpus.json) instead of sampling
  --reference-url URL   a node you trust on the same chain: the corpus is sampled there (e.g. one serving the
                        history the target prunes), and \`load\` holds the endpoint's head lag against it
  --near-head-window N  the network serves eth_getTransactionReceipt and eth_getTransactionByHash for its latest
                        N blocks only (spec §8; wins over fixtures/networks.json nearHeadWindow): their hits are
                        sampled inside it, a quarter of it clear of its edge
  --rate-limit N        the key's budget, in requests a second: a smoke, gate or soak plan whose peak rate is above
                        it is refused before it starts (exit 2: it would measure the budget); any request the
                        endpoint throttles (HTTP 429, -32005) fails the run, named as the rate limit; a capacity
                        run names the throttle where the budget, not latency, ended its steps
  --validate-share F    share of answers fully validated (default 0.05; smoke 1)
  --slo-p99 MS          the p99 latency the SLO allows (capacity; gate's p99 threshold)
  --slo-success F       the success share the SLO requires (default 0.99)
  --slo-max-dropped F   the share of planned requests k6 may fail to start (default 0.01)`;

/** Load and k8s alike: the head-chasing scenario runs in every k6 instance (segment, pod), its figures merged. */
export const FRESH_HELP = `  --fresh               chase the head as wallets and indexers do, and fail on any stale read past the grace
                        (docs/load.md, "Fresh reads"), whether or not the head moves at sampling; by default
                        the head is chased when sampling sees it move (with --reference-url, the reference's);
                        with several instances (--segments, k8s pods) each chases it, their figures merged
  --no-fresh            never chase the head (the report says so)`;

/** How the help writes each SLO figure. */
const SLO_FIGURE: Record<keyof Slo, (v: number) => string> = {
  p95Ms: (v) => `p95 < ${v} ms`,
  p99Ms: (v) => `p99 < ${v} ms`,
  maxFailureRate: (v) => `failures < ${v * 100}%`,
  maxDroppedShare: (v) => `not started <= ${v * 100}%`,
};

/** A profile's SLO figures with their reasons, one a line; with `but`, only those that differ from that profile's. */
function sloLines(profile: Profile, but?: Profile): string {
  const other = but && sloReasons(but);
  return sloReasons(profile)
    .filter((r) => !other?.some((o) => o.figure === r.figure && o.value === r.value))
    .map(({ figure, value, why }) => `  ${SLO_FIGURE[figure](value).padEnd(18)} ${why}`)
    .join('\n');
}

export const loadHelp = `rpc-certify load: load-test the eight methods with k6 (open-model arrival rates)

Usage:
  rpc-certify load [--url <URL>] --profile <smoke|gate|capacity|soak> [options]

With no --url, the embedded default (a seeded anvil behind the reference gateway) is started and stopped.

Profiles (the question each answers, then what it runs):
  smoke      ${profileQuestion('smoke')}
             every method at a low constant rate for a short time (default 5 rps x 10 s)
  gate       ${profileQuestion('gate')}
             fixed per-method rates with the SLO's thresholds (default 20 rps x 120 s); with --baseline, also
             fails when a method regresses against an earlier run
  capacity   ${profileQuestion('capacity')}
             each method alone, then a weighted mix, at a rate raised in steps (default
             50, 100, 150 ... rps, 10 s a step) until a step breaks the SLO; reports the highest rate within
             it and every step's figures; a step where k6 itself could not keep up is marked generator-bound;
             only measures (exit 0), unless an answer was wrong, a method not served or the head went back
  soak       ${profileQuestion('soak')}
             a long constant rate (default 10 rps x 30m): thresholds and latency drift over time

The SLO (the spec states none): the defaults, and why each figure
${sloLines('gate')}
smoke, instead:
${sloLines('smoke', 'gate')}

Every profile fully validates a share of the answers (schemas, and the answer recorded at sampling for
lookups by hash: a fast wrong answer counts as \`wrong\`) and checks that eth_blockNumber never goes back.
Any \`wrong\` answer fails the run, whatever its rate (the rate is in the reason): another id than the
request's, a value where a miss's null or a revert's error 3 is due, another answer than the one sampled,
null for a hit 3 or more blocks deep that sampling saw answered.
While k6 runs, a terminal shows per method the rate, p95 and errors every 3 s, with elapsed time and ETA
(capacity: the step being tried); elsewhere, one line every 30 s.

Options:
  --url URL             the endpoint, e.g. https://host/v3/<KEY> (the key never reaches a report or a metric)
  --url NAME=URL        several times: endpoints side by side (NAME: letters, digits, _ and -): the same
                        corpus (sampled from the first), rate and duration against each, one after another;
                        one report (load.json/html/junit: per method p50/p95/p99 per endpoint in one table and
                        one chart, the best per method and by how much); the exit code is the worst one's.
                        Each one's own reports: <out>/endpoints/NAME/. Not with --baseline or capacity
  --endpoints FILE      the same from a file: [{"name": "a", "url": "https://host/v3/\${A_KEY}"}, ...], each
                        \${VAR} read from the environment (the file holds no key)
  --network NAME        or a network of fixtures/networks.json, with --api-key KEY (or RPC_CERTIFY_API_KEY);
                        an endpoint serving another chain is refused (exit 2); with --url, the chain
                        that URL must serve
  --base-url URL        override the network's base address
  --block-time S        with no --url, a moving embedded default:
${blockTimeHelp(24)}
                        (fresh reads are chased and judged on it, as with --fresh)
${FRESH_HELP}
  --max-head-lag S      with --reference-url: fail when the endpoint trails the reference's head by more than
                        S seconds at any sample (default ${DEFAULT_MAX_HEAD_LAG_S}: above two honest nodes' spread for one block,
                        below a 12 s mainnet slot). A reference that fails or stops answering mid-run, or
                        trails the endpoint itself: head lag not judged, the run INCONCLUSIVE (exit 3), never
                        a pass; without a reference: not judged
  --max-head-lag-blocks N  and by more than N blocks, where the chain's blocks come a second or more apart
                        (default ${DEFAULT_MAX_HEAD_LAG_BLOCKS}: 5 one-second blocks behind are not within 5 s; a faster chain,
                        where a limit in blocks would race, is judged in seconds alone)
${TEST_OPTIONS_HELP}
  --segments N          run N k6 processes here, each an execution segment of the test, merged into one report
  --step-rate N         capacity: what each step adds (default: --rate)
  --max-steps N         capacity: the most steps per method (default ${DEFAULT_MAX_STEPS})
  --out DIR             where the reports go (default: reports)
  --baseline FILE|DIR   an earlier load.json of the same test (profile, rate, duration, methods, endpoint,
                        chain; refused otherwise, and never the load.json this run writes), or a baseline
                        of several runs (rpc-certify baseline add): fail when the interval of a method's
                        p95/p99 ratio (or failure-rate rise) lies beyond the tolerance; inconclusive when
                        the run is too small to tell (see rpc-certify compare --help)
  --tolerance F         the smallest growth that is a regression (default ${DEFAULT_TOLERANCE}: +${DEFAULT_TOLERANCE * 100}%)
  --keep-work           keep the bundled script, k6's shards and event records, and print where
  -h, --help            this text

Exit codes: 0 pass, 1 a wrong answer, a method not served, a threshold, regression, head regression, head lag or
  drift failed (the summary, load.json and load.junit.xml list the same reasons), 2 usage error or endpoint not
  usable, 3 inconclusive (nothing failed, but the head lag against --reference-url could not be judged),
  130 interrupted (Ctrl-C, SIGTERM, timeout: k6 is stopped gracefully, the reports are written marked incomplete).
Reports: <out>/load.json, load.html, load.junit.xml, load.corpus.json.`;

export const compareHelp = `rpc-certify compare: the regression gate, offline

Usage:
  rpc-certify compare <BASELINE load.json or baseline dir> <CURRENT load.json> [--tolerance F] [--allow-mismatch]

Only runs of the same test compare: the same profile, rate, duration and methods, against the same
endpoint and chain. Reports of different tests are refused (exit 2), saying what differs;
--allow-mismatch prints their figures side by side anyway, marked NOT COMPARABLE (still exit 2).

For each method, the ratio of its p95 and p99 to the baseline's gets an interval from both runs' histograms
(widened for latency that wanders within a run, and for the spread between a baseline's runs: rpc-certify
baseline add). A comparison REGRESSED when its interval lies above 1 + tolerance (default ${DEFAULT_TOLERANCE}, and
2 ms), HELD when below, UNCLEAR across it, and UNJUDGEABLE when the runs are too small to tell a change of
the tolerance from none (it says how many requests would do). False alarms are held to ${FAMILY_ALPHA * 100}% a run over
all its comparisons (Bonferroni). The failure rate's rise gets a binomial interval the same way.
A method with no percentile shown to hold is INCONCLUSIVE. docs/load.md says how, and what it assumes.
A failed or incomplete run is no baseline (exit 2); a current run that failed on its own fails (exit 1).
Exit codes: 0 no regression, every method judged; 1 a regression or a failed current run; 2 usage error or
unreadable report; 3 no regression, but a method (or a check of the current run) could not be judged.`;

export const baselineHelp = `rpc-certify baseline: a baseline of several runs

Usage:
  rpc-certify baseline add <DIR> <load.json>

Copies a passing run's load.json into DIR (made if missing) and lists it in DIR/baseline.json. Give DIR to
--baseline or compare: the gate then counts the spread between the baseline's runs as well as each run's
sampling error, so drift between runs of an unchanged release (a shared machine, a provider's time of day) is
not called a regression. With fewer than 5 runs the spread is widened (x3 for 2 runs, x2 for 3, x1.5 for 4);
one run cannot tell drift from a regression, and says so.
Refused (exit 2): a failed or incomplete run, another test than the runs already there, a run already there.`;

export const doctorHelp = `rpc-certify doctor: show the tools the harness uses

Prints the versions of node, go and anvil, and which k6 a load run would use (path, version, and
whether it is the user's own on PATH or the pinned ${K6_VERSION} in ${toolsDir()}).
Exit codes: 0 everything a run needs is there, 1 something is missing.`;

export const testOptionSpecs = {
  profile: { type: 'string', default: 'smoke' },
  rate: { type: 'string' },
  duration: { type: 'string' },
  methods: { type: 'string' },
  seed: { type: 'string' },
  'miss-share': { type: 'string' },
  corpus: { type: 'string' },
  'reference-url': { type: 'string' },
  'near-head-window': { type: 'string' },
  'rate-limit': { type: 'string' },
  'validate-share': { type: 'string' },
  'slo-p99': { type: 'string' },
  'slo-success': { type: 'string' },
  'slo-max-dropped': { type: 'string' },
} as const;

type TestValues = { [K in keyof typeof testOptionSpecs]?: string };

export function testOptions(values: TestValues): TestOptions {
  const profile = values.profile ?? 'smoke';
  if (!(PROFILES as readonly string[]).includes(profile)) throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}, got "${profile}"`);
  const slo = {
    ...(values['slo-p99'] ? { p99Ms: positive(values['slo-p99'], '--slo-p99') } : {}),
    ...(values['slo-success'] ? { maxFailureRate: 1 - share(values['slo-success'], '--slo-success', 1) } : {}),
    ...(values['slo-max-dropped'] ? { maxDroppedShare: share(values['slo-max-dropped'], '--slo-max-dropped', 1) } : {}),
  };
  return {
    profile: profile as Profile,
    ...(values.rate ? { rate: positive(values.rate, '--rate') } : {}),
    ...(values.duration ? { duration: duration(values.duration) } : {}),
    ...(values.methods ? { methods: methodList(values.methods, METHODS) } : {}),
    ...(values.seed ? { seed: positive(values.seed, '--seed') } : {}),
    ...(values['miss-share'] ? { missShare: share(values['miss-share'], '--miss-share', 1) } : {}),
    ...(values.corpus ? { corpus: values.corpus } : {}),
    ...(values['reference-url'] ? { referenceUrl: httpUrl(values['reference-url'], '--reference-url') } : {}),
    ...(values['near-head-window'] ? { nearHeadWindow: positive(values['near-head-window'], '--near-head-window') } : {}),
    ...(values['rate-limit'] !== undefined ? { rateLimit: perSecond(values['rate-limit'], '--rate-limit') } : {}),
    ...(values['validate-share'] ? { validateShare: share(values['validate-share'], '--validate-share', 1) } : {}),
    ...(Object.keys(slo).length ? { slo } : {}),
  };
}


function duration(text: string): string {
  try {
    parseDuration(text);
    return text;
  } catch {
    throw new UsageError(`--duration takes a duration such as 30s, 5m or 1h30m (at least 1 s), got "${text}"`);
  }
}

export async function loadCommand(argv: string[]): Promise<number> {
  return oneLineErrors(async () => {
    const { values } = parseArgs({
      args: argv,
      options: {
        ...severalEndpointOptions,
        ...testOptionSpecs,
        segments: { type: 'string' },
        'step-rate': { type: 'string' },
        'max-steps': { type: 'string' },
        out: { type: 'string', default: 'reports' },
        baseline: { type: 'string' },
        tolerance: { type: 'string' },
        'keep-work': { type: 'boolean', default: false },
        'block-time': { type: 'string' },
        fresh: { type: 'boolean', default: false },
        'no-fresh': { type: 'boolean', default: false },
        'max-head-lag': { type: 'string' },
        'max-head-lag-blocks': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) return print(loadHelp);
    const blockTimeS = blockTime(values['block-time']);
    const steps = {
      ...(values['step-rate'] ? { stepRps: positive(values['step-rate'], '--step-rate') } : {}),
      ...(values['max-steps'] ? { maxSteps: positive(values['max-steps'], '--max-steps') } : {}),
    };
    const network = expectedNetwork({ network: values.network, url: values.url?.[0] ?? values.endpoints });
    const opts: Omit<LoadOptions, 'url'> = {
      ...testOptions(values),
      out: values.out,
      keepWork: values['keep-work'],
      ...(values.segments ? { segments: positive(values.segments, '--segments') } : {}),
      ...(Object.keys(steps).length ? { steps } : {}),
      ...(values.baseline ? { baseline: values.baseline } : {}),
      ...(values.tolerance ? { tolerance: share(values.tolerance, '--tolerance', 10) } : {}),
      ...(network ? { network } : {}),
      ...freshOption(values.fresh, values['no-fresh'], blockTimeS),
      ...(values['max-head-lag'] ? { maxHeadLagSec: seconds(values['max-head-lag'], '--max-head-lag') } : {}),
      ...(values['max-head-lag-blocks'] ? { maxHeadLagBlocks: positive(values['max-head-lag-blocks'], '--max-head-lag-blocks') } : {}),
      signal: interruptSignal(),
    };
    const chosen = await endpointsGiven(values);
    const url = 'one' in chosen ? chosen.one.url : undefined;
    if (!('none' in chosen) && blockTimeS !== undefined) throw new UsageError('--block-time makes the embedded default move: it takes no --url or --network');
    if (values.baseline) await inputFile(values.baseline, '--baseline', { orDirectory: true });
    if (values.corpus) await inputFile(values.corpus, '--corpus');
    await outDir(values.out, Object.values(LOAD_FILES), [values.corpus, values.baseline]);
    // Loaded once the command line is known good: a usage error costs no more than node's start-up.
    const [{ expectedFailures, readBaseline, runLoad }, { startDevnet }] = await Promise.all([import('../load/run/run.ts'), import('../devnet/index.ts')]);
    // The baseline read and judged in full before any node starts (runLoad reads it again, as the k8s path does).
    if (values.baseline) await readBaseline(values.baseline, values.out);
    warnShortKeys(chosen);
    if ('several' in chosen) {
      const { runLoadSideBySide } = await import('../load/run/side-by-side.ts');
      return report(await expectedFailures('load', () => runLoadSideBySide(opts, chosen.several), opts.signal));
    }
    if (url) return report(await runLoad({ ...opts, url, ...('one' in chosen && chosen.one.name ? { endpointName: chosen.one.name } : {}) }));
    const devnet = await startDevnet({ ...(blockTimeS ? { blockTimeS } : {}), signal: opts.signal });
    opts.fresh ??= embeddedChase(blockTimeS);
    try {
      console.log(`embedded default: seeded anvil behind the reference gateway at ${redactUrl(devnet.url)}${movingSuffix(blockTimeS)}`);
      // A replayed corpus holds its own targets; the seed's reverts are sampling's.
      return report(await runLoad({ ...opts, url: devnet.url, endpointName: `${EMBEDDED_ENDPOINT}${movingSuffix(blockTimeS)}`, ...(opts.corpus ? {} : { targets: { reverts: devnet.seed.reverts } }) }));
    } finally {
      await devnet.stop();
    }
  });
}

export async function compareCommand(argv: string[]): Promise<number> {
  return oneLineErrors(async () => {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { tolerance: { type: 'string' }, 'allow-mismatch': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) return print(compareHelp);
    const [basePath, currentPath, ...extra] = positionals;
    if (!basePath || !currentPath || extra.length) throw new UsageError('compare takes two reports: BASELINE CURRENT (see --help)');
    const [{ readReport }, { failedOnItsOwn, unjudgedOnItsOwn }, { baselineFault, readBaselineRuns, spreadText }] = await Promise.all([import('../load/report/report.ts'), import('../load/report/verdict.ts'), import('../load/run/baseline.ts')]);
    const runs = await readBaselineRuns(basePath).catch((e: unknown) => Promise.reject(new UsageError(`${basePath}: ${(e as Error).message}`)));
    const current = await readReport(currentPath).catch((e: unknown) => Promise.reject(new UsageError(`${currentPath}: ${(e as Error).message}`)));
    const { incomplete: baseIncomplete, failed: failedBase } = baselineFault(runs, (file) => file);
    const incomplete = [baseIncomplete, incompleteness(current, currentPath)].filter((why) => why !== undefined);
    if (incomplete.length) throw new UsageError(`not comparable: ${incomplete.join('; ')}; compare reports of completed runs`);
    if (failedBase) throw new UsageError(`not a baseline: ${failedBase}: its limits would allow the same failures; compare against the report of a passing run`);
    const base = { file: basePath, runs: runs.map((r) => r.report) };
    // A current run that failed on its own fails the comparison whatever its figures: compare is the gate's judgement, offline.
    const failedCurrent = failedOnItsOwn(current, currentPath);
    const differences = base.runs.flatMap((r) => shapeDifferences(shapeOf(r), shapeOf(current))).filter((d, i, all) => all.indexOf(d) === i);
    if (differences.length && !values['allow-mismatch']) {
      throw new UsageError(`not comparable: the two reports are not the same test (${differences.join('; ')}); run the same profile, rates, duration and methods against the same endpoint, or --allow-mismatch to see the figures side by side anyway`);
    }
    const tolerance = values.tolerance ? share(values.tolerance, '--tolerance', 10) : DEFAULT_TOLERANCE;
    const checks = compareReports(base, current, tolerance);
    if (checks.length === 0) throw new UsageError('the two reports have no method with latency in common');
    const unlike = differences.length > 0;
    if (unlike) console.log(`NOT COMPARABLE (--allow-mismatch): ${differences.join('; ')}. The figures below are not a regression verdict.`);
    console.log(`baseline ${basePath}: ${spreadText(base.runs)}`);
    console.log(`regression: a ratio's interval above x${1 + tolerance} (or 2 ms over the baseline, where that is more), false alarms at most ${FAMILY_ALPHA * 100}% a run over its ${checks.length} comparisons`);
    for (const c of checks) console.log(`${(unlike && c.judgement === 'regressed' ? 'higher' : (c.judgement ?? '')).toUpperCase().padEnd(12)}${describeCheck(c)}`);
    const outcome = gateOutcome(checks);
    const regressed = Object.entries(outcome.methods).filter(([, o]) => o.verdict === 'regressed').map(([m]) => m);
    const unjudged = Object.entries(outcome.methods).filter(([, o]) => o.verdict === 'inconclusive');
    if (unlike) {
      console.log(`not comparable with ${basePath}: ${regressed.length} method(s) above the tolerance, not judged`);
      return 2;
    }
    console.log(regressed.length ? `REGRESSED against ${basePath}: ${regressed.join(', ')}` : unjudged.length ? `no regression shown against ${basePath}` : `no regression against ${basePath}`);
    for (const [m, o] of unjudged) console.log(`INCONCLUSIVE: ${m}: ${o.why ?? ''}`);
    if (failedCurrent) console.log(`FAIL: ${failedCurrent}`);
    if (regressed.length || failedCurrent) return 1;
    // No regression, but a method could not be judged against the baseline, or a check of the current run could not be (its head lag, say): not a pass.
    const unjudgedCurrent = unjudgedOnItsOwn(current, currentPath);
    if (unjudgedCurrent) console.log(`INCONCLUSIVE: ${unjudgedCurrent}`);
    return unjudgedCurrent || unjudged.length ? EXIT.inconclusive : 0;
  });
}

export async function baselineCommand(argv: string[]): Promise<number> {
  return oneLineErrors(async () => {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
    if (values.help) return print(baselineHelp);
    const [action, dir, report, ...extra] = positionals;
    if (action !== 'add' || !dir || !report || extra.length) throw new UsageError('baseline takes: add <DIR> <load.json> (see --help)');
    const { addToBaseline, spreadText } = await import('../load/run/baseline.ts');
    const { runs, file } = await addToBaseline(dir, report).catch((e: unknown) => Promise.reject(new UsageError((e as Error).message)));
    console.log(`added ${report} to ${dir} as ${file}: ${spreadText(runs)}`);
    return 0;
  });
}

export async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) return print(doctorHelp);
  const version = async (cmd: string, args: string[]) =>
    (await promisify(execFile)(cmd, args).catch(() => undefined))?.stdout.split('\n')[0]?.trim() || undefined;
  const anvil = fileURLToPath(new URL('../node_modules/.bin/anvil', import.meta.url));
  const { findGeth, GETH_VERSION } = await import('../core/node/tools/geth.ts');
  const [go, k6, anvilVersion, geth] = await Promise.all([version('go', ['version']), findK6(), version(anvil, ['--version']), findGeth()]);
  console.log(`node   ${process.version}`);
  console.log(`go     ${go ?? 'not found (needed only to build k6 and geth)'}`);
  const extension = (found: { extension: boolean }) => (found.extension ? 'with k6/x/rpccertify' : 'without k6/x/rpccertify: answers recognised in JavaScript');
  console.log(`k6     ${k6 ? `${k6.version} (${k6.source === 'path' ? "the user's own, first on PATH" : 'pinned, tools dir'}, ${extension(k6)}): ${k6.path}` : `not found, or built from other k6ext/ sources: run \`npx tsx scripts/setup-k6.ts\` (builds ${K6_VERSION} with k6/x/rpccertify with Go into ${toolsDir()})`}`);
  console.log(`anvil  ${anvilVersion ?? 'not found: run npm install'}`);
  // geth is optional for a user: `devnet --node geth` and the self-tests run it.
  console.log(`geth   ${geth ? `${geth.version} (${geth.source === 'path' ? 'first on PATH' : 'tools dir'}): ${geth.path}` : `not built: run \`npm run setup\` (builds ${GETH_VERSION} with Go into ${toolsDir()}; needed only for \`devnet --node geth\` and the self-tests)`}`);
  return k6 && anvilVersion ? 0 : 1;
}

export function report(outcome: { exitCode: number; summary: string }): number {
  (outcome.exitCode === 2 ? console.error : console.log)(inertLines(redact(outcome.summary)));
  return outcome.exitCode;
}

/** Usage mistakes become one line and exit code 2, never a stack trace. */
export async function oneLineErrors(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    const failure = failureOf(e);
    // The command line's own parse errors go to main.ts, which words them (where the options are listed).
    if (failure.kind !== 'usage' || isParseArgsError(e)) throw e;
    console.error(inert(redact(`rpc-certify: ${failure.message}`), 1000));
    return failure.exitCode;
  }
}

export function share(text: string, flag: string, max: number): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || n > max) throw new UsageError(`${flag} takes a number from 0 to ${max}, got "${text}"`);
  return n;
}

export function print(text: string): number {
  console.log(text);
  return 0;
}
