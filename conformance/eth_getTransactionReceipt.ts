// §4.7 eth_getTransactionReceipt: a receipt object (§2.4) or null.
import { type Address, getContractAddress } from 'viem';
import { effectiveGasPrices, gasAccounting, logIndexes, receiptBlooms, removedLogs } from '../core/invariants/block-receipts.ts';
import { sameAddress } from '../core/invariants/compare.ts';
import { bigintOf, bytes, type Json, type Violation } from '../core/invariants/encoding.ts';
import { type CheckContext, MethodSuite } from './framework/check.ts';
import { nearHeadWindowCheck } from './framework/near-head-window.ts';
import { headServed, lookup, misplaced, type Wrong, readTxs } from './framework/head-served.ts';
import { needHistory } from './framework/history.ts';
import { envelopeChecks, extraFieldsCheck, nullOnMiss, nullOnZeroHash, type Shaped, UNKNOWN_HASH } from './framework/common.ts';
import { expectSameFields, failOnViolations, fullTxs, judgedRefs, logCount, NO_LOG_JUDGED, recompute, SAMPLE, TypedBlocks } from './framework/invariant-checks.ts';
import { assertReceipt, assertRootXorStatus, expectReceiptsRoot, type Receipt, ReceiptsBudget, receiptSample, receiptsInBlock } from './framework/receipt-checks.ts';
import { COMMITTED, fieldsOf, LOG_PLACE, PLACE } from '../core/fields.ts';

const suite = new MethodSuite('eth_getTransactionReceipt', 'conformance/eth_getTransactionReceipt.ts');
export default suite;

envelopeChecks(suite, (t) => [t.need(t.targets.successTx, 'successful transaction')], () => ['0xabc']);

const cases = [
  { id: 'eth_getTransactionReceipt/success-receipt', target: 'successTx', what: 'successful transaction', status: '0x1', title: 'a successful transaction\'s receipt is well formed and has status 0x1' },
  { id: 'eth_getTransactionReceipt/failed-receipt', target: 'failedTx', what: 'failed (status 0x0) transaction', status: '0x0', title: 'a reverted transaction\'s receipt is well formed and has status 0x0' },
  { id: 'eth_getTransactionReceipt/creation-receipt', target: 'contractCreation', what: 'contract-creation transaction', title: 'a contract creation\'s receipt has to null and the created contractAddress' },
  { id: 'eth_getTransactionReceipt/logs-receipt', target: 'txWithLogs', what: 'transaction with logs', title: 'a receipt with logs: every log well formed and pointing back at its receipt' },
] as const;

for (const c of cases) {
  suite.check({ id: c.id, clause: [{ section: '4.7' }, { section: '2.4' }, { section: '2.5' }], layer: 'spec', title: c.title, covers: ['hit'], ties: ['receipt.transactionHash', ...LOG_PLACE] }, async (t) => {
    const hash = t.need(t.targets[c.target], c.what);
    const r = t.found(await t.result<Receipt | null>(suite.method, [hash]), 'the receipt of a mined transaction returned null');
    assertReceipt(t, r, '/result');
    t.expectEqual(r.transactionHash, hash, 'transactionHash must be the requested hash', '/result/transactionHash');
    if ('status' in c) t.expectEqual(r.status, c.status, `status must be ${c.status} for this transaction`, '/result/status');
    if (c.target === 'contractCreation') t.expect(r.to === null && r.contractAddress !== null, 'a creation has to null and a contractAddress', { pointer: '/result/contractAddress' });
    if (c.target === 'txWithLogs') t.expect(r.logs.length > 0, 'this transaction emitted logs', { pointer: '/result/logs' });
  });
}

headServed(suite, '4.7', 'the receipts of its first transactions by hash, each naming the block (blockHash and blockNumber)', ['receipt.blockHash', 'receipt.blockNumber', 'receipt.transactionHash'], async (t, block) => {
  const wrong: Wrong[] = [];
  for (const { hash } of readTxs(block)) {
    const bad = misplaced(`${suite.method}(${hash})`, await lookup(t, suite.method, [hash]), block, 'transactionHash', hash);
    if (bad) wrong.push(bad);
  }
  return wrong;
});

suite.check(
  { id: 'eth_getTransactionReceipt/root-xor-status', clause: { section: '2.4' }, layer: 'spec', title: 'a receipt carries exactly one of root and status, and status is 0x0 or 0x1', covers: ['hit'] },
  async (t) => {
    const hashes = [t.targets.successTx, t.targets.failedTx, t.targets.preByzantiumTx].filter((h): h is string => Boolean(h));
    if (hashes.length === 0) t.skip('no transaction found on this endpoint');
    for (const hash of hashes) {
      const r = t.found(await t.result<Receipt | null>(suite.method, [hash]), 'the receipt of a mined transaction returned null');
      assertRootXorStatus(t, r, '/result');
    }
  },
);

suite.check(
  { id: 'eth_getTransactionReceipt/pre-byzantium-root', clause: { section: '2.4' }, layer: 'spec', title: 'a pre-Byzantium receipt carries root (32 bytes) and no status', covers: ['hit'] },
  async (t) => {
    const hash = await needHistory(t, t.targets.preByzantiumTx, 'pre-Byzantium transaction (per-network fixture)', 'pre-byzantium');
    const r = t.found(await t.result<Receipt | null>(suite.method, [hash]), 'the receipt of a mined transaction returned null (history pruned?)');
    t.expect(typeof r.root === 'string' && !('status' in r), 'a pre-Byzantium receipt carries root, not status', { pointer: '/result/root', actual: { root: r.root, status: r.status } });
  },
);

suite.check(
  { id: 'eth_getTransactionReceipt/null-fields-present', clause: [{ section: '2.4', field: 'to' }, { section: '2.4', field: 'contractAddress' }], layer: 'spec', title: 'fields the spec makes null in some state are present as null, not absent: contractAddress of a call, to of a creation', covers: ['hit'] },
  async (t) => {
    const cases = [
      { hash: t.targets.successTx, field: 'contractAddress', when: (r: Receipt) => r.to !== null && r.to !== undefined, what: 'a call (to set) has contractAddress' },
      { hash: t.targets.contractCreation, field: 'to', when: (r: Receipt) => r.contractAddress !== null && r.contractAddress !== undefined, what: 'a creation (contractAddress set) has to' },
    ];
    let judged = 0;
    for (const c of cases) {
      if (!c.hash) continue;
      const r = t.found(await t.result<Receipt | null>(suite.method, [c.hash]), 'the receipt of a mined transaction returned null');
      if (!c.when(r)) continue;
      judged++;
      t.expect(c.field in r, `${c.what} present as null, not left out`, { pointer: `/result/${c.field}`, expected: null, actual: '(absent)' });
      t.expectEqual(r[c.field], null, `${c.what} null`, `/result/${c.field}`);
    }
    if (judged === 0) t.skip('no call and no contract creation found on this endpoint');
  },
);

// §8: where the network declares a near-head window, the oldest blocks inside it are served (eth_*/near-head-window).
nearHeadWindowCheck(suite, 'conformance/framework/near-head-window.ts');

nullOnMiss(suite, 'eth_getTransactionReceipt/null-on-miss', [{ section: '4.7' }, { section: '7' }], 'an unknown transaction hash returns result null', () => [UNKNOWN_HASH]);
nullOnZeroHash(suite, '4.7', 'a transaction hash', (hash) => [hash]);

extraFieldsCheck(suite, 'the receipts judged and their logs', async (t) =>
  (await judgedReceipts(t)).flatMap(({ receipt }): Shaped => [['receipt', receipt], ...receipt.logs.map((log): Shaped[number] => ['log', log])]),
);

/** EIP-4844's receipt fields: a blob transaction's (type 0x3), and no other's. */
const BLOB_RECEIPT_FIELDS = ['blobGasUsed', 'blobGasPrice'] as const;

suite.check(
  { id: 'eth_getTransactionReceipt/blob-fields-blob-only', clause: { section: '2.4', unstated: true, per: 'EIP-4844' }, layer: 'advisory', title: 'blobGasUsed and blobGasPrice (EIP-4844) are on a blob transaction\'s receipt only: absent from the receipt of every other transaction judged (type 0x0, 0x1, 0x2, 0x4)', covers: ['hit'] },
  async (t) => {
    const plain = (await judgedReceipts(t)).filter(({ receipt }) => receipt.type !== '0x3');
    if (plain.length === 0) t.skip('no receipt of a transaction other than a blob one was judged');
    await t.each(plain, ({ what, hash, receipt }) => {
      const present = BLOB_RECEIPT_FIELDS.filter((f) => f in receipt);
      t.expect(present.length === 0, `${what} ${hash} (type ${String(receipt.type)}): ${present.join(' and ')} on the receipt of a non-blob transaction`, { pointer: `/result/${present[0] ?? ''}`, actual: Object.fromEntries(present.map((f) => [f, receipt[f]])) });
    });
  },
);

// Invariant layer (facts.md, "Protocol invariants"): the receipt recomputed, and against the other methods.

/** The receipts judged: the successful, failed, creation and logs targets, then the block with transactions (first SAMPLE). */
async function judgedReceipts(t: CheckContext): Promise<Array<{ what: string; hash: string; receipt: Receipt }>> {
  const hashes = new Map<string, string>();
  for (const [what, hash] of [['the successful transaction', t.targets.successTx], ['the failed transaction', t.targets.failedTx], ['the contract creation', t.targets.contractCreation], ['the transaction with logs', t.targets.txWithLogs]] as const) {
    if (hash && !hashes.has(hash)) hashes.set(hash, what);
  }
  const multi = t.targets.multiTxBlock;
  if (multi) {
    const block = await t.leaned<{ transactions: string[] }>('eth_getBlockByHash', [multi.hash, false], 'a known block');
    block.transactions.slice(0, SAMPLE).forEach((hash, i) => {
      if (!hashes.has(hash)) hashes.set(hash, `transaction ${i} of the block with transactions`);
    });
  }
  if (hashes.size === 0) t.skip('no transaction found on this endpoint');
  const out: Array<{ what: string; hash: string; receipt: Receipt }> = [];
  for (const [hash, what] of hashes) out.push({ what, hash, receipt: t.found(await t.result<Receipt | null>(suite.method, [hash]), `the receipt of ${what} ${hash} returned null`) });
  return out;
}

suite.check(
  { id: 'eth_getTransactionReceipt/agrees-with-block-receipts', clause: { invariant: 'same receipt through each method' }, layer: 'invariant', title: 'each receipt equals, field for field, the element at its transactionIndex in eth_getBlockReceipts of its block', covers: ['hit'], ties: [...fieldsOf('receipt'), ...fieldsOf('log')] },
  async (t) => {
    await t.each(await judgedReceipts(t), async ({ what, hash, receipt }) => {
      const all = await t.leaned<Json[]>('eth_getBlockReceipts', [receipt.blockNumber], `block ${receipt.blockNumber}`);
      const i = Number(receipt.transactionIndex);
      const element = all[i];
      if (!element) return t.fail(`${what}: eth_getBlockReceipts of block ${receipt.blockNumber} has no receipt at index ${i}`, { pointer: '/result/transactionIndex', actual: receipt.transactionIndex });
      t.expectEqual(element['transactionHash'], hash, `${what}: eth_getBlockReceipts holds another transaction's receipt at index ${i}`, '/result/transactionIndex');
      expectSameFields(t, receipt, element, `${what}: the receipt differs from the element of eth_getBlockReceipts`, '/result');
    });
  },
);

type JudgedBlockTxs = { name: string; block: Json; txs: Json[] };
type BlockReceipts = JudgedBlockTxs & { receipts: Json[] };

/**
 * Each block judged (judgedRefs) with its full transactions: `whole`, those whose receipts all fit the budget
 * (ReceiptsBudget), taken in the judged order, with the receipt of each transaction fetched one by one with this
 * method; `over`, the others, not fetched; `budget`, to name them.
 */
async function receiptsOfJudgedBlocks(t: CheckContext): Promise<{ whole: BlockReceipts[]; over: JudgedBlockTxs[]; budget: ReceiptsBudget }> {
  const whole: BlockReceipts[] = [];
  const over: JudgedBlockTxs[] = [];
  const budget = new ReceiptsBudget(t);
  // A receipt answered null is a violation of its own; the other receipts and blocks are still fetched and judged.
  const refs = judgedRefs(t);
  t.warm(refs.map(({ ref }) => ['eth_getBlockByHash', [ref.hash, true]] as const));
  await t.each(refs, async ({ name, ref }) => {
    const block = await t.leaned<Json>('eth_getBlockByHash', [ref.hash, true], `${name} ${ref.hash}`);
    const txs = fullTxs(t, block, name);
    if (!budget.admits(name, txs.length)) return void over.push({ name, block, txs });
    const receipts = await receiptsAt(t, name, txs, txs.map((_, i) => i));
    if (receipts.length === txs.length) whole.push({ name, block, txs, receipts });
  });
  return { whole, over, budget };
}

/** The receipts of a block's transactions at these positions, fetched one by one; a null one is a violation (t.each), left out. */
async function receiptsAt(t: CheckContext, name: string, txs: Json[], positions: number[]): Promise<Json[]> {
  const receipts: Json[] = [];
  await t.each(positions, async (i) => {
    receipts.push(t.found(await t.result<Json | null>(suite.method, [txs[i]?.['hash']]), `${name}: the receipt of its transaction ${String(txs[i]?.['hash'])} returned null`));
  });
  return receipts;
}

/** The blocks a whole-block check judges: those within the budget, the others named (ReceiptsBudget.settle). */
async function wholeBlocks(t: CheckContext): Promise<BlockReceipts[]> {
  const { whole, budget } = await receiptsOfJudgedBlocks(t);
  budget.settle();
  return whole;
}

/** The positions of a sample, as ranges: "receipts 0-15, 311 of 312", or "all 6 receipts". */
function positionsText(positions: number[], of: number): string {
  if (positions.length === of) return `all ${of} receipts`;
  const ranges: Array<[number, number]> = [];
  for (const p of positions) {
    const last = ranges.at(-1);
    if (last && last[1] === p - 1) last[1] = p;
    else ranges.push([p, p]);
  }
  return `receipts ${ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ')} of ${of}`;
}

/** A violation found in a block's receipts (pointer `/<i>/...`), as one of the exchange that served receipt i. */
const inReceipt = (name: string) => (v: Violation): Violation => ({ ...v, pointer: v.pointer.replace(/^\/\d+/, ''), message: `${name}: ${v.message}` });

// Without these, an endpoint that does not serve eth_getBlockReceipts (hardhat, ganache) would have its receipts'
// committed fields, gas figures, shape, place and log indexes judged nowhere beyond the few targets:
// agrees-with-block-receipts is inconclusive there, and the checks above read only judgedReceipts().
suite.check(
  { id: 'eth_getTransactionReceipt/committed-receipts', clause: [{ invariant: 'receiptsRoot' }, { invariant: 'cumulativeGasUsed' }, { invariant: 'EIP-1559', field: 'effectiveGasPrice' }], layer: 'invariant', title: 'the receipts of each block judged that fit the budget of receipts fetched one by one (RECEIPTS_BUDGET; the others named, none: inconclusive), fetched with this method, are the ones it committed to: their trie root is its receiptsRoot, their gas adds up to its gasUsed, each effectiveGasPrice is its transaction\'s', covers: ['hit'], ties: ['block.receiptsRoot', 'block.gasUsed', ...COMMITTED, 'receipt.gasUsed', 'receipt.effectiveGasPrice'] },
  async (t) => {
    // Every block is judged, each fault its own violation: a deviation an --expect entry names on one block
    // (ganache's failed-status encoding) must not hide another fault on it or on the blocks judged after it.
    // A block whose receipts' encoding is unknown (an L2 type) still has its gas judged; only its root is left out.
    const typed = new TypedBlocks(t);
    await t.each(await wholeBlocks(t), ({ name, block, txs, receipts }) =>
      t.each(
        [
          () => expectReceiptsRoot(t, typed, receipts, block, name, ', fetched one by one,'),
          async () => failOnViolations(t, await recompute(t, '/result', `the gas accounting of ${name}`, () => gasAccounting(receipts, String(block['gasUsed']))), '/result', name),
          async () => failOnViolations(t, await recompute(t, '/result', `the effective gas prices of ${name}`, () => effectiveGasPrices(receipts, txs, block)), '/result', name),
        ],
        (judge) => judge(),
      ),
    );
  },
);

suite.check(
  { id: 'eth_getTransactionReceipt/judged-receipts', clause: [{ section: '4.7' }, { section: '2.4' }, { section: '2.5' }], layer: 'spec', title: `the receipt of every transaction of each block judged (of a block over the budget of receipts fetched one by one: the first ${SAMPLE}, the last and one per type), fetched one by one, is well formed (schemas/rpc/receipt.json) and is that transaction's in that block: blockHash, blockNumber, transactionIndex (its position), transactionHash, type, from and to are theirs, contractAddress is set exactly when to is null, each log points back at it, and a blob transaction's blobGasUsed is 131072 per blob`, covers: ['hit'], ties: PLACE },
  async (t) => {
    // Every receipt judged, of every block, before the verdict, so the failure counts them all. A block over the
    // budget of the whole-block checks has a sample of its receipts judged (receiptSample): each block looked at.
    const violations: Violation[] = [];
    const { whole, over, budget } = await receiptsOfJudgedBlocks(t);
    budget.requireTransactions();
    for (const { name, block, txs, receipts } of whole) violations.push(...receiptsInBlock(receipts, txs, block).map(inReceipt(name)));
    const sampled: string[] = [];
    for (const { name, block, txs } of over) {
      const positions = receiptSample(txs);
      const receipts = await receiptsAt(t, name, txs, positions);
      if (receipts.length !== positions.length) continue;
      const sparse: Json[] = new Array<Json>(txs.length);
      positions.forEach((p, i) => (sparse[p] = receipts[i]!));
      violations.push(...receiptsInBlock(sparse, txs, block).map(inReceipt(name)));
      sampled.push(`${name}: ${positionsText(positions, txs.length)}`);
    }
    if (over.length) t.partly(`every receipt of ${whole.length} of ${whole.length + over.length} judged blocks, a sample of the others (budget of ${t.receiptsBudget} receipts fetched one by one)`);
    if (over.length) t.note(`every receipt judged of ${whole.length} block(s)${whole.length ? ` (${whole.map(({ name }) => name).join('; ')})` : ''}; a sample judged of those over the budget of ${t.receiptsBudget} receipts fetched one by one: ${sampled.join('; ')}`);
    failOnViolations(t, violations, '/result');
  },
);

suite.check(
  { id: 'eth_getTransactionReceipt/log-indexes', clause: { invariant: 'logIndex' }, layer: 'invariant', title: 'logIndex numbers each judged block\'s logs from 0x0, contiguously across the receipts of its transactions fetched one by one, in order (the blocks that fit the budget of receipts fetched one by one; the others named, none: inconclusive)', covers: ['hit'], ties: ['log.logIndex'] },
  async (t) => {
    const violations: Violation[] = [];
    for (const { name, receipts } of await wholeBlocks(t)) {
      t.judging(logCount(receipts), NO_LOG_JUDGED);
      violations.push(...(await recompute(t, '/result', `the log indexes of ${name}`, () => logIndexes(receipts))).map(inReceipt(name)));
    }
    failOnViolations(t, violations, '/result');
  },
);

suite.check(
  { id: 'eth_getTransactionReceipt/agrees-with-tx', clause: { invariant: 'same transaction through each method' }, layer: 'invariant', title: 'each receipt\'s type, from, to, transactionHash, blockHash, blockNumber and transactionIndex are its transaction\'s (eth_getTransactionByHash)', covers: ['hit'], ties: ['receipt.type', 'receipt.from', 'receipt.to', 'receipt.transactionHash', 'receipt.blockHash', 'receipt.blockNumber', 'receipt.transactionIndex'] },
  async (t) => {
    await t.each(await judgedReceipts(t), async ({ what, hash, receipt }) => {
      const tx = await t.leaned<Json>('eth_getTransactionByHash', [hash], `${what} ${hash}`);
      for (const [field, txField] of [['type', 'type'], ['from', 'from'], ['to', 'to'], ['transactionHash', 'hash'], ['blockHash', 'blockHash'], ['blockNumber', 'blockNumber'], ['transactionIndex', 'transactionIndex']] as const) {
        const same = field === 'from' || field === 'to' ? sameAddress(receipt[field], tx[txField]) : receipt[field] === tx[txField];
        t.expect(same, `${what}: the receipt's ${field} is not the transaction's ${txField}`, { pointer: `/result/${field}`, expected: tx[txField], actual: receipt[field] });
      }
    });
  },
);

suite.check(
  { id: 'eth_getTransactionReceipt/logs-bloom', clause: { invariant: 'logsBloom' }, layer: 'invariant', title: 'each receipt\'s logsBloom recomputed from its logs (address and topics)', covers: ['hit'], ties: ['receipt.logsBloom', 'log.address', 'log.topics'] },
  async (t) => {
    await t.each(await judgedReceipts(t), async ({ what, receipt }) => {
      const v = await recompute(t, '/result', `the bloom of ${what}`, () => receiptBlooms([receipt]));
      if (v[0]) t.fail(`${what}: logsBloom is not the bloom of its ${receipt.logs.length} log(s)`, { pointer: '/result/logsBloom', expected: v[0].expected, actual: v[0].actual });
    });
  },
);

suite.check(
  { id: 'eth_getTransactionReceipt/logs-not-removed', clause: { section: '2.5', field: 'removed' }, layer: 'spec', title: 'every log of the receipts judged (mined, so in a canonical block) has removed: false', covers: ['hit'], ties: ['log.removed'] },
  async (t) => {
    await t.each(await judgedReceipts(t), ({ what, receipt }) => (t.judging(receipt.logs.length, NO_LOG_JUDGED), failOnViolations(t, removedLogs([receipt]).map((v) => ({ ...v, pointer: v.pointer.replace(/^\/0/, '') })), '/result', what)));
  },
);

suite.check(
  { id: 'eth_getTransactionReceipt/contract-address', clause: { invariant: 'contractAddress' }, layer: 'invariant', title: 'a creation\'s contractAddress recomputed as keccak256(rlp([from, nonce]))[12:] from its transaction', covers: ['hit'], ties: ['receipt.contractAddress'] },
  async (t) => {
    const hash = t.need(t.targets.contractCreation, 'contract-creation transaction');
    const tx = await t.leaned<Json>('eth_getTransactionByHash', [hash], 'a known creation');
    const receipt = t.found(await t.result<Receipt | null>(suite.method, [hash]), 'the receipt of a mined creation returned null');
    const expected = await recompute(t, '/result', 'the created address', () => getContractAddress({ from: bytes(tx, 'from', '', 20) as Address, nonce: bigintOf(tx, 'nonce') }).toLowerCase());
    t.expect(sameAddress(receipt.contractAddress, expected), 'contractAddress is not keccak256(rlp([from, nonce]))[12:] of the creating transaction', { pointer: '/result/contractAddress', expected, actual: receipt.contractAddress });
  },
);
