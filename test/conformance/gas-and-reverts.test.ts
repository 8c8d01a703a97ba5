// The pure helpers the estimate checks stand on: the intrinsic gas (and EIP-7623 floor) that says whether a
// receipt's gasUsed shows code ran, and the Error(string) decoding the revert checks compare messages with.
import { expect } from 'chai';
import { calldataFloor, gasFloor, intrinsicGas, ranCode } from '../../core/invariants/intrinsic.ts';
import { codeSizeBranch, deployingInitCode } from '../../core/evm-probes.ts';
import { effectiveGasPrices, receiptsAgainstTxs, removedLogs } from '../../core/invariants/block-receipts.ts';
import { acceptedRevertMessages, customErrorPayload, errorStringPayload, errorStringReason, gethRevertMessage, panicPayload } from '../../core/revert.ts';

const to = `0x${'11'.repeat(20)}`;

describe('intrinsic gas, effective gas price, reverts', function () {
  it('intrinsic gas: 21000, 4 a zero byte, 16 a non-zero byte, a creation and its init code words, access lists, authorizations', function () {
    expect(intrinsicGas({ to, input: '0x' })).to.equal(21_000n);
    expect(intrinsicGas({ to, input: '0x0001' })).to.equal(21_000n + 4n + 16n);
    expect(intrinsicGas({ to: null, input: `0x${'ff'.repeat(33)}` })).to.equal(21_000n + 32_000n + 33n * 16n + 2n * 2n);
    expect(intrinsicGas({ to, data: '0x', accessList: [{ address: to, storageKeys: [`0x${'00'.repeat(32)}`, `0x${'01'.repeat(32)}`] }] })).to.equal(21_000n + 2_400n + 2n * 1_900n);
    expect(intrinsicGas({ to, input: '0x', authorizationList: [{}, {}] })).to.equal(21_000n + 50_000n);
  });

  it('the floor follows the fork: init-code words from Shanghai, the EIP-7623 calldata floor from Prague only', function () {
    const creation = { to: null, input: `0x${'ff'.repeat(33)}` };
    expect(gasFloor(creation, 'london')).to.equal(21_000n + 32_000n + 33n * 16n);
    expect(gasFloor(creation, 'shanghai')).to.equal(21_000n + 32_000n + 33n * 16n + 2n * 2n);
    const heavy = { to, input: `0x${'ff'.repeat(100)}` };
    expect(gasFloor(heavy, 'cancun'), 'before Prague: calldata at 16 a byte').to.equal(21_000n + 1_600n);
    expect(gasFloor(heavy, 'prague'), 'from Prague: 10 a token, 4 tokens a non-zero byte').to.equal(21_000n + 4_000n);
    expect(gasFloor(heavy, 'prague', 5_000n), 'execution counts on the standard side only').to.equal(21_000n + 1_600n + 5_000n);
  });

  it('the probes: a deployment whose fixed gas and deposit are counted, a branch on EXTCODESIZE jumping to its JUMPDEST', function () {
    const d = deployingInitCode(256);
    expect(d.data.slice(0, 32), 'PUSH2 256 PUSH2 15 PUSH1 0 CODECOPY PUSH2 256 PUSH1 0 RETURN').to.equal('0x61010061000f6000396101006000f3');
    expect((d.data.length - 2) / 2).to.equal(15 + 256);
    expect(d.execution).to.equal(15n + 3n + 3n * 8n + 200n * 256n);
    const b = codeSizeBranch(`0x${'ab'.repeat(20)}`);
    const bytes = b.data.slice(2).match(/../g)!;
    const dest = parseInt(bytes[23]!, 16);
    expect(bytes[21], 'EXTCODESIZE').to.equal('3b');
    expect(bytes[24], 'JUMPI').to.equal('57');
    expect(bytes[dest], 'the jump lands on a JUMPDEST').to.equal('5b');
    expect(b.withoutCode - b.withCode > 50_000n).to.equal(true);
  });

  it('the messages a revert may carry: exactly the reason for Error(string), plain or geth\'s text for a Panic, plain only otherwise', function () {
    expect(acceptedRevertMessages(errorStringPayload('nope'))).to.deep.equal(['execution reverted: nope']);
    expect(acceptedRevertMessages(panicPayload(0x11))).to.deep.equal(['execution reverted', 'execution reverted: arithmetic underflow or overflow']);
    expect(gethRevertMessage(panicPayload(0x99))).to.equal('execution reverted: unknown panic code: 0x99');
    expect(acceptedRevertMessages(customErrorPayload())).to.deep.equal(['execution reverted']);
    expect(acceptedRevertMessages('0x')).to.deep.equal(['execution reverted']);
    expect(customErrorPayload().slice(0, 10)).to.not.be.oneOf(['0x08c379a0', '0x4e487b71']);
  });

  it('gasUsed above both the intrinsic gas and the EIP-7623 floor means code ran; calldata alone does not', function () {
    const heavy = { to, input: `0x${'ff'.repeat(100)}` };
    expect(calldataFloor(heavy)).to.equal(21_000n + 10n * 400n);
    expect(ranCode(heavy, calldataFloor(heavy))).to.equal(false); // an EOA charged the floor
    expect(ranCode(heavy, calldataFloor(heavy) + 1n)).to.equal(true);
    expect(ranCode({ to, input: '0x' }, 21_000n)).to.equal(false);
  });

  it('effectiveGasPrice: gasPrice for 0x0/0x1, min(maxFeePerGas, baseFee + tip) from 0x2 on', function () {
    const block = { baseFeePerGas: '0x64' };
    const txs = [
      { type: '0x0', gasPrice: '0x7' },
      { type: '0x2', maxFeePerGas: '0x1000', maxPriorityFeePerGas: '0x2' },
      { type: '0x2', maxFeePerGas: '0x65', maxPriorityFeePerGas: '0x10' },
    ];
    expect(effectiveGasPrices([{ effectiveGasPrice: '0x7' }, { effectiveGasPrice: '0x66' }, { effectiveGasPrice: '0x65' }], txs, block)).to.deep.equal([]);
    const v = effectiveGasPrices([{ effectiveGasPrice: '0x7' }, { effectiveGasPrice: '0x1000' }, { effectiveGasPrice: '0x65' }], txs, block);
    expect(v.map((x) => x.pointer)).to.deep.equal(['/1/effectiveGasPrice']);
    expect(effectiveGasPrices([{ effectiveGasPrice: '0x0' }], [{ type: '0x7e' }], block), 'an L2 deposit type is not judged').to.deep.equal([]);
  });

  it('receipts against transactions and removed logs name the first receipt that differs', function () {
    const txs = [{ hash: '0xa', type: '0x2', from: to, to: null }];
    expect(receiptsAgainstTxs([{ transactionHash: '0xa', type: '0x2', from: to.toUpperCase().replace('0X', '0x'), to: null, contractAddress: to }], txs)).to.deep.equal([]);
    expect(receiptsAgainstTxs([{ transactionHash: '0xa', type: '0x2', from: to, to: null, contractAddress: null }], txs).map((x) => x.pointer)).to.deep.equal(['/0/contractAddress']);
    expect(receiptsAgainstTxs([], txs)[0]?.message).to.match(/0 receipt\(s\) for 1 transaction/);
    expect(removedLogs([{ logs: [{ removed: false }, { removed: true }, {}] }]).map((x) => x.pointer)).to.deep.equal(['/0/logs/1/removed', '/0/logs/2/removed']);
  });

  it('Error(string) decodes to its reason; other payloads, and bytes that only start like one, to nothing', function () {
    expect(errorStringReason(errorStringPayload('nope'))).to.equal('nope');
    expect(errorStringReason('0x4e487b710000000000000000000000000000000000000000000000000000000000000001')).to.equal(undefined);
    expect(errorStringReason('0x08c379a0ff')).to.equal(undefined);
    expect(errorStringReason('0x')).to.equal(undefined);
  });
});
