// k6's figures reach the harness only through its exports (k6/x/rpccertify's output, or k6's OpenTelemetry output:
// load/run/otlp.ts). Lost exports must never read
// as a short, clean run (red team: exports cut 6 s into a 20 s run while the endpoint died at 10 s: PASS, exit 0). A k6
// on PATH (the user's own comes first) wraps the real one and sends its exports through a relay that drops them after
// the first few: the run is INCONCLUSIVE (exit 3), naming the requests its figures miss.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type Devnet, startDevnet } from '../../devnet/index.ts';
import { findK6 } from '../../core/node/tools/k6.ts';
import { runLoad } from '../../load/run/run.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { requireTool } from '../support/tools.ts';
import { withExportsRelayed } from '../support/plain-k6.ts';

/** Forwards the first `keep` exports to the harness's receiver (its address in `upstreamFile`), answers the rest 200 and drops them. */
function relay(upstreamFile: string, keep: number): Promise<{ server: Server; port: number; dropped: () => number }> {
  let seen = 0;
  let dropped = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (++seen > keep) {
          dropped++;
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
          return;
        }
        const upstream = (await readFile(upstreamFile, 'utf8')).trim();
        const r = await fetch(`http://${upstream}${req.url ?? '/'}`, { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }, body: Buffer.concat(chunks) });
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/x-protobuf' }).end(Buffer.from(await r.arrayBuffer()));
      })().catch(() => res.writeHead(502).end());
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, dropped: () => dropped })));
}

describe('load: k6 exports lost on the way to the harness', function () {
  this.timeout(180_000);
  let devnet: Devnet | undefined;
  let dir: string | undefined;
  let relayed: Awaited<ReturnType<typeof relay>> | undefined;
  after(async () => {
    relayed?.server.close();
    await devnet?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exports dropped after the first 3 of a 10 s run: INCONCLUSIVE (exit 3), the uncounted requests named, never a pass', async function () {
    const k6 = await findK6();
    if (!k6) return requireTool(this, 'k6');
    devnet = await startDevnet();
    dir = await mkdtemp(join(tmpdir(), 'rc-otlp-lost-'));
    const upstreamFile = join(dir, 'upstream');
    relayed = await relay(upstreamFile, 3);
    // `k6 run` sends its exports to the relay, which forwards them to where the harness asked.
    const out = join(dir, 'out');
    const r = await withExportsRelayed(k6.path, { port: relayed.port, upstreamFile }, () => runLoad({ url: devnet!.url, profile: 'smoke', duration: '10s', rate: 4, methods: ['eth_getBlockByHash', 'eth_getTransactionReceipt'], out, log: () => undefined }));
    expect(relayed.dropped(), 'exports dropped by the relay').to.be.above(2);
    expect(r.exitCode, r.summary).to.equal(3);
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
    expect(report.verdict).to.equal('inconclusive');
    expect(report.generator.uncounted, r.summary).to.be.above(10);
    expect(report.reasons?.join('\n')).to.match(/not judged: k6's figures miss \d+ of the 80 planned requests/);
  });
});
