// Load by depth (issue 38, part 3): the corpus drawn in depth strata (head, 128, 1k … blocks back), and latency and
// failures reported per stratum in load.json, the terminal and load.html. On a chain of 310 blocks the gate
// measures the head and the 128+ stratum; behind the gateway's pruned mode (devnet --serve-latest 64), the stratum
// whose blocks are all pruned is reported as not served, not as failures, and the gate still passes.
import { expect } from 'chai';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../load/run/run.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { nodeRpc, transferBlocks } from '../support/node-rpc.ts';
import { requireTool } from '../support/tools.ts';

const METHODS = ['eth_getBlockByHash', 'eth_getTransactionByHash', 'eth_getBlockReceipts'];

describe('load: latency and failures by depth', function () {
  this.timeout(300_000);
  const gate = async (url: string) => {
    const out = await mkdtemp(join(tmpdir(), 'rc-load-depth-'));
    // Latency limits five times the service's: the strata, not a busy machine's stall, are what these runs are about.
    const r = await runLoad({ url, profile: 'gate', duration: '4s', rate: 10, methods: METHODS, out, slo: { p95Ms: 2500, p99Ms: 5000 }, log: () => undefined });
    return { ...r, report: JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport, html: await readFile(join(out, 'load.html'), 'utf8') };
  };

  describe('a chain of 310 blocks', () => {
    let devnet: Devnet;
    before(async function () {
      await requireTool(this, 'k6');
      devnet = await startDevnet();
      // 300 blocks of a transfer each past the seed: transactions at the head and 128+ blocks back.
      await transferBlocks(nodeRpc(() => devnet.nodeUrl), 300);
    });
    after(async () => devnet?.stop());

    it('reports each method\'s hits at the head and 128+ blocks back, with their percentiles and failure rate', async () => {
      const { exitCode, summary, report, html } = await gate(devnet.url);
      expect(exitCode, summary).to.equal(0);
      expect(report.corpus.depth?.map((d) => d.stratum)).to.deep.equal(['head', '128+']);
      for (const m of METHODS) {
        const strata = report.methods[m]!.depth ?? [];
        expect(strata.map((d) => d.stratum), m).to.deep.equal(['head', '128+']);
        for (const d of strata) {
          expect(d.requests, `${m} ${d.stratum}`).to.be.greaterThan(0);
          expect(d.latencyMs?.p50, `${m} ${d.stratum}`).to.be.a('number');
          expect(d.failureRate, `${m} ${d.stratum}`).to.equal(0);
        }
        // The strata split the method's hits: never more requests than the method had.
        expect(strata.reduce((a, d) => a + d.requests, 0), m).to.be.at.most(report.methods[m]!.requests);
      }
      expect(summary).to.match(/by depth \(hits by how far back their block is; blocks sampled: head \d+, 128\+ \d+\):/);
      expect(summary).to.match(/eth_getBlockByHash\s+head \d+ req p50\/p90\/p99 [\d.]+\/[\d.]+\/[\d.]+ ms 0\.00% failed; 128\+ \d+ req/);
      expect(html).to.include('By depth: what cold history costs');
    });
  });

  describe('an endpoint serving only the latest 64 blocks', () => {
    let devnet: Devnet;
    before(async function () {
      await requireTool(this, 'k6');
      devnet = await startDevnet({ serveLatest: 64 });
    });
    after(async () => devnet?.stop());

    it('reports the stratum it prunes as not served (error 4444 at sampling), never as failures: the gate passes', async () => {
      const { exitCode, summary, report } = await gate(devnet.url);
      expect(exitCode, summary).to.equal(0);
      expect(report.corpus.depth?.find((d) => d.stratum === '128+')).to.deep.include({ blocks: 0 });
      for (const m of METHODS) {
        const deep = report.methods[m]!.depth?.find((d) => d.stratum === '128+');
        expect(deep?.notServed, m).to.match(/^not served: all \d+ block\(s\) drawn at this depth were answered as pruned history/);
        expect(report.methods[m]!.failureRate, m).to.equal(0);
      }
      expect(summary).to.match(/128\+ NOT SERVED \(pruned at sampling\)/);
    });
  });
});
