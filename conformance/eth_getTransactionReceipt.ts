// §4.7 eth_getTransactionReceipt: a receipt object (§2.4) or null.
import { MethodSuite } from './framework/check.ts';
import { envelopeChecks, extraFieldsCheck, nullOnMiss, UNKNOWN_HASH } from './framework/common.ts';
import { assertReceipt, assertRootXorStatus, type Receipt } from './framework/receipt-checks.ts';

const suite = new MethodSuite('eth_getTransactionReceipt');
export default suite;

envelopeChecks(suite, (t) => [t.need(t.targets.successTx, 'successful transaction')], () => ['0xabc']);

const cases = [
  { intent: 'success-receipt', target: 'successTx', what: 'successful transaction', status: '0x1', title: 'a successful transaction\'s receipt is well formed and has status 0x1' },
  { intent: 'failed-receipt', target: 'failedTx', what: 'failed (status 0x0) transaction', status: '0x0', title: 'a reverted transaction\'s receipt is well formed and has status 0x0' },
  { intent: 'creation-receipt', target: 'contractCreation', what: 'contract-creation transaction', title: 'a contract creation\'s receipt has to null and the created contractAddress' },
  { intent: 'logs-receipt', target: 'txWithLogs', what: 'transaction with logs', title: 'a receipt with logs: every log well formed and pointing back at its receipt' },
] as const;

for (const c of cases) {
  suite.check({ intent: c.intent, clause: '§4.7, §2.4, §2.5', layer: 'spec', title: c.title, covers: ['hit'] }, async (t) => {
    const hash = t.need(t.targets[c.target], c.what);
    const r = t.found(await t.result<Receipt | null>(suite.method, [hash]), 'the receipt of a mined transaction returned null');
    assertReceipt(t, r, '/result');
    t.expectEqual(r.transactionHash, hash, 'transactionHash must be the requested hash', '/result/transactionHash');
    if ('status' in c) t.expectEqual(r.status, c.status, `status must be ${c.status} for this transaction`, '/result/status');
    if (c.target === 'contractCreation') t.expect(r.to === null && r.contractAddress !== null, 'a creation has to null and a contractAddress', { pointer: '/result/contractAddress' });
    if (c.target === 'txWithLogs') t.expect(r.logs.length > 0, 'this transaction emitted logs', { pointer: '/result/logs' });
  });
}

suite.check(
  { intent: 'root-xor-status', clause: '§2.4', layer: 'spec', title: 'a receipt carries exactly one of root and status, and status is 0x0 or 0x1', covers: ['hit'] },
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
  { intent: 'pre-byzantium-root', clause: '§2.4', layer: 'spec', title: 'a pre-Byzantium receipt carries root (32 bytes) and no status', covers: ['hit'] },
  async (t) => {
    const hash = t.need(t.targets.preByzantiumTx, 'pre-Byzantium transaction (per-network fixture)');
    const r = t.found(await t.result<Receipt | null>(suite.method, [hash]), 'the receipt of a mined transaction returned null (history pruned?)');
    t.expect(typeof r.root === 'string' && !('status' in r), 'a pre-Byzantium receipt carries root, not status', { pointer: '/result/root', actual: { root: r.root, status: r.status } });
  },
);

nullOnMiss(suite, 'null-on-miss', '§4.7, §7', 'an unknown transaction hash returns result null', () => [UNKNOWN_HASH]);

extraFieldsCheck(suite, 'receipt', (t) => (t.targets.txWithLogs ?? t.targets.successTx ? [t.targets.txWithLogs ?? t.targets.successTx] : undefined));
