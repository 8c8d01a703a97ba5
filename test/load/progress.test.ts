// Live progress (load/run/progress.ts): figures read from an instance's latest exported totals (load/run/otlp.ts), drawn
// as a block on a terminal and as one line every 30 s elsewhere; k6's API port found from /proc, and the test's start
// from the API (load/run/k6.ts).
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listeningPort, runK6 } from '../../load/run/k6.ts';
import { requireTool } from '../support/tools.ts';
import { groupOf } from '../../load/shared/histogram.ts';
import { metricName } from '../../load/shared/answer-classes.ts';
import { LiveProgress } from '../../load/run/progress.ts';
import { bucketMetric } from '../../load/shared/summary.ts';

/** An instance's totals as otlp.ts reads them: counters and their sub-metrics by k6's names, 0 when not recorded. */
function totals(metrics: Record<string, Record<string, number>>): { read: (metric: string, stat: string) => number } {
  return { read: (metric, stat) => metrics[metric]?.[stat] ?? 0 };
}

/** Something listening on a loopback port, as k6's API does. */
function fakeK6(metrics: Record<string, Record<string, number>>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace('/v1/metrics/', ''));
    const sample = metrics[id];
    res.writeHead(sample ? 200 : 404, { 'content-type': 'application/json' });
    res.end(sample ? JSON.stringify({ data: { type: 'metrics', id, attributes: { sample } } }) : '404 page not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

function sink(isTTY: boolean): { isTTY: boolean; text: string; write: (t: string) => boolean } {
  const out = { isTTY, text: '', write: (t: string) => ((out.text += t), true) };
  return out;
}

describe('live progress', function () {
  const m = 'eth_getBlockByHash' as const;
  const metrics: Record<string, Record<string, number>> = {
    // 96 successes (90 ok, derived; 6 ok_null): 90 at ~4 ms, 6 at ~12.35 ms (histogram buckets 303 and 360).
    [metricName.calls(m, 'ok_null')]: { count: 6, rate: 0.6 },
    [metricName.calls(m, 'rate_limited')]: { count: 4, rate: 0.4 },
    [metricName.histogram(m, groupOf(303))]: { count: 90, rate: 9 },
    [bucketMetric(m, 303)]: { count: 90, rate: 9 },
    [bucketMetric(m, 360)]: { count: 6, rate: 0.6 },
  };
  // Its group's counter counts both buckets when they share one.
  metrics[metricName.histogram(m, groupOf(360))] = { count: (metrics[metricName.histogram(m, groupOf(360))]?.['count'] ?? 0) + 6 };

  it('draws per method the rate, p95 and errors on a terminal, and erases its block when done', async () => {
    {
      const out = sink(true);
      const live = new LiveProgress({ title: 'load gate', subjects: [{ name: m, rps: 10 }], totalSec: 60, out, ttyEverySec: 0.2 });
      live.addInstance(totals(metrics));
      live.testStarted(Date.now());
      await new Promise((r) => setTimeout(r, 700));
      live.print('k6: a log line');
      live.stop();
      expect(out.text).to.match(/load gate: \d+ s of 60 s, ETA \d+ s/);
      expect(out.text).to.match(/eth_getBlockByHash\s+[\d.]+\/10\s+12\.4\s+4\s+100/);
      expect(out.text).to.include('k6: a log line\n');
      expect(out.text.endsWith('\x1b[0J')).to.equal(true);
    }
  });

  it('elsewhere prints one line per interval: total rate, the worst p95, where the errors are', async () => {
    {
      const out = sink(false);
      const live = new LiveProgress({ title: 'load soak', subjects: [{ name: m, rps: 10 }], totalSec: 1800, out, lineEverySec: 0.3 });
      live.addInstance(totals(metrics));
      live.testStarted(Date.now());
      await new Promise((r) => setTimeout(r, 1300));
      live.stop();
      const lines = out.text.trim().split('\n');
      expect(lines.length).to.be.within(1, 5);
      expect(lines[0]).to.match(/^load soak: \d+ s of 1800 s, ETA \d+ s: [\d.]+ rps \(target 10\), p95 up to 12\.4 ms \(eth_getBlockByHash\), 4 errors \(eth_getBlockByHash 4\)$/);
      expect(out.text).to.not.include('\x1b[');
    }
  });

  it("counts the elapsed time from the test's start (k6's first requests), not from its API listening while VUs initialise", async () => {
    {
      const out = sink(false);
      const live = new LiveProgress({ title: 'load gate', subjects: [{ name: m, rps: 10 }], totalSec: 60, out, lineEverySec: 0.2 });
      live.addInstance(totals(metrics));
      await new Promise((r) => setTimeout(r, 1300));
      // k6 listened 1.3 s ago but has not started the test: no elapsed time yet.
      expect(out.text).to.match(/^load gate: starting \(k6 runs the init code of its VUs\), 60 s to run: /);
      expect(out.text).to.not.match(/\d+ s of 60 s/);
      out.text = '';
      // Two instances: the elapsed time counts from the first one's start.
      live.testStarted(Date.now() - 4000);
      live.testStarted(Date.now() - 3000);
      await new Promise((r) => setTimeout(r, 500));
      live.stop();
      // 4 s and a poll or two (a busy machine may delay one past the half second).
      expect(out.text.trim().split('\n')[0]).to.match(/^load gate: (4 s of 60 s, ETA 56|5 s of 60 s, ETA 55) s: /);
    }
  });

  it("finds the loopback port a process listens on from /proc (k6's API on --address 127.0.0.1:0)", async function () {
    if (process.platform !== 'linux') this.skip();
    const { server, url } = await fakeK6({});
    try {
      expect(await listeningPort(process.pid)).to.be.a('number');
      expect(url).to.match(/:\d+$/);
      const port = Number(url.split(':').at(-1));
      // This process may listen on other ports too (mocha's own, none by default): the fake's must be among them.
      expect([port]).to.include(await listeningPort(process.pid));
    } finally {
      server.close();
    }
  });

  it("finds when real k6 starts the test: its first request, not its API listening while the VUs' init code runs", async function () {
    this.timeout(60_000);
    if (process.platform !== 'linux') this.skip();
    const k6 = await requireTool(this, 'k6');
    let firstRequest: number | undefined;
    const target = createServer((_req, res) => {
      firstRequest ??= Date.now();
      res.end('{}');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const dir = await mkdtemp(join(tmpdir(), 'k6-start-test-'));
    try {
      const script = join(dir, 'script.js');
      // Init code as slow as a big corpus: 1.5 s for each of k6's two initialisations (the options, before the API listens; the one VU, after).
      await writeFile(
        script,
        `import http from 'k6/http';
const until = Date.now() + 1500; while (Date.now() < until) {}
export const options = { scenarios: { s: { executor: 'constant-arrival-rate', rate: 10, timeUnit: '1s', duration: '2s', preAllocatedVUs: 1, maxVUs: 1 } } };
export default function () { http.get(__ENV.TARGET); }
`,
      );
      let apiAt: number | undefined;
      let seen: number | undefined;
      const result = await runK6({ binary: k6!.path, script, env: { TARGET: `http://127.0.0.1:${(target.address() as { port: number }).port}/` }, onApi: () => (apiAt = Date.now()), onTestStart: (ms) => (seen = ms) });
      expect(result.exitCode, result.log.map((l) => l.line).join('\n')).to.equal(0);
      expect(firstRequest, 'the target was asked').to.be.a('number');
      expect(result.testStartMs).to.equal(seen);
      // Polled every 50 ms (a busy machine can answer a poll late).
      expect(Math.abs((result.testStartMs ?? 0) - (firstRequest ?? 0)), 'the start vs the first request').to.be.below(250);
      expect((firstRequest ?? 0) - (apiAt ?? Infinity), 'the API listened before the init code ran').to.be.above(800);
    } finally {
      target.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
