// Tag checks that need the head: what a tag returns is compared with the head block read just before
// and just after (number and hash), and the comparison is retried when the head moved between them:
// a live chain is never blamed for moving.
import { isObject } from '../../core/hex.ts';
import type { CheckContext } from './check.ts';

export interface HeadBlock {
  number: string;
  hash: string;
  transactions: string[];
  uncles: string[];
}

const ATTEMPTS = 3;

async function readHead(t: CheckContext): Promise<HeadBlock> {
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
