// `rpc-certify load`, `compare` and `doctor`: load tests with k6, the offline regression gate, and a
// look at the tools both need.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { redact, redactUrl } from '../core/redact.ts';
import { startDevnet } from '../devnet/index.ts';
import { compareReports, DEFAULT_TOLERANCE, describeCheck } from '../load/compare.ts';
import { PROFILES, type Profile } from '../load/profiles.ts';
import { readReport } from '../load/report.ts';
import { DEFAULT_MISS_SHARE, type LoadOptions, runLoad } from '../load/run.ts';
import { findK6, K6_VERSION, toolsDir } from '../scripts/setup-k6.ts';
import { positive } from './conformance.ts';
import { endpointOptions, resolveEndpoint, UsageError } from './networks.ts';

export const loadHelp = `rpc-certify load: load-test the eight methods with k6 (open-model arrival rates)

Usage:
  rpc-certify load [--url <URL>] --profile <smoke|gate|capacity|soak> [options]

With no --url, the embedded default (a seeded anvil behind the reference gateway) is started and stopped.

Profiles:
  smoke      every method at a low constant rate for a short time (default 5 rps x 10 s), CI-sized
  gate       fixed per-method rates with thresholds (default 20 rps x 60 s; p95 < 500 ms, p99 < 1000 ms,
             failures < 1%); with --baseline, also fails when a method regresses against an earlier run
  capacity   a rate ramp per method, then a weighted mix (default up to 2000 rps, 30 s each): where the
             SLO breaks; only measures (exit 0)
  soak       a long constant rate (default 10 rps x 30m): thresholds and latency drift over time

Options:
  --url URL             the endpoint, e.g. https://host/v3/<KEY> (the key never reaches a report or a metric)
  --network NAME        or a network of fixtures/networks.json, with --api-key KEY (or RPC_CERTIFY_API_KEY)
  --base-url URL        override the network's base address
  --profile NAME        smoke (default), gate, capacity or soak
  --rate N              requests per second per method (capacity: the peak of each ramp)
  --duration D          per scenario: 30s, 5m, 1h30m
  --methods a,b         only these methods (default: all eight)
  --out DIR             where the reports go (default: reports)
  --baseline FILE       an earlier load.json: fail when a method's p95/p99 or failure rate regresses
  --tolerance F         allowed growth over the baseline (default ${DEFAULT_TOLERANCE}: +${DEFAULT_TOLERANCE * 100}%)
  --seed N              corpus and request order seed (default 1)
  --miss-share F        share of requests that should miss (unknown hash, index out of range; default ${DEFAULT_MISS_SHARE})
  --corpus FILE         replay a corpus written by an earlier run (load.corpus.json) instead of sampling
  --reference-url URL   sample the corpus from this node (e.g. one serving the history the target prunes)
  --keep-work           keep the bundled script, k6's raw summary and event record, and print where
  -h, --help            this text

Exit codes: 0 pass, 1 a threshold, regression or drift failed, 2 usage error or endpoint not usable.
Reports: <out>/load.json, load.html, load.junit.xml, load.k6-dashboard.html, load.corpus.json.`;

export const compareHelp = `rpc-certify compare: the regression gate, offline

Usage:
  rpc-certify compare <BASELINE load.json> <CURRENT load.json> [--tolerance F]

A method regresses when its p95 or p99 grows by more than the tolerance (default ${DEFAULT_TOLERANCE}) and
2 ms, or its failure rate rises by more than the tolerance and half a percent.
Exit codes: 0 no regression, 1 a regression, 2 usage error or unreadable report.`;

export const doctorHelp = `rpc-certify doctor: show the tools the harness uses

Prints the versions of node, go and anvil, and which k6 a load run would use (path, version, and
whether it is the user's own on PATH or the pinned ${K6_VERSION} in ${toolsDir()}).
Exit codes: 0 everything a run needs is there, 1 something is missing.`;

export async function loadCommand(argv: string[]): Promise<number> {
  return oneLineErrors(async () => {
    const { values } = parseArgs({
      args: argv,
      options: {
        ...endpointOptions,
        profile: { type: 'string', default: 'smoke' },
        rate: { type: 'string' },
        duration: { type: 'string' },
        methods: { type: 'string' },
        out: { type: 'string', default: 'reports' },
        baseline: { type: 'string' },
        tolerance: { type: 'string' },
        seed: { type: 'string' },
        'miss-share': { type: 'string' },
        corpus: { type: 'string' },
        'reference-url': { type: 'string' },
        'keep-work': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) return print(loadHelp);
    if (!(PROFILES as readonly string[]).includes(values.profile)) throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}`);
    const opts: Omit<LoadOptions, 'url'> = {
      profile: values.profile as Profile,
      out: values.out,
      keepWork: values['keep-work'],
      ...(values.rate ? { rate: positive(values.rate, '--rate') } : {}),
      ...(values.duration ? { duration: values.duration } : {}),
      ...(values.methods ? { methods: values.methods.split(',').map((m) => m.trim()) } : {}),
      ...(values.baseline ? { baseline: values.baseline } : {}),
      ...(values.tolerance ? { tolerance: share(values.tolerance, '--tolerance', 10) } : {}),
      ...(values.seed ? { seed: positive(values.seed, '--seed') } : {}),
      ...(values['miss-share'] ? { missShare: share(values['miss-share'], '--miss-share', 1) } : {}),
      ...(values.corpus ? { corpus: values.corpus } : {}),
      ...(values['reference-url'] ? { referenceUrl: values['reference-url'] } : {}),
    };
    const url = resolveEndpoint(values);
    if (url) return report(await runLoad({ ...opts, url }));
    const devnet = await startDevnet();
    try {
      console.log(`embedded default: seeded anvil behind the reference gateway at ${redactUrl(devnet.url)}`);
      return report(await runLoad({ ...opts, url: devnet.url, targets: { reverts: devnet.seed.reverts } }));
    } finally {
      await devnet.stop();
    }
  });
}

export async function compareCommand(argv: string[]): Promise<number> {
  return oneLineErrors(async () => {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { tolerance: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) return print(compareHelp);
    const [basePath, currentPath, ...extra] = positionals;
    if (!basePath || !currentPath || extra.length) throw new UsageError('compare takes two reports: BASELINE CURRENT (see --help)');
    const read = (path: string) => readReport(path).catch((e: unknown) => Promise.reject(new UsageError(`${path}: ${(e as Error).message}`)));
    const [base, current] = [await read(basePath), await read(currentPath)];
    const checks = compareReports(base, current, values.tolerance ? share(values.tolerance, '--tolerance', 10) : DEFAULT_TOLERANCE);
    if (checks.length === 0) throw new UsageError('the two reports have no method with latency in common');
    for (const c of checks) console.log(`${c.ok ? 'ok        ' : 'REGRESSED '} ${describeCheck(c)}`);
    const regressed = checks.filter((c) => !c.ok).length;
    console.log(regressed ? `${regressed} regression(s) against ${basePath}` : `no regression against ${basePath}`);
    return regressed ? 1 : 0;
  });
}

export async function doctorCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) return print(doctorHelp);
  const version = async (cmd: string, args: string[]) =>
    (await promisify(execFile)(cmd, args).catch(() => undefined))?.stdout.split('\n')[0]?.trim() || undefined;
  const anvil = fileURLToPath(new URL('../node_modules/.bin/anvil', import.meta.url));
  const [go, k6, anvilVersion] = await Promise.all([version('go', ['version']), findK6(), version(anvil, ['--version'])]);
  console.log(`node   ${process.version}`);
  console.log(`go     ${go ?? 'not found (needed only to build k6)'}`);
  console.log(`k6     ${k6 ? `${k6.version} (${k6.source === 'path' ? "the user's own, first on PATH" : 'pinned, tools dir'}): ${k6.path}` : `not found: run \`npx tsx scripts/setup-k6.ts\` (builds ${K6_VERSION} with Go into ${toolsDir()})`}`);
  console.log(`anvil  ${anvilVersion ?? 'not found: run npm install'}`);
  return k6 && anvilVersion ? 0 : 1;
}

function report(outcome: { exitCode: number; summary: string }): number {
  (outcome.exitCode === 2 ? console.error : console.log)(redact(outcome.summary));
  return outcome.exitCode;
}

/** Usage mistakes become one line and exit code 2, never a stack trace. */
async function oneLineErrors(body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    const usage = e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!usage) throw e;
    console.error(redact(`rpc-certify: ${(e as Error).message}`));
    return 2;
  }
}

function share(text: string, flag: string, max: number): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || n > max) throw new UsageError(`${flag} takes a number from 0 to ${max}, got "${text}"`);
  return n;
}

function print(text: string): number {
  console.log(text);
  return 0;
}
