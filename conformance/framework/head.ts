// Tag checks that need the head: what a tag returns is compared with the head block read just before
// and just after (number and hash), and the comparison is retried when the head moved between them:
// a live chain is never blamed for moving. And service/head-never-goes-back, judged over the run's log of every
// head it read (head-log.ts) for the one thing a moving chain never does: go back.
import { isObject, toQuantity } from '../../core/hex.ts';
import type { CheckContext, MethodSuite } from './check.ts';
import { headText, type HeadRead } from './head-log.ts';

export interface HeadBlock {
  number: string;
  hash: string;
  transactions: string[];
  uncles: string[];
}

/** This builder's file, for the catalogue: the ids it declares are composed from the suite's method. */
const HERE = 'conformance/framework/head.ts';

const ATTEMPTS = 3;

/** The block latest names; `apart`: read over a new connection (head-served.ts, latest-fresh.ts). */
export async function readHead(t: CheckContext, apart = false): Promise<HeadBlock> {
  const head = await t.result<HeadBlock | null>('eth_getBlockByNumber', ['latest', false], { fresh: true, apart });
  if (!isObject(head) || typeof head.hash !== 'string' || !Array.isArray(head.transactions) || !Array.isArray(head.uncles)) {
    return t.inconclusive('eth_getBlockByNumber("latest") gave no usable head block to compare with');
  }
  return head;
}

/**
 * Calls `read` between two reads of the head; when both reads name the same block (number and hash),
 * `judge` compares what `read` returned with that head. Inconclusive when the head moved every time.
 */
export async function atHead<T>(t: CheckContext, read: () => Promise<T>, judge: (value: T, head: HeadBlock) => void): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await readHead(t);
    const value = await read();
    const after = await readHead(t);
    if (before.hash !== after.hash || before.number !== after.number) continue;
    judge(value, before);
    return;
  }
  t.inconclusive(`the head moved during each of ${ATTEMPTS} attempts`);
}

/**
 * service/head-never-goes-back, added to the service suite last (conformance/methods.ts) so that it judges every head
 * the run read before it: the preflight's, the head-bracketed checks', and two reads of its own (eth_blockNumber and
 * the latest block), a run's last. A provider whose balancer sends the next read to a lagging backend fails it.
 */
export function headNeverGoesBack(suite: MethodSuite): void {
  suite.check(
    { id: `${suite.method}/head-never-goes-back`, clause: { invariant: 'the chain only grows' }, layer: 'invariant', title: 'no read of the head (eth_blockNumber, the latest block) during the run names a lower block number than a read answered before it was asked (a reorg at the same height is not going back)', covers: ['tag:latest'], alone: true },
    async (t) => {
      // The runner's client logs every head read (HeadLog); these two are the run's last before its closing read.
      await t.exchange('eth_blockNumber', [], { fresh: true });
      await t.exchange('eth_getBlockByNumber', ['latest', false], { fresh: true });
      const back = t.heads.wentBack();
      if (back) {
        // eth_blockNumber names no hash: the block at its number is read for it (a read of history, not of the head).
        const hashOf = async (read: HeadRead) => read.hash ?? (await t.exchange('eth_getBlockByNumber', [toQuantity(read.number), false]).then((ex) => (isObject(ex.body) && isObject(ex.body['result']) && typeof ex.body['result']['hash'] === 'string' ? `${ex.body['result']['hash']} by number` : undefined)));
        const [before, after] = [{ ...back.before, hash: await hashOf(back.before) }, { ...back.after, hash: await hashOf(back.after) }];
        t.evidence.length = 0;
        t.record(before.exchange);
        t.record(after.exchange);
        t.fail(`the head went back: ${headText(before)} was answered before ${headText(after)} was asked, ${before.number - after.number} block(s) lower`, { pointer: after.via === 'eth_blockNumber' ? '/result' : '/result/number', expected: `at least ${toQuantity(before.number)}`, actual: toQuantity(after.number) });
      }
      const pairs = t.heads.ordered();
      if (pairs === 0) t.inconclusive(`no two of the run's ${t.heads.reads.length} head read(s) are ordered in time (each overlapped the other): nothing compared`);
      t.note(`${t.heads.reads.length} head reads, ${pairs} pair(s) ordered in time compared; the head went from block ${t.heads.reads[0]?.number} to ${t.heads.reads.at(-1)?.number}`);
    },
    HERE,
  );
}
