// Runs one plan on N k6 processes on this machine, each with its own execution segment (the mechanism
// k6-operator uses for `parallelism`), and merges what they measured: their shards (exact totals and
// latency histograms), their timelines and what their consoles reported. Each instance's figures arrive through
// k6's OpenTelemetry output (otlp.ts), the only place k6 aggregates them: k6 runs with no thresholds, no
// end-of-test summary and no web dashboard, which would each keep every sample of its built-in Trends
// (memory growing with the request count), and its exit code decides nothing (the harness judges its figures).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ToolError } from '../../core/node/errors.ts';
import { sha256Hex } from '../../core/node/fingerprint.ts';
import { bundleScenario } from '../plan/bundle.ts';
import { runK6 } from './k6.ts';
import { type MetricTotals, OTLP_PATH, startOtlpReceiver, TOTALS_PATH } from './otlp.ts';
import { k6Procs, type Plan } from '../shared/profiles.ts';
import { segmentArgs } from '../shared/segments.ts';
import { findingsIn, mergeShards } from '../shared/shard.ts';
import { answerDigest } from '../shared/answer.ts';
import { METRICS_ENV, METRICS_VIA_OTLP, shardFrom } from '../shared/summary.ts';
import { errorCodes, mergeTimelines, type TotalsAt, timelineOf, totalsAt, withTargets } from '../report/timeline.ts';
import type { Measurement } from '../shared/measurement.ts';
import { EXTENSION, RECOGNITION_ENV, type Recognition } from '../shared/recognition.ts';

/** What keeps k6 from holding every sample, and how its figures reach this process (a test checks each stays): with
 * k6/x/rpccertify, its own output (k6ext/totals.go: the same cumulative totals as JSON, a map update a sample where k6's
 * OpenTelemetry output builds an attribute set and an SDK record); without it, k6's OpenTelemetry output. */
export const K6_RUN_ARGS = ['--no-thresholds', '--summary-mode=disabled'] as const;
const outputArgs = (recognition: Recognition, endpoint: string) => ['--out', recognition === 'go' ? `${EXTENSION.output}=http://${endpoint}${TOTALS_PATH}` : 'opentelemetry'];
/** k6's line when its metrics output could not stop cleanly: its last export (the run's final totals) was lost, by
 * k6/x/rpccertify's output (its Stop fails) or k6's OpenTelemetry output (its provider's shutdown fails). The exports
 * before it hold the totals up to a second earlier, so judging them would leave the run's last answers unjudged (the
 * uncounted check tolerates up to 1% or two requests a scenario). */
const LAST_EXPORT_LOST = /Stopping output \d+ failed|can't shutdown OpenTelemetry metric provider/;
/** Seconds between exports: the live progress reads the latest; the timeline keeps one a period. */
const EXPORT_EVERY_SEC = 1;

export interface MeasureInput {
  plan: Plan;
  k6: string;
  /** Where the scenario recognises answers: 'go' only for a k6 whose `k6 version` lists k6/x/rpccertify. */
  recognition: Recognition;
  url: string;
  corpusFile: string;
  /** A fresh directory for this measurement's script and instance files. */
  work: string;
  log: (line: string) => void;
  /** Stops k6 early (it still writes what it measured). */
  signal?: AbortSignal;
  /** Each instance's REST API, as it starts listening (live progress). */
  onApi?: (url: string) => void;
  /** Each instance's latest totals, as its exports arrive (live progress). */
  onTotals?: (totals: MetricTotals) => void;
  /** When an instance starts the test (epoch ms: its first requests), as soon as it is seen (live progress). */
  onTestStart?: (epochMs: number) => void;
  /** k6 with --profiling-enabled: each instance's REST API serves pprof, and its URL comes here. */
  pprof?: (url: string) => void;
}

export async function measure(input: MeasureInput): Promise<Measurement> {
  const { plan, work } = input;
  const script = join(work, 'scenario.js');
  await bundleScenario(plan, script);
  const { sequence, segments } = segmentArgs(plan.instances);
  const subjects = plan.scenarios.map((s) => s.name);
  const digest = answerDigest(plan, sha256Hex);
  let procs: number | undefined;
  const runs = await Promise.all(
    segments.map(async (segment, i) => {
      const dir = join(work, `instance-${i}`);
      await mkdir(dir, { recursive: true });
      const files = instanceFiles(dir);
      // One export a period for the timeline, and the last (as k6 stops); every export for the live progress.
      const kept: TotalsAt[] = [];
      const at = (totals: MetricTotals) => totalsAt(totals.read, totals.lastTimeMs ?? 0, subjects, plan.fresh !== undefined);
      const receiver = await startOtlpReceiver((totals) => {
        const last = kept.at(-1);
        if (!last || (totals.lastTimeMs ?? 0) - last.timeMs >= plan.periodSec * 1000 - EXPORT_EVERY_SEC * 500) kept.push(at(totals));
      });
      input.onTotals?.(receiver.totals);
      try {
        const args = [...K6_RUN_ARGS, ...outputArgs(input.recognition, receiver.endpoint), ...(plan.instances > 1 ? ['--execution-segment', segment, '--execution-segment-sequence', sequence] : []), ...(input.pprof ? ['--profiling-enabled'] : [])];
        const onApi = [input.onApi, input.pprof].filter((f) => f !== undefined);
        const prefix = plan.instances > 1 ? `k6[${segment}]` : 'k6';
        procs = k6Procs(plan.scenarios.reduce((a, sc) => a + sc.rps, 0) / plan.instances, availableParallelism(), process.env['GOMAXPROCS']);
        const env = { ...k6Environment(input, files, receiver.endpoint), ...(procs === undefined ? {} : { GOMAXPROCS: String(procs) }) };
        const result = await runK6({ binary: input.k6, script, args, env, onLine: (line) => input.log(`${prefix}: ${line}`), alarm: LAST_EXPORT_LOST, ...(input.signal ? { signal: input.signal } : {}), ...(onApi.length ? { onApi: (url: string) => onApi.forEach((f) => f(url)) } : {}), ...(input.onTestStart ? { onTestStart: input.onTestStart } : {}) });
        const { totals } = receiver;
        if (receiver.error) throw new ToolError(`k6's metrics could not be read: ${receiver.error}`);
        if (totals.lastTimeMs === undefined) throw new ToolError(`k6 failed (exit ${result.exitCode}): ${result.log.at(-1)?.line ?? 'no output'}`);
        if (result.alarm) throw new ToolError(`k6's last export of its figures did not reach the harness, so the figures of the run's end are not all counted and the run cannot be judged: ${result.alarm}`);
        // The test ran from its start to the last export, taken as k6 stopped (a little past the test's end: the report
        // counts no more than the planned duration; an interrupted run counts its time until the stop).
        const durationMs = result.testStartMs === undefined ? 0 : Math.max(0, totals.lastTimeMs - result.testStartMs);
        const shard = shardFrom(totals.read, durationMs, plan, digest, plan.instances > 1 ? segment : null, input.recognition);
        // Kept with the work files (--keep-work): what this instance measured, as the merge reads it.
        await writeFile(files.shard, JSON.stringify(shard));
        if (kept.at(-1)?.timeMs !== totals.lastTimeMs) kept.push(at(totals));
        const startMs = result.testStartMs ?? totals.startMs;
        const timeline = { ...(startMs === undefined ? {} : { startMs }), ...timelineOf(kept, subjects, totals.startMs, result.testStartMs), codes: errorCodes(totals.read, totals.tagValues.bind(totals), subjects) };
        return { result, shard, timeline, console: await readFile(files.console, 'utf8').catch(() => '') };
      } finally {
        await receiver.close();
      }
    }),
  );
  const cpu = runs.map((r) => r.result.cpuSec);
  const timeline = mergeTimelines(runs.map((r) => r.timeline));
  return {
    merged: mergeShards(runs.map((r) => r.shard)),
    timeline: { ...timeline, points: withTargets(timeline.points, plan.scenarios) },
    findings: findingsIn(runs.map((r) => r.console).join('\n')),
    instances: runs.length,
    exitCode: Math.max(...runs.map((r) => r.result.exitCode)),
    wallSec: Math.max(...runs.map((r) => r.result.wallSec)),
    ...(cpu.every((c) => c !== undefined) ? { cpuSec: cpu.reduce((a, c) => a + (c ?? 0), 0) } : {}),
    ...(procs === undefined ? {} : { procs }),
  };
}

function instanceFiles(dir: string) {
  return { shard: join(dir, 'shard.json'), console: join(dir, 'console.log') };
}

/** The URL reaches k6 only through its environment (not its arguments, not the bundle). */
function k6Environment(input: MeasureInput, files: ReturnType<typeof instanceFiles>, otlpEndpoint: string): Record<string, string> {
  return {
    RPC_CERTIFY_URL: input.url,
    RPC_CERTIFY_CORPUS: input.corpusFile,
    [RECOGNITION_ENV]: input.recognition,
    [METRICS_ENV]: METRICS_VIA_OTLP,
    K6_CONSOLE_OUTPUT: files.console,
    K6_OTEL_EXPORTER_PROTOCOL: 'http/protobuf',
    K6_OTEL_HTTP_EXPORTER_ENDPOINT: otlpEndpoint,
    K6_OTEL_HTTP_EXPORTER_INSECURE: 'true',
    K6_OTEL_HTTP_EXPORTER_URL_PATH: OTLP_PATH,
    K6_OTEL_EXPORT_INTERVAL: `${EXPORT_EVERY_SEC}s`,
    [EXTENSION.periodEnv]: String(EXPORT_EVERY_SEC * 1000),
    // Samples wait this long in k6's buffer before the SDK aggregates them: a period's edge blurs by no more.
    K6_OTEL_FLUSH_INTERVAL: '250ms',
    K6_OTEL_METRIC_PREFIX: '',
    // Plain protobuf bodies, whatever the user's environment says (otlp.ts reads no compressed ones).
    OTEL_EXPORTER_OTLP_COMPRESSION: 'none',
    // A user's K6_WEB_DASHBOARD=true would bring back the dashboard, which keeps every sample too.
    K6_WEB_DASHBOARD: 'false',
  };
}
