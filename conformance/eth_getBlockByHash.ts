// §4.2 eth_getBlockByHash: a block object (§2.2) or null; the flag chooses hashes or full transactions.
import { MethodSuite } from './framework/check.ts';
import { envelopeChecks, extraFieldsCheck, nullOnMiss, UNKNOWN_HASH } from './framework/common.ts';

interface Block {
  hash: string;
  number: string;
  transactions: Array<string | Record<string, unknown>>;
  totalDifficulty?: string | null;
}

const suite = new MethodSuite('eth_getBlockByHash');
export default suite;

envelopeChecks(
  suite,
  (t) => [t.need(t.targets.multiTxBlock, 'block with transactions').hash, false],
  () => ['0x1234', false],
);

suite.check(
  { intent: 'hashes-shape', clause: '§4.2, §2.2', layer: 'spec', title: 'flag false: a block object whose transactions are 32-byte hashes, and whose hash is the one asked for', covers: ['hit'] },
  async (t) => {
    const target = t.need(t.targets.multiTxBlock, 'block with transactions');
    const block = t.found(await t.result<Block | null>(suite.method, [target.hash, false]), 'a known block hash returned null');
    t.expectShape('block', block);
    t.expectEqual(block.hash, target.hash, 'hash must be the requested block hash', '/result/hash');
    t.expectEqual(block.number, target.number, 'number must be the block\'s number', '/result/number');
    block.transactions.forEach((tx, i) => t.expect(typeof tx === 'string', 'flag false must give transaction hashes, not objects', { pointer: `/result/transactions/${i}` }));
    t.expectEqual(block.transactions.length, target.txCount, 'transaction count must match the block', '/result/transactions');
  },
);

suite.check(
  { intent: 'full-shape', clause: '§4.2, §2.3', layer: 'spec', title: 'flag true: full transaction objects whose blockHash, blockNumber and transactionIndex match the block', covers: ['hit'] },
  async (t) => {
    const target = t.need(t.targets.multiTxBlock, 'block with transactions');
    const block = t.found(await t.result<Block | null>(suite.method, [target.hash, true]), 'a known block hash returned null');
    t.expectShape('block', block);
    block.transactions.forEach((tx, i) => {
      const at = `/result/transactions/${i}`;
      if (typeof tx !== 'object' || tx === null) return t.fail('flag true must give full transaction objects', { pointer: at });
      t.expectShape('transaction', tx, at);
      t.expectEqual(tx['blockHash'], block.hash, 'blockHash must be the block\'s hash', `${at}/blockHash`);
      t.expectEqual(tx['blockNumber'], block.number, 'blockNumber must be the block\'s number', `${at}/blockNumber`);
      t.expectEqual(tx['transactionIndex'], `0x${i.toString(16)}`, 'transactionIndex must be the position in the block', `${at}/transactionIndex`);
    });
  },
);

suite.check(
  { intent: 'hashes-match-full', clause: '§4.2', layer: 'invariant', title: 'the hash list (flag false) equals the hashes of the full transactions (flag true), in order' },
  async (t) => {
    const target = t.need(t.targets.multiTxBlock, 'block with transactions');
    const hashes = await t.result<Block>(suite.method, [target.hash, false]);
    const full = await t.result<Block>(suite.method, [target.hash, true]);
    t.expectEqual(full.transactions.map((tx) => (tx as { hash: string }).hash), hashes.transactions, 'full transactions and hash list disagree', '/result/transactions');
  },
);

suite.check(
  { intent: 'empty-block', clause: '§4.2, §2.2', layer: 'spec', title: 'a block with no transactions has an empty transactions array', covers: ['hit'] },
  async (t) => {
    const target = t.need(t.targets.emptyBlock, 'empty block');
    const block = t.found(await t.result<Block | null>(suite.method, [target.hash, true]), 'a known block hash returned null');
    t.expectShape('block', block);
    t.expectEqual(block.transactions, [], 'an empty block must list no transactions', '/result/transactions');
  },
);

nullOnMiss(suite, 'null-on-miss', '§4.2, §7', 'an unknown block hash returns result null', () => [UNKNOWN_HASH, false]);

suite.check(
  { intent: 'total-difficulty', clause: '§2.2', layer: 'advisory', title: 'totalDifficulty, which the spec lists, is present (current geth no longer returns it)' },
  async (t) => {
    const target = t.need(t.targets.multiTxBlock, 'block with transactions');
    const block = await t.result<Block>(suite.method, [target.hash, false]);
    t.expect(block !== null && 'totalDifficulty' in block, 'totalDifficulty is absent', { pointer: '/result/totalDifficulty' });
  },
);

extraFieldsCheck(suite, 'block', (t) => (t.targets.multiTxBlock ? [t.targets.multiTxBlock.hash, false] : undefined));
