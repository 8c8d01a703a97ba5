// `rpc-certify conformance`: certify an endpoint against the service spec and write the reports.
import { parseArgs } from 'node:util';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inert, inertLines } from '../core/inert.ts';
import { redact, registerUrlSecrets } from '../core/redact.ts';
import { DEFAULT_MAX_HEAD_LAG_BLOCKS, DEFAULT_MAX_HEAD_LAG_S } from '../core/head-lag.ts';
import { durationMs } from '../core/duration.ts';
import type { RevertTarget } from '../core/targets.ts';
import type { RunResult, RunSettings } from '../conformance/framework/runner.ts';
import type { Expectations } from '../conformance/framework/expectations.ts';
import type { CheckResult } from '../conformance/framework/check.ts';
import type { Judging } from '../conformance/report/assemble.ts';
import { explains } from '../conformance/report/model.ts';
import { writeFileAtomic } from '../core/node/atomic.ts';
import { CONFORMANCE_FILES } from '../core/report-files.ts';
import { expectedNetwork, inputFile, MAX_TIMER_MS, methodList, milliseconds, outDir, perSecond, positive, seconds } from './networks.ts';
import { endpointsGiven, severalEndpointOptions, warnShortKeys } from './endpoints.ts';
import type { NamedEndpoint } from '../core/node/side-by-side.ts';
import { EXIT, UsageError } from '../core/node/errors.ts';
import { METHODS } from '../core/methods.ts';
import { interruptSignal } from '../core/node/interrupt.ts';

/** The default run deadline: a full run against a remote provider takes well under a minute. */
export const DEFAULT_DEADLINE_MS = 5 * 60_000;

export const conformanceHelp = `rpc-certify conformance: certify a JSON-RPC endpoint against the node-access spec

Usage:
  rpc-certify conformance --url <URL> [options]
  rpc-certify conformance --network <name> --api-key <KEY> [options]

Endpoint (one of):
  --url URL               the full endpoint, e.g. https://host/v3/<KEY>
  --url NAME=URL          several times: endpoints side by side (NAME: letters, digits, _ and -). Each is
                          certified as alone, one after another, on the same targets (found on the first that
                          serves them, or --targets); their immutable answers are held against one another
                          (quorum/* checks, advisory: the field, the values, who agreed; a tie is no majority);
                          one report opens with the matrix endpoint x method; the exit code is the worst one's
                          (fail > unusable > inconclusive > pass). Each one's own reports: <out>/endpoints/NAME/
  --endpoints FILE        the same from a file: [{"name": "a", "url": "https://host/v3/\${A_KEY}"}, ...], each
                          \${VAR} read from the environment (the file holds no key)
  --network NAME          a network of fixtures/networks.json (mainnet, sepolia, ...), with
  --api-key KEY           the key (or the environment variable RPC_CERTIFY_API_KEY)
  --base-url URL          override the network's base address
                          (with --network, an endpoint serving another chain is refused: exit 2; with
                          --url too, --network names the chain that URL must serve)

Options:
  --out DIR               where the reports go (default: reports)
  --methods a,b           only these methods (default: all eight)
  --strict                advisory failures fail the run too
  --expect FILE           known deviations (schemas/files/expectations.json): the checks listed as failing do
                          not fail the run; one of them passing does (an unexpected pass). Shipped:
                          fixtures/expectations/anvil.json (raw anvil), geth.json (geth --dev),
                          embedded.json (the embedded default, which start uses), hardhat.json and
                          ganache.json (hardhat 2 and ganache 7, written for --strict)
  --targets FILE          reuse a targets lockfile from an earlier run instead of discovering
  --reverts FILE          reverting calls known on this endpoint, judged besides what discovery finds
                          (a JSON list of {kind, to, data, reason, expectedData}, as \`devnet\` writes it)
  --discovery-depth N     blocks to walk back from the head when discovering (default 64)
  --near-head-window N    the network serves eth_getTransactionReceipt and eth_getTransactionByHash for its
                          latest N blocks only (spec §8; wins over fixtures/networks.json nearHeadWindow):
                          targets stay inside it, its oldest blocks must be served, one older lookup per
                          method is listed as archive not served, never judged
  --archive               the endpoint is sold as archive: blocks, transactions, receipts and state must be
                          served from genesis (history/*: the depth found, a pruned height fails)
  --discovery-budget N    requests discovery may spend on that walk (default 256)
  --receipts-budget N     receipts the block checks may fetch one by one, over the blocks judged (default 512);
                          a block over it is named in their notes (docs/conformance.md)
  --min-judged P          the judged share a run needs to pass, a percentage 0-100 (default 90): fatal checks
                          judged (passed or failed) over those this chain can have; below it the run is
                          INCONCLUSIVE (exit 3), naming what could not be judged and why (0.9 is refused:
                          write 90, or 0.9% for that floor); the floor holds per method too; a run
                          judging none of them, or none of a method's, never passes
  --timeout MS            per-request timeout (default 10000)
  --deadline D            the whole run's deadline: 90s, 10m (default ${DEFAULT_DEADLINE_MS / 60_000}m); what is unfinished
                          then is inconclusive, and the reports are written
  --concurrency N         requests in flight, and checks run at once, at most (default 8; 1: one check at a time)
  --rate-limit N          the key's budget, in requests a second: the run sends at most N a second, evenly
                          spaced, and says how long its requests waited; a 429 or a -32005 answer is the budget
                          speaking (retried after its Retry-After, then inconclusive), never a failed check
  --ca-file PEM           trust this CA (a private or self-signed TLS endpoint)
  --reference-url URL     a node you trust on the same chain: the endpoint's head lag at the start and the end,
                          and every discovered target's answers compared with it field by field (reference/*
                          checks; without it they are not on the run). Another chain, or no answer at the
                          start: exit 2; failing mid-run: named, the checks that needed it inconclusive
  --max-head-lag S        how far the endpoint's head may trail the reference's, in seconds of chain time
                          (default ${DEFAULT_MAX_HEAD_LAG_S}; counted from the first block it lacks)
  --max-head-lag-blocks N and in blocks, where blocks come a second or more apart (default ${DEFAULT_MAX_HEAD_LAG_BLOCKS}:
                          5 one-second blocks behind are not within 5 s; a faster chain is judged in seconds alone)
  --quiet                 print only the summary
  -h, --help              this text

Exit codes: 0 pass, 1 a failed check in a fatal layer (or an unexpected pass under --expect),
  2 usage error or endpoint not usable, 3 inconclusive (a method never answered, over 5% of the fatal
  checks could not be tested, or less than --min-judged of them judged: no pass without answers), 130 interrupted (Ctrl-C, SIGTERM: the reports are
  written, marked incomplete).
Reports: <out>/conformance.json, conformance.junit.xml, conformance.html, targets.lock.json.`;

/**
 * The command line parsed once: what the run is asked (RunSettings, handed to the runner as they are), how the
 * report judges it (Judging, handed to assembleReport), and where the reports go.
 */
export interface ConformanceOptions extends RunSettings {
  out: string;
  quiet: boolean;
  judging: Judging;
}

export async function conformanceCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...severalEndpointOptions,
      out: { type: 'string', default: 'reports' },
      methods: { type: 'string' },
      strict: { type: 'boolean', default: false },
      expect: { type: 'string' },
      targets: { type: 'string' },
      reverts: { type: 'string' },
      'discovery-depth': { type: 'string' },
      'discovery-budget': { type: 'string' },
      'near-head-window': { type: 'string' },
      archive: { type: 'boolean', default: false },
      'receipts-budget': { type: 'string' },
      'min-judged': { type: 'string' },
      timeout: { type: 'string' },
      deadline: { type: 'string' },
      concurrency: { type: 'string' },
      'rate-limit': { type: 'string' },
      'ca-file': { type: 'string' },
      'reference-url': { type: 'string' },
      'max-head-lag': { type: 'string' },
      'max-head-lag-blocks': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(conformanceHelp);
    return 0;
  }
  const chosen = await endpointsGiven(values);
  if ('none' in chosen) throw new UsageError('give --url, or --network with --api-key (see --help); with no endpoint at all, `rpc-certify start` certifies the embedded default');
  // Side by side, the first endpoint stands in for the settings' url: each run gets its own (certifySideBySide).
  const url = 'one' in chosen ? chosen.one.url : chosen.several[0]!.url;
  if (values.methods?.split(',').includes('reference') && !values['reference-url']) throw new UsageError('--methods reference needs --reference-url: the reference checks compare the endpoint with that node');
  // An option not given stays undefined: the runner and the report read undefined as "the default".
  const opts: ConformanceOptions = {
    url,
    ...('one' in chosen && chosen.one.name ? { endpointName: chosen.one.name } : {}),
    // --network: the chain the endpoint must serve (not with --url, which names the endpoint itself).
    network: expectedNetwork({ network: values.network, url: values.url?.[0] ?? values.endpoints }),
    methods: values.methods ? methodList(values.methods, [...METHODS, 'history', 'service', 'reference']) : undefined,
    targetsFile: values.targets || undefined,
    discoveryDepth: given(values['discovery-depth'], '--discovery-depth', positive),
    discoveryBudget: given(values['discovery-budget'], '--discovery-budget', positive),
    nearHeadWindow: given(values['near-head-window'], '--near-head-window', positive),
    ...(values.archive ? { archive: true } : {}),
    receiptsBudget: given(values['receipts-budget'], '--receipts-budget', positive),
    judging: { strict: values.strict, network: values.network || undefined, minJudged: given(values['min-judged'], '--min-judged', percentage) },
    timeoutMs: given(values.timeout, '--timeout', milliseconds),
    deadlineMs: given(values.deadline || undefined, '--deadline', duration),
    concurrency: given(values.concurrency, '--concurrency', positive),
    rateLimit: given(values['rate-limit'], '--rate-limit', perSecond),
    referenceUrl: referenceUrl(values['reference-url'], values['max-head-lag'] ?? values['max-head-lag-blocks']),
    maxHeadLagS: given(values['max-head-lag'], '--max-head-lag', seconds),
    maxHeadLagBlocks: given(values['max-head-lag-blocks'], '--max-head-lag-blocks', positive),
    out: values.out,
    quiet: values.quiet,
  };
  await outDir(values.out, Object.values(CONFORMANCE_FILES));
  // The files next: the suite (Mocha, viem, the schemas) loads only once the command line is known good.
  for (const [flag, path] of [['--ca-file', values['ca-file']], ['--expect', values.expect], ['--reverts', values.reverts], ['--targets', values.targets]] as const) if (path) await inputFile(path, flag);
  if (values['ca-file']) opts.ca = await readCa(values['ca-file']);
  if (values.expect) opts.expect = await readExpectations(values.expect);
  if (values.reverts) opts.fixtures = [{ targets: { reverts: await readReverts(values.reverts) }, source: 'fixture' }];
  const { loadTargets } = await import('../conformance/framework/discovery.ts');
  if (values.targets) await loadTargets(values.targets).catch((e: unknown) => Promise.reject(new UsageError(`--targets ${(e as Error).message}`)));
  warnShortKeys(chosen);
  return 'several' in chosen ? certifySideBySide(opts, chosen.several) : certify(opts);
}

/** --reference-url, checked as a URL (its key registered for redaction before anything is printed). */
function referenceUrl(url: string | undefined, maxLag: string | undefined): string | undefined {
  if (url === undefined) {
    if (maxLag !== undefined) throw new UsageError('--max-head-lag and --max-head-lag-blocks need --reference-url: the lag is measured against the reference node');
    return undefined;
  }
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError('--reference-url takes an http(s) URL of a node on the same chain');
  }
  registerUrlSecrets(url);
  return url;
}

/** Seconds, zero or more, as a decimal number ("2", "0.5"). */

/** A flag's value parsed, or undefined when the flag was not given. */
function given<T>(text: string | undefined, flag: string, parse: (text: string, flag: string) => T): T | undefined {
  return text === undefined ? undefined : parse(text, flag);
}

/** The harness's suites, loaded on demand (Mocha, viem, the schemas: not for --help or a usage error). */
async function suites() {
  const [{ allSuites }, { checkIds }] = await Promise.all([import('../conformance/methods.ts'), import('../conformance/framework/check.ts')]);
  return { allSuites, ids: checkIds(allSuites) };
}

/** The embedded default's own known deviations (bundled with the CLI, so `start` needs no path). */
export async function embeddedExpectations(): Promise<Expectations> {
  const [{ parseExpectations }, { default: embedded }, { ids }] = await Promise.all([import('../conformance/framework/expectations.ts'), import('../fixtures/expectations/embedded.json', { with: { type: 'json' } }), suites()]);
  return parseExpectations(JSON.stringify(embedded), 'fixtures/expectations/embedded.json', ids);
}

/** An --expect file, or a usage error naming what is wrong with it. */
export async function readExpectations(path: string): Promise<Expectations> {
  const [{ ExpectationsError, loadExpectations }, { ids }] = await Promise.all([import('../conformance/framework/expectations.ts'), suites()]);
  try {
    return await loadExpectations(path, ids);
  } catch (err) {
    if (err instanceof ExpectationsError) throw new UsageError(err.message);
    throw err;
  }
}

const REVERT_KINDS: ReadonlySet<string> = new Set(['require', 'custom', 'panic', 'initcode']);
const HEX = /^0x[0-9a-fA-F]*$/;

/** A --reverts file: the reverting calls an endpoint's owner knows (devnet writes its seed's), or a usage error naming the entry at fault. */
async function readReverts(path: string): Promise<RevertTarget[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--reverts ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message.replace(/\s+/g, ' ')}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new UsageError(`--reverts ${path}: not a list of reverting calls`);
  return parsed.map((r: unknown, i) => {
    const o = (r ?? {}) as Record<string, unknown>;
    const ok = REVERT_KINDS.has(String(o['kind'])) && HEX.test(String(o['data'])) && HEX.test(String(o['expectedData'])) && (o['to'] === undefined || HEX.test(String(o['to'])));
    if (!ok) throw new UsageError(`--reverts ${path}: entry ${i} needs kind (require, custom, panic or initcode), data and expectedData (hex), and to (hex) unless a creation`);
    return o as unknown as RevertTarget;
  });
}

async function readCa(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`--ca-file: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}


/** "90s", "10m", "1h30m" or plain seconds, in milliseconds. */
export function duration(text: string, flag: string): number {
  const ms = durationMs(text);
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS) throw new UsageError(`${flag} takes a duration such as 90s, 10m or 1h30m (at most 24 days), got "${text}"`);
  return ms;
}

/** A percentage, 0 to 100, with or without its % sign, as a share 0..1. */
export function percentage(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(text.trim());
  const n = m ? Number(m[1]) : NaN;
  if (!Number.isFinite(n) || n > 100) throw new UsageError(`${flag} takes a percentage from 0 to 100, such as 90 or 90%, got "${text}"`);
  // "0.9" is a share written as a fraction far more often than a floor of 0.9%: taken as given, it would let almost nothing pass for coverage.
  if (n > 0 && n < 1 && !text.trim().endsWith('%')) throw new UsageError(`${flag} takes a percentage from 0 to 100, such as 90 or 90%, got "${text}": for a floor under 1% write it with the sign (${text.trim()}%)`);
  return n / 100;
}

/** Runs the suite and writes the reports; returns the exit code. Its callers have made --out and cleared the earlier reports (outDir). */
export async function certify(opts: ConformanceOptions): Promise<number> {
  const [{ EndpointUnusable, ReferenceUnusable, runConformance }, { VERDICT_EXIT }, { assembleReport }, { formatSummary, SUMMARY_LINE, writeReports }, { allSuites }] = await Promise.all([
    import('../conformance/framework/runner.ts'),
    import('../conformance/report/model.ts'),
    import('../conformance/report/assemble.ts'),
    import('../conformance/report/index.ts'),
    suites(),
  ]);
  const { out, quiet, judging, ...settings } = opts;
  let run: RunResult;
  const shown = quiet ? undefined : progress();
  try {
    run = await runConformance({ ...settings, suites: allSuites, deadlineMs: settings.deadlineMs ?? DEFAULT_DEADLINE_MS, onResult: shown?.onResult, onRerun: shown?.onRerun, signal: interruptSignal() });
    shown?.flush();
  } catch (err) {
    if (err instanceof ReferenceUnusable) return notUsable('reference', err);
    if (err instanceof EndpointUnusable) return notUsable('endpoint', err);
    throw err;
  }
  const report = assembleReport(run, judging);
  await mkdir(out, { recursive: true });
  const paths = await writeReports(report, out);
  const locked = await lockTargets(out, report.targets);
  // The summary quotes the endpoint (reasons, what discovery found): shown, never obeyed, even where a line forgot to.
  console.log(inertLines(formatSummary(report, paths), SUMMARY_LINE));
  if (locked) console.log(locked);
  return VERDICT_EXIT[report.summary.verdict];
}

/** An endpoint or the reference that cannot be certified at all: one line, exit 2. */
function notUsable(which: 'endpoint' | 'reference', err: Error): number {
  console.error(`rpc-certify: ${which} not usable: ${inert(redact(err.message), 400)}`);
  return EXIT.unusable;
}

/** The targets the run judged, written for --targets; the line that says where, when there were any. */
async function lockTargets(out: string, targets: object | undefined): Promise<string | undefined> {
  if (!targets) return undefined;
  const lockfile = join(out, 'targets.lock.json');
  await writeFileAtomic(lockfile, `${JSON.stringify(targets, null, 2)}\n`);
  return `  targets:  ${lockfile} (reuse with --targets)`;
}

/** Several endpoints side by side (--url NAME=URL repeated, --endpoints): one run each, one report; exits as the worst. */
export async function certifySideBySide(opts: ConformanceOptions, endpoints: readonly NamedEndpoint[]): Promise<number> {
  const [{ runSideBySide }, { ReferenceUnusable }, { assembleSideBySide }, { sideBySideSummary, writeSideBySide }, { allSuites }] = await Promise.all([
    import('../conformance/framework/side-by-side.ts'),
    import('../conformance/framework/runner.ts'),
    import('../conformance/report/side-by-side.ts'),
    import('../conformance/report/side-by-side-files.ts'),
    suites(),
  ]);
  const { out, quiet, judging, url: _first, endpointName: _name, ...settings } = opts;
  const startedAt = new Date().toISOString();
  let shown: ReturnType<typeof progress> | undefined;
  const onEndpoint = (name: string) => {
    shown?.flush();
    shown = quiet ? undefined : progress();
    if (!quiet) console.log(`endpoint ${name}:`);
  };
  let result: Awaited<ReturnType<typeof runSideBySide>>;
  try {
    result = await runSideBySide({ ...settings, endpoints, suites: allSuites, deadlineMs: settings.deadlineMs ?? DEFAULT_DEADLINE_MS, onEndpoint, onResult: (r) => shown?.onResult(r), onRerun: (why) => shown?.onRerun(why), signal: interruptSignal() });
  } catch (err) {
    if (!(err instanceof ReferenceUnusable)) throw err;
    shown?.flush();
    return notUsable('reference', err);
  }
  shown?.flush();
  const report = assembleSideBySide(result, judging, startedAt);
  const paths = await writeSideBySide(report, out);
  const locked = await lockTargets(out, report.endpoints.find((e) => e.report?.targets)?.report?.targets);
  console.log(inertLines(sideBySideSummary(report, paths), SIDE_BY_SIDE_LINE));
  if (locked) console.log(locked);
  return report.summary.exitCode;
}

/** The longest line the side-by-side summary prints: its reasons are cut at 600 characters, a line of heads or outcomes names every endpoint. */
const SIDE_BY_SIDE_LINE = 1000;

/** One line per method as its checks finish: a person sees where the run is and what failed. */
function progress(): { onResult: (r: CheckResult) => void; onRerun: (why: string) => void; flush: () => void } {
  let method = '';
  let line: string[] = [];
  const marks: Record<CheckResult['verdict'], string> = { pass: '.', fail: 'F', skip: 's', inconclusive: '?' };
  const flush = () => {
    if (method) console.log(`  ${method.padEnd(42)} ${line.join('')}`);
  };
  const onResult = (r: CheckResult) => {
    if (r.method !== method) {
      flush();
      method = r.method;
      line = [];
    }
    const expected = r.expectation?.kind === 'fail';
    line.push(explains(r.expectation, r) && r.verdict === 'fail' ? 'x' : expected && r.verdict === 'pass' ? '!' : r.verdict === 'fail' && r.layer === 'advisory' ? 'a' : marks[r.verdict]);
  };
  const onRerun = (why: string) => {
    flush();
    method = '';
    console.log(`  ${inert(redact(why), 400)}`);
  };
  return { onResult, onRerun, flush };
}
