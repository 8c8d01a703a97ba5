// The pure side of distributed runs: histograms whose merge is exact, shards and their merge, thresholds
// judged on the merged result, capacity steps, answer digests and the k6-operator manifests. No k6 here.
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { capacityOf, coresGiven, judgeStep, type StepInput } from '../../load/report/analysis.ts';
import { generatorSentence, headline } from '../../load/report/headline.ts';
import { sha256Hex } from '../../core/node/fingerprint.ts';
import { answerDigest } from '../../load/shared/answer.ts';
import { BUCKETS, bucketLowerBounds, bucketOf, bucketValue, emptyHistogram, type Histogram, mergeHistograms, quantile, RELATIVE_ERROR } from '../../load/shared/histogram.ts';
import { judgeThresholds } from '../../load/report/judge.ts';
import { k8sManifests, k8sObjects } from '../../load/run/k8s.ts';
import { testRunValidator } from '../support/testrun-schema.ts';
import { CLASSES, type RpcClass } from '../../load/shared/answer-classes.ts';
import { buildPlan } from '../../load/shared/profiles.ts';
import { METHODS } from '../../core/methods.ts';
import { createRng } from '../../load/shared/rng.ts';
import { coverageGap, entryTurn, parseSegment, segmentArgs, stripeEntries, validatesTurn } from '../../load/shared/segments.ts';
import { findingsIn, latencyOf, type Merged, mergeShards, percentileOf, type Shard, shardsIn, type SubjectShard } from '../../load/shared/shard.ts';
import { bucketMetric, histogramThresholds, shardOf } from '../../load/shared/summary.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';

function histogramOf(samples: readonly number[]): Histogram {
  const h = emptyHistogram();
  for (const ms of samples) {
    h.buckets[bucketOf(ms)] = (h.buckets[bucketOf(ms)] ?? 0) + 1;
    h.min = h.count === 0 ? ms : Math.min(h.min, ms);
    h.max = Math.max(h.max, ms);
    h.count++;
    h.sum += ms;
  }
  return h;
}

/** k6's Trend percentile: linear interpolation between the sorted samples at floor and ceil of q·(n-1). */
function k6Percentile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const i = q * (sorted.length - 1);
  const lo = sorted[Math.floor(i)] ?? 0;
  return lo + ((sorted[Math.ceil(i)] ?? 0) - lo) * (i - Math.floor(i));
}

/** Latencies as a loopback endpoint gives them: log-normal around a few ms, with a slow tail. */
function latencies(n: number, seed: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => {
    const gauss = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
    return Math.exp(1.2 + 0.8 * gauss) * (rng.next() < 0.02 ? 40 : 1);
  });
}

const classes = (ok: number, other: Partial<Record<RpcClass, number>> = {}) => ({ ...Object.fromEntries(CLASSES.map((c) => [c, 0])), ok, ...other }) as Record<RpcClass, number>;
const subject = (latency: Histogram, extra: Partial<SubjectShard> = {}): SubjectShard => ({ classes: classes(latency.count), dropped: 0, validated: 0, parsed: 0, latency, ...extra });
const shard = (segment: string, subjects: Record<string, SubjectShard>, plan = 'p1'): Shard => ({
  kind: 'rpc-certify-load-shard',
  version: 1,
  plan,
  segment,
  durationMs: 1000,
  subjects,
  head: { checks: 3, regressions: 0, deepest: 0 },
});

describe('load: histograms merge exactly', () => {
  it(`reads any latency from 10 µs to 60 s back within ${+(RELATIVE_ERROR * 100).toFixed(2)}%`, () => {
    for (let ms = 0.01; ms < 60_000; ms *= 1.0007) expect(Math.abs(bucketValue(bucketOf(ms)) - ms) / ms).to.be.at.most(RELATIVE_ERROR + 1e-12);
    expect(bucketOf(0)).to.equal(0);
    expect(bucketOf(1e9)).to.equal(BUCKETS - 1);
  });

  it("writes bucketOf as a table of each bucket's least latency, the next float down falling in the bucket below", () => {
    const below = (x: number) => {
      const view = new DataView(new ArrayBuffer(8));
      view.setFloat64(0, x);
      view.setBigUint64(0, view.getBigUint64(0) - 1n);
      return view.getFloat64(0);
    };
    const lower = bucketLowerBounds();
    expect(lower).to.have.length(BUCKETS);
    for (let b = 1; b < BUCKETS; b++) {
      const edge = lower[b] ?? NaN;
      expect(bucketOf(edge), `bucket ${b}`).to.equal(b);
      expect(bucketOf(below(edge)), `below bucket ${b}`).to.equal(b - 1);
    }
  });

  it('gives the single-run percentiles whichever way the same samples are split across segments', () => {
    const samples = latencies(20_000, 7);
    const whole = histogramOf(samples);
    const rng = createRng(11);
    for (const parts of [2, 3, 5]) {
      const split: number[][] = Array.from({ length: parts }, () => []);
      for (const s of samples) split[rng.int(parts)]?.push(s);
      const merged = mergeHistograms(split.map(histogramOf));
      expect(merged.buckets, `${parts} segments`).to.deep.equal(whole.buckets);
      expect([merged.count, merged.min, merged.max]).to.deep.equal([whole.count, whole.min, whole.max]);
      expect(merged.sum).to.be.closeTo(whole.sum, 1e-6);
      for (const q of [0.5, 0.9, 0.95, 0.99]) expect(quantile(merged, q), `p${q * 100}`).to.equal(quantile(whole, q));
    }
    // And what one k6 process would report from the raw samples, within the resolution.
    for (const q of [0.5, 0.9, 0.95, 0.99, 0.999]) {
      const exact = k6Percentile(samples, q);
      expect(Math.abs(quantile(whole, q) - exact) / exact, `p${q * 100}`).to.be.at.most(RELATIVE_ERROR);
    }
    expect(quantile(whole, 1)).to.equal(whole.max);
    expect(quantile(histogramOf([5]), 0.99)).to.equal(5);
  });
});

describe('load: shards, segments and thresholds on the merged result', () => {
  it('reads a shard from k6 summary data: histogram buckets are sub-metrics of a tagged counter; ok is their count less the other successes', () => {
    const plan = buildPlan({ profile: 'smoke', methods: ['eth_getBlockByHash'], seed: 1 });
    expect(Object.keys(histogramThresholds(['eth_getBlockByHash']))).to.have.length(BUCKETS);
    const s = shardOf(
      {
        metrics: {
          latency_bounds_eth_getBlockByHash: { type: 'gauge', values: { value: 2, min: 1, max: 3 } },
          [bucketMetric('eth_getBlockByHash', 350)]: { type: 'counter', values: { count: 2 } },
          [bucketMetric('eth_getBlockByHash', 400)]: { type: 'counter', values: { count: 2 } },
          calls_ok_null_eth_getBlockByHash: { type: 'counter', values: { count: 1 } },
          calls_wrong_eth_getBlockByHash: { type: 'counter', values: { count: 1 } },
          validated_eth_getBlockByHash: { type: 'counter', values: { count: 4 } },
          parsed_eth_getBlockByHash: { type: 'counter', values: { count: 4 } },
          'dropped_iterations{scenario:eth_getBlockByHash}': { type: 'counter', values: { count: 2 } },
          head_checks: { type: 'counter', values: { count: 9 } },
          head_regressions: { type: 'counter', values: { count: 1 } },
          head_regression_depth: { type: 'gauge', values: { value: 1, min: 1, max: 2 } },
        },
        state: { testRunDurationMs: 1234 },
      },
      plan,
      'digest',
      '1/2:1',
      'go',
    );
    expect(s.subjects['eth_getBlockByHash']).to.deep.equal({
      classes: classes(3, { ok_null: 1, wrong: 1 }),
      dropped: 2,
      validated: 4,
      parsed: 4,
      latency: { count: 4, sum: 2 * bucketValue(350) + 2 * bucketValue(400), min: 1, max: 3, buckets: { 350: 2, 400: 2 } },
    });
    expect(s).to.deep.include({ plan: 'digest', segment: '1/2:1', durationMs: 1234, head: { checks: 9, regressions: 1, deepest: 2 }, recognition: 'go' });
  });

  it('adds shards up, and refuses shards of another test or that do not cover it exactly once', () => {
    const a = shard('0:1/2', { eth_getBlockByHash: subject(histogramOf([1, 2]), { dropped: 1, validated: 2, parsed: 2 }) });
    const b = shard('1/2:1', { eth_getBlockByHash: subject(histogramOf([3]), { dropped: 2, validated: 1, parsed: 3 }) });
    const m = mergeShards([a, b]);
    expect(m.subjects['eth_getBlockByHash']).to.deep.include({ classes: classes(3), dropped: 3, validated: 3, parsed: 5 });
    expect(m.head).to.deep.equal({ checks: 6, regressions: 0, deepest: 0 });
    // Where answers were recognised: Go only when every instance says so; unknown when any does not say.
    expect(m.recognition, 'shards that do not say').to.equal(undefined);
    expect(mergeShards([{ ...a, recognition: 'go' }, { ...b, recognition: 'go' }]).recognition).to.equal('go');
    expect(mergeShards([{ ...a, recognition: 'go' }, { ...b, recognition: 'js' }]).recognition).to.equal('js');
    expect(mergeShards([{ ...a, recognition: 'go' }, b]).recognition).to.equal(undefined);
    expect(() => mergeShards([a])).to.throw(/0.5-1 of the test has no result/);
    expect(() => mergeShards([a, a, b])).to.throw(/two results/);
    expect(() => mergeShards([a, shard('1/2:1', {}, 'p2')])).to.throw(/different tests/);
    expect(coverageGap(['0:25%', '25%:0.5', '2/4:1'].map(parseSegment))).to.equal(undefined);
    expect(segmentArgs(3)).to.deep.equal({ sequence: '0,1/3,2/3,1', segments: ['0:1/3', '1/3:2/3', '2/3:1'] });
  });

  it('finds shards in pod logs among k6 log lines, and the first finding of each kind', () => {
    const s = shard('0:1', {});
    const log = [
      'time="2026-01-01T00:00:00Z" level=warning msg="rpc-certify wrong eth_getBlockByHash [\\"0xab\\"]: not the answer recorded at sampling" source=console',
      'time="2026-01-01T00:00:00Z" level=warning msg="rpc-certify invalid eth_getTransactionByHash /result/hash must match pattern" source=console',
      'time="2026-01-01T00:00:01Z" level=warning msg="rpc-certify head-regression eth_blockNumber went from 10 back to 8" source=console',
      `rpc-certify-shard ${JSON.stringify(s)}`,
    ].join('\n');
    expect(shardsIn(log)).to.deep.equal([s]);
    expect(shardsIn(JSON.stringify(s))).to.deep.equal([s]);
    expect(findingsIn(log)).to.deep.equal({
      wrong: { eth_getBlockByHash: '["0xab"]: not the answer recorded at sampling' },
      invalid: { eth_getTransactionByHash: '/result/hash must match pattern' },
      headRegression: 'eth_blockNumber went from 10 back to 8',
    });
  });

  it('gives each instance disjoint corpus entries, keeping the miss share, as k6 stripes iterations', () => {
    const entries = [...Array.from({ length: 40 }, (_, i) => ({ params: `["hit${i % 20}"]`, miss: false })), ...Array.from({ length: 6 }, (_, i) => ({ params: `["miss${i % 3}"]`, miss: true }))];
    const stripes = stripeEntries(entries.length, (i) => entries[i]!, 3);
    const asked = stripes.map((_, instance) => new Set(Array.from({ length: 300 }, (_, k) => JSON.stringify(entries[entryTurn(stripes, instance + 3 * k).index]))));
    for (let i = 0; i < 3; i++) for (let j = i + 1; j < 3; j++) expect([...asked[i]!].filter((k) => asked[j]!.has(k)), `instances ${i} and ${j}`).to.deep.equal([]);
    for (const s of stripes) expect(s.filter((i) => entries[i]?.miss)).to.have.length(2);
    // One instance: the order one process always asked in.
    expect(Array.from({ length: 50 }, (_, i) => entryTurn(stripeEntries(entries.length, (i) => entries[i]!, 1), i).index)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i % 46));
  });

  it("asks and validates every entry in its turn, whatever the entries' count (a method alone, three instances, the capacity mix), at the share asked", () => {
    const ofCount = (n: number) => Array.from({ length: n }, (_, i) => ({ params: `["e${i}"]`, miss: false }));
    for (const share of [0.05, 0.2, 0.3]) {
      for (let count = 40; count <= 400; count++) {
        const stripes = stripeEntries(count, (i) => ofCount(count)[i]!, 1);
        // Each entry validated within its first ceil(1/share) laps; every lap validates share × count within three.
        const laps = Math.ceil(1 / share);
        const validated = new Set<number>();
        for (let lap = 0; lap < laps; lap++) {
          let inLap = 0;
          for (let k = 0; k < count; k++) {
            const turn = entryTurn(stripes, lap * count + k);
            if (validatesTurn(turn, share)) (inLap++, validated.add(turn.index));
          }
          expect(Math.abs(inLap - count * share), `share ${share}, ${count} entries, lap ${lap}`).to.be.at.most(3);
        }
        expect(validated.size, `share ${share}, ${count} entries`).to.equal(count);
      }
    }
    const stripes = stripeEntries(200, (i) => ofCount(200)[i]!, 1);
    expect(Array.from({ length: 1000 }, (_, i) => validatesTurn(entryTurn(stripes, i), 1)).every(Boolean)).to.equal(true);
    expect(Array.from({ length: 1000 }, (_, i) => validatesTurn(entryTurn(stripes, i), 0)).some(Boolean)).to.equal(false);
    const plan = buildPlan({ profile: 'capacity', methods: [...METHODS], seed: 1, step: { subject: 'mix', rps: 100 } });
    for (const [what, instances, methodOf, mixLength] of [
      ['three instances', 3, () => 'one', 0],
      ['the capacity mix', 1, (i: number) => plan.mix[i % plan.mix.length] ?? '', plan.mix.length],
      ['the capacity mix, three instances', 3, (i: number) => plan.mix[i % plan.mix.length] ?? '', plan.mix.length],
    ] as const) {
      const lanes = stripeEntries(200, (i) => ofCount(200)[i]!, instances);
      const asked = new Map<string, number>();
      const validated = new Map<string, number>();
      for (let i = 0; i < 200_000; i++) {
        const turn = entryTurn(lanes, i, mixLength);
        const key = `${methodOf(i)} ${turn.index}`;
        asked.set(key, (asked.get(key) ?? 0) + 1);
        if (validatesTurn(turn, 0.05)) validated.set(key, (validated.get(key) ?? 0) + 1);
      }
      for (const method of new Set([...asked.keys()].map((key) => key.split(' ')[0]))) {
        const of = (m: Map<string, number>) => [...m].filter(([key]) => key.startsWith(`${method} `));
        // Every method asked each of its entries (the mix's rarest, eth_getUncleByBlockHashAndIndex, is ~2% of it), and
        // validated those asked 40 times or more (at 5%, twice due): alone, each one; in the mix, where a method's visits
        // of an entry fall on some of its laps, as a random 5% would (0.95^40: 13% of them left, fewer the more asked).
        expect(of(asked), `${what}: ${method}`).to.have.length(200);
        const unvalidated = of(asked).filter(([key, n]) => n >= 40 && !validated.has(key)).map(([key]) => key);
        if (mixLength === 0) expect(unvalidated, `${what}: ${method}`).to.deep.equal([]);
        else expect(unvalidated.length, `${what}: ${method}`).to.be.at.most(0.13 * of(asked).filter(([, n]) => n >= 40).length + 2);
        const sum = (rows: Array<[string, number]>) => rows.reduce((a, [, n]) => a + n, 0);
        expect(sum(of(validated)) / sum(of(asked)), `${what}: ${method}`).to.be.within(0.04, 0.06);
      }
    }
  });

  it("reads percentiles from the histogram, one instance or several alike, within 1% of k6's own", () => {
    const samples = latencies(5000, 3);
    const one = mergeShards([shard('0:1', { eth_getBlockByHash: subject(histogramOf(samples)) })]).subjects['eth_getBlockByHash']!;
    for (const q of [0.5, 0.9, 0.95, 0.99, 0.999]) expect(Math.abs(percentileOf(one, q) - k6Percentile(samples, q)) / k6Percentile(samples, q), `p${q * 100}`).to.be.at.most(RELATIVE_ERROR);
    const half = (from: number, to: number) => subject(histogramOf(samples.slice(from, to)));
    const two = mergeShards([shard('0:1/2', { eth_getBlockByHash: half(0, 2500) }), shard('1/2:1', { eth_getBlockByHash: half(2500, 5000) })]).subjects['eth_getBlockByHash']!;
    expect(latencyOf(two)).to.deep.equal(latencyOf(one));
  });

  it('judges the plan thresholds on the merged histograms and counts, not per instance', () => {
    const plan = buildPlan({ profile: 'gate', methods: ['eth_getBlockByHash'], seed: 1, rate: 10, duration: '10s' });
    const fast = latencies(1000, 1);
    const slow = fast.map((x) => x * 300);
    const merged: Merged = mergeShards([
      shard('0:1/2', { eth_getBlockByHash: subject(histogramOf(fast), { dropped: 1 }) }),
      shard('1/2:1', { eth_getBlockByHash: subject(histogramOf(slow), { classes: classes(1000, { wrong: 30 }) }) }),
    ]);
    const results = judgeThresholds(plan.thresholds, merged);
    const whole = mergeHistograms([histogramOf(fast), histogramOf(slow)]);
    expect(results.find((r) => r.expression === 'p(95)<500')).to.deep.include({ ok: false, value: Math.round(quantile(whole, 0.95) * 1000) / 1000 });
    expect(results.find((r) => r.metric === 'failed_eth_getBlockByHash')).to.deep.include({ ok: false, value: 0.015 });
    expect(results.find((r) => r.metric === 'dropped_iterations')).to.deep.include({ ok: true, value: 1 });
    expect(() => judgeThresholds({ latency_eth_getBlockByHash: ['p(95)<>1'] }, merged)).to.throw(/not a statistic/);
  });
});

describe('load: capacity steps', () => {
  const slo = { p95Ms: 500, p99Ms: 100, maxFailureRate: 0.01, maxDroppedShare: 0.01 };
  const step = (over: Partial<StepInput> & { ms?: number; ok?: number; failed?: number; dropped?: number }): StepInput => {
    const h = histogramOf(Array.from({ length: over.ok ?? 1000 }, () => over.ms ?? 5));
    return { offeredRps: 100, durationSec: 10, maxVUs: 200, availableCores: 2, slo, measured: subject(h, { classes: classes(h.count, { http_error: over.failed ?? 0 }), dropped: over.dropped ?? 0 }), ...over };
  };

  it('passes a step within the SLO, and blames the endpoint for failures, slow answers or busy VUs', () => {
    expect(judgeStep(step({}))).to.deep.include({ verdict: 'within', offeredRps: 100, achievedRps: 100, successRate: 1 });
    expect(judgeStep(step({ failed: 50 }))).to.deep.include({ verdict: 'slo', reason: 'success 95.24% < 99%' });
    expect(judgeStep(step({ ms: 150 }))).to.deep.include({ verdict: 'slo' }).and.have.property('reason').that.matches(/^p99 15\d(\.\d+)? ms > 100 ms$/);
    // Every VU waiting for slow answers: the endpoint's fault even though k6 could not start requests.
    expect(judgeStep(step({ ms: 90, dropped: 100, maxVUs: 10 }))).to.deep.include({ verdict: 'slo' });
  });

  it('marks a step generator-bound when k6 is saturated, or drops requests while the target idles', () => {
    expect(judgeStep(step({ cpuCores: 1.9, ms: 150 }))).to.deep.include({ verdict: 'generator' }).and.have.property('reason').that.matches(/^k6 used 1.9 of 2 cores while p99 15\d(\.\d+)? ms > 100 ms$/);
    expect(judgeStep(step({ cpuCores: 1.9, dropped: 100, maxVUs: 10, ms: 90 }))).to.deep.include({ verdict: 'generator', reason: 'k6 used 1.9 of 2 cores while 10% not started' });
    // GOMAXPROCS sized to the step's rate (1 thread): k6 using all of it is saturated, though the machine has 2 cores.
    expect(judgeStep(step({ cpuCores: 0.95, ms: 150, availableCores: coresGiven({ procs: 1, instances: 1 }, 2) }))).to.deep.include({ verdict: 'generator' }).and.have.property('reason').that.matches(/^k6 used 0.95 of 1 cores/);
    expect(coresGiven({ procs: 2, instances: 3 }, 4)).to.equal(4);
    expect(coresGiven({ instances: 1 }, 2), 'GOMAXPROCS set by the user: the machine').to.equal(2);
    // A busy k6 that still delivered the step within the SLO: the endpoint held it.
    expect(judgeStep(step({ cpuCores: 1.9 }))).to.deep.include({ verdict: 'within' });
    expect(judgeStep(step({ dropped: 100 }))).to.deep.include({ verdict: 'generator' });
    // Failed answers stay the endpoint's even when k6 also fell behind.
    expect(judgeStep(step({ dropped: 100, failed: 50 }))).to.deep.include({ verdict: 'slo' });
  });

  it('never excuses an SLO breach as generator-bound when k6 had CPU to spare (p99 759 ms against 250 at 0.33 cores)', () => {
    const breach = judgeStep(step({ ms: 759, dropped: 100, cpuCores: 0.33, slo: { ...slo, p99Ms: 250 } }));
    expect(breach).to.deep.include({ verdict: 'slo' }).and.have.property('reason').that.matches(/^p99 75\d(\.\d+)? ms > 250 ms$/);
    // Unsent requests within the latency SLO while the VUs idled: k6 was late; the reason gives its CPU too.
    expect(judgeStep(step({ dropped: 100, cpuCores: 0.33 }))).to.deep.include({ verdict: 'generator' }).and.have.property('reason').that.matches(/not started while .* \(k6 used 0.33 of 2 cores\)$/);
  });

  it('reports the highest rate within the SLO and what ended the steps', () => {
    const steps = [judgeStep(step({ offeredRps: 50 })), judgeStep(step({ offeredRps: 100 })), judgeStep(step({ offeredRps: 150, failed: 200 }))];
    expect(capacityOf(steps)).to.deep.include({ sustainableRps: 100, limitedBy: 'endpoint', confidence: 'unsteady' });
    expect(capacityOf(steps.slice(0, 2))).to.deep.include({ sustainableRps: 100, limitedBy: 'steps', confidence: 'lower bound' });
  });

  it('calls a knee confirmed when the deciding step broke the SLO twice, unsteady when it held on repeat', () => {
    const ok = (offeredRps: number) => judgeStep(step({ offeredRps }));
    const broke = (offeredRps: number) => judgeStep(step({ offeredRps, failed: 200 }));
    expect(capacityOf([ok(50), ok(100), broke(150), { ...broke(150), repeat: true }])).to.deep.include({ sustainableRps: 100, limitedBy: 'endpoint', confidence: 'confirmed' });
    expect(capacityOf([ok(50), broke(100), { ...ok(100), repeat: true }, broke(150)])).to.deep.include({ sustainableRps: 100, limitedBy: 'endpoint', confidence: 'unsteady' });
    expect(capacityOf([ok(50), judgeStep(step({ offeredRps: 100, cpuCores: 1.9, ms: 150 }))])).to.deep.include({ sustainableRps: 50, limitedBy: 'generator', confidence: 'lower bound' });
  });
});

describe('load: answers and k6-operator manifests', () => {
  it('digests an answer regardless of key order, and changes with any value', () => {
    const block = { hash: '0x01', gasUsed: '0x5208', transactions: [{ b: 1, a: 2 }] };
    expect(answerDigest({ transactions: [{ a: 2, b: 1 }], gasUsed: '0x5208', hash: '0x01' }, sha256Hex)).to.equal(answerDigest(block, sha256Hex));
    expect(answerDigest({ ...block, gasUsed: '0x5209' }, sha256Hex)).to.not.equal(answerDigest(block, sha256Hex));
    expect(answerDigest({ ...block, extra: undefined }, sha256Hex)).to.equal(answerDigest(block, sha256Hex));
  });

  it('digests an answer nested 100,000 deep at once, without the stack, and as no real answer', () => {
    const deep = (n: number, leaf: unknown) => JSON.parse(`${'['.repeat(n)}${JSON.stringify(leaf)}${']'.repeat(n)}`) as unknown;
    const started = Date.now();
    const digest = answerDigest(deep(100_000, 1), sha256Hex);
    expect(Date.now() - started, 'ms (V8 threw RangeError; Sobek took 45 s)').to.be.below(5000);
    expect(digest).to.not.equal(answerDigest([], sha256Hex));
    // Nesting real answers hold is digested whole: a change 10 levels down is seen.
    expect(answerDigest(deep(10, 1), sha256Hex)).to.not.equal(answerDigest(deep(10, 2), sha256Hex));
  });

  it('writes the script and corpus ConfigMaps, and a TestRun valid against the vendored k6-operator CRD', () => {
    const script = 'export default function () {}\n// "quotes": and --- dashes\n';
    const objects = k8sObjects({ name: 'rpc-test', namespace: 'load', image: 'registry.example/rpc-certify-k6:v2.2.0', parallelism: 4, script, corpus: '{"version":1}' });
    const docs = parseAllDocuments(k8sManifests(objects));
    expect(docs.map((d) => d.errors)).to.deep.equal([[], [], []]);
    const [configMap, part, testRun] = docs.map((d) => d.toJSON() as Record<string, any>);
    expect(configMap).to.deep.include({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(configMap?.['metadata']).to.deep.include({ name: 'rpc-test-script', namespace: 'load' });
    expect(configMap?.['data']).to.deep.equal({ 'scenario.js': script });
    expect(part?.['metadata']).to.deep.include({ name: 'rpc-test-corpus-0', namespace: 'load' });
    expect(part?.['data']).to.deep.equal({ 'corpus.json.0': '{"version":1}' });
    const { validate } = testRunValidator();
    expect(validate(testRun), JSON.stringify(validate.errors)).to.equal(true);
    expect(testRun?.['spec']).to.deep.include({ parallelism: 4, script: { configMap: { name: 'rpc-test-script', file: 'scenario.js' } } });
    expect(testRun?.['spec']?.['arguments']).to.be.a('string');
    const runner = testRun?.['spec']?.['runner'];
    expect(runner?.['image']).to.equal('registry.example/rpc-certify-k6:v2.2.0');
    expect(runner?.['env']).to.deep.include({ name: 'RPC_CERTIFY_URL', valueFrom: { secretKeyRef: { name: 'rpc-test-endpoint', key: 'url' } } });
    expect(runner?.['env']).to.deep.include.members([{ name: 'RPC_CERTIFY_CORPUS', value: '/corpus/corpus.json' }, { name: 'RPC_CERTIFY_CORPUS_PARTS', value: '1' }]);
    expect(runner?.['volumes']).to.deep.equal([{ name: 'corpus', projected: { sources: [{ configMap: { name: 'rpc-test-corpus-0' } }] } }]);
    expect(runner?.['volumeMounts']).to.deep.equal([{ name: 'corpus', mountPath: '/corpus', readOnly: true }]);
  });

  it('the vendored CRD schema refuses what the API server would refuse or prune', () => {
    const { validate } = testRunValidator();
    const testRun = k8sObjects({ name: 'rpc-test', image: 'i', parallelism: 2, script: 's', corpus: 'c' }).find((o) => o.kind === 'TestRun');
    const spec = testRun?.['spec'] as { runner: Record<string, unknown> } & Record<string, unknown>;
    const variants = {
      'an unknown runner field (pruned)': { ...testRun, spec: { ...spec, runner: { ...spec['runner'], imageName: 'x' } } },
      'an unknown spec field (pruned)': { ...testRun, spec: { ...spec, corpus: 'x' } },
      'parallelism as a string': { ...testRun, spec: { ...spec, parallelism: '2' } },
      'a volume mount without its path': { ...testRun, spec: { ...spec, runner: { ...spec['runner'], volumeMounts: [{ name: 'corpus' }] } } },
      'another kind': { ...testRun, kind: 'K6' },
    };
    for (const [what, doc] of Object.entries(variants)) expect(validate(doc), what).to.equal(false);
    expect(validate(testRun), JSON.stringify(validate.errors)).to.equal(true);
  });
});

describe('load: the headline (why the verdict)', () => {
  const base = {
    verdict: 'fail',
    profile: 'gate',
    thresholds: [
      { metric: 'latency_eth_getBlockByHash', expression: 'p(95)<500', ok: false, value: 612.5 },
      { metric: 'latency_eth_getBlockByHash', expression: 'p(99)<1000', ok: true, value: 700 },
      { metric: 'failed_eth_getTransactionReceipt', expression: 'rate<0.01', ok: false, value: 0.0312 },
    ],
    head: { checks: 60, regressions: 0, deepestBlocks: 0 },
    methods: { eth_getBlockByHash: { requests: 300, classes: { wrong: 0 } }, eth_getTransactionReceipt: { requests: 400, classes: { wrong: 2 }, wrongSample: '["0xab"]: not the answer recorded at sampling' } },
    corpus: { methods: {} },
    generator: { keptUp: true },
    plan: { slo: { p99Ms: 250, maxFailureRate: 0.01 } },
  } as unknown as LoadReport;

  it('names each failed threshold per method with the measured value, and wrong answers first, with their rate and an example', () => {
    const h = headline(base);
    expect(h.reasons).to.deep.equal([
      'eth_getTransactionReceipt: 2 wrong answers in 400 (0.5%), e.g. ["0xab"]: not the answer recorded at sampling',
      'eth_getBlockByHash: p(95) 612.5 ms (threshold <500)',
      'eth_getTransactionReceipt: failure rate 3.12% (threshold < 1%)',
    ]);
  });

  it('says what held on a pass, and gives the capacity knee per method with its confidence', () => {
    const pass = headline({ ...base, verdict: 'pass', thresholds: [{ metric: 'latency_eth_getBlockByHash', expression: 'p(95)<500', ok: true, value: 1 }], methods: {} } as unknown as LoadReport);
    expect(pass.summary).to.equal('every check held');
    expect(pass.reasons[0]).to.match(/^1 threshold held/);
    const behind = { ...base, verdict: 'pass', thresholds: [], methods: {}, generator: { keptUp: false, note: 'k6 used 1.9 of 2 cores' } } as unknown as LoadReport;
    expect(headline(behind).reasons.at(-1), 'the reason and the generator line say it alike').to.equal(generatorSentence(behind).text);
    const step = (offeredRps: number, verdict: string) => ({ offeredRps, verdict, reason: verdict === 'slo' ? 'p99 300 ms > 250 ms' : undefined });
    const capacity = headline({
      ...base,
      methods: {},
      thresholds: [],
      verdict: 'measured',
      capacity: {
        eth_getBlockByHash: { sustainableRps: 100, limitedBy: 'endpoint', confidence: 'confirmed', steps: [step(50, 'within'), step(100, 'within'), step(150, 'slo'), { ...step(150, 'slo'), repeat: true }] },
        mix: { sustainableRps: 50, limitedBy: 'generator', confidence: 'lower bound', steps: [step(50, 'within'), { offeredRps: 100, verdict: 'generator', reason: 'k6 used 1.9 of 2 cores' }] },
      },
    } as unknown as LoadReport);
    expect(capacity.summary).to.match(/per method; 1 of 2 ended generator-bound/);
    expect(capacity.reasons[0]).to.match(/^eth_getBlockByHash: knee 100 rps, confirmed .*the endpoint broke the SLO at 150 rps \(p99 300 ms > 250 ms\)$/);
    expect(capacity.reasons[1]).to.match(/^mix: knee 50 rps, a lower bound .*k6 could not offer more at 100 rps \(k6 used 1.9 of 2 cores\)$/);
  });
});
