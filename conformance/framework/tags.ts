// §1's block tags tied to the block each names. A tagged answer is read between two fresh reads of
// eth_getBlockByNumber(tag) (retried when the tag moved in between) and compared with what the same method answers
// for that block by its number. Two tags whose blocks give the same answer (on a short dev chain safe = finalized =
// earliest = 0; two empty blocks) cannot be told apart: the check says so (a pass in part), never passes it silently.
import { q } from '../../core/hex.ts';
import type { BlockRef } from '../../core/targets.ts';
import { stable, type CheckContext } from './check.ts';

/** How many times a tag's block is read again when it moved between the reads that bracket the tagged call. */
const TAG_ATTEMPTS = 3;

/**
 * The block a tag names (eth_getBlockByNumber, read fresh before and after the tagged call: two requests an attempt;
 * retried when it moved) and the answer `read` gave in between: inconclusive when the tag moved every time, or names no block.
 */
export async function taggedRead<T>(t: CheckContext, tag: string, read: () => Promise<T>): Promise<{ block: BlockRef; answer: T }> {
  const named = () => t.leaned<BlockRef>('eth_getBlockByNumber', [tag, false], `the tag ${tag}`, { fresh: true });
  for (let attempt = 1; attempt <= TAG_ATTEMPTS; attempt++) {
    const before = await named();
    const answer = await read();
    const after = await named();
    if (q(before.number) === undefined || typeof before.hash !== 'string') t.inconclusive(`eth_getBlockByNumber gave no usable block (number and hash) for the tag ${tag}`);
    if (before.hash === after.hash && before.number === after.number) return { block: { number: before.number, hash: before.hash }, answer };
  }
  return t.inconclusive(`the block the tag ${tag} names moved during each of ${TAG_ATTEMPTS} attempts`);
}

/** The tags whose blocks each check ties, read in this order: each can only have moved up by the next read. */
export const TIED_TAGS = ['earliest', 'finalized', 'safe'] as const;

/**
 * After the tags were judged: earliest at or below finalized, finalized at or below safe, safe at or below the head; and
 * the tags (latest among them) whose blocks give the same answer named as not told apart, the pass then in part.
 */
export async function tagsInOrder(t: CheckContext, named: Array<{ tag: string; block: BlockRef; expected: unknown }>, latest: { block: BlockRef; expected: unknown }): Promise<void> {
  const head = q(await t.result<string>('eth_blockNumber', [], { fresh: true }));
  if (head === undefined) return t.inconclusive('eth_blockNumber gave no usable head number to compare the tags with');
  [...named.map((n) => ({ tag: n.tag, number: BigInt(n.block.number) })), { tag: 'the head', number: head }].reduce((low, next) => {
    t.expect(low.number <= next.number, `the ${low.tag} block ${low.number} is above ${next.tag === 'the head' ? 'the head' : `the ${next.tag} block`} ${next.number}`, { pointer: '/result', expected: `<= ${next.number}`, actual: low.number.toString() });
    return next;
  });
  const groups = new Map<string, string[]>();
  for (const n of [...named, { tag: 'latest', ...latest }]) {
    const key = stable(n.expected) ?? 'undefined';
    groups.set(key, [...(groups.get(key) ?? []), `${n.tag} (block ${BigInt(n.block.number)})`]);
  }
  const alike = [...groups.values()].filter((g) => g.length > 1);
  if (alike.length) t.partly(`tags whose blocks give the same answer, so an endpoint answering one for the other could not be told apart here: ${alike.map((g) => g.join(', ')).join('; ')}`);
}
