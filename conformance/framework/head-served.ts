// §1 block tag: a block `latest` names is published, so it is served: by its number, by its hash, its transactions and
// receipts, each naming that block. The settled targets are old, so a provider that serves the newest blocks wrongly
// (null by number while `latest` names them, or the receipts of an older block by hash) passes every check on them:
// these read the head itself (issue 22, red team items 3 and 5).
//
// Every read goes over a new connection (APART), and the probe reads twice: a balancer pinning each connection to one
// backend is met on two of them, not judged through one.
//
// Race-safe: a block `latest` named never stops being served unless a reorg replaced it. A block not found (null, an
// error) is read again LATEST_GRACE_MS later (an honest balancer may serve N-1 for a moment after publishing N) and fails
// only when still not found then; an answer saying the method itself is not there fails at once (no wait serves it).
// Another block's data (its hash, its receipts) is no lag, and fails at once. Either is
// inconclusive when the block at that number has another hash by then (a reorg explains it).
import { isObject, q, toQuantity } from '../../core/hex.ts';
import { NO_ANSWER, resultOf } from '../../core/node/rpc-client.ts';
import type { CheckContext, MethodSuite } from './check.ts';
import type { Section } from './clause.ts';
import type { Tie } from '../../core/fields.ts';
import { readHead, type HeadBlock } from './head.ts';
import { APART, LATEST_GRACE_MS } from './latest-fresh.ts';
import { notThere } from './not-there.ts';

/** How far below the head a block holding a transaction is looked for (parent by parent), when the head holds none. */
const BACK_MAX = 16;
/** How many of the block's transactions are read (each a few calls). */
const TXS_READ = 3;
/** How many times the probe reads, each call over a new connection: a balancer pinning connections to backends meets two. */
const PASSES = 2;

/** The block judged: the head latest named, or its newest ancestor holding a transaction. */
export interface FreshBlock {
  number: bigint;
  hash: string;
  transactions: string[];
}

/** A wrong answer: the call and what was wrong; `missing` when the block or object was not found (null, an error);
 * `notThere` when the answer says the method itself is not there (not-there.ts), which no wait changes. */
export interface Wrong {
  text: string;
  missing: boolean;
  notThere?: true;
}

/** Reads this method makes of the block; each wrong answer once. */
export type Probe = (t: CheckContext, block: FreshBlock) => Promise<Wrong[]>;

/**
 * Adds `<method>/head-served`: the block latest names (the higher of two head reads; its newest ancestor holding a
 * transaction when it holds none) is served by this method as `what` says, every answer naming it.
 */
export function headServed(suite: MethodSuite, section: Section, what: string, ties: Tie[], probe: Probe): void {
  suite.check(
    {
      id: `${suite.method}/head-served`,
      clause: [{ section: '1', part: 'block tag' }, { section }],
      layer: 'spec',
      title: `the head block latest names (or its newest ancestor holding a transaction) is served: ${what}, each read twice over new connections; not found is read again ${LATEST_GRACE_MS / 1000} s later before it fails, another block's data fails at once; inconclusive when a reorg replaced the block`,
      covers: ['tag:latest'],
      ties: ['tag.latest', ...ties],
    },
    async (t) => {
      const block = await freshBlock(t);
      const wrong = await passes(t, probe, block);
      const first = wrong[0];
      if (first === undefined) return;
      const named = `block ${block.number} (${block.hash}), which latest named`;
      const absent = wrong.filter((w) => w.notThere);
      if (absent.length > 0) return t.fail(`${named}, was not served: the method is not there (${list(absent)})`, { pointer: '/error' });
      const served = wrong.filter((w) => !w.missing);
      if (served.length > 0) {
        await notReorged(t, block, served);
        return t.fail(`${named}, was answered with another block's data: ${list(served)}`, { pointer: '/result' });
      }
      await new Promise((r) => setTimeout(r, LATEST_GRACE_MS));
      await notReorged(t, block, wrong);
      const still = await passes(t, probe, block);
      if (still.length === 0) return t.note(`${named}, was not found for a moment (${first.text}), and was ${LATEST_GRACE_MS / 1000} s later`);
      t.fail(`${named}, is not served right ${LATEST_GRACE_MS / 1000} s after it was first read: ${list(still)}`, { pointer: '/result' });
    },
    // This builder composes the id from the suite's method: the catalogue names this file.
    'conformance/framework/head-served.ts',
  );
}

/** The wrong answers of PASSES probes, each distinct one once. */
async function passes(t: CheckContext, probe: Probe, block: FreshBlock): Promise<Wrong[]> {
  const wrong = new Map<string, Wrong>();
  for (let pass = 0; pass < PASSES; pass++) for (const w of await probe(t, block)) wrong.set(w.text, w);
  return [...wrong.values()];
}

const list = (wrong: Wrong[]) => `${wrong[0]?.text}${wrong.length > 1 ? ` (also: ${wrong.slice(1).map((w) => w.text).join('; ')})` : ''}`;

/** Inconclusive when the block at the number judged now has another hash: a reorg replaced it, which explains `wrong`. */
async function notReorged(t: CheckContext, block: FreshBlock, wrong: Wrong[]): Promise<void> {
  const now = await lookup(t, 'eth_getBlockByNumber', [toQuantity(block.number), false]);
  if (isObject(now) && typeof now['hash'] === 'string' && now['hash'] !== block.hash) {
    t.inconclusive(`block ${block.number} (${block.hash}) was replaced by ${now['hash']} (a reorg) while it was read: ${list(wrong)}`);
  }
}

/** The higher of two head reads (a balancer alternating backends shows its freshest on one), or its newest ancestor with a transaction. */
async function freshBlock(t: CheckContext): Promise<FreshBlock> {
  const [one, two] = [await readHead(t, true), await readHead(t, true)];
  const head = (q(two.number) ?? 0n) > (q(one.number) ?? 0n) ? two : one;
  let block: HeadBlock = head;
  for (let back = 0; back <= BACK_MAX; back++) {
    const number = q(block.number);
    if (number === undefined) return t.inconclusive(`eth_getBlockByNumber("latest") named no block number (${JSON.stringify(block.number)})`);
    const txs = block.transactions.filter((x): x is string => typeof x === 'string');
    if (txs.length > 0) {
      if (back > 0) t.note(`the head ${q(head.number)} held no transaction: judged block ${number}, ${back} below it`);
      return { number, hash: block.hash, transactions: txs };
    }
    // Asked PASSES times, each over a new connection: one backend of a balancer may not know it yet.
    const parentHash = (block as unknown as Record<string, unknown>)['parentHash'];
    let parent: HeadBlock | undefined;
    for (let ask = 0; ask < PASSES && !parent; ask++) {
      const p: unknown = await lookup(t, 'eth_getBlockByHash', [parentHash, false]);
      parent = isObject(p) && typeof p['hash'] === 'string' && Array.isArray(p['transactions']) ? (p as unknown as HeadBlock) : undefined;
    }
    if (!parent) return t.inconclusive(`the head ${q(head.number)} held no transaction, and its ancestor ${String(parentHash)} (block ${number - 1n}) was not served by hash: no block holding a transaction to read`);
    block = parent;
  }
  return t.inconclusive(`no block holding a transaction within ${BACK_MAX} blocks of the head ${q(head.number)}: nothing fresh to read`);
}

/** A call's result, or the error it answered as text (a wrong answer here, never a reason to stop). */
export async function lookup(t: CheckContext, method: string, params: unknown[]): Promise<unknown> {
  const ex = await t.exchange(method, params, APART);
  // No answer at all (a timeout, a stall, unreachable, a rate limit) says nothing of freshness: not judged, never stale.
  if (ex.fault && NO_ANSWER.includes(ex.fault)) return t.inconclusive(`${method} gave no answer (${ex.fault}${ex.faultDetail ? `: ${ex.faultDetail}` : ''}): the head block's objects could not be read`);
  try {
    return resultOf<unknown>(ex);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    return notThere(ex.httpStatus, ex.body) === undefined ? { error } : { error, notThere: true };
  }
}

/** Not found: null, or the error lookup() turned into text (marked when it says the method is not there). */
export function notFound(call: string, answer: unknown): Wrong | undefined {
  if (answer === null) return { text: `${call} answered null`, missing: true };
  if (isObject(answer) && typeof answer['error'] === 'string' && Object.keys(answer).every((k) => k === 'error' || k === 'notThere')) {
    return { text: `${call} answered an error: ${answer['error']}`, missing: true, ...(answer['notThere'] === true ? { notThere: true as const } : {}) };
  }
  return undefined;
}

/** What is wrong with an object that must name `block` (its blockHash and blockNumber) and `field` = `value`; undefined when right. */
export function misplaced(call: string, answer: unknown, block: FreshBlock, field: string, value: string): Wrong | undefined {
  const missing = notFound(call, answer);
  if (missing) return missing;
  const wrong = (text: string): Wrong => ({ text: `${call} answered ${text}`, missing: false });
  if (!isObject(answer)) return wrong(JSON.stringify(answer).slice(0, 120));
  if (answer[field] !== value) return wrong(`${field} ${String(answer[field])}, not ${value}`);
  if (answer['blockHash'] !== block.hash) return wrong(`blockHash ${String(answer['blockHash'])} (block ${q(String(answer['blockNumber']))}), not ${block.hash}`);
  if (q(String(answer['blockNumber'])) !== block.number) return wrong(`blockNumber ${String(answer['blockNumber'])}, not ${toQuantity(block.number)}`);
  return undefined;
}

/** The first transactions of the block (at most TXS_READ), with their index. */
export const readTxs = (block: FreshBlock) => block.transactions.slice(0, TXS_READ).map((hash, i) => ({ hash, i }));
