// Init code the harness estimates to provoke what a chain need not hold: eth_estimateGas runs any creation at any
// block, with no contract deployed and nothing sent. Each probe states the gas its code uses at the least, from the
// fixed costs of its opcodes (yellow paper; EIP-2929 for a cold account), so a floor built on it stays a lower bound.
import { type Hex, size, toHex } from 'viem';
import { CODE_DEPOSIT_BYTE } from './invariants/intrinsic.ts';

const u16 = (n: number) => toHex(n, { size: 2 }).slice(2);

/** The fixed gas of the opcodes the probes use. */
const GAS = { push: 3n, copyStatic: 3n, copyWord: 3n, jumpi: 10n, jumpdest: 1n, sstoreSet: 20_000n } as const;

/**
 * Init code that deploys `codeSize` bytes of code (STOP bytes): PUSH2 n PUSH2 15 PUSH1 0 CODECOPY PUSH2 n PUSH1 0
 * RETURN, then the code. `execution` is what it uses at the least: five pushes, CODECOPY's static and per-word gas,
 * and the code deposit (200 a byte); the memory it grows into is left out, so the figure stays a lower bound.
 */
export function deployingInitCode(codeSize: number): { data: Hex; execution: bigint } {
  const prefix = `61${u16(codeSize)}61${u16(15)}60003961${u16(codeSize)}6000f3`;
  const words = BigInt(Math.ceil(codeSize / 32));
  return {
    data: `0x${prefix}${'00'.repeat(codeSize)}`,
    execution: 5n * GAS.push + GAS.copyStatic + GAS.copyWord * words + CODE_DEPOSIT_BYTE * BigInt(codeSize),
  };
}

/** SSTOREs of zero to non-zero the expensive branch of codeSizeBranch makes. */
const STORES = 3;

/**
 * Init code whose gas depends on the state it runs on: EXTCODESIZE of `address`; with no code there it stores three
 * words (zero to non-zero, 20,000 gas each at the least in any fork), with code it stops at once.
 * `withoutCode` is what the first branch uses at the least; `withCode` bounds the second from above (EXTCODESIZE of a
 * cold account is 2,600 from Berlin, 700 before). The two are more than 50,000 apart whatever the fork.
 */
export function codeSizeBranch(address: Hex): { data: Hex; withoutCode: bigint; withCode: bigint } {
  if (size(address) !== 20) throw new Error(`codeSizeBranch: ${address} is not a 20-byte address`);
  const store = (slot: number) => `6001${`60${slot.toString(16).padStart(2, '0')}`}55`;
  // PUSH20 address, EXTCODESIZE, PUSH1 <the JUMPDEST>, JUMPI; the stores, STOP; JUMPDEST, STOP.
  const head = `73${address.slice(2)}3b60`;
  const stores = Array.from({ length: STORES }, (_, i) => store(i)).join('');
  const jumpdest = (head.length + 2 + 2 + stores.length + 2) / 2;
  const data = `0x${head}${jumpdest.toString(16).padStart(2, '0')}57${stores}005b00` as Hex;
  return {
    data,
    withoutCode: BigInt(STORES) * GAS.sstoreSet,
    withCode: 2n * GAS.push + 2_600n + GAS.jumpi + GAS.jumpdest,
  };
}
