// Live progress (load/run/progress.ts): figures read from a k6-shaped REST API, drawn as a block on a terminal
// and as one line every 30 s elsewhere; and the API's port found from /proc (load/run/k6.ts).
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { listeningPort } from '../../load/run/k6.ts';
import { groupOf } from '../../load/shared/histogram.ts';
import { metricName } from '../../load/shared/methods.ts';
import { LiveProgress } from '../../load/run/progress.ts';
import { bucketMetric } from '../../load/shared/summary.ts';

/** A stand-in for k6's /v1/metrics/<id>: counters and their sub-metrics, 404 for a metric not yet recorded. */
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
    const { server, url } = await fakeK6(metrics);
    try {
      const out = sink(true);
      const live = new LiveProgress({ title: 'load gate', subjects: [{ name: m, rps: 10 }], totalSec: 60, out, ttyEverySec: 0.2 });
      live.addInstance(url);
      await new Promise((r) => setTimeout(r, 700));
      live.print('k6: a log line');
      live.stop();
      expect(out.text).to.match(/load gate: \d+ s of 60 s, ETA \d+ s/);
      expect(out.text).to.match(/eth_getBlockByHash\s+[\d.]+\/10\s+12\.4\s+4\s+100/);
      expect(out.text).to.include('k6: a log line\n');
      expect(out.text.endsWith('\x1b[0J')).to.equal(true);
    } finally {
      server.close();
    }
  });

  it('elsewhere prints one line per interval: total rate, the worst p95, where the errors are', async () => {
    const { server, url } = await fakeK6(metrics);
    try {
      const out = sink(false);
      const live = new LiveProgress({ title: 'load soak', subjects: [{ name: m, rps: 10 }], totalSec: 1800, out, lineEverySec: 0.3 });
      live.addInstance(url);
      await new Promise((r) => setTimeout(r, 1300));
      live.stop();
      const lines = out.text.trim().split('\n');
      expect(lines.length).to.be.within(1, 5);
      expect(lines[0]).to.match(/^load soak: \d+ s of 1800 s, ETA \d+ s: [\d.]+ rps \(target 10\), p95 up to 12\.4 ms \(eth_getBlockByHash\), 4 errors \(eth_getBlockByHash 4\)$/);
      expect(out.text).to.not.include('\x1b[');
    } finally {
      server.close();
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
});
