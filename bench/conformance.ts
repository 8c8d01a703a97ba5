// Figure 4, conformance cost: the full suite against the embedded default (wall time, requests, peak
// memory), then how that grows with what discovery walks and the checks iterate over: blocks stacked on
// the seeded chain (discovery walks through them), then a head block of many transactions (the checks
// that go through a block's transactions and receipts take it as their target).
import { createPublicClient, createTestClient, createWalletClient, http } from 'viem';
import { runConformance } from '../conformance/framework/runner.ts';
import { startDevnet } from '../devnet/index.ts';
import { type Row, round, saveFigure } from './support/lib.ts';
import { allSuites } from '../conformance/methods.ts';

const RUNS = 3;
const DEFAULT_DEPTH = 64;
/** Cumulative: each step adds to the chain the step before left. */
const GROWTH = [
  { blocks: 100, txsPerBlock: 1 },
  { blocks: 1, txsPerBlock: 50 },
  { blocks: 1, txsPerBlock: 200 },
];
/** Then mainnet-sized blocks, as many as are judged, walked alone: what the receipts budget bounds (thousands of receipts). */
const FULL_BLOCKS = { blocks: 16, txsPerBlock: 300 };

const devnet = await startDevnet();
const wallet = createWalletClient({ transport: http(devnet.nodeUrl) });
const pub = createPublicClient({ transport: http(devnet.nodeUrl) });
const anvil = createTestClient({ mode: 'anvil', transport: http(devnet.nodeUrl) });
const accounts = await wallet.getAddresses();
let added = 0;

/** A plain address: the seed gives one dev account EIP-7702 code, which a bare transfer to it would run. */
const SINK = '0x000000000000000000000000000000000000dEaD';

/** Mines `blocks` blocks of `txsPerBlock` transfers from anvil's unlocked dev accounts. */
async function grow({ blocks, txsPerBlock }: (typeof GROWTH)[number]): Promise<void> {
  // Nonces counted here: with automine off, anvil's pending nonce lags the transactions it was just sent.
  const nonces = await Promise.all(accounts.map((address) => pub.getTransactionCount({ address, blockTag: 'pending' })));
  await anvil.setAutomine(false);
  try {
    for (let b = 0; b < blocks; b++) {
      for (let t = 0; t < txsPerBlock; t++) {
        const i = t % accounts.length;
        const from = accounts[i];
        if (from) await wallet.sendTransaction({ account: from, to: SINK, value: 1n, nonce: nonces[i]!++, chain: null });
      }
      await anvil.mine({ blocks: 1 });
    }
  } finally {
    await anvil.setAutomine(true);
  }
  added += blocks;
}

type Step = Awaited<ReturnType<typeof measure>>;

/** The median of RUNS runs: single sub-second runs vary by a third on this machine. */
async function measure() {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await measureOnce());
  const median = runs.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(RUNS / 2)]!;
  return { ...median, peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024) }; // the bench process's peak so far
}

async function measureOnce(receiptsBudget?: number, discoveryDepth = DEFAULT_DEPTH + added) {
  const t0 = performance.now();
  // Discovery walks past the added blocks to the seeded targets.
  const r = await runConformance({ suites: allSuites, url: devnet.url, discoveryDepth, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }], ...(receiptsBudget === undefined ? {} : { receiptsBudget }) });
  return {
    judgedTxs: (r.targets?.judgedBlocks ?? []).reduce((n, b) => n + (b.txCount ?? 0), 0),
    verdicts: r.checks.filter((c) => c.verdict !== 'pass').map((c) => `${c.id}: ${c.verdict}`),
    wallMs: Math.round(performance.now() - t0),
    requests: r.requestCount,
    checks: r.checks.length,
    blocksScanned: r.targets?.scanned.blocks ?? 0,
    targetBlockTxs: r.targets?.multiTxBlock?.txCount ?? 0,
  };
}

try {
  const steps = [await measure()];
  for (const step of GROWTH) {
    await grow(step);
    steps.push(await measure());
  }
  const [base, deeper, wide, wider] = steps as [Step, Step, Step, Step];
  await grow(FULL_BLOCKS);
  // Once each, the walk over the full blocks only (every block judged is full): the budgeted run (the default), and
  // the same without a budget (every receipt one by one, as before it).
  const budgeted = await measureOnce(undefined, FULL_BLOCKS.blocks);
  const unbounded = await measureOnce(Number.MAX_SAFE_INTEGER, FULL_BLOCKS.blocks);
  const per = (a: Step, b: Step, by: number) => ({ ms: round((b.wallMs - a.wallMs) / by), requests: round((b.requests - a.requests) / by) });
  const perBlock = per(base, deeper, deeper.blocksScanned - base.blocksScanned);
  const perTx = per(wide, wider, wider.targetBlockTxs - wide.targetBlockTxs);
  const step = (s: Step) => `${s.blocksScanned} blocks / ${s.targetBlockTxs} txs: ${s.wallMs} ms, ${s.requests} requests`;
  const rows: Row[] = [
    ['Conformance, embedded default: wall time', `${base.wallMs} ms (median of ${RUNS})`, '< 20 s', base.wallMs < 20_000 ? 'yes' : 'no'],
    ['Conformance, embedded default: requests', `${base.requests} (${base.checks} checks)`, '< 400', base.requests < 400 ? 'yes' : 'no'],
    ['Conformance: peak memory (the bench process)', `${base.peakRssMiB} MiB RSS; ${wider.peakRssMiB} MiB after the largest chain`, '-', 'n/a'],
    ['Conformance growth, per block discovery walks', `+${perBlock.ms} ms, +${perBlock.requests} requests (${step(base)} → ${step(deeper)})`, '-', 'n/a'],
    ['Conformance growth, per tx in the target block', `+${perTx.ms} ms, +${perTx.requests} requests (${step(wide)} → ${step(wider)})`, '-', 'n/a'],
    [`Conformance, ${FULL_BLOCKS.blocks} blocks of ${FULL_BLOCKS.txsPerBlock} txs judged (receipts budget)`, `${budgeted.requests} requests, ${budgeted.wallMs} ms with the default budget; ${unbounded.requests} requests, ${unbounded.wallMs} ms without one (${budgeted.judgedTxs} txs in the blocks judged)`, '-', 'n/a'],
  ];
  await saveFigure('conformance', { runsPerStep: RUNS, steps, perBlock, perTx, fullBlocks: { ...FULL_BLOCKS, budgeted, unbounded }, rows });
} finally {
  await devnet.stop();
}
