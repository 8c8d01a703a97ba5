// The load report's shape (load.json, schemas/files/load-report.json) and the figures it is made of: here, below
// run/ and report/, so that both read it and report/'s modules (report.ts, compare.ts, verdict.ts) need not import
// each other for a type. Types only.
import type { Recognition } from './recognition.ts';
import type { ReportHeader } from '../../core/report-header.ts';
import type { Composition, DepthSampled, MethodSampling, TargetHead } from './corpus.ts';
import type { Latency } from './shard.ts';
import type { TimelinePoint } from './measurement.ts';
import type { Histogram } from './histogram.ts';
import type { RpcClass } from './answer-classes.ts';
import type { Profile, Slo } from './profiles.ts';

export interface MethodReport {
  requests: number;
  /** Mean rate the plan asked for over the scenario, and what was sent. */
  targetRps: number;
  achievedRps: number;
  /** Iterations k6 could not start (no free VU). */
  dropped: number;
  latencyMs: Latency | null;
  classes: Record<RpcClass, number>;
  /** JSON-RPC error codes seen, per class ("rpc_error" -> {"-32000": 4}). */
  errorCodes: Record<string, Record<string, number>>;
  failureRate: number;
  /** Answers validated against the schemas (`invalid` counts what failed); `wrong` counts answers that say something
   * false, validated or not: another id than the request's, a value where a miss's null or a revert's error is due,
   * another answer than the one recorded at sampling, or one outside its bounds. */
  validated: number;
  /** Answers the generator parsed to classify them: any that was not the answer sampling saw (byte for byte, but for
   * the id: core/reply.ts), and the validated ones but those the Go path validated by the verdict on the same bytes (at
   * sampling, or earlier in the run: k6ext/send.go). The others were recognised by their fingerprint. */
  parsed: number;
  /** The first schema fault seen, when validation found one. */
  invalidSample?: string;
  /** The first answer that differed from the one recorded at sampling. */
  wrongSample?: string;
  /** p95's and p99's intervals at `confidence` (intervals.ts), null where the sample bounds none; absent from older reports. */
  latencyIntervals?: { confidence: number; p95: [number, number] | null; p99: [number, number] | null };
  /** What the regression gate reads; absent from older reports (they are still baselines, judged unjudgeable). */
  gate?: GateSample;
  /** The hits per depth stratum they read (head, 128+, 1k+ …: core/history.ts), shallowest first: what cold history costs. */
  depth?: DepthReport[];
}

/** One depth stratum of a method's hits: measured, or not served (every hit sampled there was answered as pruned history). */
export interface DepthReport {
  stratum: string;
  requests: number;
  failureRate: number;
  /** Percentiles of the successful answers (from the histogram, within 1%); null when none succeeded. */
  latencyMs: { p50: number; p90: number; p99: number } | null;
  /** Why the stratum is not measured: sampling found its history pruned (error 4444 and its kin), so it asked none. */
  notServed?: string;
}

/** The report's corpus section, but for the file it was written to. */
export type CorpusInfo = Omit<LoadReport['corpus'], 'file'>;

/** A method's corpus: what it holds, and (for a corpus sampled by this version) how sampling went. */
export type MethodCorpus = Composition & Partial<MethodSampling>;

/** The header of load.json (core/report-header.ts): 3 since it names the harness (2 had `version` and no harness). */
/** Whether a run chased the head (fresh reads), and why. */
export interface FreshChase {
  chased: boolean;
  why: string;
}

export interface LoadReport extends ReportHeader<'rpc-certify-load', 3> {
  createdAt: string;
  profile: Profile;
  endpoint: string;
  /** Decided by verdict.ts (withVerdict) from the figures below, with its reasons: nothing else sets them. */
  verdict: 'pass' | 'fail' | 'measured' | 'incomplete' | 'inconclusive';
  /** Why the run failed (or what could not be judged), most decisive first (empty on a pass); absent from reports written before it was recorded. */
  reasons?: string[];
  /** Why a run stopped early (Ctrl-C, SIGTERM). */
  incompleteReason?: string;
  /** recognition: where the answers sampling saw were recognised (recognition.ts); absent where not known (k6-operator pods). */
  /** inGo: iterations k6/x/rpccertify did whole in Go (sent, recognised, recorded), but for the last second's. */
  k6: { version: string; source: string; exitCode: number; recognition?: Recognition; inGo?: number };
  plan: { rate: number; durationSec: number; totalSec: number; periodSec: number; validateShare: number; instances: number; latencyRelativeError: number; slo: Slo };
  corpus: { file: string; seed: number; missShare: number; chainId: string; head: string; finalBlock?: string; blocksSampled: number; depth?: DepthSampled[]; targetHead?: TargetHead; methods: Record<string, MethodCorpus> };
  durationSec: number;
  /** Per method, plus "mix" for the capacity profile's weighted mix. */
  methods: Record<string, MethodReport>;
  thresholds: ThresholdResult[];
  /** eth_blockNumber sampled once a second per instance: it must never go back. */
  head: { checks: number; regressions: number; deepestBlocks: number; sample?: string };
  /** `uncounted`: planned requests of a run that was not stopped early that k6's figures neither count nor drop (of `planned`).
   * `scriptErrors`: iterations whose script threw, their answers unjudged (`scriptError`: the first, `<scenario>: <error>`). */
  generator: { keptUp: boolean; droppedIterations: number; availableCores: number; instances: number; cpuCores?: number; note?: string; uncounted?: number; planned?: number; scriptErrors?: number; scriptError?: string };
  /** `startedAt`: when k6 started the test, the origin of the points' t (to line them up with an endpoint's own logs). */
  timeline: { periodSec: number; startedAt?: string; points: TimelinePoint[] };
  /** Whether the head-chasing scenario ran, and why (--fresh, --no-fresh, or the head seen moving or standing at sampling). */
  freshChase?: FreshChase;
  /** The head-chasing scenario's figures per method, when it ran (shared/freshness.ts). */
  freshness?: Freshness;
  /** The endpoint's head against --reference-url's, sampled beside k6 (run/head-lag.ts): absent from reports written before it. */
  headLag?: HeadLag;
  capacity?: Record<string, CapacityResult>;
  drift?: Record<string, DriftResult>;
  /** `note`: what the comparison left out (fresh reads chased in one run only). */
  /** `runs`: how many runs the baseline holds (baseline add); `outcome`: each method's judgement (compare.ts gateOutcome). */
  baseline?: { file: string; tolerance: number; ok: boolean; checks: RegressionCheck[]; note?: string; runs?: number; spread?: string; familyAlpha?: number; outcome?: GateOutcome };
}

/** within: met the SLO; slo: the endpoint broke it; generator: k6 could not offer the load (not the endpoint's fault). */
export type StepVerdict = 'within' | 'slo' | 'generator';

export interface CapacityStep {
  offeredRps: number;
  achievedRps: number;
  requests: number;
  successRate: number;
  /** Share of the offered requests k6 could not start. */
  droppedShare: number;
  p50Ms: number | null;
  p99Ms: number | null;
  /** k6's CPU use, in cores, over the step. */
  cpuCores?: number;
  verdict: StepVerdict;
  reason?: string;
  /** The step run again: the first step to break the SLO is repeated once before it is taken as the knee. */
  repeat?: boolean;
  /** Share of its requests the endpoint's rate limit answered (HTTP 429, -32005), when any did. */
  throttledShare?: number;
}

export interface CapacityResult {
  /** The highest offered rate whose step met the SLO (0: not even the first). */
  sustainableRps: number;
  /** When the key's rate limit ended the steps (most of the last step's failures were throttled): about how many requests a second got through. */
  throttledAtRps?: number;
  /** What ended the steps: the endpoint broke the SLO, the generator saturated, or the last step was reached. */
  limitedBy: 'endpoint' | 'generator' | 'steps';
  /** confirmed: the step above the knee broke the SLO twice; unsteady: a step broke it once, then held when repeated;
   * lower bound: the steps ended without the endpoint breaking the SLO (the generator, or the last step). */
  confidence: 'confirmed' | 'unsteady' | 'lower bound';
  steps: CapacityStep[];
}

export interface DriftResult {
  /** Median of the per-period p95 over the first and the last tenth of the run. */
  startP95Ms: number;
  endP95Ms: number;
  ratio: number;
  drifted: boolean;
}

export interface ThresholdResult {
  metric: string;
  expression: string;
  ok: boolean;
  /** The statistic the expression tests, as measured on the merged result. */
  value?: number;
}

export interface RegressionCheck {
  method: string;
  metric: 'p95' | 'p99' | 'failureRate';
  baseline: number;
  current: number;
  /** Latency: the largest ratio of current to baseline that is no regression; failure rate: the largest rate. */
  limit: number;
  /** False only when regressed (absent from reports written before intervals: there, whether the point estimate passed). */
  ok: boolean;
  /** regressed: the interval lies above the limit; held: below it; unclear: across it; unjudgeable: the samples cannot tell
   * a change of the tolerance from none (or have no interval at all). Absent from reports written before it was judged. */
  judgement?: 'regressed' | 'held' | 'unclear' | 'unjudgeable';
  /** Latency: current over baseline. */
  ratio?: number;
  /** Latency: the ratio's interval; failure rate: the rise's. Its lower bound at the family's level, its upper at 95%;
   * null above: a regression shown from bounds alone (this run's percentile had no upper bound). */
  interval?: [number, number | null];
  why?: string;
  /** About how many requests a run of this shape needs before this comparison can be judged. */
  needRequests?: number;
}

/** What the comparisons say of each method: regressed (any regressed), held (a latency percentile held, none regressed,
 * none whose interval shows it worse than the baseline yet not beyond the tolerance), or inconclusive (named why); and of the run: regressed if any method did, held if all did. */
export interface GateOutcome {
  verdict: 'regressed' | 'held' | 'inconclusive';
  methods: Record<string, { verdict: 'regressed' | 'held' | 'inconclusive'; why?: string }>;
}

/** What the gate reads of a method's run (compare.ts): its latency histogram, and how much more its figures varied
 * between blocks of time than independent samples would (intervals.ts), per figure; `assumed` where no period was kept. */
export interface GateSample {
  histogram: Histogram;
  designEffect: { p95: number; p99: number; failureRate: number; assumed?: boolean };
}

export interface FreshMethodReport {
  /** Answers judged for freshness. */
  requests: number;
  /** Answers past the grace that did not know an announced block or its objects; their share of `requests`. */
  stale: number;
  staleRate: number;
  /** Of the stale reads, `latest`-tagged answers (and eth_blockNumber) older than the announced head. */
  latestBehind: number;
  /** Nulls for objects of a block reorged out: counted apart, never stale. */
  reorged: number;
  /** `latest`-tagged answers that name no block it was read at (an estimate, an uncle lookup, an empty block's
   * receipts): not judgeable against the head, so not in `requests`. Absent from reports written before it was counted. */
  notJudgeable?: number;
  /** Fresh requests that got no answer to judge (an HTTP status other than 200, a timeout, a transport error); those
   * past the grace are stale reads too. Absent from reports written before it was counted. */
  failed?: number;
  /** Of the stale reads, wrong answers (another block's objects for an announced block, a receipt count that
   * disagrees with its block). Absent from reports written before it was counted. */
  wrong?: number;
  /** Time from announcement to the first answer that knew the object (ms), null when none was seen. */
  visibleMs: { count: number; p50: number; p95: number; max: number } | null;
  /** The first stale read. */
  staleSample?: string;
  /** After the reorgs noticed, this method's first answers consistent with the new fork: how many, and the longest time to one, ms. */
  consistentMs?: { count: number; max: number };
}

export interface Freshness {
  graceMs: number;
  methods: Record<string, FreshMethodReport>;
  /** The reorgs the fresh reads noticed (the most any instance did) and the deepest; absent when none was. */
  reorgs?: { seen: number; maxDepth: number };
}

export interface LagFigures {
  p50: number;
  p95: number;
  max: number;
}

/** One period of the head-lag timeline (load.html's chart): the highest figures of the samples judged in it. */
export interface HeadLagPoint {
  /** Seconds from the sampler's start to the end of the period. */
  t: number;
  lagSec: number;
  lagBlocks: number;
  referenceBehindSec: number;
}

/**
 * The head lag against a reference (report/head-lag.ts builds it, verdict.ts judges it): how far the endpoint's
 * eth_blockNumber trailed the reference's, in blocks and in seconds (how long the reference had already shown the first
 * block the endpoint lacked). `notJudged`: no reference; `inconclusive`: the samples cannot judge the run (a reference
 * that failed or stopped answering, or one itself behind the endpoint), never a pass.
 */
export interface HeadLag {
  /** The gate's limit on the lag in seconds (--max-head-lag). */
  maxLagSec: number;
  /** And in blocks (--max-head-lag-blocks), set only where the chain's blocks came 0.9 s or more apart (core/head-lag.ts). */
  maxLagBlocks?: number;
  /** The chain's block interval as the reference's head rose over the judged samples. */
  blockTimeSec?: number;
  notJudged?: string;
  inconclusive?: string;
  /** Seconds between samples, samples taken, and those judged (every read answered, the reference not gone back). */
  periodSec?: number;
  /** Seconds the sampler ran (the chart's span: a stretch with no judged sample shows as a gap). */
  durationSec?: number;
  samples?: number;
  judged?: number;
  blocks?: LagFigures | null;
  seconds?: LagFigures | null;
  /** The judged sample with the highest lag in seconds, in words. */
  worst?: string;
  /** Samples where the reference trailed the endpoint: reported, never blamed on the endpoint. */
  referenceBehind?: { samples: number; maxBlocks: number; maxSec: number; sample?: string };
  /** Why samples were not judged, with how many. */
  unjudged?: Record<string, number>;
  timeline?: HeadLagPoint[];
}
