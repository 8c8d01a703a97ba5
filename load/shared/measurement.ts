// What one load run measured (its merged shards, timeline and findings), the shape run/ produces and report/
// reads: here, below both, so neither imports the other for a type. Types only (the k6 bundle may import shared/).
import type { Subject } from './answer-classes.ts';
import type { Findings, Merged } from './shard.ts';
import type { FreshMethod, FreshPeriod } from './freshness.ts';

export interface Measurement {
  merged: Merged;
  timeline: Timeline;
  findings: Findings;
  instances: number;
  /** The highest k6 exit code (0 when every instance finished normally). */
  exitCode: number;
  wallSec: number;
  /** CPU seconds of every k6 process together; absent where they cannot be read. */
  cpuSec?: number;
  /** GOMAXPROCS each instance ran with, when the harness sized it to the rate (instances.ts); absent when the user set it. */
  procs?: number;
}

export interface PeriodStats {
  /** Requests per second in the period. */
  rps: number;
  /** The rate the plan asked for (added by the report). */
  targetRps?: number;
  /** Share outside the success classes. */
  failureRate: number;
  p50?: number;
  p95?: number;
  p99?: number;
}

export interface TimelinePoint {
  /** Seconds from the test start to the end of the period (it began at the previous point's t, or 0). */
  t: number;
  methods: Partial<Record<Subject, PeriodStats>>;
  /** The head-chasing scenario's figures in the period, per method, when it ran (shared/freshness.ts). */
  fresh?: Partial<Record<FreshMethod, FreshPeriod>>;
}

/** A period's counts of one subject, kept beside its point (never written): the gate's blocks of time (report/intervals.ts). */
export interface PeriodCounts {
  requests: number;
  successes: number;
  /** The successes' latency histogram buckets (histogram.ts). */
  buckets: Record<string, number>;
}

export interface Timeline {
  /** When k6 started the test (epoch ms), the origin of the points' t (the earliest instance's); absent when unknown. */
  startMs?: number;
  points: TimelinePoint[];
  /** Each point's counts, per subject, in the points' order; absent where no period was kept (k6-operator pods). */
  counts?: Array<Partial<Record<Subject, PeriodCounts>>>;
  /** JSON-RPC error codes per method and class over the whole run ("rpc_error" -> {"-32000": 3}). */
  codes: Partial<Record<Subject, Record<string, Record<string, number>>>>;
}

/** One head-lag sample (run/head-lag.ts): the reference read, then the endpoint, then the reference again. */
export interface HeadLagSample {
  /** Seconds from the sampler's start to the endpoint's read. */
  t: number;
  /** Why the sample judges nothing: a read failed (named with its node), or the reference went back between its reads. */
  unjudged?: string;
  /** The heads read: the reference before and after the endpoint. */
  reference?: [number, number];
  endpoint?: number;
  /** How many blocks, and for how long (s), the reference had shown a block the endpoint did not: 0 when it had none. */
  lagBlocks?: number;
  lagSec?: number;
  /** The same the other way round: the endpoint ahead of the reference. */
  referenceBehindBlocks?: number;
  referenceBehindSec?: number;
}

export interface HeadLagRecord {
  periodSec: number;
  /** Seconds the sampler ran. */
  durationSec: number;
  samples: HeadLagSample[];
}
