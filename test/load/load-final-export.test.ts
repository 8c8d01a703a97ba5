// The last export of k6's metrics output (k6/x/rpccertify's, k6ext/totals.go; or k6's OpenTelemetry output), sent as
// k6 stops, holds the run's final totals; the ones before it are up to a second older. Lost, the run was judged on
// those: a 3 s run at 2 rps lost its last request (6 of 7 counted, within what the uncounted check tolerates) and
// PASSED, exit 0, its last answer judged by no check (a 5-minute gate at 100 rps hides ~100 requests the same way:
// under 1%). k6 logs the failed stop; the harness must not judge the run. A k6 on PATH sends the exports through a
// relay that refuses only the last one, on each path.
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../load/run/run.ts';
import { requireTool } from '../support/tools.ts';
import { withExportsRelayed } from '../support/plain-k6.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';

/** Forwards every export to the harness but the last: the one that arrives less than a period after the previous (the
 * periodic ones are a second apart; the last is sent as k6 stops). */
function relay(upstreamFile: string): Promise<{ server: Server; port: number; refused: number[]; kept: number[] }> {
  const refused: number[] = [];
  const kept: number[] = [];
  let previous: number | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const t = performance.now();
        const last = previous !== undefined && t - previous < 900;
        previous = t;
        if (last) {
          refused.push(t);
          res.writeHead(500).end();
          return;
        }
        kept.push(t);
        const upstream = (await readFile(upstreamFile, 'utf8')).trim();
        const r = await fetch(`http://${upstream}${req.url ?? '/'}`, { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? 'application/json' }, body });
        res.writeHead(r.status).end();
      })().catch(() => res.writeHead(502).end());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, refused, kept })));
}

describe("load: the last export of k6's metrics output lost as k6 stops (real k6)", function () {
  this.timeout(180_000);
  let proxy: FaultProxy;
  let dir: string | undefined;
  let server: Server | undefined;
  faultyDevnet((_d, p) => (proxy = p));
  after(async () => {
    server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const path of ['go', 'js'] as const) {
    it(`${path} path: is no pass, the run stops with exit 2, naming the lost export`, async function () {
      const k6 = await requireTool(this, 'k6');
      dir = await mkdtemp(join(tmpdir(), 'rc-last-export-'));
      const upstreamFile = join(dir, 'upstream');
      const relayed = await relay(upstreamFile);
      server = relayed.server;
      // `k6 run` sends the exports to the relay, which forwards them to where the harness asked; on the js path
      // `k6 version` lists no extension.
      const out = join(dir, 'out');
      const run = await withExportsRelayed(k6.path, { port: relayed.port, upstreamFile, extension: path === 'go' }, () => runLoad({ url: proxy.url, profile: 'smoke', rate: 2, duration: '3s', methods: ['eth_getBlockByHash'], out, log: () => undefined }));
      expect(relayed.kept.length, `exports kept ${relayed.kept.length}`).to.be.at.least(2);
      expect(relayed.refused, 'only the last export refused').to.have.length(1);
      expect(run.exitCode, run.summary).to.equal(2);
      expect(run.summary).to.match(path === 'go' ? /k6's last export of its figures did not reach the harness.*Stopping output 0 failed/ : /k6's last export of its figures did not reach the harness.*can't shutdown OpenTelemetry metric provider/);
      server.close();
      await rm(dir, { recursive: true, force: true });
    });
  }
});
