// Fresh reads under load (issue 22, item 2) on the moving devnet (a block a second, with traffic): the clean endpoint
// passes a short gate with every fresh read judged, and a round robin over the fresh chain and one 3 blocks stale fails
// it with stale reads named per method, the lookups by hash among them (not only through eth_blockNumber going back).
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { mergeK8s } from '../../load/run/k8s.ts';
import { type Shard, shardsIn } from '../../load/shared/shard.ts';
import { run, runPods } from '../support/pods.ts';

const CLI_PATH = fileURLToPath(new URL('../../bin/rpc-certify.js', import.meta.url));
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from '../../load/run/run.ts';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { DEFAULT_GRACE_MS, FRESH_METHODS, UNJUDGEABLE_METHODS, type FreshMethod } from '../../load/shared/freshness.ts';
import { sampleCorpus } from '../../load/plan/sample.ts';
import type { CorpusEntry } from '../../load/shared/corpus.ts';
import type { RpcMethod } from '../../core/methods.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';
import { FaultProxy, type Fault, type FaultContext, type RpcResponse } from '../support/fault-proxy.ts';
import { behind, currentNumberOverStale } from '../support/faults.ts';

/** The block an answer belongs to: a block's number, a transaction's or receipt's blockNumber, block receipts' first. */
function blockOf(result: unknown): number | undefined {
  const o = (Array.isArray(result) ? result[0] : result) as { number?: unknown; blockNumber?: unknown } | null | undefined;
  const n = o?.blockNumber ?? o?.number;
  return typeof n === 'string' ? parseInt(n, 16) : undefined;
}

/** Each instance chased the head (its shard has fresh figures), and the report's are their sum. */
function expectFreshSum(report: LoadReport, shards: Shard[]): void {
  expect(shards).to.have.length(2);
  for (const s of shards) expect(s.freshness?.eth_blockNumber?.requests, 'each instance chased the head').to.be.above(0);
  const methods = report.freshness?.methods ?? {};
  expect(Object.keys(methods)).to.not.be.empty;
  for (const [m, f] of Object.entries(methods)) {
    for (const k of ['requests', 'stale', 'latestBehind', 'reorged', 'failed', 'wrong'] as const) {
      expect(f[k], `${m} ${k}`).to.equal(shards.reduce((a, s) => a + (s.freshness?.[m as keyof Shard['freshness']]?.[k] ?? 0), 0));
    }
  }
}

/** Every other request answered as if the chain were `lag` blocks shorter: a balancer over a fresh and a lagging backend. */
function lagging(lag: number): Fault {
  let turn = 0;
  return {
    name: `round robin over a fresh backend and one ${lag} blocks stale`,
    kills: [],
    rewrite: async (req, res, ctx): Promise<RpcResponse> => {
      if (turn++ % 2 === 0) return res;
      const head = parseInt(String((await ctx.upstream('eth_blockNumber', [])).result), 16) - lag;
      if (req.method === 'eth_blockNumber') return { ...res, result: `0x${head.toString(16)}` };
      // `latest` is its head: the same call at that height.
      if (req.params.includes('latest')) return { ...res, result: (await ctx.upstream(req.method, req.params.map((p) => (p === 'latest' ? `0x${head.toString(16)}` : p)))).result };
      const n = blockOf(res.result);
      return n !== undefined && n > head ? { ...res, result: null } : res;
    },
  };
}

const hex = (n: number) => `0x${n.toString(16)}`;
const upstreamHead = async (ctx: FaultContext) => parseInt(String((await ctx.upstream('eth_blockNumber', [])).result), 16);
/** A block number asked explicitly (not a tag, not a hash). */
const askedNumber = (p: unknown) => (typeof p === 'string' && /^0x[0-9a-f]{1,16}$/.test(p) ? parseInt(p, 16) : undefined);
const BY_NUMBER = ['eth_getBlockByNumber', 'eth_getBlockReceipts', 'eth_getTransactionByBlockNumberAndIndex'];
const TX_LOOKUPS = ['eth_getTransactionByHash', 'eth_getTransactionReceipt', 'eth_getTransactionByBlockHashAndIndex', 'eth_getTransactionByBlockNumberAndIndex'];

/** The red team's proxy modes (issue 22 findings), as project faults over the moving devnet. */
const RED = {
  /** eth_blockNumber current; `latest`, by number and by hash `lag` blocks behind. */
  bnFresh(lag: number): Fault {
    return { name: `eth_blockNumber current, everything else ${lag} behind`, kills: [], rewrite: currentNumberOverStale(BigInt(lag)) };
  },
  /** Transaction lookups of a block first shown through the proxy less than `ms` before: HTTP `status` (503) with a JSON-RPC error. */
  tx503(ms: number, status = 503): Fault {
    const shown = new Map<number, number>();
    return {
      name: `transaction lookups of blocks younger than ${ms} ms answer HTTP ${status}`,
      kills: [],
      raw: (req, res) => {
        const n = req.method === 'eth_blockNumber' && typeof res.result === 'string' ? parseInt(res.result, 16) : blockOf(res.result);
        if (n !== undefined && !shown.has(n)) shown.set(n, Date.now());
        const at = TX_LOOKUPS.includes(req.method) && n !== undefined ? shown.get(n) : undefined;
        if (at === undefined || Date.now() - at >= ms) return undefined;
        const error = status === 429 ? { code: -32005, message: 'daily request count exceeded, request rate limited' } : { code: -32000, message: 'unknown transaction (backend syncing)' };
        return { status, contentType: 'application/json', body: JSON.stringify({ jsonrpc: '2.0', id: res.id, error }) };
      },
    };
  },
  /** Lookups by explicit number of the newest `n` blocks null; `latest` and by hash current. */
  byNumber(n: number): Fault {
    return {
      name: `lookups by number of the newest ${n} blocks null`,
      kills: [],
      rewrite: async (req, res, ctx) => {
        const x = BY_NUMBER.includes(req.method) ? askedNumber(req.params[0]) : undefined;
        return x !== undefined && x > (await upstreamHead(ctx)) - n ? { ...res, result: null } : res;
      },
    };
  },
  /** eth_getBlockReceipts of the newest `n` blocks (by hash or number): `[]`. */
  emptyReceipts(n: number): Fault {
    return {
      name: `receipts of the newest ${n} blocks empty`,
      kills: [],
      rewrite: async (req, res, ctx) => {
        const b = req.method === 'eth_getBlockReceipts' && req.params[0] !== 'latest' ? blockOf(res.result) : undefined;
        return b !== undefined && b > (await upstreamHead(ctx)) - n ? { ...res, result: [] } : res;
      },
    };
  },
  /** Torn head reads: eth_getBlockReceipts answers `[]` for a block first shown through the proxy less than `ms` before (inside the grace). */
  tornReceipts(ms: number): Fault {
    const shown = new Map<number, number>();
    return {
      name: `receipts of blocks younger than ${ms} ms empty`,
      kills: [],
      rewrite: (req, res) => {
        const n = req.method === 'eth_blockNumber' && typeof res.result === 'string' ? parseInt(res.result, 16) : blockOf(res.result);
        if (n !== undefined && !shown.has(n)) shown.set(n, Date.now());
        if (req.method !== 'eth_getBlockReceipts' || req.params[0] === 'latest' || !Array.isArray(res.result) || res.result.length === 0) return res;
        const at = shown.get(blockOf(res.result) ?? -1);
        return at !== undefined && Date.now() - at < ms ? { ...res, result: [] } : res;
      },
    };
  },
  /**
   * Asked by block hash, the receipts of the newest `n` blocks are those of block head−n; a transaction's receipt
   * names its block's parent as its blockHash.
   */
  otherBlocksReceipts(n: number): Fault {
    return {
      name: `receipts by hash of the newest ${n} blocks: another block's`,
      kills: [],
      rewrite: async (req, res, ctx) => {
        const b = blockOf(res.result);
        const head = await upstreamHead(ctx);
        if (b === undefined || b <= head - n) return res;
        if (req.method === 'eth_getBlockReceipts' && String(req.params[0]).length === 66) return { ...res, result: (await ctx.upstream('eth_getBlockReceipts', [hex(head - n)])).result };
        if (req.method !== 'eth_getTransactionReceipt') return res;
        const parent = (await ctx.upstream('eth_getBlockByNumber', [hex(b - 1), false])).result as { hash: string };
        return { ...res, result: { ...(res.result as object), blockHash: parent.hash } };
      },
    };
  },
};

describe('load: fresh reads on a moving chain', function () {
  this.timeout(180_000);
  let devnet: Devnet;
  let proxy: FaultProxy;
  let corpus: string;
  before(async () => {
    devnet = await startDevnet({ blockTimeS: 1 });
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
  });

  async function gate(extra: { corpus?: string; duration?: string; methods?: RpcMethod[] }): Promise<{ exitCode: number; summary: string; report: LoadReport; junit: string; html: string; out: string }> {
    const out = await mkdtemp(join(tmpdir(), 'rc-load-fresh-'));
    const r = await runLoad({ url: proxy.url, profile: 'gate', duration: extra.duration ?? '6s', rate: 2, methods: ['eth_getBlockByHash', 'eth_getBlockReceipts'], fresh: { chased: true, why: '--fresh' }, out, log: () => undefined, ...extra });
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
    return { ...r, report, junit: await readFile(join(out, 'load.junit.xml'), 'utf8'), html: await readFile(join(out, 'load.html'), 'utf8'), out };
  }

  it('the clean moving endpoint passes a short gate, with every fresh method judged and none stale', async () => {
    const { exitCode, summary, report, out, html } = await gate({});
    corpus = join(out, 'load.corpus.json');
    expect(exitCode, summary).to.equal(0);
    const methods = report.freshness?.methods ?? {};
    // Every method the head-chasing client asks and these corpus methods: none answers `latest` naming no block here.
    expect(Object.keys(methods)).to.have.members(FRESH_METHODS.filter((m) => !(UNJUDGEABLE_METHODS as readonly string[]).includes(m)));
    for (const [m, f] of Object.entries(methods)) {
      expect(f.requests, m).to.be.above(3);
      expect(f.stale, `${m}: ${f.staleSample ?? ''}`).to.equal(0);
    }
    // Objects of each new head were seen, and how soon is measured.
    expect(methods['eth_getTransactionReceipt']?.visibleMs?.count).to.be.above(2);
    // Each announced block's objects are asked in the round that announced it: on an honest node they are visible at
    // once, never first seen at the grace because the chain moved past them within a round.
    for (const [m, f] of Object.entries(methods)) if (f.visibleMs) expect(f.visibleMs.max, `${m} announcement to visible`).to.be.below(DEFAULT_GRACE_MS);
    expect(summary).to.match(/fresh reads .*grace 2000 ms/);
    // Per period too (the exports, a period apart): every fresh method's requests and objects first seen, none stale, and no
    // more than the run's totals (the last, partial period may be left out).
    const periods = report.timeline.points.filter((p) => p.fresh);
    expect(periods.length, 'periods with fresh reads').to.be.above(3);
    expect(report.timeline.startedAt).to.be.a('string');
    for (const [m, f] of Object.entries(methods)) {
      const per = periods.map((p) => p.fresh?.[m as FreshMethod]);
      const requests = per.reduce((a, x) => a + (x?.requests ?? 0), 0);
      expect(requests, `${m} fresh requests over the periods`).to.be.above(0).and.at.most(f.requests);
      expect(per.every((x) => (x?.stale ?? 0) === 0), m).to.equal(true);
      const seen = per.reduce((a, x) => a + (x?.visible?.count ?? 0), 0);
      expect(seen, `${m} objects first seen over the periods`).to.be.at.most(f.visibleMs?.count ?? 0);
      if ((f.visibleMs?.count ?? 0) > 2) expect(seen, m).to.be.above(0);
      for (const x of per) if (x?.visible) expect(x.visible.max, `${m} a period's announcement to visible`).to.be.below(DEFAULT_GRACE_MS);
    }
    expect(html).to.match(/<h3>Announcement to visible over time[^<]*<\/h3>\s*<div class="chart"><svg[\s\S]*?<title>eth_getTransactionReceipt p95<\/title>/);
    expect(html).to.include('No stale read in any period.');
  });

  it('an endpoint that starts forgetting receipts mid-run shows its stale reads over time in the periods after it began', async () => {
    // From 3 s after the first `latest` block read on, every receipt is null: a backend that lost them.
    let from: number | undefined;
    proxy.fault = {
      name: 'receipts null from 3 s into the run',
      kills: [],
      rewrite: (req, res) => {
        if (from === undefined && req.method === 'eth_getBlockByNumber' && req.params[0] === 'latest') from = Date.now() + 3000;
        return req.method === 'eth_getTransactionReceipt' && from !== undefined && Date.now() >= from ? { ...res, result: null } : res;
      },
    };
    try {
      const { exitCode, summary, report, html } = await gate({ corpus, duration: '10s' });
      expect(exitCode, summary).to.equal(1);
      const total = report.freshness?.methods['eth_getTransactionReceipt']?.stale ?? 0;
      expect(total, summary).to.be.above(0);
      // The fault's start on the timeline's clock (t counts from k6's start; a point's period ends at its t).
      const start = (from! - Date.parse(report.timeline.startedAt!)) / 1000;
      const stale = report.timeline.points.map((p): [number, number] => [p.t, p.fresh?.['eth_getTransactionReceipt']?.stale ?? 0]);
      // Within 5 s of the run's start: the fault began inside the run, with periods on both sides of it.
      expect(start, JSON.stringify(stale)).to.be.within(0, 5);
      expect(stale.filter(([t, n]) => t < start && n > 0), 'stale reads in periods that ended before the fault began').to.deep.equal([]);
      const after = stale.filter(([t]) => t > start).reduce((a, [, n]) => a + n, 0);
      expect(after, JSON.stringify(stale)).to.be.above(0).and.at.most(total);
      expect(stale.filter(([t]) => t < start).length, 'clean periods before the fault').to.be.above(0);
      expect(html).to.match(/<h3>Stale reads over time<\/h3>\s*<div class="chart"><svg[\s\S]*?<title>eth_getTransactionReceipt stale<\/title>/);
    } finally {
      proxy.fault = undefined;
    }
  });

  it('latest-tagged entries whose answer names no block (an estimate, an uncle lookup) are counted not judgeable against the head, never as fresh', async () => {
    const sampled = await sampleCorpus({ url: proxy.url, seed: 1, missShare: 0.1, methods: ['eth_estimateGas', 'eth_getUncleByBlockNumberAndIndex'] });
    // Every other entry `latest`-tagged, so a short run asks them: the plain transfer, and uncle 0 of the head block
    // (null on this post-merge chain, as due for an empty lookup).
    const transfer = sampled.entries.eth_estimateGas.find((e) => e.note === 'plain transfer');
    expect(transfer, 'the plain transfer at latest').to.not.equal(undefined);
    const uncle: CorpusEntry = { params: ['latest', '0x0'], note: 'latest', kind: 'empty' };
    const every = (entries: CorpusEntry[], e: CorpusEntry) => entries.map((x, i) => (i % 2 ? x : e));
    sampled.entries.eth_estimateGas = every(sampled.entries.eth_estimateGas, transfer as CorpusEntry);
    sampled.entries.eth_getUncleByBlockNumberAndIndex = every(sampled.entries.eth_getUncleByBlockNumberAndIndex, uncle);
    const file = join(await mkdtemp(join(tmpdir(), 'rc-load-fresh-corpus-')), 'corpus.json');
    await writeFile(file, JSON.stringify(sampled));
    const { exitCode, summary, report, junit } = await gate({ corpus: file, methods: ['eth_estimateGas', 'eth_getUncleByBlockNumberAndIndex'] });
    expect(exitCode, summary).to.equal(0);
    for (const m of UNJUDGEABLE_METHODS) {
      const f = report.freshness?.methods[m];
      expect(f?.notJudgeable, `${m}\n${summary}`).to.be.above(0);
      expect(f?.requests, `${m}: never a fresh request judged ok`).to.equal(0);
      expect(junit, `${m}: no fresh check held for it`).to.not.include(`classname="load.fresh.${m}"`);
    }
    expect(summary).to.match(/not judgeable: `latest` answers that name no block/);
  });

  it('--segments 2 with fresh reads: each segment chases the head, one freshness section whose counts are their sum; the clean endpoint passes', async () => {
    const lines: string[] = [];
    const out = await mkdtemp(join(tmpdir(), 'rc-load-fresh-segments-'));
    const r = await runLoad({ url: proxy.url, corpus, segments: 2, keepWork: true, profile: 'gate', duration: '6s', rate: 2, methods: ['eth_getBlockByHash', 'eth_getBlockReceipts'], fresh: { chased: true, why: '--fresh' }, out, log: (l) => lines.push(l) });
    const report = JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport;
    expect(r.exitCode, r.summary).to.equal(0);
    expect(report.generator.instances).to.equal(2);
    const work = /work files kept in (\S+)/.exec(lines.join('\n'))?.[1] ?? '';
    const shards = (await Promise.all([0, 1].map((i) => readFile(join(work, 'run-0', `instance-${i}`, 'shard.json'), 'utf8')))).flatMap(shardsIn);
    await rm(work, { recursive: true, force: true });
    expectFreshSum(report, shards);
    for (const [m, f] of Object.entries(report.freshness?.methods ?? {})) expect(f.stale, `${m}: ${f.staleSample ?? ''}`).to.equal(0);
  });

  it('k8s --fresh: the pods chase the head, their logs merge into one freshness section, and a round robin\'s stale reads are named from them', async () => {
    const out = await mkdtemp(join(tmpdir(), 'rc-load-fresh-k8s-'));
    const cli = await run(process.execPath, [CLI_PATH, 'k8s', '--corpus', corpus, '--fresh', '--parallelism', '2', '--profile', 'gate', '--duration', '6s', '--rate', '2', '--methods', 'eth_getBlockByHash,eth_getBlockReceipts', '--out', out]);
    expect(cli.code, cli.output).to.equal(0);
    const descriptor = JSON.parse(await readFile(join(out, 'run.json'), 'utf8')) as { plan: { fresh?: { graceMs: number } } };
    expect(descriptor.plan.fresh, 'the plan the pods run chases the head').to.deep.equal({ graceMs: DEFAULT_GRACE_MS });
    proxy.fault = lagging(3);
    try {
      const { pods } = await runPods(out, proxy.url);
      await writeFile(join(out, 'pods.log'), pods.map((p) => p.output).join('\n'));
      const merged = await mergeK8s({ run: join(out, 'run.json'), logs: [join(out, 'pods.log')], out: join(out, 'reports') });
      expect(merged.exitCode, merged.summary).to.equal(1);
      const report = JSON.parse(await readFile(join(out, 'reports', 'load.json'), 'utf8')) as LoadReport;
      expectFreshSum(report, pods.flatMap((p) => shardsIn(p.output)));
      // The stale reads' examples come from the pods' logs.
      expect(report.reasons?.join('\n'), merged.summary).to.match(/eth_getBlockByNumber: \d+ stale reads? in \d+ fresh requests .*, e\.g\. answered (block \d+ for latest|null for 0x)/);
    } finally {
      proxy.fault = undefined;
    }
  });

  it('a latest (and eth_blockNumber) 5 blocks behind while lookups by number and hash are current fails the gate, without a reference', async () => {
    proxy.fault = { name: 'latest 5 behind', kills: [], rewrite: behind(5n, false) };
    try {
      const { exitCode, summary, report } = await gate({ corpus });
      expect(exitCode, summary).to.equal(1);
      const methods = report.freshness?.methods ?? {};
      // The blocks served by number above the head latest names announce it; latest then lags it past the grace.
      expect(methods['eth_getBlockByNumber']?.latestBehind, summary).to.be.above(0);
      expect(report.reasons?.join('\n')).to.match(/eth_getBlockByNumber: \d+ stale reads? in \d+ fresh requests .*for latest/);
    } finally {
      proxy.fault = undefined;
    }
  });

  it('`load --profile gate` with no --fresh chases a head it sees move: a latest 5 blocks behind fails naming the stale reads, the clean endpoint passes; --no-fresh says it did not look', async () => {
    const cli = async (...extra: string[]) => {
      const out = await mkdtemp(join(tmpdir(), 'rc-load-autofresh-'));
      const r = await run(process.execPath, [CLI_PATH, 'load', '--url', proxy.url, '--profile', 'gate', '--duration', '6s', '--rate', '2', '--methods', 'eth_getBlockByHash,eth_getBlockReceipts', '--out', out, ...extra]);
      return { ...r, report: JSON.parse(await readFile(join(out, 'load.json'), 'utf8')) as LoadReport };
    };
    const clean = await cli();
    expect(clean.code, clean.output).to.equal(0);
    expect(clean.report.freshChase).to.deep.include({ chased: true });
    expect(clean.report.freshChase?.why).to.match(/^the head moved during sampling \(block \d+ to \d+\)$/);
    expect(clean.output).to.match(/fresh reads: chased \(the head moved during sampling/);
    expect(clean.report.freshness?.methods['eth_blockNumber']?.requests, 'the head was chased').to.be.above(0);
    proxy.fault = { name: 'latest 5 behind', kills: [], rewrite: behind(5n, false) };
    try {
      const stale = await cli();
      expect(stale.code, stale.output).to.equal(1);
      expect(stale.report.reasons?.join('\n'), stale.output).to.match(/eth_getBlockByNumber: \d+ stale reads? in \d+ fresh requests .*for latest/);
      const blind = await cli('--no-fresh');
      expect(blind.report.freshChase).to.deep.equal({ chased: false, why: '--no-fresh' });
      expect(blind.report.freshness, 'no head chased on --no-fresh').to.equal(undefined);
      expect(blind.output).to.match(/fresh reads: not chased \(--no-fresh\)/);
    } finally {
      proxy.fault = undefined;
    }
  });

  it('an endpoint that answers an error (not null) for a receipt for 3 s after its block is announced fails the gate, the receipt named', async () => {
    // When each block was first shown through the proxy: the announcement the fault measures from.
    const shown = new Map<number, number>();
    const show = (n: number | undefined) => n !== undefined && !shown.has(n) && shown.set(n, Date.now());
    proxy.fault = {
      name: 'receipt unknown for 3 s after its block is announced',
      kills: [],
      rewrite: (req, res) => {
        show(req.method === 'eth_blockNumber' && typeof res.result === 'string' ? parseInt(res.result, 16) : blockOf(res.result));
        const at = req.method === 'eth_getTransactionReceipt' ? shown.get(blockOf(res.result) ?? -1) : undefined;
        return at !== undefined && Date.now() - at < 3000 ? { jsonrpc: '2.0', id: res.id, error: { code: -32000, message: 'unknown transaction' } } : res;
      },
    };
    try {
      const { exitCode, summary, report } = await gate({ corpus });
      expect(exitCode, summary).to.equal(1);
      expect(report.freshness?.methods['eth_getTransactionReceipt']?.stale, summary).to.be.above(0);
      expect(report.reasons?.join('\n')).to.match(/eth_getTransactionReceipt: \d+ stale reads? in \d+ fresh requests .*answered error -32000 "unknown transaction"/);
    } finally {
      proxy.fault = undefined;
    }
  });

  it('a round robin over the fresh chain and one 3 blocks stale fails the gate with stale reads named per method', async () => {
    proxy.fault = lagging(3);
    try {
      const { exitCode, summary, report, junit, html } = await gate({ corpus });
      expect(exitCode, summary).to.equal(1);
      const methods = report.freshness?.methods ?? {};
      const stale = Object.entries(methods).filter(([, f]) => f.stale > 0).map(([m]) => m);
      expect(stale, summary).to.include('eth_getBlockByNumber');
      // The lookups by hash of announced blocks, not only `latest` and eth_blockNumber.
      const byHash = stale.filter((m) => !['eth_blockNumber', 'eth_getBlockByNumber'].includes(m));
      expect(byHash, summary).to.not.be.empty;
      expect(methods['eth_getBlockByNumber']?.latestBehind).to.be.above(0);
      // The other `latest` lookups that name their block are judged against the head too, not counted ok blindly.
      expect((methods['eth_getBlockReceipts']?.latestBehind ?? 0) + (methods['eth_getTransactionByBlockNumberAndIndex']?.latestBehind ?? 0), summary).to.be.above(0);
      for (const m of byHash) {
        expect(report.reasons?.join('\n')).to.match(new RegExp(`${m}: \\d+ stale reads? in \\d+ fresh requests`));
        expect(junit).to.include(`classname="load.fresh.${m}"`);
        expect(html).to.match(new RegExp(`<tr><td>${m}</td><td>\\d+</td><td class="fail">[1-9]`));
      }
      expect(summary).to.match(/stale read/);
      if (process.env['RPC_CERTIFY_SHOW_SUMMARY']) console.log(summary);
    } finally {
      proxy.fault = undefined;
    }
  });

  // The red team's false passes (issue 22 findings): each FAILs with its stale or wrong reads named.
  async function redGate(fault: Fault): Promise<{ summary: string; methods: NonNullable<LoadReport['freshness']>['methods']; reasons: string }> {
    proxy.fault = fault;
    try {
      const { exitCode, summary, report } = await gate({ corpus });
      expect(exitCode, summary).to.equal(1);
      return { summary, methods: report.freshness?.methods ?? {}, reasons: report.reasons?.join('\n') ?? '' };
    } finally {
      proxy.fault = undefined;
    }
  }

  it('eth_blockNumber current while latest and every lookup are 20 behind: its block announced, asked by number, stale', async () => {
    const { summary, methods, reasons } = await redGate(RED.bnFresh(20));
    // latest names a block below the one eth_blockNumber announced; that block asked by number is null past the grace.
    expect(methods['eth_getBlockByNumber']?.latestBehind, summary).to.be.above(0);
    expect(reasons).to.match(/eth_getBlockByNumber: \d+ stale reads? in \d+ fresh requests .*e\.g\. answered (null for 0x[0-9a-f]+, false of block|block \d+ for latest)/);
  });

  it('HTTP 503 for the transactions of young blocks: stale past the grace and counted failed, never dropped', async () => {
    const { summary, methods, reasons } = await redGate(RED.tx503(6000));
    for (const m of ['eth_getTransactionByHash', 'eth_getTransactionReceipt', 'eth_getTransactionByBlockHashAndIndex']) {
      expect(methods[m as FreshMethod]?.stale, `${m}\n${summary}`).to.be.above(0);
      expect(methods[m as FreshMethod]?.failed, `${m}\n${summary}`).to.be.above(0);
    }
    expect(reasons).to.match(/eth_getTransactionReceipt: \d+ stale reads? .*failed.*answered HTTP 503 error -32000/);
  });

  it('HTTP 429 (rate limited) for the transactions of young blocks: counted failed, never a stale read (a limit says nothing of freshness)', async () => {
    proxy.fault = RED.tx503(6000, 429);
    try {
      const { summary, report } = await gate({ corpus });
      for (const m of ['eth_getTransactionByHash', 'eth_getTransactionReceipt', 'eth_getTransactionByBlockHashAndIndex']) {
        const f = report.freshness?.methods[m as FreshMethod];
        expect(f?.failed, `${m}\n${summary}`).to.be.above(0);
        expect(f?.stale, `${m}\n${summary}`).to.equal(0);
      }
    } finally {
      proxy.fault = undefined;
    }
  });

  it('lookups by number of the newest 5 blocks null while latest and by-hash lookups are current: stale by number, named', async () => {
    const { summary, methods, reasons } = await redGate(RED.byNumber(5));
    for (const m of BY_NUMBER) expect(methods[m as FreshMethod]?.stale, `${m}\n${summary}`).to.be.above(0);
    expect(reasons).to.match(/eth_getBlockReceipts: \d+ stale reads? .*answered null for 0x[0-9a-f]+ of block/);
  });

  it('empty receipts for the newest 4 blocks, which hold transactions: wrong at once (a torn read), not visible', async () => {
    const { summary, methods, reasons } = await redGate(RED.emptyReceipts(4));
    expect(methods['eth_getBlockReceipts']?.wrong, summary).to.be.above(0);
    expect(reasons).to.match(/eth_getBlockReceipts: \d+ stale reads? .*wrong: torn read: answered 0 receipts for a block of \d+ transactions/);
  });

  it('torn head reads: `[]` receipts for a block during its first second (inside the 2 s grace) are wrong, not "not yet"', async () => {
    const { summary, methods, reasons } = await redGate(RED.tornReceipts(1000));
    expect(methods['eth_getBlockReceipts']?.wrong, summary).to.be.above(0);
    expect(reasons).to.match(/eth_getBlockReceipts: \d+ stale reads? .*wrong: torn read: answered 0 receipts for a block of \d+ transactions/);
  });

  it('another block\'s receipts for a block hash, and a receipt naming another block: wrong at once, named', async () => {
    const { summary, methods, reasons } = await redGate(RED.otherBlocksReceipts(3));
    expect(methods['eth_getBlockReceipts']?.stale, summary).to.be.above(0);
    expect(methods['eth_getTransactionReceipt']?.stale, summary).to.be.above(0);
    for (const m of ['eth_getBlockReceipts', 'eth_getTransactionReceipt'] as const) expect(methods[m]?.wrong, `${m}\n${summary}`).to.be.above(0);
    // The example is the first wrong answer met: another block's receipts, or, where that block held fewer, a torn read.
    expect(reasons).to.match(/eth_getBlockReceipts: \d+ stale reads? .*\d+ of them wrong: another block's objects, or a torn read.*wrong: (answered an object of block \d+|torn read: answered \d+ receipts for a block of \d+ transactions)/);
    expect(reasons).to.match(/eth_getTransactionReceipt: \d+ stale reads? .*wrong: answered an object of block \d+/);
  });
});
