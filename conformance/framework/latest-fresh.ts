// §1 block tag: `latest` names the chain's head. A `latest` (and eth_blockNumber) that lags while lookups by hash
// are current is caught without any reference: the endpoint serves by hash a block, transaction or receipt in a
// block above the head its `latest` names afterwards.
//
// Race-safe by order, not by luck: every head read made after an object was served by hash must be at or above
// that object's block, since a moving chain only raises it. A read below it is read again LATEST_GRACE_MS later (an honest
// balancer may serve N-1 for a moment after publishing N): the check fails only when the lag outlasts the grace.
// eth_blockNumber against the head `latest` names is a comparison of two reads, bracketed by atHead.
import { isObject, q, toQuantity } from '../../core/hex.ts';
import type { CheckContext, MethodSuite } from './check.ts';
import type { Section } from './clause.ts';
import type { Tie } from '../../core/fields.ts';
import { atHead, readHead, type HeadBlock } from './head.ts';
import { resultOf } from '../../core/node/rpc-client.ts';

/** How long a head read may stay below a block already served by hash before it is a stale `latest`. */
export const LATEST_GRACE_MS = 2_000;
/**
 * How the probes here and in head-served.ts read: fresh, each over a new connection, so that a balancer pinning each
 * connection to one backend (an L4 balancer) is met on several of them, not judged through one.
 */
export const APART = { fresh: true, apart: true } as const;
/** How far above the head `latest` names the blocks served by number are looked for (doubling, then halving). */
const ABOVE_MAX = 1024n;

/** A block number the endpoint showed, and how. */
interface Seen {
  number: bigint;
  what: string;
}

/** What a method's own `latest` answer says of the block it was read from (nothing, for an answer naming none). */
export type OwnLatest = (t: CheckContext) => Promise<{ number?: unknown; what: string }>;

/**
 * Adds `<method>/latest-not-behind`: the method's own `latest` answer (when it names a block), eth_blockNumber and
 * eth_getBlockByNumber("latest"), each read after the probe, are never below a block the endpoint served by hash.
 */
export function latestNotBehind(suite: MethodSuite, section: Section, answer: string, ties: Tie[], own: OwnLatest): void {
  suite.check(
    {
      id: `${suite.method}/latest-not-behind`,
      clause: [{ section: '1', part: 'block tag' }, { section }],
      layer: 'spec',
      title: `the tag latest is not behind what the endpoint serves by hash: once the discovery walk's top, the head and the highest block above it by number (with its first transaction, receipt and block receipts) were looked up by hash, ${answer}, eth_blockNumber and eth_getBlockByNumber("latest") name no lower block (a lag is read again ${LATEST_GRACE_MS / 1000} s later before it fails); eth_blockNumber reports the head latest names (bracketed by the head number and hash; retried when the head moves)`,
      covers: ['tag:latest'],
      ties: ['tag.latest', ...ties],
    },
    async (t) => {
      await t.each([() => notBehindByHash(t, own), () => blockNumberIsHead(t)], (judge) => judge());
    },
    // This builder composes the id from the suite's method: the catalogue names this file.
    'conformance/framework/latest-fresh.ts',
  );
}

async function notBehindByHash(t: CheckContext, own: OwnLatest): Promise<void> {
  // The higher of two head reads: a balancer alternating between backends shows its freshest on one of them.
  const [one, two] = [await readHead(t, true), await readHead(t, true)];
  const start = headNumber(t, two) > headNumber(t, one) ? two : one;
  const served = await servedByHash(t, start);
  const top = served.reduce<Seen | undefined>((a, s) => (a === undefined || s.number > a.number ? s : a), undefined);
  const reads = await laterReads(t, own);
  if (!top) return t.note(`nothing was served by hash to judge latest against (asked: the walk's top ${t.targets.head.hash} and the head ${start.hash})`);
  const below = (rs: Seen[]) => rs.filter((r) => r.number < top.number);
  if (below(reads).length === 0) return;
  // Read twice after the grace: a balancer that alternates between backends is met on both.
  await new Promise((r) => setTimeout(r, LATEST_GRACE_MS));
  const again = below([...(await laterReads(t, own)), ...(await laterReads(t, own))]);
  const first = again[0];
  if (!first) return t.note(`latest named a block below block ${top.number} (${top.what}, served by hash) for a moment, and was at or above it ${LATEST_GRACE_MS / 1000} s later`);
  const others = again.slice(1).map((r) => `${r.what}: block ${r.number}`);
  t.fail(
    `latest is ${top.number - first.number} block(s) behind what the endpoint serves by hash: it served ${top.what} in block ${top.number}, and ${LATEST_GRACE_MS / 1000} s later ${first.what} named block ${first.number} as the head${others.length ? ` (also ${others.join(', ')})` : ''}`,
    { pointer: '/result', expected: `block ${top.number} or above`, actual: `block ${first.number}` },
  );
}

/** Also judged: eth_blockNumber reports the head `latest` names, both read while the head stood still. */
async function blockNumberIsHead(t: CheckContext): Promise<void> {
  await atHead(
    t,
    () => t.result<unknown>('eth_blockNumber', [], { fresh: true }),
    (reported, head) => {
      const n = typeof reported === 'string' ? q(reported) : undefined;
      if (n === undefined) return t.inconclusive(`leans on eth_blockNumber, whose answer ${JSON.stringify(reported)} is not a quantity`);
      const named = headNumber(t, head);
      t.expect(n === named, `eth_blockNumber reported block ${n} while latest named block ${named} (${head.hash}), before and after it`, { pointer: '/result', expected: head.number, actual: reported });
    },
  );
}

/**
 * Blocks, transactions and receipts the endpoint serves by hash at or above the head `start`: the discovery walk's
 * top block, the head itself and its first transaction and receipt, and the highest block above it served by number
 * (the head's child, its descendants), with its first transaction, receipt and block receipts.
 */
async function servedByHash(t: CheckContext, start: HeadBlock): Promise<Seen[]> {
  const seen: Seen[] = [];
  const walkTop = t.targets.head.hash;
  await byHash(t, { hash: walkTop }, 'the top of the discovery walk', seen);
  await byHash(t, start, 'the head latest named', seen);
  const above = await highestAbove(t, start);
  if (above) await byHash(t, above, above.why, seen);
  return seen;
}

/**
 * A block by hash and, when its transactions are known (read with it by number), its first transaction and receipt by
 * hash and its receipts by block hash (if served): each asked whatever the others answered.
 */
async function byHash(t: CheckContext, block: { hash: string; transactions?: unknown }, which: string, seen: Seen[]): Promise<void> {
  const { hash } = block;
  const number = numberOf(await lookup(t, 'eth_getBlockByHash', [hash, false]), 'number');
  if (number !== undefined) seen.push({ number, what: `block ${hash} (${which}; eth_getBlockByHash)` });
  if (!Array.isArray(block.transactions)) return;
  const tx: unknown = block.transactions[0];
  if (typeof tx === 'string') {
    const served = numberOf(await lookup(t, 'eth_getTransactionByHash', [tx]), 'blockNumber');
    if (served !== undefined) seen.push({ number: served, what: `transaction ${tx} (eth_getTransactionByHash)` });
    const receipt = numberOf(await lookup(t, 'eth_getTransactionReceipt', [tx]), 'blockNumber');
    if (receipt !== undefined) seen.push({ number: receipt, what: `the receipt of ${tx} (eth_getTransactionReceipt)` });
  }
  const receipts = await lookup(t, 'eth_getBlockReceipts', [hash]);
  const inBlock = Array.isArray(receipts) ? numberOf(receipts[0], 'blockNumber') : undefined;
  if (inBlock !== undefined) seen.push({ number: inBlock, what: `the receipts of block ${hash} (eth_getBlockReceipts by hash)` });
}

/** The highest block served by number above the head (doubling the distance, then halving the gap), if any. */
async function highestAbove(t: CheckContext, start: HeadBlock): Promise<{ hash: string; transactions: unknown; why: string } | undefined> {
  const base = headNumber(t, start);
  const byNumber = async (n: bigint) => {
    const b = await lookup(t, 'eth_getBlockByNumber', [toQuantity(n), false]);
    return isObject(b) && typeof b['hash'] === 'string' && numberOf(b, 'number') === n ? { hash: b['hash'], parent: b['parentHash'], transactions: b['transactions'] } : undefined;
  };
  let found: { n: bigint; hash: string; parent: unknown; transactions: unknown } | undefined;
  let missing: bigint | undefined;
  for (let step = 1n; step <= ABOVE_MAX && missing === undefined; step *= 2n) {
    const b = await byNumber(base + step);
    if (b) found = { n: base + step, ...b };
    else missing = base + step;
  }
  if (!found) return undefined;
  while (missing !== undefined && missing - found.n > 1n) {
    const mid: bigint = (found.n + missing) / 2n;
    const b = await byNumber(mid);
    if (b) found = { n: mid, ...b };
    else missing = mid;
  }
  const child = found.n === base + 1n && found.parent === start.hash ? ', the child of the head latest named' : '';
  return { hash: found.hash, transactions: found.transactions, why: `the highest block served by number above the head latest named${child}` };
}

/** The head as each read after the probe names it: the method's own `latest` answer, eth_blockNumber, the latest block. */
async function laterReads(t: CheckContext, own: OwnLatest): Promise<Seen[]> {
  const reads: Seen[] = [];
  const mine = await own(t);
  const n = typeof mine.number === 'string' ? q(mine.number) : undefined;
  if (n !== undefined) reads.push({ number: n, what: mine.what });
  const reported = await t.result<unknown>('eth_blockNumber', [], APART);
  const bn = typeof reported === 'string' ? q(reported) : undefined;
  if (bn !== undefined) reads.push({ number: bn, what: 'eth_blockNumber' });
  const head = await readHead(t, true);
  reads.push({ number: headNumber(t, head), what: 'eth_getBlockByNumber("latest")' });
  return reads;
}

/** A lookup the probe makes: its result, or undefined for an error or an unusable answer (other checks judge those). */
async function lookup(t: CheckContext, method: string, params: unknown[]): Promise<unknown> {
  const ex = await t.exchange(method, params, APART);
  try {
    return resultOf<unknown>(ex);
  } catch {
    return undefined;
  }
}

function headNumber(t: CheckContext, head: HeadBlock): bigint {
  return q(head.number) ?? t.inconclusive(`eth_getBlockByNumber("latest") named no block number (${JSON.stringify(head.number)}) to compare with`);
}

function numberOf(value: unknown, field: string): bigint | undefined {
  const v = isObject(value) ? value[field] : undefined;
  return typeof v === 'string' ? q(v) : undefined;
}
