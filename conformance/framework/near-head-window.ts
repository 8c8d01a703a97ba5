// §8's near-head window, judged where a network declares one (fixtures/networks.json or --near-head-window N):
// eth_getTransactionReceipt and eth_getTransactionByHash must serve a transaction of the oldest blocks inside the
// window (a window smaller than declared fails, the method named), and a transaction older than the window is
// looked up once and listed as "archive not served" (or served), never judged: the spec allows either.
import { isObject, q, toQuantity } from '../../core/hex.ts';
import { windowEdge } from '../../core/near-head-window.ts';
import { resultOf, RpcError, type TransportError } from '../../core/node/rpc-client.ts';
import type { CheckContext, MethodSuite } from './check.ts';

/** Blocks read from the window's edge inward (and from below it outward) for one with a transaction. */
export const EDGE_PROBE = 8;

/** The first block with transactions among these numbers, and its first transaction's hash. */
async function firstTx(t: CheckContext, numbers: bigint[]): Promise<{ block: bigint; hash: string } | undefined> {
  for (const n of numbers) {
    const block = await t.result<unknown>('eth_getBlockByNumber', [toQuantity(n), false]);
    const txs = isObject(block) && Array.isArray(block['transactions']) ? block['transactions'] : [];
    if (typeof txs[0] === 'string') return { block: n, hash: txs[0] };
  }
  return undefined;
}

/** The head read fresh, or the check inconclusive when eth_blockNumber gives none. */
export async function headOf(t: CheckContext): Promise<bigint> {
  const head = q(await t.result<string>('eth_blockNumber', [], { fresh: true }));
  return head ?? t.inconclusive('eth_blockNumber did not answer a block number');
}

/** What a lookup's answer says, as the report lists it; a transport fault (no usable answer) is thrown. */
function answerText(ex: Parameters<typeof resultOf>[0]): string {
  try {
    return resultOf(ex) === null ? 'null' : 'served';
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    return `error ${err.code}: ${String(err.rpcMessage).slice(0, 120)}`;
  }
}

export function nearHeadWindowCheck(suite: MethodSuite, file: string): void {
  const method = suite.method;
  suite.check(
    { id: `${suite.method}/near-head-window`, clause: { section: '8' }, layer: 'spec', title: 'with a near-head window of N blocks declared for the network (§8): a transaction of the oldest blocks inside it is served (a smaller window fails); one older than the window is looked up once and listed as archive not served, never judged', covers: ['hit'] },
    async (t) => {
      const window = t.window ?? t.notOnThisChain('no-window', 'no near-head window is declared for this network (§8 names no network; fixtures/networks.json nearHeadWindow or --near-head-window N declares one)');
      const head = await headOf(t);
      const edge = windowEdge(head, window.blocks);
      const inside = Array.from({ length: EDGE_PROBE }, (_, i) => edge + BigInt(i)).filter((n) => n <= head);
      const target = (await firstTx(t, inside)) ?? t.skip(`no transaction in blocks ${edge}-${inside.at(-1) ?? edge}, the oldest of the declared window of ${window.blocks} blocks at head ${head}`);
      const ex = await t.exchange(method, [target.hash], { fresh: true, due: true });
      const after = await headOf(t);
      let answer: string;
      try {
        answer = answerText(ex);
      } catch (err) {
        // No usable answer (a timeout, a reset, not JSON): the window is not judged on it; untestable() says which.
        throw t.untestable(err as TransportError);
      }
      await archiveLookup(t, method, window.blocks, head);
      if (answer !== 'served') {
        // The chain moved the block out of the window while it was asked: the answer says nothing of the window's size.
        if (target.block < windowEdge(after, window.blocks)) t.inconclusive(`the head moved from ${head} to ${after} during the lookup: block ${target.block} left the declared window of ${window.blocks} blocks`);
        t.fail(`window smaller than declared: ${method} answered ${answer} for transaction ${target.hash} of block ${target.block}, ${after - target.block} blocks below the head ${after}, inside the declared near-head window of ${window.blocks} blocks (${window.from})`, { pointer: answer === 'null' ? '/result' : '/error', actual: answer });
      }
      const value = resultOf<unknown>(ex);
      const key = method === 'eth_getTransactionReceipt' ? 'transactionHash' : 'hash';
      t.expectEqual(isObject(value) ? value[key] : value, target.hash, `${method} answered another transaction for ${target.hash}`, `/result/${key}`);
    },
    file,
  );
}

/** One transaction older than the window looked up, its answer recorded (CheckResult.archive) and never judged. */
async function archiveLookup(t: CheckContext, method: string, blocks: number, head: bigint): Promise<void> {
  const below = windowEdge(head, blocks) - 1n;
  const older = Array.from({ length: EDGE_PROBE }, (_, i) => below - BigInt(i)).filter((n) => n >= 0n);
  const old = older.length > 0 && head >= BigInt(blocks) ? await firstTx(t, older) : undefined;
  if (!old) return t.note(`no archive lookup: no transaction in the ${older.length} block(s) just below the window${older.length ? ` (${older.at(-1)}-${below})` : ' (the chain is not longer than the window)'}`);
  const ex = await t.exchange(method, [old.hash], { fresh: true });
  let answer: string;
  try {
    answer = answerText(ex);
  } catch (err) {
    answer = `no usable answer (${(err as Error).message.slice(0, 120)})`;
  }
  t.archive = { hash: old.hash, block: toQuantity(old.block), depth: Number(head - old.block), answer };
  t.note(`archive lookup (not judged): transaction ${old.hash} of block ${old.block}, ${head - old.block} blocks below the head, older than the window: ${answer === 'served' ? 'served (the endpoint keeps more than the window)' : `${answer}: archive not served`}`);
}
