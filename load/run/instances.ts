// Runs one plan on N k6 processes on this machine, each with its own execution segment (the mechanism
// k6-operator uses for `parallelism`), and merges what they measured: their shards (exact totals and
// latency histograms), their dashboard timelines and what their consoles reported.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ToolError } from '../../core/node/errors.ts';
import { bundleScenario } from '../plan/bundle.ts';
import { runK6 } from './k6.ts';
import type { Plan } from '../shared/profiles.ts';
import { segmentArgs } from '../shared/segments.ts';
import { findingsIn, mergeShards, shardsIn } from '../shared/shard.ts';
import { mergeTimelines, parseTimeline, withTargets } from '../report/timeline.ts';
import type { Measurement } from '../shared/measurement.ts';
import { RECOGNITION_ENV, type Recognition } from '../shared/recognition.ts';

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
  const runs = await Promise.all(
    segments.map(async (segment, i) => {
      const dir = join(work, `instance-${i}`);
      await mkdir(dir, { recursive: true });
      const files = instanceFiles(dir);
      const args = [...(plan.instances > 1 ? ['--execution-segment', segment, '--execution-segment-sequence', sequence] : []), ...(input.pprof ? ['--profiling-enabled'] : [])];
      const onApi = [input.onApi, input.pprof].filter((f) => f !== undefined);
      const prefix = plan.instances > 1 ? `k6[${segment}]` : 'k6';
      const result = await runK6({ binary: input.k6, script, args, env: k6Environment(input, files), onLine: (line) => input.log(`${prefix}: ${line}`), ...(input.signal ? { signal: input.signal } : {}), ...(onApi.length ? { onApi: (url: string) => onApi.forEach((f) => f(url)) } : {}), ...(input.onTestStart ? { onTestStart: input.onTestStart } : {}) });
      const shard = shardsIn(await readFile(files.shard, 'utf8').catch(() => ''))[0];
      if (!shard) throw new ToolError(`k6 failed (exit ${result.exitCode}): ${result.log.at(-1)?.line ?? 'no output'}`);
      const timeline = parseTimeline(await recordLines(files.record), plan.scenarios.map((s) => s.name), result.testStartMs);
      return { result, shard, timeline, console: await readFile(files.console, 'utf8').catch(() => ''), files };
    }),
  );
  const cpu = runs.map((r) => r.result.cpuSec);
  const single = runs.length === 1 ? runs[0] : undefined;
  const timeline = mergeTimelines(runs.map((r) => r.timeline));
  return {
    merged: mergeShards(runs.map((r) => r.shard)),
    timeline: { ...timeline, points: withTargets(timeline.points, plan.scenarios) },
    findings: findingsIn(runs.map((r) => r.console).join('\n')),
    instances: runs.length,
    exitCode: Math.max(...runs.map((r) => r.result.exitCode)),
    wallSec: Math.max(...runs.map((r) => r.result.wallSec)),
    ...(cpu.every((c) => c !== undefined) ? { cpuSec: cpu.reduce((a, c) => a + (c ?? 0), 0) } : {}),
    ...(single ? { dashboard: single.files.dashboard } : {}),
  };
}

function instanceFiles(dir: string) {
  return { shard: join(dir, 'shard.json'), record: join(dir, 'record.ndjson.gz'), dashboard: join(dir, 'dashboard.html'), console: join(dir, 'console.log') };
}

/** The URL reaches k6 only through its environment (not its arguments, not the bundle). */
function k6Environment(input: MeasureInput, files: ReturnType<typeof instanceFiles>): Record<string, string> {
  return {
    RPC_CERTIFY_URL: input.url,
    RPC_CERTIFY_CORPUS: input.corpusFile,
    RPC_CERTIFY_SUMMARY: files.shard,
    [RECOGNITION_ENV]: input.recognition,
    K6_CONSOLE_OUTPUT: files.console,
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_HOST: '127.0.0.1',
    K6_WEB_DASHBOARD_PORT: '-1', // no listening server: only the export and the record
    K6_WEB_DASHBOARD_PERIOD: `${input.plan.periodSec}s`,
    K6_WEB_DASHBOARD_TAGS: 'code,b,m', // splits the class counters by JSON-RPC error code, the histograms by bucket, the fresh counters by method (timeline.ts)
    K6_WEB_DASHBOARD_EXPORT: files.dashboard,
    K6_WEB_DASHBOARD_RECORD: files.record,
  };
}

async function recordLines(path: string): Promise<string[]> {
  const gz = await readFile(path).catch(() => undefined);
  return gz ? gunzipSync(gz).toString('utf8').split('\n') : [];
}
