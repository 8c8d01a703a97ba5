// §4.2 eth_getBlockByHash: a block object (§2.2) or null; the flag chooses hashes or full transactions.
import { keccak256 } from 'viem';
import { blockBloom, effectiveGasPrices } from '../core/invariants/block-receipts.ts';
import { blockSizes } from '../core/invariants/block-size.ts';
import { bigintOf, type Json, type Violation } from '../core/invariants/encoding.ts';
import { EMPTY_UNCLES_HASH } from '../core/invariants/header.ts';
import { orderedTrieRoot } from '../core/invariants/trie.ts';
import { recomputable, signedEnvelope } from '../core/invariants/tx.ts';
import { networkOf } from '../core/networks.ts';
import { withdrawalEncoding } from '../core/invariants/withdrawal.ts';
import type { Targets } from '../core/targets.ts';
import { q, toQuantity } from '../core/hex.ts';
import { notNetworkForm } from '../core/invariants/blob-network.ts';
import type { Hex } from 'ox/Hex';
import { type CheckContext, CheckOutcome, MethodSuite } from './framework/check.ts';
import { resultOf, RpcError, TransportError } from '../core/node/rpc-client.ts';
import { envelopeChecks, extraFieldsCheck, nullOnMiss, nullOnZeroHash, type Shaped, UNKNOWN_HASH, ZERO_HASH } from './framework/common.ts';
import { expectHeaderHash, failOnViolations, judgedRefs, NO_TX_JUDGED, recompute, TypedBlocks } from './framework/invariant-checks.ts';
import { receiptsOfBlock, ReceiptsBudget } from './framework/receipt-checks.ts';
import { HEADER_FIELDS, SIGNED } from '../core/fields.ts';

interface Block {
  hash: string;
  number: string;
  transactions: Array<string | Record<string, unknown>>;
  totalDifficulty?: string | null;
}

const suite = new MethodSuite('eth_getBlockByHash', 'conformance/eth_getBlockByHash.ts');
export default suite;

/** A block the targets name, fetched with the given flag: it must be found and be block-shaped. */
async function knownBlock<K extends 'multiTxBlock' | 'emptyBlock'>(t: CheckContext, which: K, full: boolean): Promise<{ target: NonNullable<Targets[K]>; block: Block }> {
  const target = t.need(t.targets[which], which === 'emptyBlock' ? 'empty block' : 'block with several transactions') as NonNullable<Targets[K]>;
  const block = t.found(await t.result<Block | null>(suite.method, [target.hash, full]), 'a known block hash returned null');
  t.expectShape('block', block);
  return { target, block };
}

envelopeChecks(
  suite,
  (t) => [t.need(t.targets.multiTxBlock, 'block with several transactions').hash, false],
  () => ['0x1234', false],
);

suite.check(
  { id: 'eth_getBlockByHash/hashes-shape', clause: [{ section: '4.2' }, { section: '2.2' }], layer: 'spec', title: 'flag false: a block object whose transactions are 32-byte hashes, and whose hash is the one asked for', covers: ['hit'], ties: ['block.hash', 'block.number', 'block.transactions'] },
  async (t) => {
    const { target, block } = await knownBlock(t, 'multiTxBlock', false);
    t.expectEqual(block.hash, target.hash, 'hash must be the requested block hash', '/result/hash');
    t.expectEqual(block.number, target.number, 'number must be the block\'s number', '/result/number');
    block.transactions.forEach((tx, i) => t.expect(typeof tx === 'string', 'flag false must give transaction hashes, not objects', { pointer: `/result/transactions/${i}` }));
    t.expectEqual(block.transactions.length, target.txCount, 'transaction count must match the block', '/result/transactions');
  },
);

suite.check(
  { id: 'eth_getBlockByHash/full-shape', clause: [{ section: '4.2' }, { section: '2.3' }], layer: 'spec', title: 'flag true: full transaction objects whose blockHash, blockNumber and transactionIndex match the block', covers: ['hit'], ties: ['transaction.blockHash', 'transaction.blockNumber', 'transaction.transactionIndex'] },
  async (t) => {
    const { block } = await knownBlock(t, 'multiTxBlock', true);
    block.transactions.forEach((tx, i) => {
      const at = `/result/transactions/${i}`;
      if (typeof tx !== 'object' || tx === null) return t.fail('flag true must give full transaction objects', { pointer: at });
      t.expectShape('transaction', tx, at);
      t.expectEqual(tx['blockHash'], block.hash, 'blockHash must be the block\'s hash', `${at}/blockHash`);
      t.expectEqual(tx['blockNumber'], block.number, 'blockNumber must be the block\'s number', `${at}/blockNumber`);
      t.expectEqual(tx['transactionIndex'], toQuantity(i), 'transactionIndex must be the position in the block', `${at}/transactionIndex`);
    });
  },
);

suite.check(
  { id: 'eth_getBlockByHash/hashes-match-full', clause: { section: '4.2' }, layer: 'invariant', title: 'the hash list (flag false) equals the hashes of the full transactions (flag true), in order', ties: ['block.transactions', 'transaction.hash'] },
  async (t) => {
    const target = t.need(t.targets.multiTxBlock, 'block with several transactions');
    const hashes = t.found(await t.result<Block | null>(suite.method, [target.hash, false]), 'a known block hash returned null (flag false)');
    const full = t.found(await t.result<Block | null>(suite.method, [target.hash, true]), 'a known block hash returned null (flag true)');
    if (!Array.isArray(full.transactions) || !Array.isArray(hashes.transactions)) return t.fail('the transactions of a block must be an array', { pointer: '/result/transactions' });
    t.expectEqual(full.transactions.map((tx) => (tx as { hash: string }).hash), hashes.transactions, 'full transactions and hash list disagree', '/result/transactions');
  },
);

suite.check(
  { id: 'eth_getBlockByHash/empty-block', clause: [{ section: '4.2' }, { section: '2.2' }], layer: 'spec', title: 'a block with no transactions has an empty transactions array', covers: ['hit'], ties: ['block.transactions'] },
  async (t) => {
    const { block } = await knownBlock(t, 'emptyBlock', true);
    t.expectEqual(block.transactions, [], 'an empty block must list no transactions', '/result/transactions');
  },
);

nullOnMiss(suite, 'eth_getBlockByHash/null-on-miss', [{ section: '4.2' }, { section: '7' }], 'an unknown block hash returns result null', () => [UNKNOWN_HASH, false]);
nullOnZeroHash(suite, '4.2', 'a block hash', (hash) => [hash, false]);

suite.check(
  { id: 'eth_getBlockByHash/total-difficulty', clause: { section: '2.2' }, layer: 'advisory', title: 'totalDifficulty, which the spec lists, is present (current geth no longer returns it)' },
  async (t) => {
    const target = t.need(t.targets.multiTxBlock, 'block with several transactions');
    const block = await t.result<Block>(suite.method, [target.hash, false]);
    t.expect(block !== null && 'totalDifficulty' in block, 'totalDifficulty is absent', { pointer: '/result/totalDifficulty' });
  },
);

extraFieldsCheck(suite, 'the blocks judged and their transactions', async (t) =>
  (await judgedBlocks(t)).flatMap(({ block }): Shaped => [['block', block], ...(Array.isArray(block['transactions']) ? block['transactions'] : []).map((tx): Shaped[number] => ['transaction', tx])]),
);

// A type this harness cannot re-encode leaves its block out of transactions-root, block-size and the receiptsRoot
// checks (TypedBlocks): said here, so that a relabelled transaction never reads as a clean pass under --strict.
suite.check(
  { id: 'eth_getBlockByHash/tx-types', clause: [{ section: '2.3', field: 'type' }, { invariant: 'transaction envelope' }], layer: 'advisory', title: 'every transaction of the blocks judged has a type this harness re-encodes (0x0 to 0x4) or one of the network\'s own (fixtures/networks.json txTypes); a block holding another is left out of the root, size and receipt recomputes', covers: ['hit'] },
  async (t) => {
    const network = networkOf(t.targets.chainId);
    const own = new Set(network?.[1].txTypes ?? []);
    const who = network ? `${network[0]} (fixtures/networks.json)` : `chain ${t.targets.chainId}, a network fixtures/networks.json does not list,`;
    const violations: Violation[] = [];
    let theirs = 0;
    for (const { name, block } of await judgedBlocks(t)) {
      const txs = Array.isArray(block['transactions']) ? (block['transactions'] as unknown[]) : [];
      t.judging(txs.length, NO_TX_JUDGED);
      txs.forEach((tx, i) => {
        if (typeof tx !== 'object' || tx === null) return;
        const type = (tx as Json)['type'] ?? '0x0';
        if (recomputable(type)) return;
        if (typeof type === 'string' && own.has(type)) return void theirs++;
        violations.push({ pointer: `/transactions/${i}/type`, message: `${name}: transaction ${i} (${String((tx as Json)['hash'])}) has type ${String(type)}, which ${who} is not known to have and this harness cannot re-encode: its block is left out of the root, size and receipt recomputes`, actual: type });
      });
    }
    if (theirs) t.note(`${theirs} transaction(s) of ${network?.[0]}'s own types (${[...own].join(', ')}): their blocks are left out of the root, size and receipt recomputes`);
    failOnViolations(t, violations, '/result');
  },
);

suite.check(
  { id: 'eth_getBlockByHash/judged-shape', clause: [{ section: '4.2' }, { section: '2.2' }], layer: 'spec', title: 'every block the run reads has the block shape (schemas/rpc/block.json): each block judged (up to 16, full transactions), and every block the discovery walk (eth_getBlockByNumber) found malformed, which is never passed over as "not on this chain"', covers: ['hit'] },
  async (t) => {
    // A block discovery read malformed is asked for again, as the walk asked for it, for the evidence; it
    // fails even if it now comes back whole: the endpoint served it malformed.
    // Each one is a violation of its own: the next is still asked for, and every judged block still judged.
    await t.each(t.targets.malformedBlocks ?? [], async (bad) => {
      const again = await t.result<unknown>('eth_getBlockByNumber', [bad.number, bad.full]).catch((e: unknown) => (e instanceof CheckOutcome ? undefined : Promise.reject(e)));
      const what = `block ${bad.number} as the discovery walk read it (eth_getBlockByNumber${bad.classes.length ? `; it held ${bad.classes.join(', ')}` : ''})`;
      if (again !== undefined) t.expectShape('block', again, '/result', what);
      t.fail(`${what}: block shape: ${bad.faults.join('; ')}`, { pointer: `/result${bad.faults[0]?.split(' ')[0] ?? ''}` });
    });
    await t.each(await judgedBlocks(t), ({ name, block }) => t.expectShape('block', block, '/result', name));
  },
);

// Invariant layer (facts.md, "Protocol invariants"): what the block's header commits to, recomputed.

interface Judged {
  /** Names the block and the flag in messages; pointers stay JSON pointers into that response. */
  name: string;
  ref: { hash: string; number: string };
  block: Json;
}

/**
 * The blocks judged (judgedRefs: discovery's pick, spread over the eras found), each with full
 * transactions; the block with the most transactions also with hashes only, when `hashes` is asked for.
 */
async function judgedBlocks(t: CheckContext, hashes = false): Promise<Judged[]> {
  const out: Judged[] = [];
  const refs = judgedRefs(t);
  const flagsOf = (ref: { hash: string }) => (hashes && ref.hash === t.targets.multiTxBlock?.hash ? [true, false] : [true]);
  t.warm(refs.flatMap(({ ref }) => flagsOf(ref).map((flag) => [suite.method, [ref.hash, flag]] as const)));
  for (const { name, ref } of refs) {
    const flags = flagsOf(ref);
    for (const flag of flags) {
      const label = flags.length > 1 ? `${name}, ${flag ? 'full' : 'hashes'}` : name;
      out.push({ name: label, ref, block: t.found(await t.result<Json | null>(suite.method, [ref.hash, flag]), `${label} ${ref.hash} returned null`) });
    }
  }
  return out;
}

suite.check(
  { id: 'eth_getBlockByHash/block-hash', clause: { invariant: 'block hash' }, layer: 'invariant', title: 'hash recomputed as keccak256(rlp(header)), the field list chosen by fork from the fields present (London, Shanghai, Cancun, Prague), for every block judged (up to 16, spread over the eras found; the busiest with both flags)', covers: ['hit'], ties: [...HEADER_FIELDS, 'block.hash'] },
  async (t) => {
    await t.each(await judgedBlocks(t, true), async ({ name, block }) => expectHeaderHash(t, block, '/result', name));
  },
);

suite.check(
  { id: 'eth_getBlockByHash/sha3-uncles-empty', clause: { invariant: 'block hash', field: 'sha3Uncles' }, layer: 'invariant', title: 'a block listing no uncles has sha3Uncles = keccak256(rlp([])), and a block listing uncles has not (the hash of no uncles under a list of some: one of the two is wrong, whatever the block hash says)', covers: ['hit'], ties: ['block.sha3Uncles', 'block.uncles'] },
  async (t) => {
    const judged = (await judgedBlocks(t)).filter(({ block }) => Array.isArray(block['uncles']));
    await t.each(judged, ({ name, block }) => {
      const uncles = block['uncles'] as unknown[];
      if (uncles.length === 0) t.expectEqual(block['sha3Uncles'], EMPTY_UNCLES_HASH, `${name} lists no uncles, so its sha3Uncles must be keccak256(rlp([]))`, '/result/sha3Uncles');
      // sha3Uncles leaves the block hash's recompute untouched by the list itself: only this ties the list to it.
      else t.expect(block['sha3Uncles'] !== EMPTY_UNCLES_HASH, `${name} lists ${uncles.length} uncle(s) under the sha3Uncles of no uncles, keccak256(rlp([]))`, { pointer: '/result/uncles', expected: 'no uncles', actual: uncles });
    });
  },
);

suite.check(
  { id: 'eth_getBlockByHash/transactions-root', clause: { invariant: 'transactionsRoot' }, layer: 'invariant', title: 'transactionsRoot recomputed as the Merkle-Patricia root of rlp(index) -> signed envelope over the full transactions, each of which hashes to its hash; a wrong root of a block holding blob transactions is also compared with the trie of their network forms (eth_getRawTransactionByHash), and the failure says whether it is exactly that', covers: ['hit'], ties: ['block.transactionsRoot', 'block.transactions', ...SIGNED] },
  async (t) => {
    // Every block is judged before the verdict, so the failure says which blocks and what they hold: an
    // --expect entry can then be scoped to the one deviation it names (its `match`), not the whole check.
    const typed = new TypedBlocks(t);
    const wrong: Array<{ text: string; ref: Judged['ref']; served: unknown; recomputed: string }> = [];
    for (const { name, ref, block } of await judgedBlocks(t)) {
      const txs = block['transactions'];
      if (!Array.isArray(txs)) return t.fail(`${name}: transactions is not an array`, { pointer: '/result/transactions' });
      if (!typed.admits(name, txs)) continue;
      const envelopes = await recompute(t, '/result', `the transactionsRoot of ${name}`, () =>
        (txs as Json[]).map((tx, i) => {
          const envelope = signedEnvelope(tx);
          const hash = keccak256(envelope);
          if (hash !== tx['hash']) t.fail(`${name}: transaction ${i} does not hash to its hash (keccak256 of its signed envelope differs: a signed field or the hash is corrupt)`, { pointer: `/result/transactions/${i}/hash`, expected: hash, actual: tx['hash'] });
          return envelope;
        }),
      );
      const recomputed = await orderedTrieRoot(envelopes);
      if (block['transactionsRoot'] === recomputed) continue;
      const types = [...new Set((txs as Json[]).map((tx) => String(tx['type'] ?? '0x0')))].sort();
      const cause = types.includes('0x3') ? await networkFormsCause(t, txs as Json[], envelopes, block['transactionsRoot']) : '';
      wrong.push({ text: `${name} holds ${txs.length} transaction(s) of type ${types.join(', ') || 'none'}${cause}`, ref, served: block['transactionsRoot'], recomputed });
    }
    typed.settle('the transactionsRoot');
    const first = wrong[0];
    if (!first) return;
    // Read again (from the run's memo: no request) so the failing block's exchange is the evidence shown first.
    await t.result(suite.method, [first.ref.hash, true]);
    t.fail(`transactionsRoot is not the trie root of the transactions in ${wrong.length} of ${typed.judged} blocks judged: ${wrong.map((w) => w.text).join('; ')}`, { pointer: '/result/transactionsRoot', expected: first.recomputed, actual: first.served });
  },
);

/**
 * A wrong transactionsRoot of a block holding blob transactions: whether it is exactly the trie root of their network
 * forms (anvil's deviation: the sidecar in the trie), each read with eth_getRawTransactionByHash and shown to be that
 * transaction's (notNetworkForm). Said in the failure, so an --expect entry can excuse that cause and no other.
 */
async function networkFormsCause(t: CheckContext, txs: Json[], envelopes: Hex[], served: unknown): Promise<string> {
  const forms = [...envelopes];
  for (const [i, tx] of txs.entries()) {
    if (tx['type'] !== '0x3') continue;
    // Read as every other answer is (resultOf): an error, or no usable answer, leaves the cause unshown.
    const ex = await t.exchange('eth_getRawTransactionByHash', [tx['hash']]);
    let raw: unknown;
    try {
      raw = resultOf<unknown>(ex);
    } catch (err) {
      raw = err;
    }
    const why = raw instanceof RpcError ? `error ${raw.code}` : raw instanceof TransportError ? raw.message : notNetworkForm(raw, envelopes[i]!, tx['blobVersionedHashes']);
    if (why) return `, and the network form of its transaction ${i} could not be had (eth_getRawTransactionByHash: ${why.replaceAll(';', ',')})`;
    forms[i] = raw as Hex;
  }
  return (await orderedTrieRoot(forms)) === served
    ? ', and its transactionsRoot is exactly the trie root of their network forms (blob sidecars included, as eth_getRawTransactionByHash gives them)'
    : ', nor is its transactionsRoot the trie root of their network forms (blob sidecars included)';
}

suite.check(
  { id: 'eth_getBlockByHash/withdrawals-root', clause: { invariant: 'withdrawalsRoot' }, layer: 'invariant', title: 'withdrawalsRoot recomputed as the Merkle-Patricia root of rlp(index) -> rlp([index, validatorIndex, address, amount]) over the block\'s withdrawals, for every block found from Shanghai on', covers: ['hit'] },
  async (t) => {
    const judged = (await judgedBlocks(t)).filter(({ block }) => block['withdrawalsRoot'] !== undefined);
    if (judged.length === 0) {
      t.needFork('shanghai', 'Withdrawals (EIP-4895)');
      t.skip('no block judged is from Shanghai on (none has a withdrawalsRoot)');
    }
    await t.each(judged, async ({ name, block }) => {
      const list = block['withdrawals'];
      if (!Array.isArray(list)) return t.fail(`${name} has a withdrawalsRoot but no withdrawals list`, { pointer: '/result/withdrawals' });
      const encoded = await recompute(t, '/result', `the withdrawalsRoot of ${name}`, () => (list as Json[]).map((w, i) => withdrawalEncoding(w, `/withdrawals/${i}`)));
      t.expectEqual(block['withdrawalsRoot'], await orderedTrieRoot(encoded), `${name}: withdrawalsRoot is not the trie root of its ${list.length} withdrawal(s)`, '/result/withdrawalsRoot');
    });
  },
);

suite.check(
  { id: 'eth_getBlockByHash/block-size', clause: [{ section: '2.2', field: 'size' }, { invariant: 'block encoding' }], layer: 'invariant', title: 'size is the byte length of rlp([header, transactions, uncles, withdrawals]) over the full transactions (typed ones as their EIP-2718 envelope, no blob sidecars) and the uncle headers (eth_getUncleByBlockHashAndIndex)', covers: ['hit'], ties: ['block.size', 'block.transactions', 'block.uncles'] },
  async (t) => {
    // Every block is judged and each wrong one says by how much and whether it is exactly the typed transactions'
    // string headers left out: an --expect entry can name that deviation, and no other wrong size passes for it.
    const known = new TypedBlocks(t);
    await t.each(await judgedBlocks(t), async ({ name, ref, block }) => {
      if (!known.admits(name, block['transactions'])) return;
      const listed = Array.isArray(block['uncles']) ? (block['uncles'] as unknown[]) : [];
      const uncles: Json[] = [];
      for (const [i] of listed.entries()) {
        uncles.push(await t.leaned<Json>('eth_getUncleByBlockHashAndIndex', [ref.hash, toQuantity(i)], `uncle ${i}, which ${name} lists`));
      }
      const { size, bare } = await recompute(t, '/result', `the size of ${name}`, () => blockSizes(block, uncles));
      if (block['size'] === toQuantity(size)) return;
      const served = typeof block['size'] === 'string' && /^0x[0-9a-f]+$/i.test(block['size']) ? Number.parseInt(block['size'], 16) : undefined;
      const typed = (block['transactions'] as Json[]).filter((tx) => tx['type'] !== undefined && tx['type'] !== '0x0').length;
      const by = served === undefined ? 'not a quantity' : served < size ? `${size - served} byte(s) short` : `${served - size} byte(s) over`;
      const bareNote = served === bare && bare !== size ? `: exactly the size with the RLP string headers of its ${typed} typed transaction(s) left out` : '';
      t.fail(`${name}: size is not the length of the block's encoding (${by}${bareNote})`, { pointer: '/result/size', expected: toQuantity(size), actual: block['size'] });
    });
    known.settle('the size');
  },
);

suite.check(
  { id: 'eth_getBlockByHash/logs-bloom', clause: { invariant: 'logsBloom' }, layer: 'invariant', title: 'the block\'s logsBloom recomputed as the OR of the blooms of all its receipts\' logs (eth_getBlockReceipts, or each eth_getTransactionReceipt where it is not served, within the budget of receipts fetched one by one: the others named, none: inconclusive), for every block judged', covers: ['hit'], ties: ['block.logsBloom', 'log.address', 'log.topics'] },
  async (t) => {
    const budget = new ReceiptsBudget(t);
    await t.each(await judgedBlocks(t), async ({ name, ref, block }) => {
      const receipts = await receiptsOfBlock(t, ref, name, budget);
      if (!receipts) return;
      const expected = await recompute(t, '/result', `the bloom of ${name}`, () => blockBloom(receipts));
      t.expectEqual(block['logsBloom'], expected, `${name}: logsBloom is not the OR of the blooms of its logs`, '/result/logsBloom');
    });
    budget.settle();
  },
);

/**
 * The block a judged block's parentHash names (eth_getBlockByHash, hashes only); none for the genesis block. A
 * parentHash that names no block fails when the endpoint serves the block numbered one less (eth_getBlockByNumber),
 * and is inconclusive when it does not (history before the block pruned): a gap in history is not a wrong hash.
 */
async function parentOf(t: CheckContext, name: string, block: Json): Promise<Json | undefined> {
  const number = await recompute(t, '/result', `the parent of ${name}`, () => bigintOf(block, 'number'));
  if (number === 0n) return undefined;
  const parent = await t.result<Json | null>(suite.method, [block['parentHash'], false]);
  if (parent !== null) return parent;
  const before = await t.result<Json | null>('eth_getBlockByNumber', [toQuantity(number - 1n), false]);
  if (before === null) t.inconclusive(`${name}: its parentHash names no block, and block ${number - 1n} is not served either (history pruned?)`);
  return t.fail(`${name}: its parentHash names no block this endpoint serves, while block ${number - 1n} is served (eth_getBlockByNumber) as ${String(before['hash'])}`, { pointer: '/result/parentHash', expected: before['hash'], actual: block['parentHash'] });
}

suite.check(
  { id: 'eth_getBlockByHash/parent-hash', clause: [{ section: '2.2', field: 'parentHash' }, { invariant: 'chain of headers' }], layer: 'invariant', title: 'the parentHash of every block judged names a block (eth_getBlockByHash) numbered one less, with a timestamp not later than its own; the genesis block\'s is the zero hash', covers: ['hit'], ties: ['block.parentHash', 'block.number', 'block.timestamp'] },
  async (t) => {
    // Not later, rather than earlier: L2s (Arbitrum) give consecutive blocks the same timestamp, and so does anvil.
    await t.each(await judgedBlocks(t), async ({ name, block }) => {
      const parent = await parentOf(t, name, block);
      if (!parent) return t.expectEqual(block['parentHash'], ZERO_HASH, `${name} is the genesis block: its parentHash must be the zero hash`, '/result/parentHash');
      const [number, time] = await recompute(t, '/result', `the parent of ${name}`, () => [bigintOf(block, 'number'), bigintOf(block, 'timestamp')]);
      t.expectEqual(parent['number'], toQuantity(number - 1n), `${name}: its parentHash names block ${String(q(parent['number'] as string) ?? parent['number'])}, not block ${number - 1n}, the one numbered one less`, '/result/parentHash');
      const before = await recompute(t, '/result', `the parent of ${name}`, () => bigintOf(parent, 'timestamp'));
      t.expect(before <= time, `${name}: its timestamp is earlier than its parent's (${before})`, { pointer: '/result/timestamp', expected: `>= ${toQuantity(before)}`, actual: block['timestamp'] });
    });
  },
);

suite.check(
  { id: 'eth_getBlockByHash/total-difficulty-sum', clause: { section: '2.2', field: 'totalDifficulty' }, layer: 'spec', title: 'where served, the totalDifficulty of every block judged is the total difficulty of the chain up to it: its parent\'s (the block its parentHash names) plus its own difficulty; the genesis block\'s, its difficulty', covers: ['hit'], ties: ['block.totalDifficulty', 'block.difficulty'] },
  async (t) => {
    const judged = (await judgedBlocks(t)).filter(({ block }) => block['totalDifficulty'] !== undefined && block['totalDifficulty'] !== null);
    // Where it is not served there is no sum to judge: its absence is total-difficulty's verdict (advisory), not this one's.
    // The chain has a total difficulty whether or not the endpoint serves it: a skip that counts as not judged, never left out.
    if (judged.length === 0) t.skip('this endpoint serves no totalDifficulty on the blocks judged (current geth no longer returns it, and execution-apis does not require it): no sum to judge; eth_getBlockByHash/total-difficulty (advisory) judges its absence');
    await t.each(judged, async ({ name, block }) => {
      const [total, own] = await recompute(t, '/result', `the total difficulty of ${name}`, () => [bigintOf(block, 'totalDifficulty'), bigintOf(block, 'difficulty')]);
      const parent = await parentOf(t, name, block);
      if (!parent) return t.expectEqual(block['totalDifficulty'], toQuantity(own), `${name} is the genesis block: its totalDifficulty must be its difficulty`, '/result/totalDifficulty');
      if (parent['totalDifficulty'] === undefined || parent['totalDifficulty'] === null) return t.fail(`${name} carries a totalDifficulty, its parent ${String(parent['number'])} none to add to`, { pointer: '/result/totalDifficulty', actual: block['totalDifficulty'] });
      const before = await recompute(t, '/result', `the total difficulty of ${name}'s parent`, () => bigintOf(parent, 'totalDifficulty'));
      t.expectEqual(block['totalDifficulty'], toQuantity(before + own), `${name}: totalDifficulty must be its parent's (${before}) plus its difficulty (${own}), got ${total}`, '/result/totalDifficulty');
    });
  },
);

suite.check(
  { id: 'eth_getBlockByHash/gas-price-paid', clause: { invariant: 'EIP-1559' }, layer: 'invariant', title: 'the gasPrice of every transaction of type 0x2 to 0x4 in the blocks judged (full) is the price it paid, min(maxFeePerGas, baseFeePerGas + maxPriorityFeePerGas) against its block\'s base fee', covers: ['hit'], ties: ['transaction.gasPrice'] },
  async (t) => {
    // From 0x2 on, gasPrice is signed by nothing: only the fee rule ties it (0x0 and 0x1 sign it, and pay it as it is).
    // The rule is effectiveGasPrices', read with each transaction's gasPrice as the price paid.
    const judged = (await judgedBlocks(t)).map(({ name, block }) => ({ name, block, txs: (Array.isArray(block['transactions']) ? block['transactions'] : []) as Json[] }));
    const priced = judged.filter(({ txs }) => txs.some((tx) => typeof tx === 'object' && /^0x[234]$/.test(String(tx['type']))));
    if (priced.length === 0) {
      t.needFork('london', 'EIP-1559 transactions');
      t.skip('no transaction of type 0x2, 0x3 or 0x4 in the blocks judged');
    }
    const violations: Violation[] = [];
    for (const { name, block, txs } of priced) {
      const paid = await recompute(t, '/result', `the gas prices of ${name}`, () => effectiveGasPrices(txs.map((tx) => ({ effectiveGasPrice: tx['gasPrice'] })), txs, block));
      for (const v of paid) {
        const i = v.pointer.split('/')[1];
        violations.push({ pointer: `/transactions/${i}/gasPrice`, message: `${name}: transaction ${i} (type ${String(txs[Number(i)]?.['type'])}): gasPrice must be the price it paid, min(maxFeePerGas, baseFeePerGas + maxPriorityFeePerGas)`, expected: v.expected, actual: v.actual });
      }
    }
    failOnViolations(t, violations, '/result');
  },
);
