// §2.4/§2.5: what makes one receipt well formed, judged the same way for eth_getTransactionReceipt and
// for each element of eth_getBlockReceipts.
import { receiptPlaces, receiptsAgainstTxs } from '../../core/invariants/block-receipts.ts';
import type { Json, Violation } from '../../core/invariants/encoding.ts';
import { validateShape } from '../../core/schemas.ts';
import { receiptEnvelope } from '../../core/invariants/receipt.ts';
import { orderedTrieRoot } from '../../core/invariants/trie.ts';
import type { CheckContext } from './check.ts';
import { recompute, SAMPLE, type TypedBlocks } from './invariant-checks.ts';

/**
 * Receipts the whole-block checks of eth_getTransactionReceipt (committed-receipts, log-indexes) fetch one by one,
 * over all the blocks judged, in their order: each block they judge costs one request per transaction (150-400 a
 * mainnet block, 16 blocks judged: thousands, minutes, 429s). 512 round trips take under a minute at 100 ms each,
 * inside the default 5-minute --deadline, and still hold every block a dev chain's judged blocks (tens of
 * transactions in all) and one or two mainnet blocks whole. eth_getBlockReceipts judges every block whole in one
 * request a block where it is served; this path is the one for endpoints without it.
 */
export const RECEIPTS_BUDGET = 512;

export type Receipt = Record<string, unknown> & {
  transactionHash: string;
  transactionIndex: string;
  blockHash: string;
  blockNumber: string;
  status?: string;
  root?: string;
  to: string | null;
  contractAddress: string | null;
  cumulativeGasUsed: string;
  gasUsed: string;
  logs: Array<Record<string, unknown>>;
};

/** Exactly one of root/status (§2.4): stated on its own so the verdict names the rule. */
export function assertRootXorStatus(t: CheckContext, r: Receipt, at: string): void {
  const hasRoot = 'root' in r && r.root !== null && r.root !== undefined;
  const hasStatus = 'status' in r && r.status !== null && r.status !== undefined;
  t.expect(hasRoot !== hasStatus, hasRoot ? 'carries both root and status' : 'carries neither root nor status', { pointer: `${at}/${hasRoot ? 'root' : 'status'}`, actual: { root: r.root, status: r.status } });
  if (hasStatus) t.expect(r.status === '0x0' || r.status === '0x1', 'status must be 0x0 or 0x1', { pointer: `${at}/status`, actual: r.status });
}

/** Shape, root/status, and each log pointing back at its receipt (§2.5). */
export function assertReceipt(t: CheckContext, r: Receipt, at: string): void {
  t.expectShape('receipt', r, at);
  assertRootXorStatus(t, r, at);
  t.expect(r.to === null ? r.contractAddress !== null : r.contractAddress === null, 'contractAddress is the created address for a creation (to null) and null otherwise', { pointer: `${at}/contractAddress`, actual: { to: r.to, contractAddress: r.contractAddress } });
  r.logs.forEach((log, i) => {
    for (const field of ['transactionHash', 'transactionIndex', 'blockHash', 'blockNumber'] as const) {
      t.expectEqual(log[field], r[field], `log ${i} ${field} must be its receipt's`, `${at}/logs/${i}/${field}`);
    }
  });
}

/** What is left of the budget of receipts fetched one by one (RECEIPTS_BUDGET), spent over the blocks judged in order. */
export class ReceiptsBudget {
  private room: number;
  private readonly judged: Array<{ name: string; receipts: number }> = [];
  private readonly over: Array<{ name: string; why: string }> = [];
  constructor(private readonly t: CheckContext) {
    this.room = t.receiptsBudget;
  }

  /** True when the block's n receipts fit what is left (then spent); otherwise the block is left out, with why. */
  admits(name: string, n: number): boolean {
    if (n > this.room) {
      this.over.push({ name, why: `${n} transaction(s), over the ${this.room} receipt(s) left` });
      this.t.leaveOut(name);
      return false;
    }
    this.room -= n;
    this.judged.push({ name, receipts: n });
    return true;
  }

  /** The blocks left out, with why, for a note. */
  get left(): string {
    return `left out, over the budget of ${this.t.receiptsBudget} receipts fetched one by one: ${this.over.map(({ name, why }) => `${name}: ${why}`).join('; ')} (eth_getBlockReceipts's own checks judge every judged block whole, one request each, where it is served)`;
  }

  /** A block judged whole with its receipts fetched another way (eth_getBlockReceipts): no budget spent. */
  whole(name: string, n: number): void {
    this.judged.push({ name, receipts: n });
  }

  /**
   * Skips when no judged block holds a transaction and none was left out: nothing for a receipt check to judge,
   * never a pass on an empty list (a quiet chain, transactions older than the blocks judged).
   */
  requireTransactions(): void {
    if (this.over.length === 0 && !this.judged.some(({ receipts }) => receipts > 0)) {
      this.t.skip(`no judged block has a transaction, so no receipt was judged (${this.judged.map(({ name }) => name).join('; ') || 'no block judged'})`);
    }
  }

  /**
   * After the last block, for a check that judges whole blocks: the blocks left out named in its note; none with
   * a receipt judged is inconclusive when some were left out, a skip when none had any: never a pass on an empty list.
   */
  settle(): void {
    this.requireTransactions();
    if (this.over.length === 0) return;
    if (!this.judged.some(({ receipts }) => receipts > 0)) this.t.inconclusive(`no block with transactions judged: ${this.left}`);
    this.t.note(`judged ${this.judged.length} block(s): ${this.judged.map(({ name }) => name).join('; ')}; ${this.left}`);
    this.t.partly(`${this.judged.length} of ${this.judged.length + this.over.length} judged blocks whole (budget of ${this.t.receiptsBudget} receipts fetched one by one)`);
  }
}

/**
 * All receipts of a block, for a check of another method that leans on them: eth_getBlockReceipts when the
 * endpoint serves it, else the equivalent path, eth_getTransactionReceipt for each of the block's
 * transactions (hardhat and ganache lack eth_getBlockReceipts), within the budget: undefined when the block is over
 * it (left out, named by budget.settle()). Either one failing to serve makes the check inconclusive, naming it.
 */
export async function receiptsOfBlock(t: CheckContext, ref: { hash: string; number: string }, name: string, budget: ReceiptsBudget): Promise<Json[] | undefined> {
  const all = await t.ifServed<Json[]>('eth_getBlockReceipts', [ref.number], `${name} ${ref.number}`);
  if (all) {
    budget.whole(name, all.length);
    return all;
  }
  const block = await t.leaned<{ transactions: string[] }>('eth_getBlockByHash', [ref.hash, false], `${name} ${ref.hash}`);
  if (!budget.admits(name, block.transactions.length)) return undefined;
  const out: Json[] = [];
  for (const hash of block.transactions) out.push(await t.leaned<Json>('eth_getTransactionReceipt', [hash], `transaction ${hash} of ${name}`));
  return out;
}

/**
 * A block's receipts, in order, must hash to its receiptsRoot: every committed field of every receipt is right,
 * none missing or extra. A block holding a receipt of a type this harness cannot encode is left out (typed).
 */
export async function expectReceiptsRoot(t: CheckContext, typed: TypedBlocks, receipts: Json[], block: Json, name: string, how = ''): Promise<void> {
  if (!typed.admits(name, receipts)) return;
  const envelopes = await recompute(t, '/result', `the receiptsRoot of ${name}`, () => receipts.map((r, i) => receiptEnvelope(r, `/${i}`)));
  const root = await orderedTrieRoot(envelopes);
  if (root === block['receiptsRoot']) return;
  // Named exactly when it is the one known encoding deviation, so an --expect entry can excuse that and nothing else.
  const failed = receipts.filter((r) => r['status'] === '0x0').length;
  const asByte = failed > 0 && (await orderedTrieRoot(receipts.map((r, i) => receiptEnvelope(r, `/${i}`, { failedStatusAsByte: true })))) === block['receiptsRoot'];
  const why = asByte ? `exactly the root with the status of its ${failed} failed receipt(s) encoded as the byte 0x00, not RLP's empty string` : 'a committed receipt field is corrupt, or a receipt is missing or extra';
  t.fail(`${name}: the trie root of its ${receipts.length} receipt(s)${how} is not the block's receiptsRoot (${why})`, { pointer: '/result', expected: block['receiptsRoot'], actual: root });
}

/**
 * The positions of a block's receipts judged one by one when the block is over RECEIPTS_BUDGET: the first SAMPLE
 * (as the per-transaction lookups), the last (the block's end), and the first of each transaction type not among
 * them (each type's receipt shape). At most SAMPLE + 1 + the types a block holds: every judged block looked at.
 */
export function receiptSample(txs: Json[]): number[] {
  const at = new Set(txs.slice(0, SAMPLE).map((_, i) => i));
  if (txs.length > 0) at.add(txs.length - 1);
  const types = new Set([...at].map((i) => txs[i]?.['type']));
  txs.forEach((tx, i) => {
    if (!types.has(tx['type'])) {
      types.add(tx['type']);
      at.add(i);
    }
  });
  return [...at].sort((a, b) => a - b);
}

/**
 * What makes a block's receipts, however fetched, the ones of its transactions: each well formed
 * (schemas/rpc/receipt.json), naming its transaction (hash, type, from, to, contractAddress exactly when to is
 * null) and its place (the block's hash and number, its position), its logs pointing back, a blob
 * transaction's blobGasUsed 131072 per blob. Every violation, pointers relative to the receipts array.
 * A sample (receiptSample) is judged as a sparse array the length of txs, each receipt at its position: the
 * holes are skipped (forEach, flatMap), so each receipt present is held to its own transaction and place.
 */
export function receiptsInBlock(receipts: Json[], txs: Json[], block: Json): Violation[] {
  const shapes = receipts.flatMap((r, i) => validateShape('receipt', r).map((f): Violation => ({ pointer: `/${i}${f.pointer === '/' ? '' : f.pointer}`, message: `receipt ${i} (${String(txs[i]?.['hash'])}): receipt shape: ${f.pointer} ${f.message}` })));
  return [...shapes, ...receiptsAgainstTxs(receipts, txs), ...receiptPlaces(receipts, txs, block)];
}
