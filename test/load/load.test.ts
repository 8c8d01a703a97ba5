import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { build } from 'esbuild';
import { validateShape } from '../../core/schemas.ts';
import { driftOf } from '../../load/report/analysis.ts';
import { bundleScenario, precompiledAjv } from '../../load/plan/bundle.ts';
import { anchored, aroundSampled, boundsFault, boundsOf, heldToSampled, sameAnswerDue } from '../../load/shared/bounds.ts';
import { classify, type Expectation } from '../../load/shared/classify.ts';
import { compareReports } from '../../load/report/compare.ts';
import { composeEntries, compositionOf, type CorpusEntry, type EntryKind, isDegenerate, onMissSide } from '../../load/shared/corpus.ts';
import { bucketValue, groupOf } from '../../load/shared/histogram.ts';
import { METHODS } from '../../core/methods.ts';
import { CLASSES, metricName, type RpcClass } from '../../load/shared/answer-classes.ts';
import { BOOKKEEPING, buildPlan, preAllocatedVUs, capacitySubjects, expectedIterations, parseDuration, targetRpsAt } from '../../load/shared/profiles.ts';
import { cappedCodes } from '../../load/report/report.ts';
import { prepareTest } from '../../load/run/run.ts';
import { createRng } from '../../load/shared/rng.ts';
import { durationMs } from '../../core/duration.ts';
import { bucketMetric } from '../../load/shared/summary.ts';
import { errorCodes, mergeTimelines, timelineOf, totalsAt } from '../../load/report/timeline.ts';
import { freshBucketMetric, freshCounterMetric } from '../../load/shared/freshness.ts';
import { MetricTotals, type Series } from '../../load/run/otlp.ts';
import type { TimelinePoint } from '../../load/shared/measurement.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('load: classification of one answer', () => {
  const value: Expectation = { expect: 'value' };
  const miss: Expectation = { expect: 'null' };
  const revert: Expectation = { expect: 'error', errorCode: 3 };
  const body = (o: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, ...(o as object) });

  it('ok: a value where a value is expected, with the envelope kept for validation', () => {
    const c = classify({ status: 200, body: body({ result: '0x5208' }) }, value);
    expect(c.cls).to.equal('ok');
    expect(c.envelope).to.deep.include({ result: '0x5208' });
  });
  it('ok_null and null_unexpected: a null is a success only where the corpus expects a miss', () => {
    expect(classify({ status: 200, body: body({ result: null }) }, miss).cls).to.equal('ok_null');
    expect(classify({ status: 200, body: body({ result: null }) }, value).cls).to.equal('null_unexpected');
  });
  it('ok_error: the expected JSON-RPC error (a revert with code 3); another code is an rpc_error', () => {
    const reverted = body({ error: { code: 3, message: 'execution reverted: x', data: '0x' } });
    expect(classify({ status: 200, body: reverted }, revert)).to.deep.include({ cls: 'ok_error', code: 3 });
    expect(classify({ status: 200, body: body({ error: { code: -32000, message: 'execution reverted' } }) }, revert)).to.deep.include({ cls: 'rpc_error', code: -32000 });
  });
  it('ok_error only for the code the spec prescribes: an error expected without its code, or a code-less error, is an rpc_error', () => {
    expect(classify({ status: 200, body: body({ error: { code: 3, message: 'execution reverted' } }) }, { expect: 'error' }).cls).to.equal('rpc_error');
    expect(classify({ status: 200, body: body({ error: { message: 'execution reverted' } }) }, revert).cls).to.equal('rpc_error');
    expect(classify({ status: 200, body: body({ error: { code: -32004, message: 'not supported' } }) }, miss)).to.deep.equal({ cls: 'rpc_error', code: -32004 });
  });
  it('wrong: an answer (value, null or error) carrying another id than the request\'s', () => {
    const id = (o: unknown, n: unknown) => JSON.stringify({ jsonrpc: '2.0', id: n, ...(o as object) });
    expect(classify({ status: 200, body: id({ result: '0x5208' }, 7), id: 7 }, value).cls).to.equal('ok');
    expect(classify({ status: 200, body: id({ result: '0x5208' }, 8), id: 7 }, value).cls).to.equal('wrong');
    expect(classify({ status: 200, body: id({ result: null }, '7'), id: 7 }, miss).cls).to.equal('wrong');
    expect(classify({ status: 200, body: id({ error: { code: 3, message: 'execution reverted' } }, null), id: 7 }, revert).cls).to.equal('wrong');
    expect(classify({ status: 200, body: id({ error: { code: -32005, message: 'limit exceeded' } }, null), id: 7 }, value).cls, 'a quota answer is one whatever its id').to.equal('rate_limited');
  });
  it('rpc_error: a JSON-RPC error inside an HTTP 200 is not a success', () => {
    expect(classify({ status: 200, body: body({ error: { code: -32602, message: 'invalid params' } }) }, value)).to.deep.equal({ cls: 'rpc_error', code: -32602 });
  });
  it('rate_limited: HTTP 429, or the usual quota codes and messages in a body', () => {
    expect(classify({ status: 429, body: 'Too Many Requests' }, value).cls).to.equal('rate_limited');
    expect(classify({ status: 200, body: body({ error: { code: -32005, message: 'limit exceeded' } }) }, value).cls).to.equal('rate_limited');
    expect(classify({ status: 200, body: body({ error: { code: -32000, message: 'daily request count exceeded, request rate limited' } }) }, value).cls).to.equal('rate_limited');
  });
  it('http_error: no response, or a non-2xx status (even with a JSON-RPC body)', () => {
    expect(classify({ status: 0, body: null }, value).cls).to.equal('http_error');
    expect(classify({ status: 503, body: '<html>' }, value).cls).to.equal('http_error');
    expect(classify({ status: 401, body: body({ error: { code: -32000, message: 'invalid project id' } }) }, value)).to.deep.equal({ cls: 'http_error', code: -32000 });
  });
  it('timeout: the request ran out of time', () => {
    expect(classify({ status: 0, body: null, timedOut: true }, value).cls).to.equal('timeout');
  });
  it('invalid: not JSON, or neither result nor error', () => {
    expect(classify({ status: 200, body: 'not json' }, value).cls).to.equal('invalid');
    expect(classify({ status: 200, body: body({}) }, value).cls).to.equal('invalid');
  });
  it('wrong, saying why: a value where a miss\'s null is due (an object for an unknown hash), a value where a revert\'s error 3 is due (a gas number)', () => {
    expect(classify({ status: 200, body: body({ result: { hash: '0x1' } }) }, miss)).to.deep.equal({ cls: 'wrong', why: 'a value where null is due (a miss)' });
    expect(classify({ status: 200, body: body({ result: '0x5208' }) }, revert)).to.deep.equal({ cls: 'wrong', why: 'a value where error 3 is due (a revert)' });
    expect(classify({ status: 200, body: body({ result: [] }) }, miss).cls, 'an empty list is a value too').to.equal('wrong');
    expect(classify({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 8, result: '0x1' }), id: 7 }, value)).to.deep.include({ cls: 'wrong', why: "the answer carries another id than the request's" });
  });
});

describe('load: profiles, corpus, comparison, timeline', () => {
  it('pre-allocates VUs for the rate asked at the answer time sampling saw, leaving the worst case to maxVUs', () => {
    const vus = (latencyMs?: number) => buildPlan({ profile: 'gate', methods: ['eth_getBlockByHash'], seed: 1, rate: 1000, duration: '30s', ...(latencyMs === undefined ? {} : { latencyMs }) }).options['scenarios'] as Record<string, { preAllocatedVUs: number; maxVUs: number }>;
    // 1,000 rps at 5 ms answers: 1000 x 2 x 10 ms (the floor) + 16 for a stall + 2, not the 250 planned for 250 ms answers.
    expect(vus(5)['eth_getBlockByHash']).to.deep.equal({ ...vus(5)['eth_getBlockByHash'], preAllocatedVUs: 28, maxVUs: 1000 });
    expect(vus(80)['eth_getBlockByHash']?.preAllocatedVUs).to.equal(178);
    expect(vus(500)['eth_getBlockByHash']?.preAllocatedVUs, 'at most 250 up front').to.equal(250);
    // A corpus written before sampling timed the endpoint: as before, 250 ms answers and a 1 s stall.
    expect(vus()['eth_getBlockByHash']?.preAllocatedVUs).to.equal(250);
    expect(preAllocatedVUs(100, 1, undefined)).to.equal(102);
    expect(preAllocatedVUs(20, 1, 30)).to.equal(Math.ceil(20 * 0.06 + 16) + 2);
    expect(preAllocatedVUs(1, 8, 1), 'one VU per instance at least').to.equal(8);
  });

  it('builds open-model scenarios with p(99) in the summary, per-method thresholds and no url/error tag', () => {
    const plan = buildPlan({ profile: 'gate', methods: METHODS, seed: 1, rate: 20, duration: '30s' });
    const { head, ...scenarios } = plan.options['scenarios'] as Record<string, { executor: string; rate: number; exec: string; maxVUs: number }>;
    expect(Object.keys(scenarios)).to.have.members([...METHODS]);
    expect(Object.values(scenarios).every((s) => s.executor === 'constant-arrival-rate' && s.rate === 20 && s.exec === 'call')).to.equal(true);
    expect(head).to.deep.include({ exec: 'headCheck', rate: 1, maxVUs: 1 }); // one VU: its eth_blockNumber answers come in order
    expect(plan.options['summaryTrendStats']).to.include('p(99)');
    expect(plan.options['systemTags']).to.not.include.members(['url', 'error']);
    // Judged on the merged result (judge.ts); k6 gets only the bookkeeping that exposes sub-metrics.
    expect(plan.thresholds['latency_eth_getBlockByHash']).to.deep.equal(['p(95)<500', 'p(99)<1000']);
    expect(plan.thresholds['failed_eth_estimateGas']).to.deep.equal(['rate<0.01']);
    expect(plan.options['thresholds']).to.deep.include({ 'dropped_iterations{scenario:eth_getBlockReceipts}': [BOOKKEEPING] });
    expect(Object.values(plan.options['thresholds'] as Record<string, string[]>).flat()).to.deep.equal(Array(8).fill(BOOKKEEPING));
  });

  it('runs one capacity step: one subject at one constant rate; the mix is a seeded weighted sequence', () => {
    const plan = buildPlan({ profile: 'capacity', methods: ['eth_getBlockByHash', 'eth_estimateGas'], seed: 3, duration: '10s', step: { subject: 'mix', rps: 120 } });
    expect(plan.scenarios).to.deep.equal([{ name: 'mix', startSec: 0, durationSec: 10, rps: 120 }]);
    expect(capacitySubjects(['eth_getBlockByHash', 'eth_estimateGas'])).to.deep.equal(['eth_estimateGas', 'eth_getBlockByHash', 'mix']);
    expect(capacitySubjects(['eth_getBlockByHash'])).to.deep.equal(['eth_getBlockByHash']);
    const step = plan.scenarios[0]!;
    expect([targetRpsAt(step, 5), targetRpsAt(step, 11), expectedIterations(step)]).to.deep.equal([120, 0, 1200]);
    expect(plan.mix).to.have.length(1000);
    expect(new Set(plan.mix)).to.have.keys('eth_getBlockByHash', 'eth_estimateGas');
    const again = buildPlan({ profile: 'capacity', methods: METHODS, seed: 3, step: { subject: 'mix', rps: 1 } });
    expect(again.mix).to.deep.equal(buildPlan({ profile: 'capacity', methods: METHODS, seed: 3, step: { subject: 'mix', rps: 1 } }).mix);
    expect(plan.thresholds).to.deep.equal({});
    expect(() => buildPlan({ profile: 'capacity', methods: METHODS, seed: 1 })).to.throw(/one step/);
  });

  it('parses durations and rejects nonsense', () => {
    expect(parseDuration('90')).to.equal(90);
    expect(parseDuration('1h30m')).to.equal(5400);
    expect(parseDuration('45s')).to.equal(45);
    expect(() => parseDuration('soon')).to.throw(/invalid duration/);
    expect(() => parseDuration('')).to.throw(/invalid duration/);
    // One reader for both commands: a load duration is whole seconds, a conformance deadline may take a fraction.
    expect(() => parseDuration('1.5s')).to.throw(/invalid duration/);
    expect(durationMs('1.5s')).to.equal(1500);
    expect(durationMs('1h30m')).to.equal(5_400_000);
    expect(durationMs('90')).to.equal(90_000);
    expect(durationMs(' ')).to.be.NaN;
  });

  it('composes a corpus with the exact miss share, every stratum of hits, each request recurring evenly, replayable from the seed', () => {
    const entry = (note: string, kind: EntryKind, n = 0): CorpusEntry => ({ params: [note, n], note, kind });
    const hits = [...Array.from({ length: 50 }, (_, i) => entry('tx type 0x2', 'hit', i)), entry('tx type 0x0', 'hit'), entry('tx type 0x4', 'hit')];
    const misses = [entry('miss: unknown tx hash', 'miss'), entry('init code reverts', 'revert')];
    const a = composeEntries(hits, misses, 200, 0.1, createRng(9));
    expect(a).to.have.length(200);
    expect(a.filter((e) => onMissSide(e.kind))).to.have.length(20);
    expect(new Set(a.map((e) => e.note))).to.include.keys('tx type 0x0', 'tx type 0x4');
    const copies = new Map<string, number>();
    for (const e of a) copies.set(JSON.stringify(e.params), (copies.get(JSON.stringify(e.params)) ?? 0) + 1);
    expect(new Set(copies.values())).to.have.keys([3, 4, 10]); // 180 over 52 hits, 20 over 2 misses
    expect(compositionOf(a)).to.deep.equal({ entries: 200, distinct: 54, kinds: { hit: 180, empty: 0, miss: 10, revert: 10 }, compared: 0 });
    expect(composeEntries(hits, misses, 200, 0.1, createRng(9))).to.deep.equal(a);
    expect(composeEntries([], misses, 5, 0.1, createRng(1))).to.have.length(5);
    expect(composeEntries(hits, [], 5, 0.5, createRng(1)).every((e) => e.kind === 'hit')).to.equal(true);
    // The degenerate corpus of issue 13: one request left is asked once, not 200 times.
    const degenerate = composeEntries([], [misses[0]!], 200, 0.1, createRng(1));
    expect(degenerate).to.deep.equal([misses[0]]);
    expect([isDegenerate(compositionOf(degenerate)), isDegenerate(compositionOf(a))], 'and marked as such in every report').to.deep.equal([true, false]);
  });

  it('replays a version 1 or 2 corpus with expectations from each entry\'s kind: a learned error is unlearned, a reverting replay left out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'corpus-v1-'));
    try {
      const reply = 'f'.repeat(64);
      const learned = [
        { params: ['0xab'], note: 'n', expect: 'value', miss: false, answer: 'k3x9z', reply },
        // Version 2 kept whatever error a miss got (hardhat's "not supported") as what it expects, fingerprint included.
        { params: ['0x1000000'], note: 'miss: block past head', expect: 'error', errorCode: -32004, miss: true, reply },
        { params: [{ data: '0x60' }, 'latest'], note: 'miss: init code reverts', expect: 'error', errorCode: 3, miss: true, reply },
        { params: [{ data: '0x61' }, '0x1'], note: 'replay of tx type 0x2 (reverts)', expect: 'error', errorCode: 3, miss: false },
        { params: ['0x1', '0x0'], note: 'block without uncles', expect: 'null', miss: false },
      ];
      const entries = Object.fromEntries(METHODS.map((m) => [m, learned]));
      const path = join(dir, 'old.json');
      for (const version of [1, 2]) {
        await writeFile(path, JSON.stringify({ version, seed: 3, missShare: 0.1, chainId: '0x1', head: '0x9', blocksSampled: 1, entries, deviations: [], dropped: {} }));
        const { corpus } = await (await prepareTest({ profile: 'gate', corpus: path }, 1)).corpus(() => undefined);
        expect(corpus.version).to.equal(3);
        expect(corpus.entries.eth_getBlockByHash, `version ${version}`).to.deep.equal([
          // Version 1 digested answers with another hash: not compared.
          { params: ['0xab'], note: 'n', kind: 'hit', reply, ...(version === 2 ? { answer: 'k3x9z' } : {}) },
          { params: ['0x1000000'], note: 'miss: block past head', kind: 'miss' },
          { params: [{ data: '0x60' }, 'latest'], note: 'miss: init code reverts', kind: 'revert', reply },
          { params: ['0x1', '0x0'], note: 'block without uncles', kind: 'empty' },
        ]);
      }
      await writeFile(path, JSON.stringify({ version: 4, entries }));
      await prepareTest({ profile: 'gate', corpus: path }, 1).then(
        () => expect.fail('a version 4 corpus was accepted'),
        (e: Error) => expect(e.message).to.match(/not a corpus written by rpc-certify load/),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads each period of the timeline as the difference of two cumulative exports, by k6 metric and sub-metric names', () => {
    const m = 'eth_getBlockByHash';
    expect(groupOf(350), 'the buckets below share a group').to.equal(groupOf(360));
    const series = (timeMs: number, b350: number, b360: number, invalid: number, code: number): Series[] => [
      // The histogram's group counter, split by its `b` tag (the bucket): successes, the latency percentiles.
      { metric: metricName.histogram(m, groupOf(350)), attributes: { b: '350', scenario: m }, value: b350, timeMs, startMs: 1000 },
      { metric: metricName.histogram(m, groupOf(350)), attributes: { b: '360', scenario: m }, value: b360, timeMs, startMs: 1000 },
      { metric: metricName.calls(m, 'invalid'), attributes: { scenario: m }, value: invalid, timeMs, startMs: 1000 },
      { metric: metricName.calls(m, 'rpc_error'), attributes: { code: '-32000', scenario: m }, value: code, timeMs, startMs: 1000 },
      { metric: metricName.calls(m, 'rpc_error'), attributes: { code: '-32005', scenario: m }, value: 0, timeMs, startMs: 1000 },
    ];
    const totals = new MetricTotals();
    const exports = [series(2000, 10, 0, 0, 0), series(3000, 15, 10, 2, 3)].map((e) => {
      totals.update(e);
      return totalsAt(totals.read, totals.lastTimeMs ?? 0, [m]);
    });
    const at = (b: number) => Math.round(bucketValue(b) * 1000) / 1000;
    expect(timelineOf(exports, [m], totals.startMs).points).to.deep.equal([
      { t: 1, methods: { eth_getBlockByHash: { rps: 10, failureRate: 0, p50: at(350), p95: at(350), p99: at(350) } } },
      { t: 2, methods: { eth_getBlockByHash: { rps: 20, failureRate: 0.25, p50: at(360), p95: at(360), p99: at(360) } } },
    ]);
    // The codes of the final totals; a code never counted is left out.
    expect(errorCodes(totals.read, totals.tagValues.bind(totals), [m])).to.deep.equal({ eth_getBlockByHash: { rpc_error: { '-32000': 3 } } });
  });

  it('reads the fresh reads of each period from the exports (stale reads, requests, announcement to visible) and merges instances period by period', () => {
    const m = 'eth_getBlockByHash';
    const r = 'eth_getTransactionReceipt';
    // k6's names: the fresh counters split by method (tag m), the visible histogram by bucket (tag b).
    const names = [freshCounterMetric('requests', m), freshCounterMetric('requests', r), freshCounterMetric('stale', r), freshBucketMetric(m, 400), freshBucketMetric(r, 420), freshBucketMetric(r, 440)];
    const series = (name: string, value: number, timeMs: number): Series => {
      const [, metric = '', tag = '', v = ''] = /^([^{]+)\{(\w+):(.+)\}$/.exec(name) ?? [];
      return { metric, attributes: { [tag]: v, scenario: 'fresh' }, value, timeMs, startMs: 0 };
    };
    // Cumulative exports: stale receipts in the second period only, and one receipt seen late.
    const timeline = (start: number, stale: number) => {
      const totals = new MetricTotals();
      const exports = [
        [start + 1000, [3, 2, 0, 1, 1, 0]],
        [start + 2000, [6, 6, stale, 1, 2, 1]],
      ].map(([t, values]) => {
        totals.update(names.map((n, i) => series(n, (values as number[])[i] ?? 0, t as number)));
        return totalsAt(totals.read, t as number, [], true);
      });
      return { startMs: start, ...timelineOf(exports, [], start, start), codes: {} };
    };
    const at = (b: number) => Math.round(bucketValue(b) * 10) / 10;
    const one = timeline(1000, 3);
    expect(one.points.map((p) => p.fresh)).to.deep.equal([
      { [m]: { requests: 3, stale: 0, visible: { count: 1, p50: at(400), p95: at(400), max: at(400) } }, [r]: { requests: 2, stale: 0, visible: { count: 1, p50: at(420), p95: at(420), max: at(420) } } },
      { [m]: { requests: 3, stale: 0 }, [r]: { requests: 4, stale: 3, visible: { count: 2, p50: Math.round(((bucketValue(420) + bucketValue(440)) / 2) * 10) / 10, p95: Math.round((bucketValue(420) + 0.95 * (bucketValue(440) - bucketValue(420))) * 10) / 10, max: at(440) } } },
    ]);
    // Two instances: counts add up, percentiles are the highest instance's, the origin the earliest start.
    const merged = mergeTimelines([one, timeline(1200, 1)]);
    expect(merged.startMs).to.equal(1000);
    expect(merged.points[1]?.fresh?.[r]).to.deep.include({ requests: 8, stale: 4 });
    expect(merged.points[1]?.fresh?.[r]?.visible).to.deep.include({ count: 4, max: at(440) });
  });

  it("starts the timeline at the test's start (k6's first requests), not at the totals' start before the VUs' init code", () => {
    const m = 'eth_getBlockByHash';
    const successes = (n: number) => ({ classes: Object.fromEntries(CLASSES.map((c) => [c, c === 'ok' ? n : 0])) as Record<RpcClass, number>, buckets: (n ? { 350: n } : {}) as Record<string, number>, successes: n });
    // The VUs' init code runs for 2.3 s: two empty periods, then the test starts at 3300, 0.7 s before the next export.
    const exports = [[2000, 0], [3000, 0], [4000, 7], [5000, 17]].map(([timeMs, n]) => ({ timeMs: timeMs ?? 0, subjects: { [m]: successes(n ?? 0) } }));
    const rates = (points: TimelinePoint[]) => points.map((p) => [p.t, p.methods[m]?.rps]);
    expect(rates(timelineOf(exports, [m], 1000, 3300).points)).to.deep.equal([
      [0.7, 10],
      [1.7, 10],
    ]);
    // Without the test's start, the totals' start is the origin; the periods before any answer was recorded are left out,
    // their time still counted.
    expect(rates(timelineOf(exports, [m], 1000).points)).to.deep.equal([
      [3, 7],
      [4, 10],
    ]);
    // A first period after the start with nothing recorded yet (a late first export) is left out too, not shown as a point without requests.
    expect(rates(timelineOf(exports, [m], 1000, 2500).points)).to.deep.equal([
      [1.5, 7],
      [2.5, 10],
    ]);
    // The start seen a little late (after an export): that period's requests stay, at 0.
    expect(rates(timelineOf(exports, [m], 1000, 4020).points)).to.deep.equal([
      [0, 7],
      [1, 10.2],
    ]);
  });

  it('caps the error codes of load.json: the 8 most frequent per class, the rest added up as "other"', () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [String(-32000 - i), i + 1]));
    const capped = cappedCodes({ rpc_error: many, http_error: { '-32000': 2 } });
    expect(capped['http_error']).to.deep.equal({ '-32000': 2 });
    expect(Object.keys(capped['rpc_error'] ?? {})).to.have.length(8);
    expect(capped['rpc_error']).to.include({ '-32019': 20, '-32013': 14, other: (13 * 14) / 2 });
    expect(Object.values(capped['rpc_error'] ?? {}).reduce((a, b) => a + b, 0)).to.equal(210);
    // What k6 already counted as "other" (past a VU's first codes) adds to it.
    expect(cappedCodes({ rpc_error: { ...many, other: 1000 } })['rpc_error']).to.include({ other: 1000 + (13 * 14) / 2, '-32019': 20 });
  });

  it('flags latency drift over a soak', () => {
    const point = (t: number, p95: number): TimelinePoint => ({ t, methods: { eth_getBlockByHash: { rps: 10, failureRate: 0, p95 } } });
    const flat = Array.from({ length: 20 }, (_, i) => point(i, 10 + (i >= 18 ? 30 : 0)));
    expect(driftOf('eth_getBlockByHash', flat)).to.deep.include({ startP95Ms: 10, endP95Ms: 40, drifted: true });
  });
});

describe('load: the k6 side', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'load-test-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('type-checks against @types/k6 without Node types', async () => {
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'load', 'k6', 'tsconfig.json')]).catch((e: { stdout?: string }) => {
      throw new Error(`tsc -p load/k6/tsconfig.json failed:\n${e.stdout ?? String(e)}`);
    });
  });

  it('bundles into one ES module importing only k6, with precompiled validators and the plan compiled in', async () => {
    const out = join(dir, 'scenario.js');
    const started = performance.now();
    await bundleScenario(buildPlan({ profile: 'smoke', methods: METHODS, seed: 1 }), out);
    expect(performance.now() - started).to.be.below(5000);
    const code = await readFile(out, 'utf8');
    const imports = [...code.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    // Distinct modules: the head-chasing scenario (fresh.ts) imports k6/http and k6/metrics in its own statements.
    expect([...new Set(imports)]).to.have.members(['k6', 'k6/crypto', 'k6/data', 'k6/execution', 'k6/http', 'k6/metrics']);
    expect(code).to.not.match(/\brequire\(|new Function|node:/);
    expect(code).to.include('"constant-arrival-rate"');
    expect(code).to.include('export {');
  });

  it('validates with the same verdicts as core/schemas.ts once precompiled', async () => {
    const entry = join(dir, 'shapes-entry.ts');
    await writeFile(entry, `export { validateShape } from ${JSON.stringify(pathToFileURL(join(ROOT, 'core', 'schemas.ts')).pathname)};\n`);
    const out = join(dir, 'shapes.mjs');
    await build({ entryPoints: [entry], outfile: out, bundle: true, format: 'esm', platform: 'neutral', mainFields: ['module', 'main'], plugins: [precompiledAjv()], logLevel: 'silent' });
    const bundled = (await import(pathToFileURL(out).href)) as { validateShape: typeof validateShape };
    const samples: Array<[Parameters<typeof validateShape>[0], unknown]> = [
      ['envelope', { jsonrpc: '2.0', id: 1, result: null }],
      ['envelope', { jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'x' } }],
      ['log', { address: '0x1', topics: ['0xAB'], data: '0x0', removed: 'no' }],
      ['block', { number: '0x01', hash: null }],
      ['receipt', {}],
    ];
    for (const [shape, value] of samples) expect(bundled.validateShape(shape, value), shape).to.deep.equal(validateShape(shape, value));
  });
});

describe('load: the bounds any answer keeps however the chain moved (bounds.ts)', () => {
  const tx = (blockNumber: string, transactionIndex: string) => ({ blockNumber, transactionIndex, hash: `0x${'ab'.repeat(32)}` });
  it('a lookup by number answers that block and index', () => {
    const b = boundsOf('eth_getTransactionByBlockNumberAndIndex', ['0xa', '0x1'], undefined)!;
    expect(b).to.equal('n:0xa:0x1');
    expect(boundsFault(b, tx('0xa', '0x1'))).to.equal(undefined);
    expect(boundsFault(b, tx('0x9', '0x1'))).to.match(/block 0x9 to a lookup of block 0xa/);
    expect(boundsFault(b, tx('0xa', '0x0'))).to.match(/index 0x0 answered for index 0x1/);
    expect(boundsFault(b, {})).to.match(/block undefined/);
    const r = boundsOf('eth_getBlockReceipts', ['0xa'], undefined)!;
    expect(boundsFault(r, [tx('0xa', '0x0'), tx('0xa', '0x1')])).to.equal(undefined);
    expect(boundsFault(r, [tx('0xa', '0x0'), tx('0xb', '0x0')])).to.match(/block 0xb/);
    expect(boundsOf('eth_getBlockReceipts', ['latest'], undefined), 'a tag moves').to.equal(undefined);
    expect(boundsOf('eth_getTransactionByHash', ['0xa'], undefined)).to.equal(undefined);
  });
  it('a lookup of a recent block is anchored to the hash of the block sampled: the same block must answer the same', () => {
    const hash = `0x${'cd'.repeat(32)}`;
    const at = (blockHash: string) => ({ blockNumber: '0xa', transactionIndex: '0x1', blockHash });
    const b = anchored('n:0xa:0x1', at(hash.toUpperCase().replace('0X', '0x')));
    expect(b).to.equal(`n:0xa:0x1@${hash}`);
    expect(boundsFault(b, at(hash)), 'the anchor is no bound').to.equal(undefined);
    expect(boundsFault(b, { ...at(hash), transactionIndex: '0x0' })).to.match(/index 0x0 answered for index 0x1/);
    expect(sameAnswerDue(b, at(hash)), 'the block sampled').to.equal(true);
    expect(sameAnswerDue(b, at(`0x${'ef'.repeat(32)}`)), 'another block (a reorg)').to.equal(false);
    expect(sameAnswerDue(b, null)).to.equal(false);
    expect(sameAnswerDue('n:0xa:0x1', at(`0x${'ef'.repeat(32)}`)), 'unanchored (a final block): always').to.equal(true);
    expect(sameAnswerDue(undefined, {}), 'no bounds (by hash): always').to.equal(true);
    expect(anchored('n:0xa', []), 'an empty receipt list has no block hash').to.equal('n:0xa');
    expect(anchored('n:0xa', [at(hash), at(`0x${'ef'.repeat(32)}`)]), 'two blocks: no anchor').to.equal('n:0xa');
    const receipts = anchored('n:0xa', [at(hash), at(hash)]);
    expect(sameAnswerDue(receipts, [at(hash), at(hash)])).to.equal(true);
    expect(sameAnswerDue(receipts, [at(hash), at(`0x${'ef'.repeat(32)}`)])).to.equal(false);
  });
  it('an estimate is at least its intrinsic gas (calldata, creation) and at most the gas cap', () => {
    const b = boundsOf('eth_estimateGas', [{ data: '0x00ff' }, 'latest'], 300_000_000n)!;
    expect(b).to.equal(`g:${21_000 + 32_000 + 4 + 16 + 2}:300000000`);
    expect(boundsFault(b, '0xd000')).to.equal(undefined);
    expect(boundsFault(b, '0x5208')).to.match(/below the call's intrinsic gas 53022/);
    expect(boundsFault(b, '0x11e1a301')).to.match(/above the gas cap 300000000/);
    expect(boundsFault(b, 'lots')).to.match(/below/);
    expect(boundsOf('eth_estimateGas', [{ to: '0x01' }, 'latest'], undefined), 'no cap known').to.equal(undefined);
  });
  it('an estimate at a final block is held within 20% of the one sampled, inside its intrinsic gas and gas cap (red team A8)', () => {
    const b = aroundSampled('g:21000:300000000', '0x186a0'); // 100000 sampled
    expect(b).to.equal('g:83333:120000:s');
    expect(heldToSampled(b)).to.equal(true);
    expect(heldToSampled('g:21000:300000000')).to.equal(false);
    expect(boundsFault(b, '0x186a0')).to.equal(undefined);
    expect(boundsFault(b, '0x1d4c0'), '+20%').to.equal(undefined);
    expect(boundsFault(b, '0x493e0'), 'tripled').to.match(/above 120000, the most of the gas cap and the estimate sampled at the same final block within 20%/);
    expect(boundsFault(b, '0x5208'), 'a plain transfer').to.match(/below 83333, the least of its intrinsic gas and the estimate sampled/);
    expect(aroundSampled('g:21000:300000000', '0x5208'), 'never under the intrinsic gas').to.equal('g:21000:25200:s');
    expect(aroundSampled('g:21000:30000', '0x7530'), 'never over the cap').to.equal('g:25000:30000:s');
    expect(aroundSampled('g:21000:300000000', null), 'no estimate sampled').to.equal('g:21000:300000000');
  });
});
