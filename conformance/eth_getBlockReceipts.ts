// §4.8 eth_getBlockReceipts: the receipts of a block, one per transaction in order; null for no block;
// the tag pending answers as latest.
import { MethodSuite, type CheckContext } from './framework/check.ts';
import { taggedRead, tagsInOrder, TIED_TAGS } from './framework/tags.ts';
import type { BlockRef } from '../core/targets.ts';
import { envelopeChecks, futureBlock, nullOnMiss } from './framework/common.ts';
import { assertReceipt, expectReceiptsRoot, type Receipt, receiptsInBlock } from './framework/receipt-checks.ts';
import { isObject, q, toQuantity } from '../core/hex.ts';
import { effectiveGasPrices, gasAccounting, logIndexes, receiptBlooms, removedLogs } from '../core/invariants/block-receipts.ts';
import type { Json } from '../core/invariants/encoding.ts';
import { failOnViolations, fullTxs, judgedRefs, logCount, NO_LOG_JUDGED, NO_TX_JUDGED, recompute, TypedBlocks } from './framework/invariant-checks.ts';
import { atHead } from './framework/head.ts';
import { COMMITTED, LOG_PLACE, PLACE } from '../core/fields.ts';
import { APART, latestNotBehind } from './framework/latest-fresh.ts';
import { headServed, lookup, misplaced, notFound, type Wrong } from './framework/head-served.ts';

const suite = new MethodSuite('eth_getBlockReceipts', 'conformance/eth_getBlockReceipts.ts');
/** pending-equals-latest reads the head this many times, this far apart, for one that holds a transaction. */
const PENDING_READS = 3;
const PENDING_PAUSE_MS = 1000;
export default suite;

envelopeChecks(suite, (t) => [t.need(t.targets.multiTxBlock, 'block with several transactions').number], () => ['not-a-block']);

suite.check(
  { id: 'eth_getBlockReceipts/receipts-in-order', clause: [{ section: '4.8', rule: 3 }, { section: '2.4' }], layer: 'spec', title: 'an array of well-formed receipts, one per transaction of the block, in transaction order', covers: ['hit'], ties: ['receipt.transactionHash', 'receipt.transactionIndex', 'receipt.blockHash', 'receipt.blockNumber', ...LOG_PLACE] },
  async (t) => {
    const target = t.need(t.targets.multiTxBlock, 'block with several transactions');
    const block = await t.leaned<{ transactions: string[] }>('eth_getBlockByHash', [target.hash, false], 'a known block');
    const receipts = t.found(await t.result<Receipt[] | null>(suite.method, [target.number]), 'a known block returned null');
    t.expectShape('block-receipts', receipts);
    t.expectEqual(receipts.length, block.transactions.length, 'one receipt per transaction of the block', '/result');
    receipts.forEach((r, i) => {
      const at = `/result/${i}`;
      assertReceipt(t, r, at);
      t.expectEqual(r.transactionHash, block.transactions[i], 'receipts must follow the block\'s transaction order', `${at}/transactionHash`);
      t.expectEqual(r.transactionIndex, toQuantity(i), 'transactionIndex must be the position in the block', `${at}/transactionIndex`);
      t.expectEqual(r.blockHash, target.hash, 'blockHash must be the block\'s', `${at}/blockHash`);
      t.expectEqual(r.blockNumber, target.number, 'blockNumber must be the block\'s', `${at}/blockNumber`);
    });
  },
);

suite.check(
  { id: 'eth_getBlockReceipts/empty-block', clause: { section: '4.8' }, layer: 'spec', title: 'a block with no transactions gives an empty array', covers: ['hit'] },
  async (t) => {
    const target = t.need(t.targets.emptyBlock, 'empty block');
    t.expectEqual(await t.result(suite.method, [target.number]), [], 'a block with no transactions must give []', '/result');
  },
);

nullOnMiss(suite, 'eth_getBlockReceipts/null-future-block', { section: '4.8', rule: 2 }, 'a block number beyond the head returns result null', (t) => [futureBlock(t.targets)]);

suite.check(
  { id: 'eth_getBlockReceipts/pending-equals-latest', clause: { section: '4.8', rule: 1 }, layer: 'spec', title: 'the tag pending returns the same data as latest (bracketed by the head number and hash; retried when the head moves, and at a later head while both are empty)', covers: ['tag:pending', 'tag:latest'], ties: ['tag.pending'] },
  async (t) => {
    for (let read = 1; read <= PENDING_READS; read++) {
      let blank = false;
      await atHead(
        t,
        async () => ({ latest: await t.result(suite.method, ['latest'], { fresh: true }), pending: await t.result(suite.method, ['pending'], { fresh: true }) }),
        ({ latest, pending }) => {
          // A head with no transaction and an empty pending agree whatever pending is (a node's own empty pending block
          // too): no evidence either way. A moving chain gives a head with transactions soon.
          if (Array.isArray(latest) && latest.length === 0 && Array.isArray(pending) && pending.length === 0) return void (blank = true);
          t.expectShape('block-receipts', pending);
          // Named: null, or an empty list (a node's own pending block), is how real nodes deviate; an entry can say which.
          const got = pending === null ? 'null' : Array.isArray(pending) ? `${pending.length} receipt(s)` : typeof pending;
          t.expectEqual(pending, latest, `pending must return the same receipts as latest, got ${got}`, '/result');
        },
      );
      if (!blank) return;
      if (read < PENDING_READS) await new Promise((r) => setTimeout(r, PENDING_PAUSE_MS));
    }
    t.inconclusive(`the head held no transaction in ${PENDING_READS} reads ${PENDING_PAUSE_MS} ms apart, and pending was empty too: that agrees with latest whatever pending is (a node's own empty pending block too), so nothing told them apart`);
  },
);

suite.check(
  { id: 'eth_getBlockReceipts/latest-is-head', clause: [{ section: '1', part: 'block tag' }, { section: '4.8' }], layer: 'spec', title: 'the tag latest returns the head block\'s receipts: one per transaction of the head, in order, each naming the head\'s hash (bracketed by the head number and hash; retried when the head moves)', covers: ['tag:latest'], ties: ['tag.latest', 'receipt.transactionHash', 'receipt.blockHash'] },
  async (t) =>
    atHead(
      t,
      () => t.result<Json[] | null>(suite.method, ['latest'], { fresh: true }),
      (receipts, head) => {
        if (!Array.isArray(receipts)) return t.fail('latest must give the head block\'s receipts, an array', { pointer: '/result', actual: receipts });
        t.expectEqual(receipts.map((r) => r['transactionHash']), head.transactions, `latest must give the receipts of the head block ${head.number} (${head.transactions.length} transaction(s)), in order`, '/result');
        receipts.forEach((r, i) => t.expectEqual(r['blockHash'], head.hash, `receipt ${i} of latest must name the head block ${head.number}`, `/result/${i}/blockHash`));
      },
    ),
);

latestNotBehind(suite, '4.8', 'eth_getBlockReceipts("latest") (its receipts\' blockNumber)', ['receipt.blockNumber'], async (t) => {
  const receipts = await t.result<unknown>(suite.method, ['latest'], APART);
  return { number: Array.isArray(receipts) && isObject(receipts[0]) ? receipts[0]['blockNumber'] : undefined, what: 'eth_getBlockReceipts("latest")' };
});

headServed(suite, '4.8', 'its receipts by number and by hash, one per transaction in order, each naming the block (blockHash and blockNumber)', ['receipt.blockHash', 'receipt.blockNumber', 'receipt.transactionHash'], async (t, block) => {
  const wrong: Wrong[] = [];
  for (const param of [toQuantity(block.number), block.hash]) {
    const call = `${suite.method}(${param})`;
    const receipts = await lookup(t, suite.method, [param]);
    const missing = notFound(call, receipts);
    if (missing) wrong.push(missing);
    else if (!Array.isArray(receipts)) wrong.push({ text: `${call} answered ${JSON.stringify(receipts).slice(0, 120)}`, missing: false });
    else if (receipts.length !== block.transactions.length) wrong.push({ text: `${call} answered ${receipts.length} receipt(s) for ${block.transactions.length} transaction(s)`, missing: false });
    else receipts.forEach((r: unknown, i) => {
      const bad = misplaced(`${call} receipt ${i}`, r, block, 'transactionHash', block.transactions[i] ?? '');
      if (bad) wrong.push(bad);
    });
  }
  return wrong;
});

suite.check(
  { id: 'eth_getBlockReceipts/block-hash-param', clause: { section: '4.8', part: 'params' }, layer: 'advisory', title: 'a block hash as the parameter (EIP-1898 style, which the spec does not list) gives the same receipts as the block\'s number', covers: ['hit'] },
  async (t) => {
    const target = t.need(t.targets.multiTxBlock, 'block with several transactions');
    const byNumber = await t.result(suite.method, [target.number]);
    t.expectEqual(await t.result(suite.method, [target.hash]), byNumber, 'the block\'s hash must give the receipts its number gives', '/result');
  },
);

for (const tag of ['latest', 'earliest', 'safe', 'finalized']) {
  suite.check(
    { id: `eth_getBlockReceipts/tag-${tag}`, clause: [{ section: '1' }, { section: '4.8' }], layer: 'spec', title: `the block tag "${tag}" is accepted: an array of receipts or null`, covers: [`tag:${tag}`] },
    async (t) => {
      t.expectShape('block-receipts', await t.result(suite.method, [tag], { fresh: true }));
    },
  );
}

suite.check(
  { id: 'eth_getBlockReceipts/tags-name-their-block', clause: [{ section: '1', part: 'block tag' }, { section: '4.8' }], layer: 'spec', title: 'the tags earliest, finalized and safe give the receipts of the block the tag names (eth_getBlockByNumber, read fresh before and after; retried when it moved), the same as its number gives, each naming its hash; earliest at or below finalized, finalized at or below safe, safe at or below the head; tags whose blocks give the same receipts named as not told apart', covers: ['tag:earliest', 'tag:finalized', 'tag:safe'], ties: ['tag.earliest', 'tag.finalized', 'tag.safe'] },
  async (t) => {
    const named: Array<{ tag: string; block: BlockRef; expected: unknown }> = [];
    await t.each(TIED_TAGS, async (tag) => {
      const { block, answer: receipts } = await taggedRead(t, tag, () => t.result<unknown>(suite.method, [tag], { fresh: true }));
      const byNumber = await t.result<Json[] | null>(suite.method, [block.number], { fresh: true });
      named.push({ tag, block, expected: byNumber });
      t.expectEqual(receipts, byNumber, `${tag} must give the receipts of block ${BigInt(block.number)}, the ${tag} block (as its number gives them), got ${Array.isArray(receipts) ? `${receipts.length} receipt(s)` : String(receipts)}`, '/result');
      if (Array.isArray(receipts)) receipts.forEach((r: unknown, i) => t.expectEqual(isObject(r) ? r['blockHash'] : r, block.hash, `receipt ${i} of ${tag} must name the ${tag} block ${BigInt(block.number)}`, `/result/${i}/blockHash`));
    });
    const latest = await taggedRead(t, 'latest', async () => undefined);
    await tagsInOrder(t, named, { block: latest.block, expected: await t.result<Json[] | null>(suite.method, [latest.block.number]) });
  },
);

async function decimalMatchesHex(t: CheckContext, decimal: unknown): Promise<void> {
  const target = t.need(t.targets.multiTxBlock, 'block with several transactions');
  const byHex = await t.result(suite.method, [target.number]);
  const byDecimal = await t.result(suite.method, [decimal]);
  t.expectEqual(byDecimal, byHex, 'a decimal block number must give the same receipts as its hex form', '/result');
}

suite.check(
  { id: 'eth_getBlockReceipts/decimal-string', clause: { section: '4.8', part: 'params' }, layer: 'advisory', title: 'a decimal block number as a string ("123") is accepted, as the spec\'s "hex or decimal integer" says', covers: ['hit'] },
  async (t) => decimalMatchesHex(t, BigInt(t.need(t.targets.multiTxBlock, 'block with several transactions').number).toString(10)),
);

suite.check(
  { id: 'eth_getBlockReceipts/decimal-number', clause: { section: '4.8', part: 'params' }, layer: 'advisory', title: 'a decimal block number as a JSON integer (123) is accepted, as the spec\'s "hex or decimal integer" says', covers: ['hit'] },
  async (t) => decimalMatchesHex(t, Number(BigInt(t.need(t.targets.multiTxBlock, 'block with several transactions').number))),
);

// Invariant layer (facts.md, "Protocol invariants"): the receipts against each other and against their block.

/** Each block judged (judgedRefs) with its receipts and its header and full transactions (eth_getBlockByHash, as its own checks ask). */
async function receiptsAndBlocks(t: CheckContext): Promise<Array<{ name: string; receipts: Json[]; block: Json }>> {
  const out: Array<{ name: string; receipts: Json[]; block: Json }> = [];
  const refs = judgedRefs(t);
  t.warm(refs.flatMap(({ ref }) => [[suite.method, [ref.number]], ['eth_getBlockByHash', [ref.hash, true]]] as const));
  for (const { name, ref } of refs) {
    const receipts = t.found(await t.result<Json[] | null>(suite.method, [ref.number]), `${name} ${ref.number} returned null`);
    if (!Array.isArray(receipts)) return t.fail(`${name}: the result is not an array`, { pointer: '/result' });
    const block = await t.leaned<Json>('eth_getBlockByHash', [ref.hash, true], `${name} ${ref.hash}`);
    out.push({ name, receipts, block });
  }
  return out;
}

suite.check(
  { id: 'eth_getBlockReceipts/receipts-root', clause: { invariant: 'receiptsRoot' }, layer: 'invariant', title: 'the block\'s receiptsRoot recomputed as the Merkle-Patricia root of rlp(index) -> typed receipt envelope (status or root, cumulativeGasUsed, logsBloom, logs) over these receipts', covers: ['hit'], ties: ['block.receiptsRoot', ...COMMITTED] },
  async (t) => {
    const typed = new TypedBlocks(t);
    await t.each(await receiptsAndBlocks(t), ({ name, receipts, block }) => expectReceiptsRoot(t, typed, receipts, block, name));
    typed.settle('the receiptsRoot');
  },
);

suite.check(
  { id: 'eth_getBlockReceipts/receipt-blooms', clause: { invariant: 'logsBloom' }, layer: 'invariant', title: 'each receipt\'s logsBloom recomputed from its own logs (address and topics)', covers: ['hit'], ties: ['receipt.logsBloom', 'log.address', 'log.topics'] },
  async (t) => {
    await t.each(await receiptsAndBlocks(t), async ({ name, receipts }) => (t.judging(receipts.length, NO_TX_JUDGED), failOnViolations(t, await recompute(t, '/result', `the receipt blooms of ${name}`, () => receiptBlooms(receipts)), '/result', name)));
  },
);

suite.check(
  { id: 'eth_getBlockReceipts/gas-accounting', clause: { invariant: 'cumulativeGasUsed' }, layer: 'invariant', title: 'cumulativeGasUsed never decreases, each gasUsed is the difference of consecutive cumulatives, and the last equals the block\'s gasUsed', covers: ['hit'], ties: ['receipt.cumulativeGasUsed', 'receipt.gasUsed', 'block.gasUsed'] },
  async (t) => {
    await t.each(await receiptsAndBlocks(t), async ({ name, receipts, block }) => failOnViolations(t, await recompute(t, '/result', `the gas accounting of ${name}`, () => gasAccounting(receipts, String(block['gasUsed']))), '/result', name));
  },
);

suite.check(
  { id: 'eth_getBlockReceipts/log-indexes', clause: { invariant: 'logIndex' }, layer: 'invariant', title: 'logIndex numbers the block\'s logs from 0x0, contiguously across all its receipts, in order', covers: ['hit'], ties: ['log.logIndex'] },
  async (t) => {
    await t.each(await receiptsAndBlocks(t), async ({ name, receipts }) => (t.judging(logCount(receipts), NO_LOG_JUDGED), failOnViolations(t, await recompute(t, '/result', `the log indexes of ${name}`, () => logIndexes(receipts)), '/result', name)));
  },
);

suite.check(
  { id: 'eth_getBlockReceipts/receipts-match-txs', clause: [{ section: '2.4' }, { section: '2.5' }, { invariant: 'receipts against transactions' }], layer: 'invariant', title: 'one well-formed receipt (schemas/rpc/receipt.json) per transaction of each block judged, in order, each with its transaction\'s hash, type, from and to, a contractAddress exactly when to is null, the block\'s hash and number, its position as transactionIndex, logs pointing back at it, and a blob transaction\'s blobGasUsed 131072 per blob', covers: ['hit'], ties: PLACE },
  async (t) => {
    // Every block is judged before the verdict (receipts-in-order reads the busiest one only).
    await t.each(await receiptsAndBlocks(t), ({ name, receipts, block }) => (t.judging(receipts.length, NO_TX_JUDGED), failOnViolations(t, receiptsInBlock(receipts, fullTxs(t, block, name), block), '/result', name)));
  },
);

suite.check(
  { id: 'eth_getBlockReceipts/effective-gas-price', clause: [{ section: '2.4', field: 'effectiveGasPrice' }, { invariant: 'EIP-1559' }], layer: 'invariant', title: 'effectiveGasPrice is the transaction\'s gasPrice for types 0x0/0x1 and min(maxFeePerGas, baseFeePerGas + maxPriorityFeePerGas) from 0x2 on, against its block\'s base fee, in each block judged', covers: ['hit'], ties: ['receipt.effectiveGasPrice'] },
  async (t) => {
    await t.each(await receiptsAndBlocks(t), async ({ name, receipts, block }) => (t.judging(receipts.length, NO_TX_JUDGED), failOnViolations(t, await recompute(t, '/result', `the effective gas prices of ${name}`, () => effectiveGasPrices(receipts, fullTxs(t, block, name), block)), '/result', name)));
  },
);

suite.check(
  { id: 'eth_getBlockReceipts/logs-not-removed', clause: { section: '2.5', field: 'removed' }, layer: 'spec', title: 'every log in the receipts of a canonical block judged has removed: false', covers: ['hit'], ties: ['log.removed'] },
  async (t) => {
    await t.each(await receiptsAndBlocks(t), ({ name, receipts }) => (t.judging(logCount(receipts), NO_LOG_JUDGED), failOnViolations(t, removedLogs(receipts), '/result', name)));
  },
);

