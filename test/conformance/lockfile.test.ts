// A --targets lockfile names blocks and transactions of one chain: used against another chain with the same chain
// id (a restarted devnet, a reset testnet, another client) every check using them would fail, blamed on the
// endpoint (red team B1). The run refuses such a lock (exit 2) and still takes it on the chain it came from.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnvil, type Anvil } from '../../devnet/anvil.ts';
import type { Devnet } from '../../devnet/index.ts';
import { EndpointUnusable, runConformance } from '../../conformance/framework/runner.ts';
import { cli } from '../support/cli.ts';
import type { FaultProxy } from '../support/fault-proxy.ts';
import { faultyDevnet } from '../support/faulty-devnet.ts';
import { allSuites } from '../../conformance/methods.ts';

describe('a --targets lockfile is of the endpoint\'s chain, or refused', function () {
  let devnet: Devnet;
  let proxy: FaultProxy;
  let other: Anvil;
  let dir: string;
  let lock: string;
  faultyDevnet((d, p) => {
    devnet = d;
    proxy = p;
  });
  before(async () => {
    other = await startAnvil();
    dir = await mkdtemp(join(tmpdir(), 'rpc-certify-lock-'));
    const run = await runConformance({ suites: allSuites, url: devnet.url, methods: ['eth_getTransactionByHash'] });
    lock = join(dir, 'targets.lock.json');
    await writeFile(lock, JSON.stringify(run.targets));
  });
  after(async () => {
    await other?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('another anvil, the same chain id 31337, is refused with exit 2, the lock\'s missing block named, before any check runs', async function () {
    const refused = await runConformance({ suites: allSuites, url: other.url, targetsFile: lock, methods: ['eth_getBlockByHash'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(EndpointUnusable);
    expect((refused as Error).message).to.match(/^--targets .*targets\.lock\.json: \d+ block\(s\) of the lock are not on this endpoint's chain \(no block, or another hash, at their number: #\d+ 0x[0-9a-f]{64}.*another chain with chain id 31337/);
    const r = await cli(['conformance', '--url', other.url, '--targets', lock, '--methods', 'eth_getBlockByHash', '--out', join(dir, 'other'), '--quiet']);
    expect(r.code, r.out + r.err).to.equal(2);
    expect(r.err).to.match(/endpoint not usable: --targets .* not on this endpoint/);
  });

  it('on its own chain the lock is taken as it is', async function () {
    const run = await runConformance({ suites: allSuites, url: devnet.url, targetsFile: lock, methods: ['eth_getBlockByHash'] });
    expect(run.targets?.sources['multiTxBlock']).to.equal('lockfile');
    expect(run.checks.find((c) => c.id === 'eth_getBlockByHash/hashes-match-full')?.verdict).to.equal('pass');
  });

  it('a known block answered null by hash is the endpoint\'s fault, not another chain: the lock is taken, and hashes-match-full fails with a reason, not a TypeError', async function () {
    proxy.fault = { name: 'every block null by hash', kills: [], rewrite: (req, res) => (req.method === 'eth_getBlockByHash' ? { ...res, result: null } : res) };
    const run = await runConformance({ suites: allSuites, url: proxy.url, targetsFile: lock, methods: ['eth_getBlockByHash'] });
    const c = run.checks.find((k) => k.id === 'eth_getBlockByHash/hashes-match-full');
    expect(c).to.deep.include({ verdict: 'fail', reason: 'a known block hash returned null (flag false)' });
  });
});
