// A `latest` answer judged against the block it names, read by that hash (load/shared/named-block.ts).
import { expect } from 'chai';
import { namedBlockFault, namedHash, namesLatest } from '../../load/shared/named-block.ts';

const h = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const bloom = (byte: string) => `0x${byte.repeat(256)}`;
const zero = bloom('00');

describe('a latest answer against the block it names', function () {
  const block = { number: '0x9', transactions: [h(1), h(2)], logsBloom: bloom('03') };
  const receipts = [
    { blockHash: h(9), transactionHash: h(1), logs: [{}], logsBloom: bloom('01') },
    { blockHash: h(9), transactionHash: h(2), logs: [{}], logsBloom: bloom('02') },
  ];

  it('only methods whose answer names its block, asked latest', function () {
    expect(namesLatest('eth_getBlockReceipts', '["latest"]')).to.equal(true);
    expect(namesLatest('eth_estimateGas', '[{},"latest"]')).to.equal(false);
    expect(namesLatest('eth_getBlockReceipts', '["0x9"]')).to.equal(false);
    expect(namedHash(receipts)).to.equal(h(9));
    expect(namedHash([])).to.equal(undefined);
  });

  it('the honest answer passes; a receipt dropped, another transaction\'s, logs dropped, a bloom cleared: each named', function () {
    expect(namedBlockFault('eth_getBlockReceipts', ['latest'], receipts, block)).to.equal(undefined);
    expect(namedBlockFault('eth_getBlockReceipts', ['latest'], receipts.slice(0, 1), block)).to.match(/^1 receipt\(s\) for latest, block 0x9 .* holds 2 transaction\(s\)$/);
    expect(namedBlockFault('eth_getBlockReceipts', ['latest'], [receipts[1], receipts[0]], block)).to.match(/^receipt 0 of latest is of 0x0+2/);
    expect(namedBlockFault('eth_getBlockReceipts', ['latest'], [receipts[0], { ...receipts[1], logs: [] }], block)).to.match(/receipt 1 of latest has no logs, while its logsBloom says it has some/);
    expect(namedBlockFault('eth_getBlockReceipts', ['latest'], [receipts[0], { ...receipts[1], logs: [], logsBloom: zero }], block)).to.match(/do not make the logsBloom of block 0x9/);
  });

  it('the transaction at an index must be the block\'s at that index', function () {
    expect(namedBlockFault('eth_getTransactionByBlockNumberAndIndex', ['latest', '0x1'], { hash: h(2), blockHash: h(9) }, block)).to.equal(undefined);
    expect(namedBlockFault('eth_getTransactionByBlockNumberAndIndex', ['latest', '0x1'], { hash: h(1), blockHash: h(9) }, block)).to.match(/the transaction at index 1 of latest is 0x0+1/);
  });
});
