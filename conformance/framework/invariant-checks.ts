// The invariant layer (facts.md, "Protocol invariants a harness can recompute"): what the method files
// share to recompute hashes, roots and blooms from what an endpoint serves and judge the result. The
// recomputes themselves live in core/invariants/ (pure, bundle-safe); this file turns their outcome
// into verdicts and holds the one builder both uncle methods use.
import type { BlockRef, JudgedBlock } from '../../core/targets.ts';
import { toQuantity } from '../../core/hex.ts';
import { fieldDiffs } from '../../core/invariants/compare.ts';
import { EncodingError, type Json, type Violation } from '../../core/invariants/encoding.ts';
import { headerHash } from '../../core/invariants/header.ts';
import { recomputable, UnsupportedTxType } from '../../core/invariants/tx.ts';
import type { CheckContext, MethodSuite } from './check.ts';
import type { Section } from './clause.ts';
import { needHistory } from './history.ts';
import { HEADER_FIELDS } from '../../core/fields.ts';

/** How many items of a block the per-item cross-checks look at (the roots still cover the whole block). */
export const SAMPLE = 16;

/**
 * The blocks the block-level invariants judge: discovery's pick (capped, spread over the eras found), or,
 * from a lockfile written before discovery picked them, the block with transactions and the empty block.
 */
export function judgedRefs(t: CheckContext): Array<{ name: string; ref: JudgedBlock }> {
  const { judgedBlocks, multiTxBlock, emptyBlock } = t.targets;
  const refs: JudgedBlock[] = judgedBlocks?.length
    ? judgedBlocks
    : [
        ...(multiTxBlock ? [{ ...multiTxBlock, era: '?', why: ['most transactions'] }] : []),
        ...(emptyBlock && emptyBlock.hash !== multiTxBlock?.hash ? [{ ...emptyBlock, era: '?', txCount: 0, why: ['empty'] }] : []),
      ];
  if (refs.length === 0) t.skip('no block found on this endpoint to judge');
  const named = refs.map((ref) => ({ name: `block ${/^0x[0-9a-f]+$/i.test(ref.number) ? BigInt(ref.number) : ref.number} (${ref.why.join(', ')})`, ref }));
  // The check's block scope: the summary counts, per check, the blocks it judged whole (CheckResult.blocks).
  for (const { name, ref } of named) t.blockScope.picked.set(name, ref.hash);
  return named;
}

/**
 * Runs a recompute. A value that cannot be encoded (missing field, not hex) fails at its pointer: the
 * endpoint served something the protocol cannot have committed to. A transaction type this harness does
 * not know (an L2's) makes the check skip, with the reason: never a pass.
 */
export async function recompute<T>(t: CheckContext, at: string, what: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UnsupportedTxType) return t.skip(`${what}: ${err.message}`);
    if (err instanceof EncodingError) return t.fail(`${what} cannot be recomputed: ${err.message}`, { pointer: `${at}${err.pointer}` });
    throw err;
  }
}

/**
 * The blocks a recompute leaves out: those holding a transaction (or receipt) of a type whose encoding this
 * harness does not know (an L2's). Each is left out on its own, named in the check's note, and the others are
 * still judged: one such transaction never turns the check off for the rest of the chain. A check that could
 * judge no block at all skips, naming them.
 */
export class TypedBlocks {
  private readonly left: string[] = [];
  private admitted = 0;
  constructor(private readonly t: CheckContext) {}

  /** True when every item's type (absent: legacy) is one this harness re-encodes; otherwise the block is noted and left out. */
  admits(name: string, items: unknown): boolean {
    const list = Array.isArray(items) ? (items as unknown[]) : [];
    const odd = list.find((x) => typeof x === 'object' && x !== null && !recomputable((x as Json)['type'])) as Json | undefined;
    if (!odd) {
      this.admitted++;
      return true;
    }
    const what = `${name}: it holds a transaction of type ${String(odd['type'])}`;
    this.left.push(what);
    this.t.leaveOut(name);
    this.t.note(`not judged: ${what}, whose encoding this harness does not know (an L2 type?)`);
    return false;
  }

  /** How many blocks were admitted. */
  get judged(): number {
    return this.admitted;
  }

  /** After the last block: skips when blocks were left out and none was judged. */
  settle(what: string): void {
    if (this.admitted === 0 && this.left.length > 0) this.t.skip(`${what} of no block judged: each holds a transaction type whose encoding this harness does not know (an L2 type?): ${this.left.join('; ')}`);
  }
}

/** The full transactions of a block fetched with eth_getBlockByHash(full). */
export function fullTxs(t: CheckContext, block: Json, name: string): Json[] {
  const txs = block['transactions'];
  if (!Array.isArray(txs)) return t.fail(`${name}: eth_getBlockByHash(full) gave no transactions array`, { pointer: '/result' });
  return txs as Json[];
}

/**
 * Each block judged (judgedRefs) with its first SAMPLE full transactions (eth_getBlockByHash, leaned on), each
 * as it must be served on its own: the block's copy, placed at its block (blockHash, blockNumber) and position
 * (transactionIndex). For the per-transaction lookups (by hash, by number and index), so that every judged block
 * is looked up, not only the busiest one.
 */
export async function placedTxs(t: CheckContext): Promise<Array<{ name: string; ref: JudgedBlock; txs: Json[] }>> {
  const out: Array<{ name: string; ref: JudgedBlock; txs: Json[] }> = [];
  const refs = judgedRefs(t);
  t.warm(refs.map(({ ref }) => ['eth_getBlockByHash', [ref.hash, true]] as const));
  for (const { name, ref } of refs) {
    const block = await t.leaned<Json>('eth_getBlockByHash', [ref.hash, true], `${name} ${ref.hash}`);
    const all = fullTxs(t, block, name);
    // A sample is not the whole block: the summary's block coverage says so.
    if (all.length > SAMPLE) t.leaveOut(name);
    const txs = all.slice(0, SAMPLE).map((tx, i) => ({ ...tx, blockHash: block['hash'], blockNumber: block['number'], transactionIndex: toQuantity(i) }));
    out.push({ name, ref, txs });
  }
  return out;
}

/** What each() over the transactions of the judged blocks says when there were none (the runner's "judged nothing"). */
export const NO_TX_JUDGED = 'no transaction in the blocks judged';
export const NO_LOG_JUDGED = 'no log in the receipts judged';

/** How many logs the receipts hold (for t.judging: a log check over receipts without logs judged nothing). */
export function logCount(receipts: Json[]): number {
  return receipts.reduce((n, r) => n + (Array.isArray(r['logs']) ? r['logs'].length : 0), 0);
}

/** Fails with every violation, each its own (so an --expect `match` is held to each one). */
export function failOnViolations(t: CheckContext, violations: Violation[], at: string, where?: string): void {
  t.failAll(violations.map((v) => [`${where ? `${where}: ` : ''}${v.message}`, { pointer: `${at}${v.pointer}`, expected: v.expected, actual: v.actual }]));
}

/** Two views of one object must agree field for field. */
export function expectSameFields(t: CheckContext, actual: Json, expected: Json, message: string, at: string): void {
  const diffs = fieldDiffs(actual, expected);
  const first = diffs[0];
  if (first === undefined) return;
  // A lone short value is named (e.g. "gasPrice differ (0x0 here, 0x502f7038 there)"), so an --expect entry can
  // describe the exact deviation rather than any drift of the field.
  const [a, e] = [actual[first], expected[first]];
  const values = diffs.length === 1 && [a, e].every((v) => v === undefined || v === null || (typeof v === 'string' && v.length <= 66)) ? ` (${String(a ?? '(absent)')} here, ${String(e ?? '(absent)')} there)` : '';
  t.fail(`${message}: ${diffs.join(', ')} differ${values}`, { pointer: `${at}/${first}`, expected: e ?? '(absent)', actual: a ?? '(absent)' });
}

/** The block/uncle hash recomputed from its header fields must be its `hash`. */
export async function expectHeaderHash(t: CheckContext, header: Json, at: string, what: string): Promise<void> {
  const recomputed = await recompute(t, at, `the hash of ${what}`, () => headerHash(header));
  t.expectEqual(header['hash'], recomputed, `the hash of ${what} is not keccak256(rlp(header)) of the fields served (a header field or the hash is corrupt)`, `${at}/hash`);
}

/** §4.3/§4.4 + invariant: each uncle's hash recomputed from the uncle header the method serves, and listed by its block. */
export function uncleHashCheck(suite: MethodSuite, section: Section, blockParam: (ref: BlockRef) => string): void {
  suite.check(
    { id: `${suite.method}/uncle-hash`, clause: [{ section }, { invariant: 'block hash' }], layer: 'invariant', title: 'each uncle\'s hash recomputed as keccak256(rlp(uncle header)) equals its hash and the hash its block lists at that index', covers: ['hit'], ties: [...HEADER_FIELDS, 'block.hash', 'block.uncles'] },
    async (t) => {
      const block = await needHistory(t, t.targets.uncleBlock, 'block with uncles (per-network fixture; post-merge chains have none)', 'pre-merge');
      const parent = t.found(await t.result<{ uncles: string[] } | null>('eth_getBlockByHash', [block.hash, false]), `the fixture block ${block.hash} is not served (history pruned?)`);
      if (parent.uncles.length === 0) t.fail('the fixture block lists no uncles', { pointer: '/result/uncles' });
      for (let i = 0; i < parent.uncles.length; i++) {
        const uncle = t.found(await t.result<Json | null>(suite.method, [blockParam(block), toQuantity(i)]), `uncle ${i} of a block listing ${parent.uncles.length} uncles returned null`);
        await expectHeaderHash(t, uncle, '/result', `uncle ${i}`);
        t.expectEqual(uncle['hash'], parent.uncles[i], `uncle ${i}'s recomputed hash is not the one its block lists at index ${i}`, '/result/hash');
      }
    },
    'conformance/framework/invariant-checks.ts',
  );
}
