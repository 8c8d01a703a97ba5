// What the benches share: the responder process, k6 runs (a minimal hand-written script, or the
// harness through its public runLoad), the percentile as k6 computes it, CPU accounting, and
// reports/bench.json, into which every bench merges its figure.
import { type ChildProcess, fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { replyFingerprint, sha256Hex } from '../../core/node/fingerprint.ts';
import { answerDigest } from '../../load/shared/answer.ts';
import { CLOCK_TICKS_PER_SEC, procStatFields, runK6, STAT } from '../../load/run/k6.ts';
import { BUCKETS, bucketOf, GROUP_BUCKETS, groupOf, GROWTH, HISTOGRAM_GROUPS, MIN_MS } from '../../load/shared/histogram.ts';
import { METHODS } from '../../core/methods.ts';
import { metricName } from '../../load/shared/answer-classes.ts';
import { histogramThresholds } from '../../load/shared/summary.ts';
import { buildPlan, k6Procs } from '../../load/shared/profiles.ts';
import { runLoad } from '../../load/run/run.ts';
import { answerTimeMs } from '../../load/plan/sample.ts';
import { shapeFault } from '../../load/shared/shapes.ts';
import type { Envelope } from '../../load/shared/classify.ts';
import { RpcClient } from '../../core/node/rpc-client.ts';
import { K6_RUN_ARGS } from '../../load/run/instances.ts';
import { ensureK6 } from '../../core/node/tools/k6.ts';
import { CORPUS_HASHES, METHOD, type Mode, REQUEST, txAnswer } from './endpoint.ts';

export interface Served {
  served: number;
  /** Per call of METHOD, in arrival order (not in the fast mode): ms from its arrival to its answer. */
  durations: number[];
}

export interface Responder {
  url: string;
  served(): Promise<Served>;
  stop(): void;
}

const RESPONDER = fileURLToPath(new URL('./responder.ts', import.meta.url));

export async function startResponder(mode: Mode): Promise<Responder> {
  const child = fork(RESPONDER, [mode], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await nextMessage<{ port: number }>(child);
  return {
    url: `http://127.0.0.1:${port}/v3/bench`,
    served: () => {
      const reply = nextMessage<Served>(child);
      child.send('served');
      return reply;
    },
    stop: () => void (child.connected && child.disconnect()),
  };
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`responder exited (${code})`));
    child.once('exit', exited);
    child.once('message', (m) => {
      child.off('exit', exited);
      resolve(m as T);
    });
  });
}

/** The k6 scenario the harness's gate profile runs at `rate` (executor, VU limits), for a bare script to run under the same plan. */
/** `latencyMs`: the responder's answer time as sampling records it (sampledLatencyMs), which sizes the plan's VUs; absent,
 * the plan's sizing for a corpus without one (the worst case: VUs for 250 ms answers). */
export function harnessScenario(rate: number, durationSec: number, latencyMs?: number): Record<string, unknown> {
  const plan = buildPlan({ profile: 'gate', methods: [METHOD], seed: 1, rate, duration: `${durationSec}s`, ...(latencyMs === undefined ? {} : { latencyMs }) });
  const scenario = (plan.options['scenarios'] as Record<string, Record<string, unknown>> | undefined)?.[METHOD];
  if (!scenario) throw new Error(`the gate plan has no ${METHOD} scenario`);
  return scenario;
}

/** What the benches read from the harness's load.json for METHOD. */
export interface HarnessFigures {
  requests: number;
  /** load.json's achievedRps. */
  rps: number;
  dropped: number;
  latencyMs: { p50: number; p99: number; 'p99.9': number; max: number } | null;
  /** CPU seconds k6 used (the bench's reaped children: k6, and `k6 version`). */
  cpuSec: number;
  /** Where the scenario recognised the answers (load.json's k6.recognition). */
  recognition?: string;
}

/** The harness as users run it (runLoad, gate profile: classification and sampled validation on), replaying the bench corpus.
 * `pprof`: k6 runs with its pprof endpoints on, and its REST API URL comes here. `latencyMs`: the corpus records it, as
 * sampling does (harnessScenario). */
export async function runHarness(url: string, rate: number, durationSec: number, opts: { pprof?: (api: string) => void; latencyMs?: number } = {}): Promise<HarnessFigures> {
  const { pprof, latencyMs } = opts;
  const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-bench-'));
  try {
    const corpus = join(dir, 'corpus.json');
    await writeFile(corpus, JSON.stringify({ ...benchCorpus(), ...(latencyMs === undefined ? {} : { latencyMs }) }));
    const log: string[] = [];
    const cpu = childCpuSec();
    const outcome = await runLoad({ url, profile: 'gate', rate, duration: `${durationSec}s`, methods: [METHOD], corpus, out: dir, log: (l) => log.push(l), ...(pprof ? { pprof } : {}) });
    const cpuSec = childCpuSec() - cpu;
    // Exit 1 is a failed threshold (expected when the generator is pushed past what it can send); 2 is no run.
    if (outcome.exitCode === 2) throw new Error(`harness run failed: ${outcome.summary}\n${log.join('\n')}`);
    const report = JSON.parse(await readFile(join(dir, 'load.json'), 'utf8')) as { k6: { recognition?: string }; methods: Record<string, Omit<HarnessFigures, 'rps' | 'cpuSec'> & { achievedRps: number }> };
    const m = report.methods[METHOD];
    if (!m) throw new Error(`load.json has no ${METHOD}`);
    return { requests: m.requests, rps: m.achievedRps, dropped: m.dropped, latencyMs: m.latencyMs, cpuSec, ...(report.k6.recognition ? { recognition: report.k6.recognition } : {}) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The corpus the harness replays (the responder has no chain to sample): calls of METHOD, each expected to answer a value,
 * with what sampling would have recorded of the responder's answer (its digest, its fingerprint, and whether it conforms
 * to the schemas). */
function benchCorpus() {
  const calls = CORPUS_HASHES.map((hash) => {
    const answer = txAnswer(1, hash);
    const envelope = JSON.parse(answer) as Envelope;
    return { params: [hash], note: 'bench', kind: 'hit', answer: answerDigest(envelope.result, sha256Hex), reply: replyFingerprint(answer, 1), ...(shapeFault(METHOD, envelope) ? {} : { shaped: true }) };
  });
  const entries = Object.fromEntries(METHODS.map((m) => [m, m === METHOD ? calls : []]));
  return { version: 3, seed: 1, missShare: 0, chainId: '0x7a69', head: '0x9', blocksSampled: 1, entries, sampling: {} };
}

/** The responder's answer time as sampling records it (sample.ts: each answer timed by its RpcClient, the p90), over
 * `calls` of the bench's request one after another: what a user's corpus of this endpoint would carry. */
export async function sampledLatencyMs(url: string, calls = 100): Promise<number> {
  const times: number[] = [];
  const client = new RpcClient({ url, timeoutMs: 10_000, onAnswer: (_ex, askedAt, answeredAt) => void times.push(answeredAt - askedAt) });
  try {
    const { method, params } = JSON.parse(REQUEST) as { method: string; params: unknown[] };
    for (let i = 0; i < calls; i++) await client.call(method, params);
  } finally {
    client.close();
  }
  const p90 = answerTimeMs(times);
  if (p90 === undefined) throw new Error('the responder answered no timed call');
  return p90;
}

export interface BareFigures {
  requests: number;
  rps: number;
  /** k6's http_req_duration: med, p(99), p(99.9), max. */
  latencyMs: { p50: number; p99: number; p999: number; max: number };
  cpuSec: number;
}

/**
 * What a hand-written k6 script does per request, on top of sending it:
 * - bare: nothing (the same call every time);
 * - floor: records the one metric sample the harness records for an `ok` answer (its histogram bucket, with the histogram's
 *   bookkeeping thresholds) and nothing else: the floor of any harness that keeps per-request latency in k6 and merges it;
 * - judged: the floor, plus the least a generator must do to judge each answer exactly: read its corpus line (a SharedArray),
 *   send that entry's request with its own id, and recognise the answer as the sampled one (core/reply.ts), with the harness's
 *   own functions. Every answer must be recognised, or the run fails: the figure is of judging, not of skipping it.
 */
export type BareLevel = 'bare' | 'floor' | 'judged';

/** The harness's pure functions as k6 gets them (esbuild strips the types, as bundling does), in one script: what one file
 * imports from another is defined beside it. */
export async function pureScript(files: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    files.map(async (file) => {
      const { code } = await transform(await readFile(new URL(`../../${file}`, import.meta.url), 'utf8'), { loader: 'ts', format: 'esm' });
      return code.replace(/^export /gm, '').replace(/^import .*$/gm, '');
    }),
  );
  return parts.join('\n');
}

/** A minimal hand-written k6 script sending the bench's call at `level` (above), under the given k6 scenario (its `exec` is "call"),
 * run as `k6 run` runs it by default (its end-of-test summary on, Go's own GOMAXPROCS). */
export async function runBare(url: string, scenario: Record<string, unknown>, durationSec: number, level: BareLevel = 'bare', pprof?: (api: string) => void): Promise<BareFigures> {
  return withBareScript(scenario, level, async (script, dir) => {
    const summaryPath = join(dir, 'summary.json');
    const cpu = childCpuSec();
    const run = await runK6({ binary: (await ensureK6()).path, script, env: { URL: url, SUMMARY: summaryPath }, ...(pprof ? { args: ['--profiling-enabled'], onApi: pprof } : {}) });
    const cpuSec = childCpuSec() - cpu;
    const summary = JSON.parse(await readFile(summaryPath, 'utf8').catch(() => '{}')) as { metrics?: Record<string, { values: Record<string, number> }> };
    const requests = summary.metrics?.['http_reqs']?.values['count'];
    const d = summary.metrics?.['http_req_duration']?.values;
    if (run.exitCode !== 0 || requests === undefined || !d) throw new Error(bareFailure(run, level));
    const stat = (name: string) => d[name] ?? NaN;
    return { requests, rps: requests / durationSec, latencyMs: { p50: stat('med'), p99: stat('p(99)'), p999: stat('p(99.9)'), max: stat('max') }, cpuSec };
  });
}

/** The flags the harness runs k6 with (load/run/instances.ts), less its output (its own, or OpenTelemetry's): that is how
 * the harness reads its own figures (its receiver is part of its cost), and a bare script has no receiver to send to. */
export const BARE_HARNESS_ARGS: readonly string[] = K6_RUN_ARGS;

/** The GOMAXPROCS the harness gives k6 at `rps` (load/run/instances.ts), or none when the user set GOMAXPROCS. */
export function harnessProcs(rps: number): Record<string, string> {
  const procs = k6Procs(rps, availableParallelism(), process.env['GOMAXPROCS']);
  return procs === undefined ? {} : { GOMAXPROCS: String(procs) };
}

/**
 * The same script run with the harness's k6 settings at `rps`: its flags (BARE_HARNESS_ARGS: no thresholds, no end-of-test
 * summary) and its GOMAXPROCS. k6 then keeps no metric at all (neither handleSummary nor its REST API has a count), so the
 * requests are the responder's count over the run.
 */
export async function runBareAsHarness(responder: Responder, scenario: Record<string, unknown>, durationSec: number, level: BareLevel, rps: number): Promise<{ requests: number; rps: number; cpuSec: number }> {
  return withBareScript(scenario, level, async (script, dir) => {
    const before = (await responder.served()).served;
    const cpu = childCpuSec();
    // SUMMARY only in case a k6 ran handleSummary all the same: into the run's folder, not the working directory.
    const run = await runK6({ binary: (await ensureK6()).path, script, args: [...BARE_HARNESS_ARGS], env: { URL: responder.url, SUMMARY: join(dir, 'summary.json'), ...harnessProcs(rps) } });
    const cpuSec = childCpuSec() - cpu;
    if (run.exitCode !== 0) throw new Error(bareFailure(run, level));
    const requests = (await responder.served()).served - before;
    return { requests, rps: requests / durationSec, cpuSec };
  });
}

/** Writes the bare script at `level` under `scenario` into a fresh directory, and runs `run` on it. */
async function withBareScript<T>(scenario: Record<string, unknown>, level: BareLevel, run: (script: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-bench-'));
  try {
    const samples = level !== 'bare';
    const options = {
      scenarios: { bare: { ...scenario, exec: 'call' } },
      summaryTrendStats: ['med', 'p(99)', 'p(99.9)', 'max'],
      ...(samples ? { thresholds: histogramThresholds([METHOD]) } : {}),
    };
    const script = join(dir, 'bare.js');
    // The harness's metric names and bucketing (histogram.ts), so k6 does the same work per sample.
    const metrics = `const groups = ${JSON.stringify(Array.from({ length: HISTOGRAM_GROUPS }, (_, g) => metricName.histogram(METHOD, g)))}.map((name) => new Counter(name));
const MIN_MS = ${MIN_MS}, GROWTH = ${GROWTH}, BUCKETS = ${BUCKETS}, GROUP_BUCKETS = ${GROUP_BUCKETS};
${bucketOf.toString()}
${groupOf.toString()}
const tags = [];`;
    const record = `const b = bucketOf(res.timings.duration); groups[groupOf(b)].add(1, (tags[b] ??= { b: String(b) }));`;
    const judged = `${await pureScript(['core/reply.ts', 'load/shared/corpus.ts', 'load/k6/packed-entry.ts'])}
const lines = new SharedArray('corpus', () => ${JSON.stringify(benchCorpus().entries[METHOD])}.map(packEntry));
let scenario;`;
    // An answer not recognised stops the test (k6 exits ABORTED): the figure is of judging, not of skipping it. Off the hot path.
    const send =
      level === 'judged'
        ? `const i = (scenario ??= exec.scenario).iterationInTest; const entry = unpackEntry(lines[i % lines.length]); const id = i + 1;
  const res = http.post(__ENV.URL, \`{"jsonrpc":"2.0","id":\${id},"method":${JSON.stringify(METHOD)},"params":\${entry.params}}\`, params);
  const text = res.status === 200 && typeof res.body === 'string' ? markedText(res.body, id) : undefined;
  if (text === undefined || crypto.sha256(text, 'hex') !== entry.reply) exec.test.abort('${UNRECOGNISED}');`
        : 'const res = http.post(__ENV.URL, body, params);';
    await writeFile(
      script,
      `import http from 'k6/http';
import crypto from 'k6/crypto';
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
export const options = ${JSON.stringify(options)};
const body = ${JSON.stringify(REQUEST)};
const params = { headers: { 'Content-Type': 'application/json' } };
${samples ? metrics : ''}
${level === 'judged' ? judged : ''}
export function call() {
  ${send}
  ${samples ? record : ''}
}
export function handleSummary(data) { return { [__ENV.SUMMARY]: JSON.stringify(data) }; }
`,
    );
    return await run(script, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What a failed bare run says: the judged script's unrecognised answer, or k6's last line. */
function bareFailure(run: { exitCode: number; log: Array<{ line: string }> }, level: BareLevel): string {
  if (level === 'judged' && run.exitCode === ABORTED && run.log.some((l) => l.line.includes(UNRECOGNISED))) return 'the judged script met an answer it did not recognise: the responder does not answer as the bench corpus says';
  return `bare k6 run failed (exit ${run.exitCode}): ${run.log.at(-1)?.line ?? 'no output'}`;
}

/** The judged script's reason to abort, and k6's exit code for a test aborted from the script (errext.ScriptAborted). */
const UNRECOGNISED = 'bench: answer not recognised';
const ABORTED = 108;

/** 10 VUs keep k6 busy against a sub-millisecond responder; 8 s measure a rate to the percent. */
export const CEILING = { vus: 10, sec: 8 };

/** The highest rate k6 reaches here (the bare script flat out, closed loop), and that rounded to 100: what the others are asked for. */
export async function runCeiling(url: string): Promise<BareFigures & { rate: number }> {
  const bare = await runBare(url, { executor: 'constant-vus', vus: CEILING.vus, duration: `${CEILING.sec}s` }, CEILING.sec);
  return { ...bare, rate: Math.round(bare.rps / 100) * 100 };
}

/** The overhead protocol's rounds (bench:overhead): a figure is the median of 3 runs, the generators' runs alternating. */
const ROUNDS = 3;

type Runs<T extends unknown[]> = { [K in keyof T]: () => Promise<T[K]> };

/** Runs the generators in turn, ROUNDS times (never one generator's runs in a row), and keeps each one's median run by `key`. */
async function medianRun<T extends unknown[]>(runs: Runs<T>, key: (run: T[number]) => number): Promise<T> {
  const taken: Array<Array<T[number]>> = runs.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, run] of runs.entries()) taken[i]?.push(await run());
  }
  return taken.map((all) => [...all].sort((a, b) => key(a) - key(b))[Math.floor(all.length / 2)]) as T;
}

/** Each generator's median run by its rate. */
export const medianRate = <T extends Array<{ rps: number }>>(runs: Runs<T>): Promise<T> => medianRun(runs, (r) => r.rps);

/** Each generator's median run by its CPU per request. */
export const medianCpu = <T extends Array<{ cpuSec: number; requests: number }>>(runs: Runs<T>): Promise<T> => medianRun(runs, cpuMsPerRequest);

/** The median of a non-empty list (the mean of the middle two when it is even). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) throw new Error('the median of nothing');
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function cpuMsPerRequest(f: { cpuSec: number; requests: number }): number {
  return round((f.cpuSec / f.requests) * 1000, 3);
}

/** What whileSending adds to a generator's figures: its requests and CPU while it sent, and this process's CPU meanwhile. */
export interface Sending {
  /** CPU seconds of the generator's whole process tree (k6; vegeta; chainbench's CLI, Locust master and workers) while it sent. */
  cpuSec: number;
  /** The responder's count of calls served while it sent: all the run's calls. */
  requests: number;
  /** CPU seconds of this process meanwhile: the sampler, and for the harness its Node side (runLoad, the OTLP receiver). */
  benchCpuSec: number;
  /** The responder's count of calls served over the whole run: the run's rate, over its planned seconds (`requests`
   * leaves out the edges of the sending the 100 ms readings miss: ~4% of a 5 s run). */
  sent: number;
}

/**
 * Runs a generator and replaces its CPU figure with its CPU while it was sending: the CPU time of its process tree and
 * the responder's served count sampled every 100 ms, over the samples between the first and the last served call.
 * Starting VUs (a few ms each, before the test), a tool's start-up and writing the summary are left out, so CPU per
 * request is what each request costs, whatever the run's length. `least`: the fewest calls a reading may span (an idle
 * run's few).
 */
export async function whileSending<T extends { cpuSec: number; requests: number }>(responder: Responder, run: () => Promise<T>, least = 100): Promise<T & Sending> {
  const tree = processTree();
  const read = async (pid: number | undefined) => (pid === undefined ? undefined : { generator: tree.cpuSec(pid), bench: selfCpuSec() });
  const before = (await responder.served()).served;
  const { result, samples } = await sampleGenerator(responder, 100, read, run);
  const sent = (await responder.served()).served - before;
  const sending = samples.map((x) => x.sending);
  const [from, to] = [samples[sending.indexOf(true) - 1], samples[sending.lastIndexOf(true)]];
  if (!from || !to || to.served - from.served < least) throw new Error('the CPU sampler saw no sending');
  return { ...result, cpuSec: to.value.generator - from.value.generator, requests: to.served - from.served, benchCpuSec: to.value.bench - from.value.bench, sent };
}

/** A reading of the running generator, with the responder's served count then and whether it grew since the reading before. */
export interface GeneratorSample<V> {
  at: number;
  value: V;
  served: number;
  sending: boolean;
}

/** Reads the running generator (`read` gets its pid, or undefined) every `everyMs` while `run` runs; readings it could not take are left out. */
export async function sampleGenerator<T, V>(responder: Responder, everyMs: number, read: (pid: number | undefined) => Promise<V | undefined>, run: () => Promise<T>): Promise<{ result: T; samples: Array<GeneratorSample<V>> }> {
  const samples: Array<GeneratorSample<V>> = [];
  let running = true;
  const poll = (async () => {
    while (running) {
      const value = await read(generatorPid());
      const { served } = await responder.served();
      const before = samples.at(-1);
      if (value !== undefined) samples.push({ at: Date.now(), value, served, sending: before !== undefined && served > before.served });
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  try {
    return { result: await run(), samples };
  } finally {
    running = false;
    await poll;
  }
}

/** The generators' process names (/proc's comm: a script's own name for chainbench). */
const GENERATORS = ['(k6)', '(vegeta)', '(chainbench)'];
let lastGenerator: number | undefined;

/** The running generator child of this process (k6, which runLoad starts out of the bench's sight, vegeta or chainbench), if there is one. */
function generatorPid(): number | undefined {
  const isGenerator = (pid: string) => {
    const stat = readStat(pid);
    return stat !== undefined && GENERATORS.some((name) => stat.includes(name)) && Number(procStatFields(stat)[STAT.ppid]) === process.pid;
  };
  if (lastGenerator !== undefined && isGenerator(String(lastGenerator))) return lastGenerator;
  const pid = pids().find(isGenerator);
  lastGenerator = pid === undefined ? undefined : Number(pid);
  return lastGenerator;
}

const pids = () => readdirSync('/proc').filter((d) => /^\d+$/.test(d));

function readStat(pid: string | number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone meanwhile
  }
}

/** How often the generator's descendants are looked for again (chainbench starts its Locust processes after itself). */
const TREE_RESCAN_MS = 1000;

/** A process and its live descendants (from /proc: the children are in each process's stat). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const p of pids()) {
    const stat = readStat(p);
    if (stat === undefined) continue;
    const parent = Number(procStatFields(stat)[STAT.ppid]);
    children.set(parent, [...(children.get(parent) ?? []), Number(p)]);
  }
  const found: number[] = [];
  for (const queue = [root]; queue.length > 0; ) {
    const next = queue.shift() as number;
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

/** CPU seconds (user + system) of live processes; a process gone meanwhile counts nothing. */
export function liveCpuSec(processes: readonly number[]): number {
  let ticks = 0;
  for (const p of processes) {
    const f = procStatFields(readStat(p) ?? '');
    ticks += (Number(f[STAT.utime]) || 0) + (Number(f[STAT.stime]) || 0);
  }
  return ticks / CLOCK_TICKS_PER_SEC;
}

/** CPU seconds of processes and of the children each has reaped: a member that ends meanwhile moves its CPU to its
 * parent's, which is also a member (a live-only sum drops it, and a Locust worker ending in a reading's window made
 * chainbench's CPU per request negative). */
function treeCpuSec(processes: readonly number[]): number {
  let ticks = 0;
  for (const p of processes) {
    const f = procStatFields(readStat(p) ?? '');
    for (const field of [STAT.utime, STAT.stime, STAT.cutime, STAT.cstime]) ticks += Number(f[field]) || 0;
  }
  return ticks / CLOCK_TICKS_PER_SEC;
}

/** CPU seconds of a process and its descendants; the descendants are found again once a TREE_RESCAN_MS, not at each reading. */
function processTree(): { cpuSec(root: number): number } {
  let members: number[] = [];
  let root: number | undefined;
  let scannedAt = -Infinity;
  return {
    cpuSec(pid) {
      if (pid !== root || performance.now() - scannedAt > TREE_RESCAN_MS) {
        root = pid;
        scannedAt = performance.now();
        members = descendants(pid);
      }
      return treeCpuSec(members);
    },
  };
}

/** CPU seconds of this process (the bench's Node side). */
function selfCpuSec(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** CPU seconds of this process's reaped children: exact for a k6 run, which ends before it is read. */
function childCpuSec(): number {
  const fields = procStatFields(readFileSync('/proc/self/stat', 'utf8'));
  return (Number(fields[STAT.cutime]) + Number(fields[STAT.cstime])) / CLOCK_TICKS_PER_SEC;
}

/** The p-quantile (0..1) as k6 computes a Trend's p(x): linear interpolation between the ranks around p·(n-1). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = p * (sorted.length - 1);
  const lo = sorted[Math.floor(i)] ?? NaN;
  return lo + ((sorted[Math.ceil(i)] ?? lo) - lo) * (i - Math.floor(i));
}

/** The accuracy target: within 2% or 0.5 ms of the truth, whichever is larger. */
export function withinTarget(measured: number, truth: number): boolean {
  return Math.abs(measured - truth) <= Math.max(0.02 * truth, 0.5);
}

export function round(n: number, digits = 2): number {
  return Number(n.toFixed(digits));
}

/** A row of the figure table: what was measured, the result, the target, and whether it was met. */
export type Row = [what: string, result: string, target: string, met: 'yes' | 'no' | 'n/a' | 'unclear'];

export const BENCH_JSON = 'reports/bench.json';

/** Merges one figure into reports/bench.json, with the machine it was taken on. */
export async function saveFigure(name: string, figure: { rows: Row[] } & Record<string, unknown>): Promise<void> {
  const k6 = await ensureK6();
  const machine = { cores: availableParallelism(), cpu: cpus()[0]?.model ?? 'unknown', node: process.version, k6: k6.version };
  const all = JSON.parse(await readFile(BENCH_JSON, 'utf8').catch(() => '{}')) as { figures?: Record<string, unknown> };
  const figures = { ...all.figures, [name]: { takenAt: new Date().toISOString(), machine, ...figure } };
  await mkdir('reports', { recursive: true });
  await writeFile(BENCH_JSON, `${JSON.stringify({ figures }, null, 2)}\n`);
  for (const [what, result, target, met] of figure.rows) console.log(`${what}: ${result} (target ${target}: ${met === 'yes' ? 'met' : met === 'no' ? 'MISSED' : 'n/a'})`);
}
