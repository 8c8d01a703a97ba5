// geth --dev on a chain that crosses the fork eras: its own dev genesis (`geth --dev dumpgenesis`, system
// contracts included) with Shanghai, Cancun and Prague scheduled a few seconds apart, one block a second and a
// transfer or a creation in most. Discovery must meet a block of each era, the blocks judged must span them,
// and every block-level invariant must pass on each: header hash with each era's field list, roots, size,
// bloom, gas, effective gas prices. A real client, not the gateway written here.
import { expect } from 'chai';
import { expectationFor, parseExpectations } from '../../conformance/framework/expectations.ts';
import { explains } from '../../conformance/report/model.ts';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { privateKeyToAddress } from 'viem/accounts';
import { DEV_KEY, gethBinary } from '../../devnet/geth.ts';
import { type NodeProcess, spawnNode, withFreePort } from '../../devnet/process.ts';
import { runConformance, type RunResult } from '../../conformance/framework/runner.ts';
import { requireTool } from '../support/tools.ts';
import { allSuites } from '../../conformance/methods.ts';
import { checkIds } from '../../conformance/framework/check.ts';

const run = promisify(execFile);
/** Seconds between the forks: each era gets a few one-second blocks. */
const STEP = 4;
const ERAS = ['london', 'shanghai', 'cancun', 'prague'];
const BLOCK_INVARIANTS = [
  'eth_getBlockByHash/block-hash',
  'eth_getBlockByHash/transactions-root',
  'eth_getBlockByHash/withdrawals-root',
  'eth_getBlockByHash/block-size',
  'eth_getBlockByHash/logs-bloom',
  'eth_getBlockByHash/sha3-uncles-empty',
  'eth_getBlockReceipts/receipts-root',
  'eth_getBlockReceipts/receipt-blooms',
  'eth_getBlockReceipts/gas-accounting',
  'eth_getBlockReceipts/log-indexes',
  'eth_getBlockReceipts/receipts-match-txs',
  'eth_getBlockReceipts/effective-gas-price',
  'eth_getBlockReceipts/logs-not-removed',
];

describe('geth --dev across the fork eras (London to Prague)', function () {
  let node: NodeProcess | undefined;
  let datadir: string | undefined;
  let result: RunResult;

  before(async function () {
    await requireTool(this, 'geth');
    const binary = await gethBinary();
    datadir = await mkdtemp(join(tmpdir(), 'rpc-certify-geth-eras-'));
    const genesis = JSON.parse((await run(binary, ['--dev', 'dumpgenesis'], { maxBuffer: 1 << 26 })).stdout) as { config: Record<string, unknown>; alloc: Record<string, unknown>; timestamp: string };
    const now = Math.floor(Date.now() / 1000);
    const times: Record<string, number> = { shanghaiTime: now + STEP, cancunTime: now + 2 * STEP, pragueTime: now + 3 * STEP };
    // Forks after Prague (Osaka and any later one the binary knows) come after it, in their order.
    const later = Object.keys(genesis.config).filter((k) => k.endsWith('Time') && !(k in times));
    later.forEach((k, i) => (times[k] = now + (4 + i) * STEP));
    Object.assign(genesis.config, times);
    genesis.timestamp = `0x${now.toString(16)}`;
    genesis.alloc[privateKeyToAddress(DEV_KEY).slice(2).toLowerCase()] = { balance: '0xffffffffffffffffffffffffffffffff' };
    const file = join(datadir, 'genesis.json');
    await writeFile(file, JSON.stringify(genesis));
    await run(binary, ['init', '--datadir', datadir, file]);
    const dir = datadir;
    node = await withFreePort(undefined, (port) =>
      spawnNode('geth', binary, ['--dev', '--dev.period', '1', '--datadir', dir, '--http', '--http.addr', '127.0.0.1', '--http.port', String(port), '--http.api', 'eth,net,web3', '--ipcdisable', '--nodiscover', '--maxpeers', '0', '--port', '0', '--authrpc.port', '0', '--verbosity', '2'], port, 30_000),
    );
    const rpc = async (method: string, params: unknown[]) => ((await (await fetch(node!.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result?: any }).result;
    const [from] = (await rpc('eth_accounts', [])) as string[];
    // Until a few blocks past Prague: a transfer most seconds, a small creation every fourth, whose init code logs
    // (LOG0) so the log checks have logs to judge in each era.
    for (let i = 0; ; i++) {
      const head = await rpc('eth_getBlockByNumber', ['latest', false]);
      if (Number(BigInt(head.timestamp)) >= times['pragueTime']! + 3) break;
      await rpc('eth_sendTransaction', [i % 4 === 3 ? { from, data: '0x60006000a0600a6011600039600a6000f3602a60005260206000f3' } : { from, to: `0x${(0x1000 + i).toString(16).padStart(40, '0')}`, value: '0x1' }]);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    result = await runConformance({ suites: allSuites, url: node.url });
  });

  after(async () => {
    await node?.stop();
    if (datadir) await rm(datadir, { recursive: true, force: true });
  });

  it('discovery meets a block of each era the chain crossed', function () {
    expect(Object.keys(result.targets!.eraBlocks ?? {})).to.include.members(ERAS);
    for (const era of ERAS) expect(result.targets!.coverage?.[`era.${era}`]?.status, era).to.equal('found');
  });

  it('the blocks judged span those eras, at most 16', function () {
    const judged = result.targets!.judgedBlocks ?? [];
    expect(judged.length).to.be.within(ERAS.length, 16);
    expect([...new Set(judged.map((b) => b.era))]).to.include.members(ERAS);
  });

  it('every block-level invariant passes on each block judged, in every era', function () {
    const verdicts = Object.fromEntries(BLOCK_INVARIANTS.map((id) => [id, result.checks.find((c) => c.id === id)?.verdict]));
    expect(verdicts).to.deep.equal(Object.fromEntries(BLOCK_INVARIANTS.map((id) => [id, 'pass'])));
    // Judged as --expect judges them: an entry's match, when it has one, scopes what it excuses.
    const geth = parseExpectations(readFileSync(new URL('../../fixtures/expectations/geth.json', import.meta.url), 'utf8'), 'fixtures/expectations/geth.json', checkIds(allSuites));
    expect(result.checks.filter((c) => c.verdict === 'fail' && c.layer !== 'advisory' && !explains(expectationFor(c.id, geth, '0000-01-01'), c)).map((c) => `${c.id}: ${c.reason}`), 'fatal failures beyond fixtures/expectations/geth.json').to.deep.equal([]);
  });
});
