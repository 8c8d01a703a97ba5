// §4.6 eth_getTransactionByHash: a transaction object (§2.3) or null.
import { toQuantity } from '../core/hex.ts';
import { sameAddress } from '../core/invariants/compare.ts';
import type { Json } from '../core/invariants/encoding.ts';
import { legacyChainId, RECOMPUTABLE_TYPES, recoverSender, txHash } from '../core/invariants/tx.ts';
import { type CheckContext, MethodSuite } from './framework/check.ts';
import { nearHeadWindowCheck } from './framework/near-head-window.ts';
import { headServed, lookup, misplaced, type Wrong, readTxs } from './framework/head-served.ts';
import { envelopeChecks, extraFieldsCheck, nullOnMiss, nullOnZeroHash, type Shaped, UNKNOWN_HASH } from './framework/common.ts';
import { KNOWN_TYPES } from './framework/discovery.ts';
import { typeTarget } from './framework/absent.ts';
import { eraName, TYPE_FORK } from './framework/era.ts';
import { expectSameFields, NO_TX_JUDGED, placedTxs, recompute, SAMPLE } from './framework/invariant-checks.ts';
import { fieldsOf, SIGNED } from '../core/fields.ts';

type Tx = Record<string, unknown> & { hash: string; type: string };

const suite = new MethodSuite('eth_getTransactionByHash', 'conformance/eth_getTransactionByHash.ts');
export default suite;

const anyTx = (t: { targets: { successTx?: string; txByType: Record<string, string> } }) => t.targets.successTx ?? Object.values(t.targets.txByType)[0];

envelopeChecks(suite, (t) => [t.need(anyTx(t), 'transaction')], () => ['0xabc']);

for (const type of KNOWN_TYPES) {
  suite.check(
    { id: `eth_getTransactionByHash/type-${type}-shape`, clause: [{ section: '4.6' }, { section: '2.3' }], layer: 'spec', title: `a mined type ${type} transaction has every field the spec and its type require, well formed${TYPE_FORK[type] ? ` (on a chain from ${eraName(TYPE_FORK[type].fork)} on)` : ''}`, covers: ['hit', `type:${type}`], ties: ['transaction.hash', 'transaction.type'] },
    async (t) => {
      const era = TYPE_FORK[type];
      // A transaction of the type found on this chain is the premise met, whatever era its headers tell: judge it.
      if (era && t.targets.txByType[type] === undefined) t.needFork(era.fork, era.what);
      const hash = await typeTarget(t, type);
      const tx = t.found(await t.result<Tx | null>(suite.method, [hash]), 'a known transaction hash returned null');
      t.expectShape('transaction', tx);
      t.expectEqual(tx.hash, hash, 'hash must be the requested hash', '/result/hash');
      t.expectEqual(tx.type, type, 'type must be the transaction\'s type', '/result/type');
      for (const field of ['blockHash', 'blockNumber', 'transactionIndex']) t.expect(tx[field] !== null, `${field} is null only while pending; this transaction is mined`, { pointer: `/result/${field}` });
      if (type !== '0x0') t.expect(!('chainID' in tx), 'the key is spelled chainId, not chainID', { pointer: '/result/chainID' });
    },
  );
}

suite.check(
  { id: 'eth_getTransactionByHash/creation-to-null', clause: { section: '2.3' }, layer: 'spec', title: 'a contract-creation transaction has to: null', covers: ['hit'] },
  async (t) => {
    const hash = t.need(t.targets.contractCreation, 'contract-creation transaction');
    const tx = t.found(await t.result<Tx | null>(suite.method, [hash]), 'a known transaction hash returned null');
    t.expect('to' in tx, 'the to field must be present (null) for a contract creation', { pointer: '/result/to' });
    t.expectEqual(tx['to'], null, 'to must be null for a contract creation', '/result/to');
  },
);

// §8: where the network declares a near-head window, the oldest blocks inside it are served (eth_*/near-head-window).
nearHeadWindowCheck(suite, 'conformance/framework/near-head-window.ts');

headServed(suite, '4.6', 'its first transactions by hash, each naming the block (blockHash and blockNumber)', ['transaction.blockHash', 'transaction.blockNumber'], async (t, block) => {
  const wrong: Wrong[] = [];
  for (const { hash } of readTxs(block)) {
    const bad = misplaced(`${suite.method}(${hash})`, await lookup(t, suite.method, [hash]), block, 'hash', hash);
    if (bad) wrong.push(bad);
  }
  return wrong;
});

nullOnMiss(suite, 'eth_getTransactionByHash/null-on-miss', [{ section: '4.6' }, { section: '7' }], 'an unknown transaction hash returns result null', () => [UNKNOWN_HASH]);
nullOnZeroHash(suite, '4.6', 'a transaction hash', (hash) => [hash]);

extraFieldsCheck(suite, 'a transaction of each type found and a creation', async (t) => {
  const out: Shaped = [];
  for (const hash of new Set([...Object.values(t.targets.txByType), t.targets.contractCreation])) if (hash) out.push(['transaction', await t.result(suite.method, [hash])]);
  return out;
});

// Invariant layer (facts.md, "Protocol invariants"): the signed fields recomputed into the hash and the sender.

/** One transaction of each type found, the contract creation, and the pre-Byzantium one (often pre-EIP-155). */
function signedTargets(t: CheckContext): Array<{ what: string; hash: string }> {
  const seen = new Set<string>();
  const out: Array<{ what: string; hash: string }> = [];
  const add = (what: string, hash: string | undefined) => {
    if (!hash || seen.has(hash)) return;
    seen.add(hash);
    out.push({ what, hash });
  };
  // A type this harness cannot re-encode (an L2's deposit type, say) is left out, and said so if nothing else is left.
  const types = Object.entries(t.targets.txByType).sort();
  for (const [type, hash] of types) if ((RECOMPUTABLE_TYPES as readonly string[]).includes(type)) add(`the type ${type} transaction`, hash);
  add('the contract creation', t.targets.contractCreation);
  add('the pre-Byzantium transaction', t.targets.preByzantiumTx);
  if (out.length === 0) t.skip(types.length ? `no transaction of a type this harness can re-encode (found: ${types.map(([k]) => k).join(', ')})` : 'no transaction found on this endpoint');
  return out;
}

suite.check(
  { id: 'eth_getTransactionByHash/signed-hash', clause: { invariant: 'transaction hash' }, layer: 'invariant', title: 'hash recomputed as keccak256 of the signed envelope rebuilt from the fields (legacy with and without EIP-155, 0x1, 0x2, 0x3, 0x4 with its authorizationList), for one transaction of each type, a creation and a pre-Byzantium one', covers: ['hit'], ties: SIGNED },
  async (t) => {
    for (const { what, hash } of signedTargets(t)) {
      const tx = t.found(await t.result<Json | null>(suite.method, [hash]), `${what} ${hash} returned null`);
      const recomputed = await recompute(t, '/result', `the hash of ${what}`, () => txHash(tx));
      t.expectEqual(recomputed, hash, `${what}: keccak256 of the signed envelope rebuilt from its fields is not its hash (a signed field is corrupt)`, '/result');
    }
  },
);

suite.check(
  { id: 'eth_getTransactionByHash/signature', clause: { invariant: 'transaction sender' }, layer: 'invariant', title: 'from is the address the signature recovers to; v agrees with yParity (typed) or encodes the chain id (EIP-155 legacy); the chain id is the endpoint\'s', covers: ['hit'], ties: ['transaction.from', 'transaction.v', 'transaction.r', 'transaction.s', 'transaction.chainId'] },
  async (t) => {
    const chainId = BigInt(t.targets.chainId);
    for (const { what, hash } of signedTargets(t)) {
      const tx = t.found(await t.result<Json | null>(suite.method, [hash]), `${what} ${hash} returned null`);
      const type = (tx['type'] as string | undefined) ?? '0x0';
      if (type === '0x0') {
        const encoded = await recompute(t, '/result', `the chain id of ${what}`, () => legacyChainId(tx));
        if (encoded !== undefined) {
          t.expectEqual(toQuantity(encoded), toQuantity(chainId), `${what}: v encodes chain id ${encoded} (EIP-155), not the endpoint's`, '/result/v');
          if (tx['chainId'] !== undefined && tx['chainId'] !== null) t.expectEqual(tx['chainId'], toQuantity(encoded), `${what}: chainId disagrees with the chain id v encodes`, '/result/chainId');
        }
      } else {
        if ('v' in tx && 'yParity' in tx) t.expectEqual(tx['v'], tx['yParity'], `${what}: v of a typed transaction must equal yParity`, '/result/v');
        if (typeof tx['chainId'] === 'string') t.expectEqual(tx['chainId'], toQuantity(chainId), `${what}: chainId is not the endpoint's`, '/result/chainId');
      }
      const sender = await recompute(t, '/result', `the sender of ${what}`, () => recoverSender(tx));
      t.expect(sameAddress(sender, tx['from']), `${what}: from is not the address the signature recovers to`, { pointer: '/result/from', expected: sender.toLowerCase(), actual: tx['from'] });
    }
  },
);

suite.check(
  { id: 'eth_getTransactionByHash/agrees-with-block', clause: { invariant: 'same transaction through each method' }, layer: 'invariant', title: `each transaction of every block judged (first ${SAMPLE} of each) is served by hash exactly as in eth_getBlockByHash(full), field for field, naming that block (blockHash, blockNumber) and its position there (transactionIndex)`, covers: ['hit'], ties: fieldsOf('transaction') },
  async (t) => {
    // Every judged block is looked up, not only the busiest: a lookup broken for some blocks shows (red-team A5b).
    await t.each(await placedTxs(t), ({ name, txs }) =>
      t.each(txs, async (full, i) => {
        const tx = t.found(await t.result<Json | null>(suite.method, [full['hash']]), `${name}: its transaction ${i} (${String(full['hash'])}) returned null by hash`);
        expectSameFields(t, tx, full, `${name}: its transaction ${i} differs between eth_getTransactionByHash and eth_getBlockByHash(full) at its place`, '/result');
      }, NO_TX_JUDGED),
    );
  },
);
