// §4.6 eth_getTransactionByHash: a transaction object (§2.3) or null.
import { MethodSuite } from './framework/check.ts';
import { envelopeChecks, extraFieldsCheck, nullOnMiss, UNKNOWN_HASH } from './framework/common.ts';
import { KNOWN_TYPES } from './framework/discovery.ts';

type Tx = Record<string, unknown> & { hash: string; type: string };

const suite = new MethodSuite('eth_getTransactionByHash');
export default suite;

const anyTx = (t: { targets: { successTx?: string; txByType: Record<string, string> } }) => t.targets.successTx ?? Object.values(t.targets.txByType)[0];

envelopeChecks(suite, (t) => [t.need(anyTx(t), 'transaction')], () => ['0xabc']);

for (const type of KNOWN_TYPES) {
  suite.check(
    { intent: `type-${type}-shape`, clause: '§4.6, §2.3', layer: 'spec', title: `a mined type ${type} transaction has every field the spec and its type require, well formed`, covers: ['hit', `type:${type}`] },
    async (t) => {
      const hash = t.need(t.targets.txByType[type], `type ${type} transaction`);
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
  { intent: 'creation-to-null', clause: '§2.3', layer: 'spec', title: 'a contract-creation transaction has to: null', covers: ['hit'] },
  async (t) => {
    const hash = t.need(t.targets.contractCreation, 'contract-creation transaction');
    const tx = t.found(await t.result<Tx | null>(suite.method, [hash]), 'a known transaction hash returned null');
    t.expect('to' in tx, 'the to field must be present (null) for a contract creation', { pointer: '/result/to' });
    t.expectEqual(tx['to'], null, 'to must be null for a contract creation', '/result/to');
  },
);

nullOnMiss(suite, 'null-on-miss', '§4.6, §7', 'an unknown transaction hash returns result null', () => [UNKNOWN_HASH]);

extraFieldsCheck(suite, 'transaction', (t) => (anyTx(t) ? [anyTx(t)] : undefined));
