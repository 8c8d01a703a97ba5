// One k6 instance's results in mergeable form (a shard), written by the scenario's handleSummary, and
// their merge: counts add, latency histograms add (histogram.ts), so N instances give one exact result.
// Pure: the scenario builds shards, Node merges them (local segments, or k6-operator pods' logs).
import { type Histogram, mergeHistograms, quantile } from './histogram.ts';
import { CLASSES, JUDGED_CLASSES, type RpcClass, SUCCESS_CLASSES } from './answer-classes.ts';
import { coverageGap, parseSegment } from './segments.ts';
import { type FreshnessShard, mergeFreshness } from './freshness.ts';
import type { Recognition } from './recognition.ts';

export interface SubjectShard {
  classes: Record<RpcClass, number>;
  /** Iterations k6 could not start (no free VU). */
  dropped: number;
  /** Answers fully validated (schemas, recorded answers). */
  validated: number;
  /** Answers parsed to classify them (the others were recognised by fingerprint, core/reply.ts). */
  parsed: number;
  /** Latency of the answers in the success classes: percentiles and sum from its buckets (within 1%), min and max exact. */
  latency: Histogram;
  /** The same, of the hits per depth stratum they read (core/history.ts): absent where no hit carried one. */
  depth?: Record<string, DepthShard>;
}

/** One depth stratum's hits of a subject: their classes, and their latency (extremes from the buckets). */
export interface DepthShard {
  classes: Record<RpcClass, number>;
  latency: Histogram;
}

export const PERCENTILES = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, 'p99.9': 0.999 } as const;
export type Percentile = keyof typeof PERCENTILES;

export interface HeadShard {
  /** eth_blockNumber answers compared with the one before. */
  checks: number;
  /** Answers lower than the one before. */
  regressions: number;
  /** The largest step back, in blocks. */
  deepest: number;
}

export interface Shard {
  kind: 'rpc-certify-load-shard';
  version: 1;
  /** Digest of the plan the instance ran: shards of different tests do not merge. */
  plan: string;
  /** The instance's execution segment ("0:1" when it ran the whole test). */
  segment: string;
  durationMs: number;
  /** Per subject (method, or "mix"). */
  subjects: Record<string, SubjectShard>;
  head: HeadShard;
  /** The head-chasing scenario's figures, when it ran (freshness.ts). */
  freshness?: FreshnessShard;
  /** Where this instance recognised the answers sampling saw (recognition.ts); absent in shards of older harnesses. */
  recognition?: Recognition;
  /** Iterations done whole in Go (metricName.inGo: the last second's not counted), when recognised in Go. */
  inGo?: number;
  /** Iterations whose script threw (metricName.scriptErrors), any scenario's; absent in shards of older harnesses. */
  scriptErrors?: number;
}

export interface Merged {
  plan: string;
  segments: string[];
  durationMs: number;
  subjects: Record<string, SubjectShard>;
  head: HeadShard;
  freshness?: FreshnessShard;
  /** 'go' when every instance recognised in Go, 'js' when any did in JavaScript, absent when any did not say. */
  recognition?: Recognition;
  inGo?: number;
  scriptErrors: number;
}

/** A shard printed to stdout (k6-operator pods: `kubectl logs`) starts its line with this. */
export const SHARD_MARKER = 'rpc-certify-shard ';

/** Adds up shards of the same test; they must cover it exactly once. */
export function mergeShards(shards: readonly Shard[]): Merged {
  const first = shards[0];
  if (!first) throw new Error('no result to merge');
  const other = shards.find((s) => s.plan !== first.plan);
  if (other) throw new Error(`the results come from different tests (segment ${other.segment} ran another plan)`);
  const gap = coverageGap(shards.map((s) => parseSegment(s.segment)));
  if (gap) throw new Error(`the results do not cover the test: ${gap} (segments ${shards.map((s) => s.segment).join(', ')})`);
  const subjects: Record<string, SubjectShard> = {};
  for (const name of new Set(shards.flatMap((s) => Object.keys(s.subjects)))) {
    const parts = shards.map((s) => s.subjects[name]).filter((p): p is SubjectShard => p !== undefined);
    subjects[name] = {
      classes: Object.fromEntries(CLASSES.map((c) => [c, sum(parts.map((p) => p.classes[c] ?? 0))])) as Record<RpcClass, number>,
      dropped: sum(parts.map((p) => p.dropped)),
      validated: sum(parts.map((p) => p.validated)),
      parsed: sum(parts.map((p) => p.parsed)),
      latency: mergeHistograms(parts.map((p) => p.latency)),
      ...((depth) => (depth ? { depth } : {}))(mergeDepth(parts)),
    };
  }
  return {
    plan: first.plan,
    segments: shards.map((s) => s.segment),
    durationMs: Math.max(...shards.map((s) => s.durationMs)),
    subjects,
    head: {
      checks: sum(shards.map((s) => s.head.checks)),
      regressions: sum(shards.map((s) => s.head.regressions)),
      deepest: Math.max(...shards.map((s) => s.head.deepest)),
    },
    ...((f) => (f ? { freshness: f } : {}))(mergeFreshness(shards.map((s) => s.freshness))),
    ...((r) => (r ? { recognition: r } : {}))(mergeRecognition(shards.map((s) => s.recognition))),
    ...(shards.some((s) => s.inGo !== undefined) ? { inGo: sum(shards.map((s) => s.inGo ?? 0)) } : {}),
    scriptErrors: sum(shards.map((s) => s.scriptErrors ?? 0)),
  };
}

function mergeDepth(parts: readonly SubjectShard[]): Record<string, DepthShard> | undefined {
  const names = [...new Set(parts.flatMap((p) => Object.keys(p.depth ?? {})))];
  if (!names.length) return undefined;
  return Object.fromEntries(
    names.map((d) => {
      const of = parts.flatMap((p) => p.depth?.[d] ?? []);
      return [d, { classes: Object.fromEntries(CLASSES.map((c) => [c, sum(of.map((p) => p.classes[c] ?? 0))])) as Record<RpcClass, number>, latency: mergeHistograms(of.map((p) => p.latency)) }];
    }),
  );
}

function mergeRecognition(paths: ReadonlyArray<Recognition | undefined>): Recognition | undefined {
  if (paths.some((p) => p === undefined)) return undefined;
  return paths.every((p) => p === 'go') ? 'go' : 'js';
}

export interface Latency {
  avg: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  /** Meaningful from a few thousand requests on (below 1000 it is the largest samples' neighbourhood). */
  'p99.9': number;
  max: number;
}

/** The q-quantile (0..1) of a subject's latency, read from its histogram (within 1%, one instance or several). */
export function percentileOf(s: Pick<SubjectShard, 'latency'>, q: number): number {
  return quantile(s.latency, q);
}

/** Percentiles and avg from the histogram (within 1%), max exact; null when nothing succeeded. */
export function latencyOf(s: Pick<SubjectShard, 'latency'>): Latency | null {
  const h = s.latency;
  if (h.count === 0) return null;
  const r = (x: number) => Math.round(x * 1000) / 1000;
  const percentiles = Object.fromEntries(Object.entries(PERCENTILES).map(([name, q]) => [name, r(percentileOf(s, q))])) as Record<Percentile, number>;
  return { avg: r(h.sum / h.count), ...percentiles, max: r(h.max) };
}

export function requestsOf(classes: Record<RpcClass, number>): number {
  // A report written before a class existed lacks its count.
  return sum(CLASSES.map((c) => classes[c] ?? 0));
}

/** Share of the judged requests (archive not served, §8, left out) outside the success classes; 1 where none completed
 * (a stall is no 0% failure rate), 0 where every answer was archive (answered, and none of them a failure). */
export function failureRate(classes: Record<RpcClass, number>): number {
  const requests = sum(JUDGED_CLASSES.map((c) => classes[c] ?? 0));
  if (requests === 0) return (classes.archive ?? 0) > 0 ? 0 : 1;
  return 1 - sum(SUCCESS_CLASSES.map((c) => classes[c])) / requests;
}

/** Every shard in a text: a shard file, or logs with marked lines (one per pod). */
export function shardsIn(text: string): Shard[] {
  const lines = text.trimStart().startsWith('{') ? [text] : text.split('\n').filter((l) => l.startsWith(SHARD_MARKER)).map((l) => l.slice(SHARD_MARKER.length));
  return lines.map((l) => JSON.parse(l) as Shard).filter((s) => s?.kind === 'rpc-certify-load-shard' && s.version === 1);
}

/** What the scenario logs once per VU (scenario.ts): the first invalid and wrong answer per method, head regressions. */
export interface Findings {
  invalid: Record<string, string>;
  wrong: Record<string, string>;
  headRegression?: string;
  /** The first stale read per method (the fresh scenario). */
  stale?: Record<string, string>;
  /** The first iteration that threw (`<scenario> <error>`). */
  scriptError?: string;
}

/** The first finding of each kind in k6's console output (a file, or pods' logs); k6 quotes and escapes the message. */
export function findingsIn(text: string): Findings {
  const out: Findings = { invalid: {}, wrong: {} };
  for (const m of text.matchAll(/rpc-certify (invalid|wrong|head-regression|stale|script-error) (\S+) ((?:[^"\\\n]|\\.)*)/g)) {
    const [, kind, method, raw] = m;
    if (!kind || !method || raw === undefined) continue;
    const message = raw.replace(/\\(.)/g, '$1');
    if (kind === 'head-regression') out.headRegression ??= `${method} ${message}`;
    else if (kind === 'script-error') out.scriptError ??= `${method}: ${message}`;
    else if (kind === 'stale') (out.stale ??= {})[method] ??= message;
    else (out[kind as 'invalid' | 'wrong'][method] ??= message);
  }
  return out;
}

/** The first finding of each kind across several runs. */
export function mergeFindings(all: readonly Findings[]): Findings {
  const out: Findings = { invalid: {}, wrong: {} };
  for (const f of all) {
    for (const kind of ['invalid', 'wrong'] as const) for (const [method, line] of Object.entries(f[kind])) out[kind][method] ??= line;
    if (f.headRegression) out.headRegression ??= f.headRegression;
    if (f.scriptError) out.scriptError ??= f.scriptError;
    for (const [method, line] of Object.entries(f.stale ?? {})) (out.stale ??= {})[method] ??= line;
  }
  return out;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
