// The served-depth search (core/history.ts) on probes of known answers, eth_capabilities as geth 1.17.8 serves it, and
// the gateway's pruned mode (devnet/pruned.ts).
import { expect } from 'chai';
import { capabilitiesOf, declaredOldest, depthText, findServedDepth, type Probe, type ProbeAnswer, REPROBES, stratumOf } from '../../core/history.ts';
import { blockReached, capabilities, pruneAnswer } from '../../devnet/pruned.ts';

/** A resource served from `oldest` up (answers by height), counting the asks. */
function servedFrom(oldest: (asked: number) => bigint, opts: { emptyBelow?: bigint; emptyBetween?: [bigint, bigint] } = {}): { probe: Probe; asks: () => number } {
  let asks = 0;
  const kindAt = (n: bigint): 'served' | 'pruned' => (n >= oldest(asks) ? 'served' : 'pruned');
  const probe: Probe = async (n, walk, below) => {
    for (let m = n; m < n + BigInt(walk) && m < below; m++) {
      asks++;
      const empty = (opts.emptyBelow !== undefined && m < opts.emptyBelow) || (opts.emptyBetween && m >= opts.emptyBetween[0] && m < opts.emptyBetween[1]);
      if (empty) continue;
      const kind = kindAt(m);
      return { kind, at: m, detail: kind === 'pruned' ? 'pruned (error 4444: gone)' : 'served', again: async () => (asks++, kindAt(m)) } satisfies ProbeAnswer;
    }
    return { kind: 'empty', at: n, detail: 'nothing' };
  };
  return { probe, asks: () => asks };
}

const still = (head: bigint) => async () => head;

describe('the served-depth search', () => {
  it('finds the exact boundary of a node keeping the latest 64 blocks, in a handful of requests, and re-probes each side', async () => {
    const { probe, asks } = servedFrom(() => 937n);
    const d = await findServedDepth(1000n, probe, still(1000n));
    expect(d).to.deep.include({ oldestServed: 937n, newestPruned: 936n, exact: true });
    expect(d.moving).to.equal(undefined);
    expect(asks(), 'genesis, the head, ~10 halvings, 2 x 3 re-probes').to.be.below(20);
    expect(depthText({ resource: 'blocks', head: 1000, oldestServed: 937, newestPruned: 936, prunedAnswer: 'pruned (error 4444: gone)', exact: true, probes: d.probes })).to.equal('the latest 64 blocks (oldest served 937; block 936: pruned (error 4444: gone))');
  });

  it('an archive answers block 1: the whole chain, nothing pruned, after block 1, a spot check a stratum (128 … 1M back) and half way, and the re-probes', async () => {
    const { probe, asks } = servedFrom(() => 0n);
    const d = await findServedDepth(20_000_000n, probe, still(20_000_000n));
    expect(d).to.deep.include({ oldestServed: 1n, exact: true });
    expect(d.newestPruned).to.equal(undefined);
    expect(asks()).to.equal(1 + 6 + REPROBES);
  });

  it('a node that expired its history but keeps genesis (as geth does) is not taken for an archive', async () => {
    const { probe } = servedFrom(() => 937n);
    const genesisKept: Probe = async (n, walk, below) => (n === 0n ? { kind: 'served', at: 0n, detail: 'served', again: async () => 'served' } : probe(n, walk, below));
    const d = await findServedDepth(1000n, genesisKept, still(1000n));
    expect(d).to.deep.include({ oldestServed: 937n, newestPruned: 936n });
  });

  it('on a chain of 20M blocks stops within 1% of the depth and says the boundary is between', async () => {
    const { probe } = servedFrom(() => 19_000_000n);
    const d = await findServedDepth(20_000_000n, probe, still(20_000_000n));
    expect(d.probes).to.be.below(40);
    expect(d.oldestServed! - d.newestPruned! <= 10_000n, `${d.newestPruned}..${d.oldestServed}`).to.equal(true);
    expect(d.oldestServed! >= 19_000_000n && d.newestPruned! < 19_000_000n).to.equal(true);
  });

  it('walks over blocks with nothing to ask (transactions) and still brackets the boundary', async () => {
    const { probe } = servedFrom(() => 500n, { emptyBelow: 3n, emptyBetween: [480n, 560n] });
    const d = await findServedDepth(1000n, probe, still(1000n));
    expect(d.newestPruned! < 500n && d.oldestServed! >= 500n, `${d.newestPruned}..${d.oldestServed}`).to.equal(true);
    expect(d.newestPruned! < 480n && d.oldestServed! >= 560n, 'the empty stretch is between them').to.equal(true);
    expect(d.exact).to.equal(false);
    expect(depthText({ resource: 'transactions', head: 1000, oldestServed: Number(d.oldestServed), newestPruned: Number(d.newestPruned), exact: false, probes: 1 })).to.match(/^at least the latest \d+ blocks \(served at \d+; block \d+: pruned; the boundary lies between/);
  });

  it('a node that serves block 1 but expired the middle is caught by the spot checks above the oldest served: a hole', async () => {
    const holes: Probe = async (n) => {
      const kind = n >= 20n && n <= 240n ? 'pruned' : 'served';
      return { kind, at: n, detail: kind, again: async () => kind };
    };
    const d = await findServedDepth(308n, holes, still(308n));
    expect(d.oldestServed).to.equal(1n);
    expect(d.newestPruned! > 20n && d.newestPruned! <= 240n, String(d.newestPruned)).to.equal(true);
    expect(depthText({ resource: 'blocks', head: 308, oldestServed: 1, newestPruned: Number(d.newestPruned), prunedAnswer: 'pruned', exact: false, probes: 1 })).to.match(/^HOLES: block 1 served, but block \d+ above it pruned$/);
  });

  it('nothing to ask anywhere (a chain without transactions) is not known, never "pruned"', async () => {
    const d = await findServedDepth(1000n, async (n) => ({ kind: 'empty', at: n, detail: 'nothing' }), still(1000n));
    expect(d).to.deep.include({ nothingToAsk: true });
    expect(d.newestPruned).to.equal(undefined);
  });

  it('a served height answered pruned on re-probe while the head moved is forgiven only at a window edge that moved past it', async () => {
    // The first ask of a height is served, every later one pruned (a pool), on a chain mining between the asks.
    const asked = new Set<bigint>();
    const flip: Probe = async (n) => {
      const kind = asked.has(n) ? 'pruned' : 'served';
      asked.add(n);
      return { kind, at: n, detail: kind, again: async () => 'pruned' };
    };
    let head = 300n;
    const d = await findServedDepth(300n, flip, async () => (head += 3n));
    expect(d.servedThenPruned, 'no pruned height seen: no window edge to have moved').to.equal(1n);
    expect(d.moving).to.match(/block 1, served first, was answered pruned/);
  });

  it('a pool mixing archive and pruned nodes: a re-probe answered otherwise is reported as a moving boundary', async () => {
    // One node in two keeps everything: the boundary a single pass finds is contradicted on re-probe.
    const { probe } = servedFrom((asks) => (asks % 2 === 0 ? 0n : 900n));
    const d = await findServedDepth(1000n, probe, still(1000n));
    expect(d.moving).to.match(/answers from nodes that keep different history/);
  });

  it('a window moving with the head is not taken for a pool: a served height that left the window as the head moved is no contradiction', async () => {
    let head = 1000n;
    // The window moves up a block at every ask.
    const { probe } = servedFrom((asks) => 937n + BigInt(asks));
    const d = await findServedDepth(head, probe, async () => (head += 5n));
    expect(d.servedThenPruned).to.equal(undefined);
  });
});

describe('eth_capabilities', () => {
  // geth v1.17.8 --dev at head 0xa5 (measured here).
  const geth = { head: { number: '0xa5', hash: `0x${'ab'.repeat(32)}` }, state: { disabled: false, oldestBlock: '0x26', deleteStrategy: { type: 'window', retentionBlocks: '0x80' } }, tx: { disabled: false, oldestBlock: '0x0', deleteStrategy: { type: 'window', retentionBlocks: '0x23dbb0' } }, logs: { disabled: false, oldestBlock: '0x0' }, receipts: { disabled: false, oldestBlock: '0x0' }, blocks: { disabled: false, oldestBlock: '0x0' }, stateproofs: { disabled: false, oldestBlock: '0x26' } };

  it('reads each resource geth declares, a window moving its oldest block up with the head', () => {
    const caps = capabilitiesOf(geth)!;
    expect(caps.head).to.equal(165n);
    expect(caps.resources.state).to.deep.equal({ disabled: false, oldestBlock: 38n, window: 128n });
    expect(caps.resources.blocks).to.deep.equal({ disabled: false, oldestBlock: 0n });
    expect(caps.resources.transactions?.window).to.equal(2_350_000n);
    expect(declaredOldest(caps.resources.state!, 170n)).to.equal(43n);
    expect(declaredOldest(caps.resources.blocks!, 170n)).to.equal(0n);
    // A window on a chain shorter than it keeps the whole chain, whatever head a lying declaration names.
    expect(declaredOldest({ disabled: false, oldestBlock: 0n, window: 128n }, 11n)).to.equal(0n);
    expect(capabilitiesOf({ blocks: {} }), 'no head: not eth_capabilities').to.equal(undefined);
    expect(capabilitiesOf('0x1')).to.equal(undefined);
  });
});

describe('the gateway\'s pruned mode', () => {
  const call = (method: string, params: unknown[]) => ({ jsonrpc: '2.0', id: 1, method, params }) as never;
  it('answers error 4444 for a block older than the latest N, by number, "earliest", or the block an answer names; newer blocks and misses pass', () => {
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: 1, result }) as never;
    expect(blockReached(call('eth_getBlockByNumber', ['earliest', false]), ok(null))).to.equal(0n);
    expect(blockReached(call('eth_estimateGas', [{}, '0x10']), ok('0x5208'))).to.equal(16n);
    expect(blockReached(call('eth_getTransactionByHash', ['0x01']), ok({ blockNumber: '0x3' }))).to.equal(3n);
    expect(blockReached(call('eth_getBlockReceipts', [`0x${'ab'.repeat(32)}`]), ok([{ blockNumber: '0x4' }])), 'a block hash is no number').to.equal(4n);
    const pruned = pruneAnswer(call('eth_getBlockByNumber', ['0x5', false]), ok({ number: '0x5' }), 100n, 64) as { error: { code: number; message: string } };
    expect(pruned.error.code).to.equal(4444);
    expect(pruned.error.message).to.match(/block 5 is older than the earliest available block 37/);
    const kept = ok({ number: '0x25' });
    expect(pruneAnswer(call('eth_getBlockByNumber', ['0x25', false]), kept, 100n, 64)).to.equal(kept);
    const miss = ok(null);
    expect(pruneAnswer(call('eth_getTransactionByHash', ['0x01']), miss, 100n, 64)).to.equal(miss);
    expect(pruneAnswer(call('eth_getBlockByNumber', ['0x1', false]), kept, 30n, 64), 'a chain shorter than the window keeps it all').to.equal(kept);
  });

  it('declares what it keeps as geth does: everything (state a full node\'s 128 blocks), or a window of the latest N', () => {
    const all = capabilitiesOf(capabilities(1000n, '0xab', undefined))!;
    expect(all.resources.blocks).to.deep.equal({ disabled: false, oldestBlock: 0n });
    expect(all.resources.state).to.deep.equal({ disabled: false, oldestBlock: 873n, window: 128n });
    const pruned = capabilitiesOf(capabilities(100n, '0xab', 64))!;
    expect(pruned.resources.state).to.deep.equal({ disabled: false, oldestBlock: 37n, window: 64n });
  });
});

describe('depth strata', () => {
  it('names each depth by the stratum it starts in', () => {
    expect([0, 127, 128, 999, 1000, 99_999, 100_000, 5_000_000].map(stratumOf)).to.deep.equal(['head', 'head', '128+', '128+', '1k+', '10k+', '100k+', '1M+']);
  });
});
