// The k6 script (bundled by bundle.ts). Every iteration sends one corpus entry of its scenario's method
// (or of the mix's next method), classifies the answer (without parsing it when it is the answer sampling
// saw: core/reply.ts), fully validates a share of them and feeds the scenario's metrics. With k6/x/rpccertify
// built in, the commonest iteration (an answer recognised as the one sampled) is one call into Go (k6ext/send.go),
// which hands back to this script every answer it does not recognise and every iteration it does not own; a head sampler
// checks eth_blockNumber never goes back. handleSummary writes this instance's shard (shard.ts). The plan
// is compiled in as __PLAN__; the URL arrives in the environment only, and no metric carries it (see the
// plan's systemTags).
import crypto from 'k6/crypto';
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import { markedText } from '../../core/reply.ts';
import { answerDigest } from '../shared/answer.ts';
import { anchorOf, boundsFault, sameAnswerDue } from '../shared/bounds.ts';
import { ARCHIVE, archiveCandidate, type Classification, classify, metVerdict } from '../shared/classify.ts';
import { insideWindow } from '../../core/near-head-window.ts';
import { type Corpus, corpusPartPath } from '../shared/corpus.ts';
import { bucketLowerBounds, bucketOf, GROUP_BUCKETS, groupOf, HISTOGRAM_GROUPS } from '../shared/histogram.ts';
import type { RpcMethod } from '../../core/methods.ts';
import { COUNTED_CLASSES, MIX_SCENARIO, metricName, type RpcClass, SUCCESS_CLASSES, type Subject } from '../shared/answer-classes.ts';
import type { Plan } from '../shared/profiles.ts';
import { packEntry, type PackedEntry, unpackEntry } from './packed-entry.ts';
import { entryTurn, stripeEntries, validatesTurn } from '../shared/segments.ts';
import { SHARD_MARKER } from '../shared/shard.ts';
import { shapeFault } from '../shared/shapes.ts';
import { type NamedBlock, namedBlockFault, namedHash, namesLatest } from '../shared/named-block.ts';
import { freshRound, initFresh, judgeTagged, notJudgeable } from './fresh.ts';
import { freshThresholds, TAGGED_METHODS, UNJUDGEABLE_METHODS } from '../shared/freshness.ts';
import { BOOKKEEPING } from '../shared/profiles.ts';
import type { GoPlan, GoPlanMethod } from '../shared/go-plan.ts';
import { histogramThresholds, type K6Summary, METRICS_ENV, METRICS_VIA_OTLP, shardOf } from '../shared/summary.ts';
import { EXTENSION, RECOGNITION_ENV } from '../shared/recognition.ts';

declare const __PLAN__: Plan;
const plan = __PLAN__;
// The thousands of sub-metric thresholds of the histograms (and of the fresh reads' counters) only make k6's
// end-of-test summary (handleSummary, k6-operator's pods) report each series; a local run reads its metrics from the
// OpenTelemetry export (instances.ts says so) and skips them. Only the VU k6 reads the options from builds them (~20 ms
// a VU otherwise), and it always exports a copy: k6 writes the consolidated options back into what it is given.
const summaryRead = __ENV[METRICS_ENV] !== METRICS_VIA_OTLP;
export const options =
  __VU === 0
    ? { ...plan.options, ...(summaryRead ? { thresholds: { ...(plan.options['thresholds'] as object), ...histogramThresholds(plan.scenarios.map((s) => s.name)), ...(plan.fresh ? freshThresholds(BOOKKEEPING) : {}) } } : {}) }
    : plan.options;

const url = __ENV['RPC_CERTIFY_URL'] ?? '';
const corpusPath = __ENV['RPC_CERTIFY_CORPUS'] ?? '';
/** k6-operator pods: the corpus arrives in this many parts (corpus.ts), one ConfigMap each. */
const corpusParts = __ENV['RPC_CERTIFY_CORPUS_PARTS'];
/** Where the shard goes; without it (k6-operator pods), a marked line on stdout. */
const shardPath = __ENV['RPC_CERTIFY_SUMMARY'] ?? '';
/** k6's error_code for a request that ran out of time. */
const K6_TIMEOUT = 1050;
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** What the scenario reads of a response: k6's Response (post), or k6/x/rpccertify's for an answer it did not recognise. */
interface Sent {
  status: number;
  body: string | null;
  timedOut: boolean;
  duration: number;
  /** Why k6 gave no response at all (it throws on a 101 Switching Protocols): status 0, an http_error. */
  error?: string;
}
/** k6/x/rpccertify (k6ext/): recognised(body, id, fingerprint) is markedText + sha256 compared, in Go; call() is a whole
 * iteration of an entry whose answer sampling saw (send.go), given the plan once per process by configure (goPlan). */
interface GoRecognition {
  rule: string;
  recognised(body: string, id: number, reply: string): boolean;
  configured(): boolean;
  configure(plan: string): void;
  /** undefined: sent, recognised and recorded in Go; null: this iteration is the JavaScript's; else the response to judge. */
  call(): Sent | null | undefined;
  /** The current scenario's latency histogram and bounds, and its counts (Recorder), in the metrics Go registered. */
  latency(ms: number, depth: string): void;
  count(what: string, code: number | null, depth: string): void;
  /** Present where the samples carry the entries' depth strata. */
  depthTags?: true;
  /** The method's entry (its index in the corpus) had its sampled answer validated in full, and passed: call() validates
   * those bytes' next visits by that verdict. */
  validatedShape(method: string, index: number): void;
}
/** Loaded only when the runner found it in this k6 (recognition.ts); a build of another rule stops the run rather than judge by it. */
const go = __ENV[RECOGNITION_ENV] === 'go' ? goRecognition() : undefined;

// Without Go, the VUs k6 starts before the test load the validators now, outside the measured time; a VU it adds
// mid-run (a slow target, a saturated generator) loads them at its first validation, so that it starts sooner. With
// Go, a VU validates in JavaScript only what Go cannot judge (sampling validated the rest), most VUs never: each loads
// them at its first validation, if any (~1 ms of CPU a VU saved). The options VU loads them in any case, so validators
// that cannot load stop the run before it starts, rather than make its validated iterations throw unseen.
const PLANNED_VUS = Object.values(plan.options['scenarios'] as Record<string, { preAllocatedVUs: number }>).reduce((a, s) => a + s.preAllocatedVUs, 0);
if (__VU === 0 || (!go && __VU <= PLANNED_VUS)) shapeFault('eth_estimateGas', { result: '0x0' });

function goRecognition(): GoRecognition {
  const module = require(EXTENSION.name) as GoRecognition;
  if (module.rule !== EXTENSION.rule) throw new Error(`${EXTENSION.name} in this k6 follows rule ${String(module.rule)}, not ${EXTENSION.rule}: rebuild k6 (npm run setup)`);
  // A build from before the whole iteration moved into Go (k6ext/send.go) recognises by the same rule but lacks the rest.
  if (typeof module.call !== 'function' || typeof module.configure !== 'function' || typeof module.validatedShape !== 'function' || module.depthTags !== true) {
    throw new Error(`${EXTENSION.name} in this k6 is older than this harness (no call, configure, validatedShape or depth tags): rebuild k6 (npm run setup)`);
  }
  return module;
}

interface Request {
  /** The method's corpus entries, packed (packed-entry.ts). */
  all: ArrayLike<string>;
  /** The method as JSON text. */
  name: string;
  /** Entry indexes per residue of the iteration number (segments.ts), built once per VU. */
  stripes?: number[][];
  params: { headers: Record<string, string>; tags: Record<string, string>; timeout: string };
  /** What this VU has logged of the method (warnOnce). */
  logged: Set<string>;
  /** Fresh reads on: its `latest`-tagged entries' answers are judged against the head (`names`: the answer names its
   * block) or counted not judgeable (`not judgeable`: it names none, freshness.ts). */
  tagged?: 'names' | 'not judgeable';
}
// A tagged metric sample costs k6 more than most of the JavaScript around it (a tag set built in the VU, then
// the engine's sink, each sub-metric's tag test, the dashboard's sink, GC): an `ok` answer, the commonest,
// records one sample, its latency bucket. Its count is derived (summary.ts), its percentiles come from
// the histogram (within 1%, as merged runs already read them; a Trend would also keep every sample in
// memory), and min and max come from a Trend a VU feeds only with a latency outside the range it has seen (a
// few samples a VU; a Trend because k6's OpenTelemetry output exports its min and max, a Gauge's last value only).
// k6 itself runs with no thresholds, summary or dashboard (load/run/instances.ts), so keeps none of its samples.
interface Metrics {
  /** One Counter per group of buckets (histogram.ts). */
  histogram: Counter[];
  bounds: Trend;
  /** This VU's range of latencies added to `bounds`. */
  low: number;
  high: number;
  validated: Counter;
  parsed: Counter;
  calls: Partial<Record<RpcClass, Counter>>;
}

function corpusText(): string {
  if (corpusParts === undefined) return open(corpusPath);
  if (!/^[1-9]\d*$/.test(corpusParts)) throw new Error(`RPC_CERTIFY_CORPUS_PARTS must be a positive whole number, got "${corpusParts}"`);
  return Array.from({ length: Number(corpusParts) }, (_, i) => open(corpusPartPath(corpusPath, i))).join('');
}

// The SharedArrays' callbacks run in the first VU's init only, one after another: they read and parse the corpus once
// between them (a real corpus of ~450 KB takes Sobek ~16 ms a parse, and there is an array a method), then let it go.
let corpusRead: Corpus | undefined;
const corpus = (): Corpus => (corpusRead ??= JSON.parse(corpusText()) as Corpus);

// Init context: one shared, read-only copy of the corpus for all VUs, and the metrics k6 must know up front.
const requests = Object.fromEntries(
  plan.methods.map((m): [RpcMethod, Request] => [
    m,
    {
      all: new SharedArray(m, () => corpus().entries[m].map(packEntry)) as unknown as ArrayLike<string>,
      name: JSON.stringify(m),
      params: { headers: JSON_HEADERS, tags: { name: m }, timeout: plan.requestTimeout },
      logged: new Set(),
      ...(plan.fresh === undefined ? {} : (TAGGED_METHODS as readonly string[]).includes(m) ? { tagged: 'names' as const } : (UNJUDGEABLE_METHODS as readonly string[]).includes(m) ? { tagged: 'not judgeable' as const } : {}),
    },
  ]),
) as Record<RpcMethod, Request>;
/** The near-head window (§8) declared at sampling, in blocks (0: none): read once from the corpus. */
const nearHeadWindow = (new SharedArray('near-head-window', () => [corpus().nearHeadWindow ?? 0]) as unknown as number[])[0] ?? 0;
corpusRead = undefined;
// Tag sets built once per VU, not per request. An endpoint can answer any number of error codes: past a
// few, they count as "other" (each tag value is a sub-metric k6 keeps).
const bucketTags: Array<{ b: string }> = [];
const codeTags = new Map<number, { code: string }>();
const MAX_CODE_TAGS = 16;
const OTHER_CODE = { code: 'other' };
// A hit's depth stratum tags its samples (`d`): few strata, so a VU builds each bucket's tag set once per stratum.
const depthTags: Record<string, { d: string }> = {};
const bucketDepthTags = new Map<string, { b: string; d: string }>();
function depthTagsOf(b: number, d: string): { b: string; d: string } {
  const key = `${b}|${d}`;
  let tags = bucketDepthTags.get(key);
  if (!tags) bucketDepthTags.set(key, (tags = { b: String(b), d }));
  return tags;
}
/** What the scenario counts and times, per subject: the calls per class, the answers parsed and validated in full, the latency. */
interface Recorder {
  /** `depth`: the entry's depth stratum (PackedEntry.depth), a tag `d` on its samples: the report's figures per depth. */
  latency(subject: Subject, ms: number, depth?: string): void;
  count(subject: Subject, what: RpcClass | 'validated' | 'parsed', code?: number, depth?: string): void;
}
// With k6/x/rpccertify, Go registers the subjects' metrics (in the first VU's init, before k6 reads the thresholds) and
// records into them, the JavaScript's samples too: a VU then creates none (~45 metric objects through reflection, most of
// what starting a VU mid-run costs).
if (go && !go.configured()) go.configure(JSON.stringify(goPlan()));
const recorder: Recorder = go ? { latency: (_s, ms, depth) => go.latency(ms, depth ?? ''), count: (_s, what, code, depth) => go.count(what, code ?? null, depth ?? '') } : scriptRecorder();

/** The metrics in this script, for a k6 without the extension. */
function scriptRecorder(): Recorder {
  const metrics = Object.fromEntries(
    plan.scenarios.map(({ name }): [Subject, Metrics] => [
      name,
      {
        histogram: Array.from({ length: HISTOGRAM_GROUPS }, (_, g) => new Counter(metricName.histogram(name, g))),
        bounds: new Trend(metricName.bounds(name), true),
        low: Infinity,
        high: -Infinity,
        validated: new Counter(metricName.validated(name)),
        parsed: new Counter(metricName.parsed(name)),
        calls: Object.fromEntries(COUNTED_CLASSES.map((c) => [c, new Counter(metricName.calls(name, c))])),
      },
    ]),
  ) as Record<Subject, Metrics>;
  return {
    latency(subject, ms, depth) {
      const m = metrics[subject];
      const b = bucketOf(ms);
      m.histogram[groupOf(b)]?.add(1, depth ? depthTagsOf(b, depth) : (bucketTags[b] ??= { b: String(b) }));
      if (ms < m.low || ms > m.high) {
        m.bounds.add(ms);
        m.low = Math.min(m.low, ms);
        m.high = Math.max(m.high, ms);
      }
    },
    count(subject, what, code, depth) {
      const m = metrics[subject];
      if (what === 'validated' || what === 'parsed') m[what].add(1);
      else if (code === undefined) m.calls[what]?.add(1, depth ? (depthTags[depth] ??= { d: depth }) : undefined);
      else m.calls[what]?.add(1, depth ? { ...codeTag(code), d: depth } : codeTag(code));
    },
  };
}

/** What k6/x/rpccertify needs to do an iteration alone (k6ext/send.go planText): each entry's params, its fingerprint where
 * recognising its answer is all there is to judging it (else ''), whether a null is due, whether sampling found that
 * answer conforming to the schemas; stripes; metric names; buckets. */
function goPlan(): GoPlan {
  const methods = plan.methods.map((m) => {
    const r = requests[m];
    const entries = Array.from({ length: r.all.length }, (_, k) => unpackEntry(r.all[k] ?? ''));
    const judgedInGo = (e: PackedEntry) => e.reply !== undefined && e.expect !== 'error' && !asksLatest(r, e) && !(e.windowBlock !== undefined && nearHeadWindow > 0);
    return [m, { entries: entries.map((e): GoPlanMethod['entries'][number] => [e.params, judgedInGo(e) ? (e.reply ?? '') : '', e.expect === 'null' ? 1 : 0, e.shaped ? 1 : 0, e.depth ?? '']), stripes: stripesOf(r) }];
  });
  const subjects = plan.scenarios.map(({ name }) => [
    name,
    {
      histogram: Array.from({ length: HISTOGRAM_GROUPS }, (_, g) => metricName.histogram(name, g)),
      bounds: metricName.bounds(name),
      calls: Object.fromEntries(COUNTED_CLASSES.map((c) => [c, metricName.calls(name, c)])),
      validated: metricName.validated(name),
      parsed: metricName.parsed(name),
    },
  ]);
  return {
    url,
    timeout: plan.requestTimeout,
    validateShare: plan.validateShare,
    mix: plan.mix,
    methods: Object.fromEntries(methods),
    subjects: Object.fromEntries(subjects),
    inGo: metricName.inGo,
    lower: bucketLowerBounds(),
    groupBuckets: GROUP_BUCKETS,
    maxCodeTags: MAX_CODE_TAGS,
    otherCode: OTHER_CODE.code,
  };
}

/** A `latest`-tagged entry under fresh reads: its answer is judged against the head, never taken as sampled. */
function asksLatest(r: Request, entry: PackedEntry): boolean {
  return r.tagged !== undefined && entry.params.includes('"latest"');
}

function stripesOf(r: Request): number[][] {
  return (r.stripes ??= stripeEntries(r.all.length, (k) => unpackEntry(r.all[k] ?? ''), plan.instances));
}

if (plan.fresh) initFresh();
const head = { checks: new Counter(metricName.headChecks), regressions: new Counter(metricName.headRegressions), depth: new Trend(metricName.headRegressionDepth) };
const headParams = { headers: JSON_HEADERS, tags: { name: 'eth_blockNumber' }, timeout: plan.requestTimeout };
const namedBlockParams = { headers: JSON_HEADERS, tags: { name: 'eth_getBlockByHash' }, timeout: plan.requestTimeout };
let highestHead: number | undefined;
/** exec.scenario builds a new object on each read (~20 µs in k6); its properties are getters of the VU's current state,
 * so one object per VU serves every iteration. */
let scenarioInfo: typeof exec.scenario | undefined;

export function call(): void {
  try {
    const sentInGo = go ? go.call() : null;
    if (sentInGo === undefined) return; // recognised and recorded in Go
    judge(sentInGo);
  } catch (e) {
    thrown(e);
  }
}

/** An iteration that threw left its answer in no count: it is counted here (the run cannot pass with any: report/verdict.ts),
 * the first a VU met logged for the report, and the iteration ends as k6's would have, without k6 logging each one. */
const scriptErrors = new Counter(metricName.scriptErrors);
let thrownLogged = false;
function thrown(e: unknown): void {
  scriptErrors.add(1);
  if (thrownLogged) return;
  thrownLogged = true;
  console.warn(`rpc-certify script-error ${(scenarioInfo ??= exec.scenario).name} ${String(e instanceof Error ? (e.stack ?? e.message) : e).split('\n', 3).join(' | ')}`);
}

/** One iteration's answer (Go's, if it sent the request but did not recognise the answer: null when the iteration is this script's). */
function judge(sentInGo: Sent | null): void {
  const scenario = (scenarioInfo ??= exec.scenario);
  const i = scenario.iterationInTest;
  const subject = scenario.name as Subject;
  // The mix follows the global iteration number, so the instances together send exactly the planned mix.
  const method = subject === MIX_SCENARIO ? (plan.mix[i % plan.mix.length] as RpcMethod) : subject;
  const r = requests[method];
  const turn = entryTurn(stripesOf(r), i, subject === MIX_SCENARIO ? plan.mix.length : 0);
  const { index } = turn;
  const line = r.all[index];
  if (line === undefined) return;
  const entry = unpackEntry(line);
  // Ids start at 1 (ganache answers id 0 with null).
  const id = i + 1;
  const res = sentInGo ?? post(r, entry, id);
  const { status, body } = res;
  if (res.error) warnOnce(r, 'no-response', `${method} k6 gave no response (counted http_error): ${res.error}`);
  const validate = validatesTurn(turn, plan.validateShare);
  const latest = asksLatest(r, entry);
  const tagged = latest && r.tagged === 'names';
  // Go already found an answer it sent not to be the one sampled.
  const seen = sentInGo === null && !tagged && recognised(entry, id, status, body);
  let verdict: Classification;
  if (seen && (!validate || entry.shaped)) {
    verdict = metVerdict(entry);
    // Sampling validated these bytes (but the id, which recognition checks) against the schemas: as call() in Go does.
    if (validate) recorder.count(subject, 'validated');
  } else {
    verdict = classify({ status, body, timedOut: res.timedOut, id }, entry);
    recorder.count(subject, 'parsed');
  }
  if (verdict.envelope && validate) {
    verdict = validated(method, entry, verdict.envelope, verdict, r, seen);
    recorder.count(subject, 'validated');
    // The answer sampling saw, valid: Go gives its next validated visits this verdict (the same bytes but the id).
    if (seen && go && SUCCESS_CLASSES.includes(verdict.cls)) go.validatedShape(method, index);
  } else if (verdict.envelope) verdict = compared(method, entry, verdict.envelope, verdict, r, seen);
  else if (verdict.cls === 'wrong') logOnce(r, 'wrong', `${method} ${entry.params}: ${verdict.why ?? 'wrong'}`);

  // A `latest` answer naming its block: judged against that block read by its hash (named-block.ts).
  if (verdict.cls === 'ok' && verdict.envelope && namesLatest(method, entry.params)) verdict = againstNamedBlock(method, entry, verdict.envelope.result, r) ?? verdict;

  // A windowed hit answered null or an error once its block has left the declared window: archive, not judged (§8).
  if (entry.windowBlock !== undefined && nearHeadWindow > 0 && archiveCandidate(verdict) && leftWindow(entry.windowBlock)) verdict = ARCHIVE;

  const { cls, code } = verdict;
  if (tagged && cls === 'ok' && verdict.envelope) judgeTagged(method, verdict.envelope.result, plan.fresh?.graceMs ?? 0);
  else if (latest && SUCCESS_CLASSES.includes(cls)) notJudgeable(method);
  if (SUCCESS_CLASSES.includes(cls)) {
    recorder.latency(subject, res.duration, entry.depth);
    if (cls === 'ok') return;
  }
  recorder.count(subject, cls, code, entry.depth);
}

/** Blocks read by hash for the `latest` answers naming them: immutable, so kept (a few per VU: latest moves on). */
const namedBlocks = new Map<string, NamedBlock>();
const NAMED_BLOCKS_KEPT = 8;

/** `wrong` when a `latest` answer contradicts the block it names (read by that hash); undefined when it does not, or the block could not be read. */
function againstNamedBlock(method: RpcMethod, entry: PackedEntry, result: unknown, r: Request): Classification | undefined {
  const hash = namedHash(result);
  if (hash === undefined) return undefined;
  let block = namedBlocks.get(hash);
  if (block === undefined) {
    // Not id 0, which ganache answers with null.
    const res = http.post(url, JSON.stringify({ jsonrpc: '2.0', id: 2147483647, method: 'eth_getBlockByHash', params: [hash, false] }), namedBlockParams);
    let read: unknown;
    try {
      read = typeof res.body === 'string' ? (JSON.parse(res.body) as { result?: unknown }).result : undefined;
    } catch {
      read = undefined;
    }
    // No block by that hash (a reorg, a fault of eth_getBlockByHash's own): nothing to compare with here.
    if (read === null || typeof read !== 'object') return undefined;
    block = read as NamedBlock;
    if (namedBlocks.size >= NAMED_BLOCKS_KEPT) namedBlocks.delete(namedBlocks.keys().next().value as string);
    namedBlocks.set(hash, block);
  }
  const fault = namedBlockFault(method, JSON.parse(entry.params) as unknown[], result, block);
  return fault === undefined ? undefined : logOnce(r, 'wrong', `${method} ${entry.params}: ${fault}`);
}

/** The entry's request, byte for byte JSON.stringify({ jsonrpc: '2.0', id, method, params }), as k6/x/rpccertify sends it. */
function post(r: Request, entry: PackedEntry, id: number): Sent {
  let res: ReturnType<typeof http.post>;
  try {
    res = http.post(url, `{"jsonrpc":"2.0","id":${id},"method":${r.name},"params":${entry.params}}`, r.params);
  } catch (e) {
    // k6 refuses some answers outright (a 101 Switching Protocols): the endpoint's failure, not the script's.
    return { status: 0, body: null, timedOut: false, duration: 0, error: String(e) };
  }
  const status = res.status;
  // k6 sets error_code on failures only: read it (a native property read) only when no response came.
  return { status, body: typeof res.body === 'string' ? res.body : null, timedOut: status === 0 && res.error_code === K6_TIMEOUT, duration: res.timings.duration };
}

/** This VU's last read of the head, for the near-head window: read again when over a second old. */
let windowHead: { n: number; at: number } | undefined;

/** Whether a block is outside the declared window at the endpoint's head now (asked at most once a second per VU). */
function leftWindow(block: number): boolean {
  if (!windowHead || Date.now() - windowHead.at > 1000) {
    const res = http.post(url, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] }), headParams);
    let n = NaN;
    try {
      n = typeof res.body === 'string' ? Number((JSON.parse(res.body) as { result?: unknown }).result) : NaN;
    } catch {
      // not JSON: no head read
    }
    // No head read: the answer is judged as if inside (a null there is the endpoint's to explain).
    if (!Number.isSafeInteger(n)) return false;
    windowHead = { n, at: Date.now() };
  }
  return !insideWindow(BigInt(block), BigInt(windowHead.n), nearHeadWindow);
}

function sha256Hex(text: string): string {
  return crypto.sha256(text, 'hex') as string;
}

/** The answer sampling saw, with this request's id (its fingerprint, core/reply.ts): its verdict is known without parsing. */
function recognised(entry: PackedEntry, id: number, status: number, body: string | null): boolean {
  if (entry.reply === undefined || status !== 200 || body === null) return false;
  if (go) return go.recognised(body, id, entry.reply);
  const text = markedText(body, id);
  return text !== undefined && sha256Hex(text) === entry.reply;
}

function codeTag(code: number): { code: string } {
  let tag = codeTags.get(code);
  if (!tag) {
    if (codeTags.size >= MAX_CODE_TAGS) return OTHER_CODE;
    tag = { code: String(code) };
    codeTags.set(code, tag);
  }
  return tag;
}

/** The schema of the answer (a fault makes it `invalid`), then the answer recorded at sampling. */
function validated(method: RpcMethod, entry: PackedEntry, envelope: NonNullable<Classification['envelope']>, verdict: Classification, r: Request, seen: boolean): Classification {
  const fault = shapeFault(method, envelope);
  if (fault) return logOnce(r, 'invalid', `${method} ${fault}`);
  return compared(method, entry, envelope, verdict, r, seen);
}

/** Every answer to an immutable lookup (by hash, or by the number of a final block), and every answer from the very block
 * sampling saw for a lookup by the number of a recent one, is the one recorded at sampling, or `wrong`; any other keeps its
 * bounds (the block and index asked for, an estimate's least and most gas: bounds.ts), or is `wrong`.
 * An answer `seen` (the bytes sampling saw, but for the id) has the recorded digest: only another one is checked
 * (digest: canonical JSON text, ~0.25 ms in k6 for 1 KB), and it is parsed already. */
function compared(method: RpcMethod, entry: PackedEntry, envelope: NonNullable<Classification['envelope']>, verdict: Classification, r: Request, seen: boolean): Classification {
  if (verdict.cls !== 'ok' || seen) return verdict;
  const broken = entry.bounds && boundsFault(entry.bounds, envelope.result);
  if (broken) return logOnce(r, 'wrong', `${method} ${entry.params}: ${broken}`);
  if (entry.answer && sameAnswerDue(entry.bounds, envelope.result) && answerDigest(envelope.result, sha256Hex) !== entry.answer) {
    return logOnce(r, 'wrong', `${method} ${entry.params}: not the answer recorded at sampling${anchorOf(entry.bounds) === undefined ? '' : ' for the same block hash'}`);
  }
  return verdict;
}

/** Once per VU, method and kind: Node reads the first invalid and wrong answer of each from k6's console output; a
 * request k6 answered with no response at all (`no-response`, which k6 logs nowhere) is for the user. */
function warnOnce(r: Request, kind: 'invalid' | 'wrong' | 'no-response', line: string): void {
  if (!r.logged.has(kind)) console.warn(`rpc-certify ${kind} ${line}`);
  r.logged.add(kind);
}

function logOnce(r: Request, cls: 'invalid' | 'wrong', line: string): Classification {
  warnOnce(r, cls, line);
  return { cls };
}

/** The head sampler: one VU per instance, so its answers come in order; any answer below the highest seen is a regression. */
export function headCheck(): void {
  try {
    checkHead();
  } catch (e) {
    thrown(e);
  }
}

function checkHead(): void {
  const res = http.post(url, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] }), headParams);
  const result = classify({ status: res.status, body: typeof res.body === 'string' ? res.body : null }, { expect: 'value' }).envelope?.result;
  const n = typeof result === 'string' && /^0x[0-9a-f]+$/i.test(result) ? parseInt(result, 16) : undefined;
  if (n === undefined) return;
  head.checks.add(1);
  if (highestHead !== undefined && n < highestHead) {
    head.regressions.add(1);
    head.depth.add(highestHead - n);
    console.warn(`rpc-certify head-regression eth_blockNumber went from ${highestHead} back to ${n}`);
  }
  highestHead = Math.max(highestHead ?? n, n);
}

/** The head-chasing scenario (fresh.ts), when the plan has it. */
export function freshCheck(): void {
  try {
    freshRound(url, plan.requestTimeout, plan.fresh?.graceMs ?? 0);
  } catch (e) {
    thrown(e);
  }
}

/** This instance's shard, to a file for the Node side, or as one marked stdout line in a pod's log. (exec.test.options
 * costs ~0.25 s with the histogram's thresholds in it: read it here only, never per VU.) */
export function handleSummary(data: K6Summary): Record<string, string> {
  const shard = JSON.stringify(shardOf(data, plan, answerDigest(plan, sha256Hex), exec.test.options.executionSegment ?? null, go ? 'go' : 'js'));
  return shardPath ? { [shardPath]: shard } : { stdout: `${SHARD_MARKER}${shard}\n` };
}
