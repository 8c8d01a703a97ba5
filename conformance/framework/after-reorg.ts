// service/after-reorg: what a pool of nodes behind caches gets wrong once the chain reorganises. A response cache that
// keeps its by-number entries serves the orphaned fork by number; a transaction index that is not rolled back answers
// a reorged-out transaction, or its receipt, naming the orphaned block. Judged against the endpoint's own word: the
// head's parent chain, read by hash, is the fork it says is canonical now; nothing is known without a reorg in the run.
import { isObject, toQuantity } from '../../core/hex.ts';
import type { CheckContext, MethodSuite } from './check.ts';

const HERE = 'conformance/framework/after-reorg.ts';
/** The newest heights the run read, read again by number and walked down to by hash before judging. */
const REREAD = 8;
/** How far back the head's parent chain is walked, in blocks. */
const WALK_MAX = 64;
/** Walks of the parent chain begun again when a reorg takes a parent away mid-walk. */
const WALKS = 3;
/** Orphaned transactions asked again, per orphaned block. */
const TXS_PER_BLOCK = 4;
/** A pool catching up after the reorg gets this long before a mismatch is judged again, and failed. */
const GRACE_MS = 2_000;

type Block = { number: string; hash: string; parentHash: string };
const isBlock = (b: unknown): b is Block => isObject(b) && typeof b['number'] === 'string' && typeof b['hash'] === 'string' && typeof b['parentHash'] === 'string';

export function afterReorg(suite: MethodSuite): void {
  suite.check(
    {
      id: `${suite.method}/after-reorg`,
      clause: { invariant: 'one fork after a reorg' },
      layer: 'invariant',
      title: 'after a reorg the run saw (a height answered under two hashes), the block by number at each such height is the one on the head\'s parent chain, and the orphaned blocks\' transactions and receipts found by hash name a block on that chain (or are null)',
      covers: ['tag:latest'],
      alone: true,
    },
    async (t) => {
      // The newest heights the run read, by number once more, and the head's parent chain down to them by hash: a
      // reorg among them since, or a by-number answer off the head's own chain, shows as a height under two hashes.
      const newest = t.forks.newest(REREAD);
      await Promise.all(newest.map((n) => t.exchange('eth_getBlockByNumber', [toQuantity(n), false], { fresh: true })));
      const walked = newest.length ? await parentChain(t, newest.at(-1)!, false) : undefined;
      const reorged = t.forks.reorged();
      if (!reorged.length) t.notOnThisChain('no-reorg', `no reorg seen in this run (${t.forks.shown} blocks read, none of their heights under two hashes): what the endpoint serves after a reorg is NOT JUDGED`);
      let wrong = await mismatches(t, walked);
      if (wrong.length) {
        await new Promise((r) => setTimeout(r, GRACE_MS));
        wrong = await mismatches(t);
      }
      if (wrong.length) {
        for (const w of wrong.slice(1)) t.note(w);
        t.fail(`${wrong[0]!}${wrong.length > 1 ? ` (+${wrong.length - 1} more)` : ''}, and still ${GRACE_MS / 1000} s later`);
      }
      t.note(`reorgs seen at ${reorged.map((r) => `block ${r.number} (${r.blocks.length} hashes)`).join(', ')}: by number and by hash, the endpoint serves the fork its head descends from`);
    },
    HERE,
  );
}

/**
 * What the endpoint serves against the fork its head descends from: each contradiction, with both hashes and the time
 * since the reorg was seen. `walked`: a parent chain just walked, reused when it reaches the lowest reorged height.
 */
async function mismatches(t: CheckContext, walked?: Map<bigint, string>): Promise<string[]> {
  const reorged = t.forks.reorged();
  const lowest = reorged[0]!.number;
  const chain = walked?.has(lowest) ? walked : await parentChain(t, lowest);
  const wrong: string[] = [];
  const since = (at: number) => `${Math.round(performance.now() - at)} ms after the run first saw that height under another hash`;
  const canonical = async (n: bigint): Promise<string | undefined> => {
    const known = chain.get(n);
    if (known) return known;
    const b = await t.result<unknown>('eth_getBlockByNumber', [toQuantity(n), false], { fresh: true });
    return isBlock(b) ? b.hash : undefined;
  };
  // Every block a reorg took away, whichever reorg: an index may name one orphaned two reorgs ago.
  const orphaned = new Set(reorged.flatMap((r) => r.blocks.filter((b) => chain.has(r.number) && b.hash !== chain.get(r.number)).map((b) => b.hash)));
  for (const r of reorged) {
    const onChain = chain.get(r.number);
    if (!onChain) continue;
    const byNumber = await t.result<unknown>('eth_getBlockByNumber', [toQuantity(r.number), false], { fresh: true });
    const seenAt = Math.max(...r.blocks.map((b) => b.at));
    if (isBlock(byNumber) && byNumber.hash !== onChain) wrong.push(`block ${r.number} by number is ${byNumber.hash}, an orphaned fork: the head's parent chain runs through ${onChain} at that height (${since(seenAt)})`);
    for (const orphan of r.blocks.filter((b) => b.hash !== onChain)) {
      for (const tx of (orphan.txs ?? []).slice(0, TXS_PER_BLOCK)) {
        for (const method of ['eth_getTransactionByHash', 'eth_getTransactionReceipt']) {
          const o = await t.result<unknown>(method, [tx], { fresh: true });
          if (!isObject(o) || typeof o['blockHash'] !== 'string' || typeof o['blockNumber'] !== 'string') continue;
          const named = BigInt(o['blockNumber']);
          const there = await canonical(named);
          if (there !== undefined && o['blockHash'] !== there) {
            wrong.push(`${method}(${tx}) names block ${named} ${o['blockHash']}${orphaned.has(o['blockHash']) ? ', the block a reorg took away' : ''}, while the chain holds ${there} at that height (${since(seenAt)})`);
          }
        }
      }
    }
  }
  return wrong;
}

/**
 * The head and its ancestors by parentHash, down to `lowest` (WALK_MAX blocks at most): number -> hash. A parent the
 * endpoint no longer has is a reorg during the walk (the chain moves while it is read): walked again from the new head,
 * WALKS times at most. `needed`: a walk that cannot get there leaves the check inconclusive (a reorg to judge);
 * otherwise it only shows what it walked.
 */
async function parentChain(t: CheckContext, lowest: bigint, needed = true): Promise<Map<bigint, string>> {
  let chain = new Map<bigint, string>();
  let walks = 0;
  for (; walks < WALKS && !chain.has(lowest); walks++) {
    chain = new Map();
    let b = await t.result<unknown>('eth_getBlockByNumber', ['latest', false], { fresh: true });
    for (let k = 0; isBlock(b) && k < WALK_MAX; k++) {
      const n = BigInt(b.number);
      chain.set(n, b.hash);
      if (n <= lowest) break;
      b = await t.result<unknown>('eth_getBlockByHash', [b.parentHash, false], { fresh: true });
    }
    if (chain.size >= WALK_MAX) break;
  }
  if (needed && !chain.has(lowest)) t.inconclusive(`the head's parent chain could not be walked down to block ${lowest}, where the run saw a reorg (${chain.size} blocks walked${walks > 1 ? `, ${walks} walks: a reorg took a parent away during each` : ''})`);
  return chain;
}
