// rpc-certify's command line. Every failure ends in a one-line reason and an exit code, never a stack trace.
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
// Only light modules are imported up front: each command loads what it needs (the bundled CLI splits them
// into chunks), so --help and usage errors answer without loading viem, Mocha or the schemas.
import { inert, inertLines } from '../core/inert.ts';
import { redact, redactUrl } from '../core/redact.ts';
import { interruptSignal, releaseEarlySignals } from '../core/node/interrupt.ts';
import { CONFORMANCE_FILES, EMBEDDED_ENDPOINT, LOAD_FILES } from '../core/report-files.ts';
import { blockTimeHelp, DEFAULT_REORG_DEPTH, DEFAULT_TX_PER_BLOCK, MAX_REORG_DEPTH, movingSuffix, type Omittable, OMITTABLE, REORG_NEEDS } from '../devnet/moving.ts';
import { blockTime, embeddedChase, outDir, port, positive, reorgEvery } from './networks.ts';
import { EXIT, failureOf, UsageError } from '../core/node/errors.ts';
import { harnessVersion } from '../core/node/version.ts';

const mainHelp = `rpc-certify ${harnessVersion}: conformance and load testing for Ethereum JSON-RPC node-access services

Usage: rpc-certify <command> [options]

Commands:
  start          certify the embedded default (a seeded anvil behind the reference gateway), then a smoke load
  conformance    certify any endpoint against the spec (--url, or --network with --api-key)
  load           load-test the eight methods with k6 (--profile smoke|gate|capacity|soak)
  compare        compare two load reports (regression gate, offline)
  baseline       add a run to a baseline of several runs (baseline add DIR load.json)
  k8s            the load test as k6-operator manifests (--parallelism N); \`k8s merge\` turns the pods' logs into one report
  devnet         start the embedded default, print its URL, run until stopped
  checks         list every check: id, layer, spec clause, title, file (--markdown for a table)
  doctor         show the tools the harness uses (node, go, k6, anvil)

Run \`rpc-certify <command> --help\` for a command's options.
Exit codes: 0 pass, 1 a failed check or threshold, 2 usage error or endpoint not usable,
3 conformance inconclusive (a method never answered, or too many checks could not be tested), or load
inconclusive (the head lag against --reference-url could not be judged),
130 interrupted (the reports are written, marked incomplete).`;

const startHelp = `rpc-certify start: certify the embedded default end to end

Starts anvil (npm @foundry-rs/anvil) on a free loopback port, seeds it with real signed transactions,
puts the reference gateway ({base}/v3/<generated key>) in front, certifies it, runs a short smoke load
with k6, writes the reports and stops everything it started. The run expects the embedded chain's own
known deviations (fixtures/expectations/embedded.json: anvil commits a blob transaction's sidecar into
transactionsRoot), reported as expected failures.

Options:
  --out DIR      where the reports go (default: reports)
  --strict       advisory failures fail the run too
  --no-load      conformance only
  --block-time S certify a moving chain (conformance and load):
${blockTimeHelp(17)}
  --quiet        print only the summaries
  -h, --help     this text`;

const devnetHelp = `rpc-certify devnet: start the embedded default and keep it running until Ctrl-C

Options:
  --port N       the gateway's port (default: a free one)
  --api-key KEY  the key the gateway accepts (default: a generated one, printed with the URL)
  --node NAME    anvil (default: normalised by the reference gateway) or geth (geth --dev, built by
                 \`npm run setup\`, seeded the same way; the gateway passes its answers through untouched)
  --block-time S a moving chain (anvil; geth: seeded, then started again with --dev.period S):
${blockTimeHelp(17)}
  --without K,…  transaction kinds neither the seed nor the traffic sends (${OMITTABLE.join(', ')}): a chain
                 that holds none of them, as most dev chains hold no blob or set-code transaction
  --reorg-every T  a chain that reorganises (anvil and --block-time only; geth --dev cannot reorg): every T
                 seconds its newest blocks are replaced by a fork of their own (anvil_reorg), 1 to D blocks
                 deep in turn; the orphaned transactions are mined again in the new fork, save blob
                 transactions (dropped: null by hash); the seed's blocks are never replaced
  --reorg-depth D  the deepest reorg (default ${DEFAULT_REORG_DEPTH})
  --serve-latest N  a pruned endpoint (anvil): history older than the latest N blocks is answered error
                 4444, as a node that expired it (EIP-4444) does; 2N empty blocks come before the seed, so
                 there is history to prune and the seed's activity is served (conformance's history/* checks name its depth)
  -h, --help     this text`;

type Command = (argv: string[]) => Promise<number>;

const commands: Record<string, Command> = {
  start: startCommand,
  conformance: async (argv) => (await import('./conformance.ts')).conformanceCommand(argv),
  devnet: devnetCommand,
  checks: checksCommand,
  load: async (argv) => (await import('./load.ts')).loadCommand(argv),
  compare: async (argv) => (await import('./load.ts')).compareCommand(argv),
  baseline: async (argv) => (await import('./load.ts')).baselineCommand(argv),
  k8s: async (argv) => (await import('./k8s.ts')).k8sCommand(argv),
  doctor: async (argv) => (await import('./load.ts')).doctorCommand(argv),
};

async function startCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { out: { type: 'string', default: 'reports' }, strict: { type: 'boolean', default: false }, 'no-load': { type: 'boolean', default: false }, 'block-time': { type: 'string' }, quiet: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) return print(startHelp);
  const blockTimeS = blockTime(values['block-time']);
  const interrupted = interruptSignal();
  // Stopped while the chain is seeded, the run writes nothing: no earlier verdict may stay beside it.
  await outDir(values.out, [...Object.values(CONFORMANCE_FILES), ...Object.values(LOAD_FILES)]);
  const [{ startDevnet }, { certify, embeddedExpectations }] = await Promise.all([import('../devnet/index.ts'), import('./conformance.ts')]);
  const devnet = await startDevnet({ ...(blockTimeS ? { blockTimeS } : {}), signal: interrupted });
  try {
    console.log(`embedded default: seeded anvil behind the reference gateway at ${redactUrl(devnet.url)}${movingSuffix(blockTimeS)}`);
    for (const line of seedSkips(devnet.seed)) console.log(line);
    const seedTargets = { reverts: devnet.seed.reverts };
    // The embedded chain's own known deviations (what anvil commits to that no gateway can restate).
    const expect = await embeddedExpectations();
    const conformance = await certify({ url: devnet.url, endpointName: `${EMBEDDED_ENDPOINT}${movingSuffix(blockTimeS)}`, out: values.out, quiet: values.quiet, judging: { strict: values.strict }, expect, fixtures: [{ targets: seedTargets, source: 'seed' }] });
    // Stopped while conformance ran: its reports say so; the run as a whole was interrupted, never a pass.
    if (interrupted.aborted) return EXIT.interrupted;
    if (values['no-load']) return conformance;
    const { runLoad } = await import('../load/run/run.ts');
    const load = await runLoad({ url: devnet.url, endpointName: `${EMBEDDED_ENDPOINT}${movingSuffix(blockTimeS)}`, profile: 'smoke', out: values.out, targets: { reverts: devnet.seed.reverts }, fresh: embeddedChase(blockTimeS), signal: interrupted });
    console.log(inertLines(redact(load.summary)));
    return conformance || load.exitCode;
  } finally {
    await devnet.stop();
  }
}

/** A seed step the node could not do is said, never silently dropped: what it leaves out is not on the chain to certify. */
function seedSkips(seed: { skipped: Array<{ step: string; reason: string }> }): string[] {
  return seed.skipped.map((s) => `seed: skipped ${s.step}: the node answered "${s.reason}"`);
}

async function checksCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { markdown: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) return print('rpc-certify checks [--markdown]: list every check of the suite with its id, layer, spec clause, title and the file that declares it');
  const { allSuites } = await import('../conformance/methods.ts');
  const { catalogueMarkdown, catalogueRows } = await import('../conformance/framework/catalogue.ts');
  const rows = catalogueRows(allSuites);
  if (values.markdown) console.log(catalogueMarkdown(allSuites));
  else for (const r of rows) console.log(`${r.id.padEnd(58)} ${r.layer.padEnd(9)} ${r.clause.padEnd(22)} ${r.title} (${r.file})`);
  console.log(values.markdown ? '' : `\n${rows.length} checks`);
  return 0;
}

const MAX_SERVE_LATEST = 10_000;

async function devnetCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string' }, 'api-key': { type: 'string' }, node: { type: 'string', default: 'anvil' }, 'block-time': { type: 'string' }, without: { type: 'string' }, 'reorg-every': { type: 'string' }, 'reorg-depth': { type: 'string' }, 'serve-latest': { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) return print(devnetHelp);
  if (values.node !== 'anvil' && values.node !== 'geth') throw new UsageError(`--node takes anvil or geth, got "${values.node}"`);
  const blockTimeS = blockTime(values['block-time']);
  const without = (values.without ?? '').split(',').filter(Boolean);
  const unknown = without.filter((k) => !(OMITTABLE as readonly string[]).includes(k));
  if (unknown.length) throw new UsageError(`--without takes ${OMITTABLE.join(', ')} (comma-separated), got "${unknown.join(',')}"`);
  const listen = values.port ? { port: port(values.port, '--port') } : {};
  const reorgs = reorgOptions(values['reorg-every'], values['reorg-depth'], values.node, blockTimeS);
  const serveLatest = values['serve-latest'] === undefined ? undefined : positive(values['serve-latest'], '--serve-latest');
  // 2N blocks are mined first: past this, anvil takes minutes to mine them.
  if (serveLatest !== undefined && serveLatest > MAX_SERVE_LATEST) throw new UsageError(`--serve-latest takes at most ${MAX_SERVE_LATEST} blocks (2N empty blocks are mined before the seed), got ${serveLatest}`);
  if (serveLatest !== undefined && values.node !== 'anvil') throw new UsageError('--serve-latest prunes the embedded default (anvil) only: geth --dev is served as it is');
  const { startDevnet } = await import('../devnet/index.ts');
  const devnet = await startDevnet({ node: values.node, ...listen, ...(values['api-key'] ? { apiKey: values['api-key'] } : {}), ...(blockTimeS ? { blockTimeS } : {}), without: without as Omittable[], ...(reorgs ? { reorgs } : {}), ...(serveLatest ? { serveLatest } : {}) });
  // The signals are this command's from the moment the devnet runs: a Ctrl-C as soon as its URL shows (before the
  // command below is printed) stops it and exits 0, instead of bin's early handler exiting 130 mid-print.
  const stopAsked = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    // After its own listeners: between the two, a signal pending dispatch would be dropped (interrupt.ts).
    releaseEarlySignals();
  });
  // A key the user chose is theirs and stays out of the output; a generated one is printed, or the URL would be unusable.
  console.log(`${devnet.node === 'geth' ? 'geth devnet' : 'embedded default'} listening: ${values['api-key'] ? redactUrl(devnet.url) : devnet.url}`);
  console.log(`chain id ${devnet.seed.chainId}; ${devnet.node} behind it at ${devnet.nodeUrl}. Ctrl-C stops both.`);
  if (blockTimeS) console.log(`moving: a block every ${blockTimeS} s, with background traffic (${DEFAULT_TX_PER_BLOCK} transactions a block) from block ${BigInt(devnet.seed.blocks.multiTx.number) + 1n} on`);
  if (serveLatest) console.log(`pruned: history older than the latest ${serveLatest} blocks is answered error 4444, as a node that expired it does (${2 * serveLatest} empty blocks come before the seed's, so there is some)`);
  if (reorgs) console.log(`reorganising: every ${reorgs.everyS} s its newest blocks (1 to ${reorgs.maxDepth} deep, in turn) are replaced by a fork of their own`);
  for (const line of seedSkips(devnet.seed)) console.log(line);
  // What the chain itself commits to (anvil's blob transactionsRoot, no uncles on a dev chain) fails the
  // suite however the gateway normalises; the --expect file lists it, with reasons, as `start` applies it.
  // The seed's reverting contracts are known here only: handed over in a file, so the command judges code-3 reverts
  // with their ABI data as `start` does (red team C6). A chosen key is read from the environment, never printed.
  const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-devnet-'));
  const reverts = join(dir, 'reverts.json');
  await writeFile(reverts, `${JSON.stringify(devnet.seed.reverts, null, 2)}\n`);
  const url = values['api-key'] ? `"${devnet.url.slice(0, devnet.url.lastIndexOf('/v3/') + 4)}$RPC_CERTIFY_API_KEY"` : devnet.url;
  console.log(`certify it: npx rpc-certify conformance --url ${url} --expect ${expectationsPath(devnet.node === 'geth' ? 'geth' : 'embedded')}${devnet.seed.reverts.length ? ` --reverts ${reverts}` : ''}`);
  await stopAsked;
  await devnet.stop();
  await rm(dir, { recursive: true, force: true });
  return 0;
}

/** --reorg-every and --reorg-depth, refused where the chain cannot reorganise. */
function reorgOptions(every: string | undefined, depth: string | undefined, node: string, blockTimeS: number | undefined): { everyS: number; maxDepth: number } | undefined {
  if (every === undefined) {
    if (depth !== undefined) throw new UsageError('--reorg-depth goes with --reorg-every');
    return undefined;
  }
  if (node !== 'anvil' || blockTimeS === undefined) throw new UsageError(`--reorg-every: ${REORG_NEEDS}`);
  const everyS = reorgEvery(every);
  const maxDepth = depth === undefined ? DEFAULT_REORG_DEPTH : Number(depth);
  if (!/^[1-9]\d*$/.test(depth ?? '1') || maxDepth > MAX_REORG_DEPTH) throw new UsageError(`--reorg-depth takes a whole number of blocks from 1 to ${MAX_REORG_DEPTH}, got "${depth}"`);
  return { everyS, maxDepth };
}

/** The shipped --expect file for the devnet's node, as a path a user can paste from where they stand. */
function expectationsPath(name: 'embedded' | 'geth'): string {
  const rel = join('fixtures', 'expectations', `${name}.json`);
  // bin/rpc-certify.js sits one level below the project root (the CLI itself runs bundled from dist/).
  const script = process.argv[1];
  const file = script ? join(dirname(dirname(realpathSync(script))), rel) : rel;
  if (!existsSync(file)) return rel;
  const fromHere = relative(process.cwd(), file);
  return fromHere.startsWith('..') || isAbsolute(fromHere) ? file : fromHere;
}

function print(text: string): number {
  console.log(text);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') return rest[0] && commands[rest[0]] ? commands[rest[0]]!(['--help']) : print(mainHelp);
  if (name === '--version' || name === '-v') return print(harnessVersion);
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command "${name}"; see rpc-certify --help`);
  return command(rest).catch((e: unknown) => {
    // node's parseArgs names the option but not where the valid ones are listed.
    if ((e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`${(e as Error).message.split('.')[0]}; \`rpc-certify ${name} --help\` lists the options`);
    // "Option '--rate' argument is ambiguous…": a value that starts with a dash (a negative number) is taken for an option.
    const message = (e as Error).message;
    const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec(message);
    if (ambiguous) throw new UsageError(`${ambiguous[1]} was given a value starting with a dash, which reads as an option: none of its values is negative; \`rpc-certify ${name} --help\` says what it takes`);
    const missing = /^Option '(-\w, )?(--[\w-]+) <value>' argument missing/.exec(message);
    if (missing) throw new UsageError(`${missing[2]} takes a value; \`rpc-certify ${name} --help\` says what`);
    const flag = /^Option '(-\w, )?(--[\w-]+)' does not take an argument/.exec(message);
    if (flag) throw new UsageError(`${flag[2]} is a switch and takes no value (give it alone)`);
    throw e;
  });
}

/**
 * An interrupted run exits once its reports are written: work it started and no longer waits for (a module still
 * loading, a k6 version probe) would hold the process past the second a stop may take. The output is written by
 * then (stdout and stderr are synchronous on Linux, to a terminal, a file or a pipe).
 */
function exitWith(code: number): void {
  process.exitCode = code;
  if (code === EXIT.interrupted) process.exit(code);
}

main(process.argv.slice(2)).then(exitWith, (err: unknown) => {
  const failure = failureOf(err);
  console.error(inert(redact(`rpc-certify: ${failure.message}`), 1000));
  exitWith(failure.exitCode);
});
