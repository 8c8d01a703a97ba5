// Checks run at once (issue 41): up to --concurrency of them, a check marked `alone` by itself, results in the
// catalogue's order; the same verdicts and reasons as one at a time; and an honest round robin over two in-step
// backends (one answering a moment late, so that reads made at once come back out of order) passes, run after run.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { schedule } from '../../conformance/framework/schedule.ts';
import { checksAtOnce, runConformance, type RunOptions, type RunResult } from '../../conformance/framework/runner.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds, MethodSuite } from '../../conformance/framework/check.ts';
import { parseExpectations } from '../../conformance/framework/expectations.ts';
import { summarize } from '../../conformance/report/model.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import { RUN_OF_ONE } from '../support/run-of-one.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const expectations = parseExpectations(readFileSync(new URL('../../fixtures/expectations/embedded.json', import.meta.url), 'utf8'), 'fixtures/expectations/embedded.json', checkIds(allSuites));
const outcome = (r: RunResult) => r.checks.map((c) => `${c.id}: ${c.verdict}${c.reason ? ` (${c.reason})` : ''}`);

describe('schedule: jobs at once, up to a width; an alone job by itself', () => {
  /** Jobs that log when they start and end; `alone` at the given positions. */
  function jobs(n: number, alone: number[] = [], ms = (i: number) => 5 + ((i * 7) % 11)) {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    const list = Array.from({ length: n }, (_, i) => ({
      alone: alone.includes(i),
      run: async () => {
        log.push(`start ${i}`);
        most = Math.max(most, ++running);
        await sleep(ms(i));
        running--;
        log.push(`end ${i}`);
        return i;
      },
    }));
    return { list, log, most: () => most };
  }

  it('starts jobs in order, never more than the width at once, and gives each its own result in order', async () => {
    const { list, log, most } = jobs(20);
    const results = await Promise.all(schedule(list, 4, () => false));
    expect(results).to.deep.equal([...Array(20).keys()]);
    expect(most()).to.equal(4);
    expect(log.filter((l) => l.startsWith('start'))).to.deep.equal([...Array(20).keys()].map((i) => `start ${i}`));
  });

  it('an alone job starts once every job before it ended, and no job after it starts before it ends', async () => {
    const { list, log } = jobs(12, [5, 11]);
    await Promise.all(schedule(list, 4, () => false));
    const at = (l: string) => log.indexOf(l);
    for (let i = 0; i < 5; i++) expect(at(`end ${i}`), `job ${i} before the alone job 5`).to.be.below(at('start 5'));
    expect(at('end 5')).to.equal(at('start 5') + 1);
    for (let i = 6; i < 11; i++) expect(at(`start ${i}`), `job ${i} after the alone job 5`).to.be.above(at('end 5'));
    expect(at('start 11')).to.equal(log.length - 2);
  });

  it('width 1 runs one after another, as before', async () => {
    const { list, log, most } = jobs(6);
    await Promise.all(schedule(list, 1, () => false));
    expect(most()).to.equal(1);
    expect(log).to.deep.equal([...Array(6).keys()].flatMap((i) => [`start ${i}`, `end ${i}`]));
  });

  it('stopped: the jobs not started yet give undefined, those running end with their result; a rejection is its own job\'s', async () => {
    let stopped = false;
    const list = Array.from({ length: 10 }, (_, i) => ({
      alone: false,
      run: async () => {
        // Job 2 ends first, and stops the rest; jobs 0 and 1 are still running then.
        await sleep(i === 2 ? 5 : 30);
        if (i === 1) throw new Error('job 1 broke');
        if (i === 2) stopped = true;
        return i;
      },
    }));
    const out = schedule(list, 3, () => stopped);
    const settled = await Promise.allSettled(out);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : `rejected: ${(s.reason as Error).message}`))).to.deep.equal([0, 'rejected: job 1 broke', 2, ...Array(7).fill(undefined)]);
  });
});

describe('checks at once under a rate limit', () => {
  it('--concurrency, held under --rate-limit to a step of 0.1 s a check (a review saw a nonce read around an estimate 1.6 s apart at 5 a second)', () => {
    expect(checksAtOnce({})).to.equal(8);
    expect(checksAtOnce({ concurrency: 3 })).to.equal(3);
    expect(checksAtOnce({ rateLimit: 5 })).to.equal(1);
    expect(checksAtOnce({ rateLimit: 40 })).to.equal(4);
    expect(checksAtOnce({ rateLimit: 1000, concurrency: 6 })).to.equal(6);
  });
});

describe('conformance with its checks at once', function () {
  this.timeout(240_000);

  describe('on the seeded embedded default, standing still', () => {
    let devnet: Devnet;
    before(async () => {
      devnet = await startDevnet();
    });
    after(async () => {
      await devnet?.stop();
    });

    /** The suites with each check body timed: when it started and ended, by id. */
    function timedSuites(): { suites: MethodSuite[]; spans: Map<string, [number, number]> } {
      const spans = new Map<string, [number, number]>();
      const suites = allSuites.map((s) => {
        const w = new MethodSuite(s.method, s.file);
        for (const c of s.checks) {
          w.check(c.spec, async (t) => {
            const start = performance.now();
            try {
              await c.body(t);
            } finally {
              spans.set(c.spec.id, [start, performance.now()]);
            }
          }, c.file);
        }
        return w;
      });
      return { suites, spans };
    }
    const run = (opts: Partial<RunOptions> = {}) => runConformance({ suites: allSuites, url: devnet.url, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }], ...opts });

    it('gives every check the verdict and reason it gets one at a time, in the catalogue\'s order, progress included', async () => {
      const progress: string[] = [];
      const [together, alone] = [await run({ onResult: (c) => progress.push(c.id) }), await run({ checksAtOnce: 1 })];
      expect(outcome(together)).to.deep.equal(outcome(alone));
      const catalogue = RUN_OF_ONE.flatMap((s) => s.checks.map((c) => c.spec.id));
      expect(together.checks.map((c) => c.id)).to.deep.equal(catalogue);
      expect(progress).to.deep.equal(catalogue);
      expect(together.requestCount, 'requests: reads ahead and warmed calls cost a few at most').to.be.within(alone.requestCount, alone.requestCount + 16);
    });

    it('runs up to --concurrency checks at once, and each check marked alone by itself (every answer, after-reorg, the head never going back)', async () => {
      const { suites, spans } = timedSuites();
      await runConformance({ suites, url: devnet.url, concurrency: 4, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
      const all = [...spans.values()];
      const atOnce = (at: number) => all.filter(([a, b]) => a <= at && at < b).length;
      const most = Math.max(...all.map(([a]) => atOnce(a)));
      expect(most, 'checks running at once at most').to.equal(4);
      const alone = allSuites.flatMap((s) => s.checks.filter((c) => c.spec.alone).map((c) => c.spec.id)).filter((id) => spans.has(id));
      expect(alone).to.include.members(['service/every-answer-id', 'service/after-reorg', 'service/head-never-goes-back']);
      for (const id of alone) {
        const [a, b] = spans.get(id)!;
        const overlapping = [...spans].filter(([other, [x, y]]) => other !== id && x < b && a < y).map(([other]) => other);
        expect(overlapping, `${id} ran beside others`).to.deep.equal([]);
      }
      // And every check before an alone one in the catalogue ended before it started.
      const order = allSuites.flatMap((s) => s.checks.map((c) => c.spec.id)).filter((id) => spans.has(id));
      const first = order.indexOf(alone[0]!);
      for (const id of order.slice(0, first)) expect(spans.get(id)![1], `${id} ended before ${alone[0]!} started`).to.be.at.most(spans.get(alone[0]!)![0]);
    });

    it('--concurrency 1: one check at a time, as before', async () => {
      const { suites, spans } = timedSuites();
      await runConformance({ suites, url: devnet.url, concurrency: 1, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
      const all = [...spans.values()].sort((x, y) => x[0] - y[0]);
      for (let i = 1; i < all.length; i++) expect(all[i]![0], 'each check starts once the one before ended').to.be.at.least(all[i - 1]![1]);
    });
  });

  describe('an honest round robin over two in-step backends on a moving chain', () => {
    let devnet: Devnet;
    let proxy: FaultProxy;
    faultyDevnet((d, p) => ([devnet, proxy] = [d, p]), { blockTimeS: 1 });

    it('passes run after run (3 runs): reads made at once come back out of order, and no check compares two that overlapped', async () => {
      // Every other call goes to a backend on the same chain behind a slower link: its answer, read at once, arrives
      // up to 150 ms late (a block behind by then, now and then). Reads in flight together come back in any order.
      let calls = 0;
      proxy.fault = { name: 'round robin, one backend 0-150 ms late', kills: [], rewrite: async (_req, res) => (calls++ % 2 === 1 ? (await sleep(Math.random() * 150), res) : res) };
      for (let i = 1; i <= 3; i++) {
        const r = await runConformance({ suites: allSuites, url: proxy.url, expect: expectations, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
        const s = summarize(r.checks, false, r.complete);
        expect(s.verdict, `run ${i}: ${r.checks.filter((c) => c.verdict === 'fail' && !c.expectation).map((c) => `${c.id}: ${c.reason}`).join('\n')}`).to.equal('pass');
        const head = r.checks.find((c) => c.id === 'service/head-never-goes-back');
        expect(head?.verdict, head?.reason).to.equal('pass');
        expect(head?.note).to.match(/^\d+ head reads, \d+ pair\(s\) ordered in time compared/);
      }
      expect(calls, 'calls through the round robin').to.be.above(500);
    });
  });
});
