// The gate's statistics (load/report/intervals.ts, compare.ts): intervals that hold their confidence, a design effect
// that sees bursts, and comparisons that regress, hold, or say they cannot tell, with what it would take.
import { expect } from 'chai';
import { bucketOf, emptyHistogram, type Histogram } from '../../load/shared/histogram.ts';
import { designEffect, gateSample, normalQuantile, percentileInterval, wilson } from '../../load/report/intervals.ts';
import { compareReports, describeCheck, gateOutcome } from '../../load/report/compare.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { BEHAVIOURS, drawRun, rng, simulate } from '../../bench/support/gate-sim.ts';
import { planDefaults } from '../../load/shared/profiles.ts';

function histogramOf(samples: readonly number[]): Histogram {
  const h = emptyHistogram();
  for (const ms of samples) {
    const b = String(bucketOf(ms));
    h.buckets[b] = (h.buckets[b] ?? 0) + 1;
    h.min = h.count === 0 ? ms : Math.min(h.min, ms);
    h.max = Math.max(h.max, ms);
    h.count++;
    h.sum += ms;
  }
  return h;
}

function logNormal(random: () => number, median: number, sigma: number): number {
  return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random()));
}

describe('gate statistics', () => {
  it('normalQuantile is the standard normal quantile', () => {
    expect(normalQuantile(0.975)).to.be.closeTo(1.959964, 1e-6);
    expect(normalQuantile(0.05)).to.be.closeTo(-1.644854, 1e-6);
    expect(normalQuantile(1 - 0.05 / 24)).to.be.closeTo(2.865, 1e-3);
  });

  it("a percentile's interval holds the true percentile at least as often as its confidence says", () => {
    const random = rng(11);
    const truth = 20 * Math.exp(0.5 * normalQuantile(0.99));
    let covered = 0;
    const trials = 400;
    for (let t = 0; t < trials; t++) {
      const h = histogramOf(Array.from({ length: 1200 }, () => logNormal(random, 20, 0.5)));
      const i = percentileInterval(h, 0.99, 1);
      if (i && i.low <= truth && truth <= i.high) covered++;
    }
    expect(covered / trials).to.be.at.least(0.93);
  });

  it('has no upper bound for a percentile the sample holds too few answers above', () => {
    const random = rng(3);
    const h = histogramOf(Array.from({ length: 41 }, () => logNormal(random, 20, 0.5)));
    expect(percentileInterval(h, 0.99, 1)).to.equal(undefined);
    expect(percentileInterval(h, 0.5, 1)).to.not.equal(undefined);
  });

  it('the design effect is about 1 for independent blocks and grows when whole blocks are slow', () => {
    const random = rng(5);
    const independent = Array.from({ length: 12 }, () => ({ n: 100, x: Array.from({ length: 100 }, () => random() < 0.05).filter(Boolean).length }));
    expect(designEffect(independent)).to.be.below(2.5);
    const bursty = Array.from({ length: 12 }, (_, i) => ({ n: 100, x: i % 4 === 0 ? 20 : 0 }));
    expect(designEffect(bursty)).to.be.above(5);
    expect(designEffect([{ n: 10, x: 1 }]), 'too few blocks: assumed').to.equal(2);
  });

  it("Wilson's interval: 0 of n is bounded above by about z²/n", () => {
    const [low, high] = wilson(0, 1000, 1.96);
    expect(low).to.equal(0);
    expect(high).to.be.closeTo(3.84 / 1003.84, 1e-4);
  });
});

/** A one-method report of `n` answers drawn log-normal around `median`, with 20-answer periods. */
function runOf(random: () => number, median: number, n: number, failures = 0, tail = { share: 0, factor: 1 }): LoadReport {
  const samples = Array.from({ length: n }, () => logNormal(random, median, 0.4) * (random() < tail.share ? tail.factor : 1));
  const periods = Array.from({ length: Math.ceil(n / 20) }, (_, i) => {
    const of = samples.slice(i * 20, i * 20 + 20);
    const buckets: Record<string, number> = {};
    for (const ms of of) buckets[String(bucketOf(ms))] = (buckets[String(bucketOf(ms))] ?? 0) + 1;
    return { requests: of.length, successes: of.length, buckets };
  });
  const h = histogramOf(samples);
  const q = (p: number) => [...samples].sort((a, b) => a - b)[Math.round(p * (n - 1))] ?? 0;
  const method = { requests: n + failures, failureRate: failures / (n + failures), latencyMs: { avg: 0, p50: q(0.5), p90: q(0.9), p95: q(0.95), p99: q(0.99), 'p99.9': q(0.999), max: h.max }, gate: gateSample(h, periods) };
  return { methods: { eth_getBlockByHash: method } } as unknown as LoadReport;
}

describe('the regression gate', () => {
  it('holds an unchanged endpoint, and names the method, percentile and interval of one 50% slower', () => {
    const random = rng(1);
    const base = runOf(random, 30, 2400);
    const same = compareReports({ file: 'b', runs: [base] }, runOf(random, 30, 2400));
    expect(same.map((c) => c.judgement)).to.deep.equal(['held', 'held', 'held']);
    expect(gateOutcome(same).verdict).to.equal('held');
    const slower = compareReports({ file: 'b', runs: [base] }, runOf(random, 45, 2400));
    const p95 = slower.find((c) => c.metric === 'p95');
    expect(p95?.judgement).to.equal('regressed');
    expect(p95?.interval?.[0]).to.be.above(1.15);
    expect(describeCheck(p95 ?? expect.fail())).to.match(/^eth_getBlockByHash p95: [\d.]+ ms \(baseline [\d.]+ ms, ratio 1\.\d+ in 1\.\d+-1\.\d+, limit x1\.15\)$/);
    expect(gateOutcome(slower).verdict).to.equal('regressed');
  });

  it('a run too short to bound its p99 does not judge it, says how many requests would, and a method without a held percentile is inconclusive', () => {
    const random = rng(2);
    const checks = compareReports({ file: 'b', runs: [runOf(random, 30, 41)] }, runOf(random, 30, 41));
    const p99 = checks.find((c) => c.metric === 'p99');
    expect(p99?.judgement).to.equal('unjudgeable');
    expect(p99?.why).to.match(/too few answers above p99 to bound it/);
    expect(p99?.needRequests).to.be.above(300);
    const outcome = gateOutcome(checks);
    expect(outcome.verdict).to.equal('inconclusive');
    expect(outcome.methods.eth_getBlockByHash?.why).to.match(/^neither p95 nor p99 shown to hold \(p95 x[\d.]+ unjudgeable \(needs at least \d+ requests\); p99 x[\d.]+ unjudgeable \(needs at least \d+ requests\)\)$/);
    expect(gateOutcome([]).verdict, 'no comparison at all: never held').to.equal('inconclusive');
  });

  it('a run too short to bound its percentile still regresses when its lower bound alone clears the baseline by far', () => {
    const random = rng(9);
    const checks = compareReports({ file: 'b', runs: [runOf(random, 10, 2400)] }, runOf(random, 100, 41));
    const p99 = checks.find((c) => c.metric === 'p99');
    expect(p99?.judgement).to.equal('regressed');
    expect(p99?.interval?.[1]).to.equal(null);
    expect(p99?.interval?.[0]).to.be.above(1.15);
    expect(describeCheck(p99 ?? expect.fail())).to.match(/ratio [\d.]+ in [\d.]+-∞/);
    // The same run, not slower: no bound to judge by, so unjudgeable, not held.
    const same = compareReports({ file: 'b', runs: [runOf(random, 10, 2400)] }, runOf(random, 10, 41)).find((c) => c.metric === 'p99');
    expect(same?.judgement).to.equal('unjudgeable');
  });

  it('a p95 that held does not pass a method whose p99 grew by half, nor does a latency that held pass a failure rate ten times higher', () => {
    const random = rng(12);
    let inconclusive = 0;
    for (let t = 0; t < 10; t++) {
      const checks = compareReports({ file: 'b', runs: [runOf(random, 30, 2400)] }, runOf(random, 30, 2400, 0, { share: 0.02, factor: 4 }));
      const outcome = gateOutcome(checks).methods.eth_getBlockByHash;
      expect(outcome?.verdict, JSON.stringify(checks)).to.not.equal('held');
      if (outcome?.verdict === 'inconclusive') {
        inconclusive++;
        expect(outcome.why).to.match(/^worse than the baseline, not shown within the tolerance: p99 x/);
      }
    }
    expect(inconclusive, 'some runs regress outright; the others are inconclusive').to.be.above(0);
    const failing = compareReports({ file: 'b', runs: [runOf(random, 30, 2400, 2)] }, runOf(random, 30, 2400, 22));
    expect(failing.find((c) => c.metric === 'failureRate')?.judgement).to.be.oneOf(['unclear', 'regressed']);
    expect(gateOutcome(failing).methods.eth_getBlockByHash?.verdict).to.not.equal('held');
  });

  it("what an unjudgeable comparison needs comes from the run that lacked the bound; a missing histogram needs a new baseline, not more requests", () => {
    const random = rng(13);
    const short = runOf(random, 30, 60);
    const shortDeff = short.methods.eth_getBlockByHash?.gate?.designEffect.p99 ?? 1;
    const fromBaseline = compareReports({ file: 'b', runs: [short] }, runOf(random, 30, 2400)).find((c) => c.metric === 'p99');
    expect(fromBaseline?.why).to.match(/^the baseline's: too few answers above p99/);
    const alone = compareReports({ file: 'b', runs: [runOf(random, 30, 2400)] }, short).find((c) => c.metric === 'p99');
    expect(fromBaseline?.needRequests, `deff ${shortDeff}`).to.equal(alone?.needRequests);
    const old = runOf(random, 30, 2400);
    delete (old.methods.eth_getBlockByHash as { gate?: unknown }).gate;
    expect(compareReports({ file: 'b', runs: [old] }, runOf(random, 30, 2400)).find((c) => c.metric === 'p99')?.needRequests).to.equal(undefined);
  });

  it('a baseline written before histograms were kept judges nothing', () => {
    const random = rng(4);
    const old = runOf(random, 30, 2400);
    delete (old.methods.eth_getBlockByHash as { gate?: unknown }).gate;
    const checks = compareReports({ file: 'b', runs: [old] }, runOf(random, 30, 2400));
    expect(checks.filter((c) => c.metric !== 'failureRate').map((c) => [c.judgement, c.why])).to.deep.equal([
      ['unjudgeable', "the baseline's: no histogram (a report written before the gate kept one): run it again"],
      ['unjudgeable', "the baseline's: no histogram (a report written before the gate kept one): run it again"],
    ]);
  });

  it("widens the interval by the spread between a baseline's runs", () => {
    const random = rng(6);
    const steady = [30, 30, 30, 30, 30].map((m) => runOf(random, m, 2400));
    const drifting = [24, 36, 27, 33, 30].map((m) => runOf(random, m, 2400));
    const current = runOf(random, 30, 2400);
    const width = (runs: LoadReport[]) => {
      const c = compareReports({ file: 'b', runs }, current).find((x) => x.metric === 'p95');
      return (c?.interval?.[1] ?? 0) - (c?.interval?.[0] ?? 0);
    };
    expect(width(drifting)).to.be.above(2 * width(steady));
  });

  it('the failure rate: a rise of several points regresses, a run too small to tell half a point says so', () => {
    const random = rng(8);
    const rise = compareReports({ file: 'b', runs: [runOf(random, 30, 2400, 0)] }, runOf(random, 30, 2400, 240)).find((c) => c.metric === 'failureRate');
    expect(rise?.judgement).to.equal('regressed');
    const small = compareReports({ file: 'b', runs: [runOf(random, 30, 100, 0)] }, runOf(random, 30, 100, 0)).find((c) => c.metric === 'failureRate');
    expect(small?.judgement).to.equal('unjudgeable');
    expect(small?.needRequests).to.be.above(500);
  });

  it('by simulation: false alarms at most 5% a run, and a 30% slowdown caught, at the gate profile’s size', function () {
    this.timeout(120_000);
    const gate = planDefaults('gate');
    const independent = BEHAVIOURS[0] ?? expect.fail();
    const unchanged = simulate({ behaviour: independent, shift: 1, trials: 40, baselineRuns: 1, rate: gate.rate, seconds: gate.durationSec, seed: 21 });
    expect(unchanged.regressed / unchanged.trials).to.be.at.most(0.05);
    expect(unchanged.held / unchanged.trials).to.be.at.least(0.8);
    const slower = simulate({ behaviour: independent, shift: 1.3, trials: 20, baselineRuns: 1, rate: gate.rate, seconds: gate.durationSec, seed: 22 });
    expect(slower.regressed / slower.trials).to.be.at.least(0.9);
    // A run drawn with bursts keeps its false alarms down too.
    const bursts = BEHAVIOURS[2] ?? expect.fail();
    expect(simulate({ behaviour: bursts, shift: 1, trials: 40, baselineRuns: 1, rate: gate.rate, seconds: gate.durationSec, seed: 23 }).regressed).to.be.at.most(2);
    expect(drawRun(rng(1), independent, 1, gate.rate, gate.durationSec).methods.m0?.gate?.designEffect.assumed).to.equal(undefined);
  });
});
