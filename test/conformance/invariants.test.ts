// The invariant recomputes (core/invariants/) against real data the embedded devnet cannot produce: a
// header of each fork family, pre-EIP-155 and EIP-155 legacy transactions, EIP-1559 and blob transactions,
// and a pre-merge block with an uncle. The conformance self-test proves the checks fire; this proves the
// recomputes are right on history that only a per-network fixture would reach.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import * as Hash from 'ox/Hash';
import * as Rlp from 'ox/Rlp';
import { blockSize } from '../../core/invariants/block-size.ts';
import { EncodingError, type Json } from '../../core/invariants/encoding.ts';
import { EMPTY_UNCLES_HASH, headerFork, headerHash, headerItems } from '../../core/invariants/header.ts';
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from '../../core/invariants/trie.ts';
import { legacyChainId, recoverSender, signedEnvelope, txHash } from '../../core/invariants/tx.ts';

interface Vectors {
  frontier: { block: Json & { transactions: Json[] } };
  london: { block: Json; transactions: Json[] };
  shanghai: { block: Json };
  prague: { block: Json };
  uncle: { block: Json; uncle: Json };
  blob: Array<{ source: string; tx: Json }>;
  hive: { block: Json };
}
const v = JSON.parse(readFileSync(new URL('../support/invariant-vectors.json', import.meta.url), 'utf8')) as Vectors;

describe('invariant recomputes on real chain data', function () {
  describe('block hash = keccak256(rlp(header)), by fork', function () {
    for (const [name, fork] of [['frontier', 'frontier'], ['london', 'london'], ['shanghai', 'shanghai'], ['prague', 'prague']] as const) {
      it(`${name} header`, function () {
        const block = v[name].block;
        expect(headerFork(block)).to.equal(fork);
        expect(headerHash(block)).to.equal(block['hash']);
      });
    }

    it('one changed header field changes the hash', function () {
      const block = { ...v.prague.block, gasUsed: '0x1c06044' };
      expect(headerHash(block)).to.not.equal(v.prague.block['hash']);
    });

    it('a later fork\'s field without an earlier one\'s is refused, not guessed', function () {
      const { baseFeePerGas: _drop, ...noBaseFee } = v.shanghai.block;
      expect(() => headerHash(noBaseFee)).to.throw(EncodingError, /baseFeePerGas/);
      const { excessBlobGas: _drop2, ...halfCancun } = v.prague.block;
      expect(() => headerHash(halfCancun)).to.throw(EncodingError, /excessBlobGas/);
    });
  });

  describe('uncles', function () {
    it('the uncle\'s hash recomputes from its header, and sha3Uncles is keccak256(rlp([uncle headers]))', function () {
      expect(headerHash(v.uncle.uncle)).to.equal(v.uncle.uncle['hash']);
      expect(headerHash(v.uncle.block)).to.equal(v.uncle.block['hash']);
      expect(Hash.keccak256(Rlp.fromHex([headerItems(v.uncle.uncle)]))).to.equal(v.uncle.block['sha3Uncles']);
    });

    it('a block without uncles has sha3Uncles = keccak256(rlp([]))', function () {
      expect(EMPTY_UNCLES_HASH).to.equal('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347');
      expect(v.prague.block['sha3Uncles']).to.equal(EMPTY_UNCLES_HASH);
    });
  });

  describe('block size = byte length of rlp([header, transactions, uncles, withdrawals])', function () {
    it('a mainnet block of pre-EIP-155 legacy transactions, and geth\'s Prague block with an empty withdrawals list', function () {
      expect(blockSize(v.frontier.block, [])).to.equal(Number(v.frontier.block['size']));
      expect(blockSize(v.hive.block, [])).to.equal(Number(v.hive.block['size']));
    });

    it('counts the empty withdrawals list (one byte), each uncle header, and needs full transactions', function () {
      const { withdrawals: _w, ...noWithdrawals } = v.hive.block;
      expect(blockSize(noWithdrawals, [])).to.equal(Number(v.hive.block['size']) - 1);
      expect(blockSize(v.frontier.block, [v.uncle.uncle])).to.equal(Number(v.frontier.block['size']) + (Rlp.fromHex([headerItems(v.uncle.uncle)]).length - 2) / 2 - 1);
      const hashesOnly = { ...v.hive.block, transactions: (v.hive.block['transactions'] as Json[]).map((tx) => tx['hash']) };
      expect(() => blockSize(hashesOnly, [])).to.throw(EncodingError, /full transactions/);
    });
  });

  describe('transactions', function () {
    const all = () => [...v.frontier.block.transactions, ...v.london.transactions, ...v.blob.map((b) => b.tx)];

    it('hash and sender recompute for pre-EIP-155 and EIP-155 legacy, 0x2 and 0x3 transactions', function () {
      for (const tx of all()) {
        expect(txHash(tx), `hash of ${String(tx['hash'])}`).to.equal(tx['hash']);
        expect(recoverSender(tx).toLowerCase(), `sender of ${String(tx['hash'])}`).to.equal(tx['from']);
      }
    });

    it('legacy v encodes the chain id only after EIP-155', function () {
      expect(legacyChainId(v.frontier.block.transactions[0]!)).to.equal(undefined);
      expect(legacyChainId(v.london.transactions[0]!)).to.equal(1n);
    });

    it('a flipped parity or a changed field breaks the hash or the sender', function () {
      const legacy = v.frontier.block.transactions[0]!;
      expect(txHash({ ...legacy, v: legacy['v'] === '0x1b' ? '0x1c' : '0x1b' })).to.not.equal(legacy['hash']);
      const blob = v.blob[0]!.tx;
      expect(txHash({ ...blob, maxFeePerBlobGas: '0x2' })).to.not.equal(blob['hash']);
      expect(recoverSender({ ...blob, yParity: '0x1', v: '0x1' }).toLowerCase()).to.not.equal(blob['from']);
    });

    it('transactionsRoot of a block is the trie of its signed envelopes', async function () {
      expect(await orderedTrieRoot(v.frontier.block.transactions.map(signedEnvelope))).to.equal(v.frontier.block['transactionsRoot']);
      expect(await orderedTrieRoot([])).to.equal(EMPTY_TRIE_ROOT);
    });
  });
});
