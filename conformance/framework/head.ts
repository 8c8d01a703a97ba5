// Tag checks that need the head: what a tag returns is compared with the head block read just before
// and just after (number and hash), and the comparison is retried when the head moved between them:
// a live chain is never blamed for moving. And the run's log of every head it read, for the one thing a
// moving chain never does: go back.
import { isObject, toQuantity } from '../../core/hex.ts';
import type { CheckContext, MethodSuite } from './check.ts';
import type { Exchange } from '../../core/node/rpc-client.ts';

export interface HeadBlock {
  number: string;
  hash: string;
  transactions: string[];
  uncles: string[];
}

const ATTEMPTS = 3;

export async function readHead(t: CheckContext): Promise<HeadBlock> {
  const head = await t.result<HeadBlock | null>('eth_getBlockByNumber', ['latest', false], { fresh: true });
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

/** One read of the chain head in a run: its number, its hash when the read gave the block, and when it was asked and answered. */
export interface HeadRead {
  number: bigint;
  hash?: string;
  /** The call that read it: `eth_blockNumber` or `eth_getBlockByNumber("latest")`. */
  via: string;
  /** performance.now() before the call was queued, and when its answer was in. */
  askedAt: number;
  answeredAt: number;
  /** The exchange, for evidence. */
  exchange: Exchange;
}

/**
 * Every read of the head a run makes (preflight, the head-bracketed checks, the checks' own reads, the last read),
 * fed by the run's client. Two reads are ordered only when the first was answered before the second was asked: an
 * honest chain, however fast it moves, then never shows the second a lower number. Overlapping reads are not
 * ordered (either may have been served first), and a reorg at the same height is not going back (numbers compared).
 */
export class HeadLog {
  readonly reads: HeadRead[] = [];

  observe(ex: Exchange, askedAt: number, answeredAt: number): void {
    if (Array.isArray(ex.request) || !isObject(ex.body) || ex.fault) return;
    const { method, params } = ex.request;
    const result = ex.body['result'];
    if (method === 'eth_blockNumber') {
      const number = quantity(result);
      if (number !== undefined) this.reads.push({ number, via: 'eth_blockNumber', askedAt, answeredAt, exchange: ex });
    } else if (method === 'eth_getBlockByNumber' && params[0] === 'latest' && isObject(result)) {
      const number = quantity(result['number']);
      const hash = typeof result['hash'] === 'string' ? result['hash'] : undefined;
      if (number !== undefined) this.reads.push({ number, ...(hash ? { hash } : {}), via: 'eth_getBlockByNumber("latest")', askedAt, answeredAt, exchange: ex });
    }
  }

  /** Pairs of reads the clock orders (the first answered before the second was asked). */
  ordered(): number {
    return this.reads.reduce((n, a) => n + this.reads.filter((b) => a.answeredAt <= b.askedAt).length, 0);
  }

  /** The ordered pair whose later read fell furthest below the earlier one, if the head ever went back. */
  wentBack(): { before: HeadRead; after: HeadRead } | undefined {
    let worst: { before: HeadRead; after: HeadRead } | undefined;
    for (const before of this.reads) {
      for (const after of this.reads) {
        if (before.answeredAt > after.askedAt || after.number >= before.number) continue;
        if (!worst || before.number - after.number > worst.before.number - worst.after.number) worst = { before, after };
      }
    }
    return worst;
  }
}

/** "block 12 (0xab…) by eth_getBlockByNumber("latest")": a head read as a message names it. */
export function headText(read: HeadRead): string {
  return `block ${read.number} (${read.hash ?? 'no hash'}) by ${read.via}`;
}

function quantity(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^0x[0-9a-f]{1,64}$/i.test(value) ? BigInt(value) : undefined;
}

/**
 * service/head-never-goes-back, added to the service suite last (conformance/methods.ts) so that it judges every head
 * the run read before it: the preflight's, the head-bracketed checks', and two reads of its own (eth_blockNumber and
 * the latest block), a run's last. A provider whose balancer sends the next read to a lagging backend fails it.
 */
export function headNeverGoesBack(suite: MethodSuite): void {
  suite.check(
    { intent: 'head-never-goes-back', clause: 'invariant: the chain only grows (facts.md: moving chains and stale providers)', layer: 'invariant', title: 'no read of the head (eth_blockNumber, the latest block) during the run names a lower block number than a read answered before it was asked (a reorg at the same height is not going back)', covers: ['tag:latest'] },
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
  );
}
