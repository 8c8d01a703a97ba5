// `rpc-certify conformance`: certify an endpoint against the service spec and write the reports.
import { parseArgs } from 'node:util';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inert, inertLines } from '../core/inert.ts';
import { redact, redactDeep, schemaVocabulary } from '../core/redact.ts';
import reportSchema from '../schemas/files/conformance-report.json' with { type: 'json' };
import type { RevertTarget, Targets } from '../core/targets.ts';
import type { RunResult } from '../conformance/framework/runner.ts';
import type { Expectations } from '../conformance/framework/expectations.ts';
import type { CheckResult } from '../conformance/framework/check.ts';
import { type ConformanceReport, explains } from '../conformance/report/model.ts';
import { writeFileAtomic } from '../core/node/atomic.ts';
import { notCertified } from '../conformance/report/text.ts';
import { endpointOptions, expectedNetwork, methodList, positive, resolveEndpoint, warnShortKey } from './networks.ts';
import { UsageError } from '../core/node/errors.ts';
import { METHODS } from '../core/methods.ts';
import { reportHeader } from '../core/node/report-header.ts';
import { interruptSignal } from '../core/node/interrupt.ts';

/** The default run deadline: a full run against a remote provider takes well under a minute. */
export const DEFAULT_DEADLINE_MS = 5 * 60_000;

export const conformanceHelp = `rpc-certify conformance: certify a JSON-RPC endpoint against the node-access spec

Usage:
  rpc-certify conformance --url <URL> [options]
  rpc-certify conformance --network <name> --api-key <KEY> [options]

Endpoint (one of):
  --url URL               the full endpoint, e.g. https://host/v3/<KEY>
  --network NAME          a network of fixtures/networks.json (mainnet, sepolia, ...), with
  --api-key KEY           the key (or the environment variable RPC_CERTIFY_API_KEY)
  --base-url URL          override the network's base address
                          (with --network, an endpoint serving another chain is refused: exit 2)

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
  --concurrency N         requests in flight at most (default 8)
  --ca-file PEM           trust this CA (a private or self-signed TLS endpoint)
  --quiet                 print only the summary
  -h, --help              this text

Exit codes: 0 pass, 1 a failed check in a fatal layer (or an unexpected pass under --expect),
  2 usage error or endpoint not usable, 3 inconclusive (a method never answered, over 5% of the fatal
  checks could not be tested, or less than --min-judged of them judged: no pass without answers), 130 interrupted (Ctrl-C, SIGTERM: the reports are
  written, marked incomplete).
Reports: <out>/conformance.json, conformance.junit.xml, conformance.html, targets.lock.json.`;

export interface ConformanceOptions {
  url: string;
  out: string;
  network?: string;
  methods?: string[];
  strict: boolean;
  targetsFile?: string;
  discoveryDepth?: number;
  discoveryBudget?: number;
  receiptsBudget?: number;
  /** --min-judged, as a share 0..1 (default MIN_JUDGED). */
  minJudged?: number;
  timeoutMs?: number;
  deadlineMs?: number;
  concurrency?: number;
  ca?: string;
  quiet: boolean;
  /** --network: the chain the endpoint must serve. */
  expectNetwork?: { name: string; chainId: string };
  fixtures?: Array<{ targets: Partial<Targets>; source: 'fixture' | 'seed' }>;
  expect?: Expectations;
}

export async function conformanceCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...endpointOptions,
      out: { type: 'string', default: 'reports' },
      methods: { type: 'string' },
      strict: { type: 'boolean', default: false },
      expect: { type: 'string' },
      targets: { type: 'string' },
      reverts: { type: 'string' },
      'discovery-depth': { type: 'string' },
      'discovery-budget': { type: 'string' },
      'receipts-budget': { type: 'string' },
      'min-judged': { type: 'string' },
      timeout: { type: 'string' },
      deadline: { type: 'string' },
      concurrency: { type: 'string' },
      'ca-file': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(conformanceHelp);
    return 0;
  }
  const url = resolveEndpoint(values);
  if (!url) throw new UsageError('give --url, or --network with --api-key (see --help); with no endpoint at all, `rpc-certify start` certifies the embedded default');
  const network = expectedNetwork(values);
  const opts: ConformanceOptions = {
    url,
    out: values.out,
    ...(values.network ? { network: values.network } : {}),
    ...(network ? { expectNetwork: network } : {}),
    ...(values.methods ? { methods: methodList(values.methods, [...METHODS, 'service']) } : {}),
    strict: values.strict,
    ...(values.targets ? { targetsFile: values.targets } : {}),
    ...(values['discovery-depth'] !== undefined ? { discoveryDepth: positive(values['discovery-depth'], '--discovery-depth') } : {}),
    ...(values['discovery-budget'] !== undefined ? { discoveryBudget: positive(values['discovery-budget'], '--discovery-budget') } : {}),
    ...(values['receipts-budget'] !== undefined ? { receiptsBudget: positive(values['receipts-budget'], '--receipts-budget') } : {}),
    ...(values['min-judged'] !== undefined ? { minJudged: percentage(values['min-judged'], '--min-judged') } : {}),
    ...(values.timeout !== undefined ? { timeoutMs: positive(values.timeout, '--timeout') } : {}),
    ...(values.deadline ? { deadlineMs: duration(values.deadline, '--deadline') } : {}),
    ...(values.concurrency !== undefined ? { concurrency: positive(values.concurrency, '--concurrency') } : {}),
    quiet: values.quiet,
  };
  // The files next: the suite (Mocha, viem, the schemas) loads only once the command line is known good.
  if (values['ca-file']) opts.ca = await readCa(values['ca-file']);
  if (values.expect) opts.expect = await readExpectations(values.expect);
  if (values.reverts) opts.fixtures = [{ targets: { reverts: await readReverts(values.reverts) }, source: 'fixture' }];
  const { loadTargets } = await import('../conformance/framework/discovery.ts');
  if (values.targets) await loadTargets(values.targets).catch((e: unknown) => Promise.reject(new UsageError(`--targets ${(e as Error).message}`)));
  warnShortKey(url);
  return certify(opts);
}

/** The embedded default's own known deviations (bundled with the CLI, so `start` needs no path). */
export async function embeddedExpectations(): Promise<Expectations> {
  const [{ parseExpectations }, { default: embedded }] = await Promise.all([import('../conformance/framework/expectations.ts'), import('../fixtures/expectations/embedded.json', { with: { type: 'json' } })]);
  return parseExpectations(JSON.stringify(embedded), 'fixtures/expectations/embedded.json');
}

/** An --expect file, or a usage error naming what is wrong with it. */
export async function readExpectations(path: string): Promise<Expectations> {
  const { ExpectationsError, loadExpectations } = await import('../conformance/framework/expectations.ts');
  try {
    return await loadExpectations(path);
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
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s?)?$/.exec(text.trim());
  const ms = m ? ((Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 1000 : NaN;
  if (!text.trim() || !Number.isFinite(ms) || ms <= 0) throw new UsageError(`${flag} takes a duration such as 90s, 10m or 1h30m, got "${text}"`);
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

/** Runs the suite and writes the reports; returns the exit code. */
export async function certify(opts: ConformanceOptions): Promise<number> {
  const [{ EndpointUnusable, runConformance }, { summarize, VERDICT_EXIT }, { formatSummary, writeReports }] = await Promise.all([
    import('../conformance/framework/runner.ts'),
    import('../conformance/report/model.ts'),
    import('../conformance/report/index.ts'),
  ]);
  let run: RunResult;
  const shown = opts.quiet ? undefined : progress();
  try {
    run = await runConformance({
      url: opts.url,
      ...(opts.methods ? { methods: opts.methods } : {}),
      strict: opts.strict,
      ...(opts.targetsFile ? { targetsFile: opts.targetsFile } : {}),
      ...(opts.discoveryDepth ? { discoveryDepth: opts.discoveryDepth } : {}),
      ...(opts.discoveryBudget ? { discoveryBudget: opts.discoveryBudget } : {}),
      ...(opts.receiptsBudget ? { receiptsBudget: opts.receiptsBudget } : {}),
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      deadlineMs: opts.deadlineMs ?? DEFAULT_DEADLINE_MS,
      ...(opts.concurrency ? { concurrency: opts.concurrency } : {}),
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.fixtures ? { fixtures: opts.fixtures } : {}),
      ...(opts.expectNetwork ? { network: opts.expectNetwork } : {}),
      ...(opts.expect ? { expect: opts.expect } : {}),
      ...(shown ? { onResult: shown.onResult } : {}),
      signal: interruptSignal(),
    });
    shown?.flush();
  } catch (err) {
    if (err instanceof EndpointUnusable) {
      console.error(`rpc-certify: endpoint not usable: ${inert(redact(err.message), 400)}`);
      return 2;
    }
    throw err;
  }
  const report = toReport(run, opts, summarize);
  await mkdir(opts.out, { recursive: true });
  const paths = await writeReports(report, opts.out);
  const lockfile = join(opts.out, 'targets.lock.json');
  if (report.targets) await writeFileAtomic(lockfile, `${JSON.stringify(report.targets, null, 2)}\n`);
  // The summary quotes the endpoint (reasons, what discovery found): shown, never obeyed, even where a line forgot to.
  console.log(inertLines(formatSummary(report, paths)));
  if (report.targets) console.log(`  targets:  ${lockfile} (reuse with --targets)`);
  return VERDICT_EXIT[report.summary.verdict];
}

/** The report's own words (enums, field names, method names): kept whatever the key, so a key such as `found` cannot break it. */
function reportWords(): Set<string> {
  return new Set([...schemaVocabulary(reportSchema), ...METHODS]);
}

function toReport(run: RunResult, opts: ConformanceOptions, summarize: typeof import('../conformance/report/model.ts').summarize): ConformanceReport {
  const left = notCertified(run.methods);
  const report: ConformanceReport = {
    ...reportHeader('rpc-certify-conformance', 2),
    run: {
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      durationMs: Date.parse(run.finishedAt) - Date.parse(run.startedAt),
      endpoint: run.endpoint,
      ...(opts.network ? { network: opts.network } : {}),
      // What the endpoint said about itself is redacted like any answer (checks' results are, in the runner).
      ...redactDeep({
        ...(run.chainId ? { chainId: run.chainId } : {}),
        ...(run.clientVersion ? { clientVersion: run.clientVersion } : {}),
        ...(run.headBefore ? { headBefore: run.headBefore } : {}),
        ...(run.headAfter ? { headAfter: run.headAfter } : {}),
      }),
      strict: opts.strict,
      requestCount: run.requestCount,
      methods: run.methods,
      complete: run.complete,
      ...(run.incompleteReason ? { incompleteReason: run.incompleteReason } : {}),
      ...(run.expectations ? { expectations: run.expectations } : {}),
      ...(run.deadlineMs !== undefined ? { deadlineMs: run.deadlineMs, deadlineReached: run.deadlineReached ?? false } : {}),
    },
    ...(run.targets ? { targets: redactDeep(run.targets, reportWords()) } : {}),
    summary: { ...summarize(run.checks, opts.strict, run.complete, { ...(opts.minJudged !== undefined ? { minJudged: opts.minJudged } : {}), ...(run.targets ? { targets: run.targets } : {}) }), ...(left.length ? { notCertified: left } : {}) },
    checks: run.checks,
  };
  // Redaction works on the values the endpoint supplied (above, and in the runner for every check), never
  // on the report's JSON text, where a key such as `true` would cut through the syntax.
  return report;
}

/** One line per method as its checks finish: a person sees where the run is and what failed. */
function progress(): { onResult: (r: CheckResult) => void; flush: () => void } {
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
  return { onResult, flush };
}
