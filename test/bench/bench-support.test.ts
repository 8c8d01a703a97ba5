// The bench's protocol parts that a figure rests on (bench/support/): bare k6 run with the harness's k6 settings, a judged
// floor that cannot be taken on answers it did not recognise, chainbench's test data served beside (not instead of) the
// measured endpoint, and the median.
import { createServer } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { CORPUS_HASHES, METHOD, TEST_DATA, TX_HASH, txAnswer } from '../../bench/support/endpoint.ts';
import { BARE_HARNESS_ARGS, harnessScenario, median, type Responder, runBareAsHarness, startResponder } from '../../bench/support/lib.ts';
import { procStatFields, STAT } from '../../load/run/k6.ts';
import { K6_RUN_ARGS } from '../../load/run/instances.ts';
import { k6Procs } from '../../load/shared/profiles.ts';
import { availableParallelism } from 'node:os';
import { requireTool } from '../support/tools.ts';

/** The command line and environment of this process's `k6 run` child, read while it runs. */
async function k6Run(): Promise<{ args: string[]; env: string[] } | undefined> {
  for (const pid of (await readdir('/proc')).filter((d) => /^\d+$/.test(d))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!stat || Number(procStatFields(stat)[STAT.ppid]) !== process.pid) continue;
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
    if (args[0]?.endsWith('k6') && args[1] === 'run') return { args, env: (await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '')).split('\0') };
  }
  return undefined;
}

async function rpc(url: string, method: string, params: unknown[]): Promise<{ result?: unknown; error?: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  return (await res.json()) as { result?: unknown; error?: unknown };
}

describe('bench: the overhead protocol\'s parts', function () {
  this.timeout(120_000);
  let responder: Responder | undefined;
  before(async () => {
    responder = await startResponder('fast');
  });
  after(() => responder?.stop());

  it('the median: the middle value, the mean of the middle two for an even count, whatever the order', () => {
    expect(median([3, 1, 2])).to.equal(2);
    expect(median([10, 1, 4, 2])).to.equal(3);
    expect(median([5])).to.equal(5);
    expect(() => median([])).to.throw();
  });

  it('bare k6 "with the harness\'s k6 settings" gets the flags the harness runs k6 with (less its output) and its GOMAXPROCS; its count is the responder\'s', async function () {
    if (process.platform !== 'linux') this.skip();
    await requireTool(this, 'k6');
    const r = responder as Responder;
    expect(K6_RUN_ARGS).to.include.members(BARE_HARNESS_ARGS);
    expect(BARE_HARNESS_ARGS).to.include.members(['--no-thresholds', '--summary-mode=disabled']).and.not.include('--out');
    let seen: Awaited<ReturnType<typeof k6Run>>;
    const before = (await r.served()).served;
    const run = runBareAsHarness(r, harnessScenario(100, 2), 2, 'bare', 100);
    let done = false;
    void run.finally(() => (done = true));
    while (!done && !seen) {
      seen = await k6Run();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = await run;
    expect(seen, 'k6 run was seen').to.not.equal(undefined);
    expect(seen?.args).to.include.members(BARE_HARNESS_ARGS);
    const procs = k6Procs(100, availableParallelism(), process.env['GOMAXPROCS']);
    if (procs !== undefined) expect(seen?.env).to.include(`GOMAXPROCS=${procs}`);
    expect(result.requests).to.equal((await r.served()).served - before).and.be.greaterThan(150);
  });

  it('the judged floor stops on an answer it does not recognise (another id, a changed field), and judges the responder\'s every answer', async function () {
    if (process.platform !== 'linux') this.skip();
    await requireTool(this, 'k6');
    for (const answer of [() => txAnswer(1, TX_HASH), (id: number) => txAnswer(id, TX_HASH).replace('"nonce":"0x1"', '"nonce":"0x2"')]) {
      // Answers each call with its own id (taken from the body), or always id 1.
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => res.end(answer(Number(/"id":(\d+)/.exec(body)?.[1] ?? 0))));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v3/bench`;
      try {
        const wrong: Responder = { url, served: async () => ({ served: 0, durations: [] }), stop: () => undefined };
        const error = await runBareAsHarness(wrong, harnessScenario(50, 2), 2, 'judged', 50).then(() => undefined, (e: unknown) => e);
        expect(String(error)).to.include('did not recognise');
      } finally {
        server.close();
      }
    }
    const judged = await runBareAsHarness(responder as Responder, harnessScenario(50, 2), 2, 'judged', 50);
    expect(judged.requests).to.be.greaterThan(50);
  });

  it("serves chainbench's test data at its own path (a chain chainbench lists, blocks of the corpus's transactions), and the measured endpoint answers as before", async () => {
    const r = responder as Responder;
    const data = `${new URL(r.url).origin}${TEST_DATA.path}`;
    expect((await rpc(data, 'eth_chainId', [])).result).to.equal(TEST_DATA.chainId);
    expect((await rpc(data, 'eth_blockNumber', [])).result).to.equal(`0x${TEST_DATA.head.toString(16)}`);
    const block = (await rpc(data, 'eth_getBlockByNumber', ['0x5', true])).result as { number: string; transactions: Array<{ hash: string; from: string; to: string; blockNumber: string }> };
    expect(block.number).to.equal('0x5');
    expect(block.transactions).to.have.length(TEST_DATA.txsPerBlock);
    for (const tx of block.transactions) {
      expect(CORPUS_HASHES).to.include(tx.hash);
      expect(tx.blockNumber).to.equal('0x5');
      // The measured endpoint answers that hash with that transaction, at the bench's answer size.
      const answered = await rpc(r.url, METHOD, [tx.hash]);
      expect((answered.result as { hash: string }).hash).to.equal(tx.hash);
    }
    expect((await rpc(data, 'eth_getBlockByNumber', [`0x${(TEST_DATA.head + 1).toString(16)}`, true])).result).to.equal(null);
    expect((await rpc(data, 'eth_getBalance', [])).error).to.not.equal(undefined);
    // The measured endpoint's other answers are untouched: its head, whatever the method (the harness's head sampler).
    expect((await rpc(r.url, 'eth_chainId', [])).result).to.equal('0x9');
  });
});
