// §4.1 eth_estimateGas: a hex quantity, nothing added to the chain; a REVERT is error code 3 with the
// decoded reason in the message and the ABI payload in data (§7). Reverts are triggered with no deployed
// contract, by estimating a creation whose init code reverts, so these checks run on any chain.
import { type Hex, keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { codeSizeBranch, deployingInitCode } from '../core/evm-probes.ts';
import type { Fork } from '../core/invariants/forks.ts';
import { gasFloor } from '../core/invariants/intrinsic.ts';
import { notKept } from '../core/not-kept.ts';
import { acceptedRevertMessages, customErrorPayload, errorStringPayload, HARNESS_REVERT_REASON, panicPayload, revertingInitCode } from '../core/revert.ts';
import { q, toQuantity } from '../core/hex.ts';
import { resultOf, RpcError } from '../core/node/rpc-client.ts';
import { MethodSuite, type CheckContext } from './framework/check.ts';
import { envelopeChecks, PROBE_TRANSFER, ZERO_HASH } from './framework/common.ts';
import { chainEra } from './framework/era.ts';
import { absentFromWalk } from './framework/absent.ts';

const suite = new MethodSuite('eth_estimateGas', 'conformance/eth_estimateGas.ts');
export default suite;

const INTRINSIC_GAS = 21_000n;
const harnessPayload = errorStringPayload(HARNESS_REVERT_REASON);

envelopeChecks(suite, () => [PROBE_TRANSFER, 'latest'], () => [{ data: revertingInitCode(harnessPayload) }, 'latest']);

/** The fork whose rules a floor is computed by: the chain's era, or the oldest (the lowest floor) when it is unknown. */
const eraOf = (t: CheckContext): Fork => chainEra(t.targets) ?? 'frontier';

async function expectEstimate(t: CheckContext, params: unknown[], fresh = false): Promise<bigint> {
  const result = await t.result<string>(suite.method, params, { fresh });
  t.expectShape('quantity', result);
  const gas = q(result)!;
  t.expect(gas >= INTRINSIC_GAS, `an estimate must be at least the intrinsic gas ${INTRINSIC_GAS}`, { pointer: '/result', expected: `>= ${toQuantity(INTRINSIC_GAS)}`, actual: result });
  return gas;
}

suite.check(
  { id: 'eth_estimateGas/transfer-estimate', clause: { section: '4.1' }, layer: 'spec', title: 'a plain transfer estimates to a hex quantity of at least the intrinsic 21000 gas', covers: ['hit', 'tag:latest'] },
  async (t) => void (await expectEstimate(t, [PROBE_TRANSFER, 'latest'])),
);

suite.check(
  { id: 'eth_estimateGas/block-number-param', clause: { section: '4.1', part: 'params' }, layer: 'spec', title: 'the block parameter accepts a hex block number', covers: ['hit'] },
  async (t) => void (await expectEstimate(t, [PROBE_TRANSFER, t.targets.head.number])),
);

for (const tag of ['pending', 'safe', 'finalized']) {
  suite.check(
    { id: `eth_estimateGas/tag-${tag}`, clause: [{ section: '1' }, { section: '4.1', part: 'params' }], layer: 'spec', title: `the block tag "${tag}" is accepted`, covers: [`tag:${tag}`] },
    async (t) => void (await expectEstimate(t, [PROBE_TRANSFER, tag], true)),
  );
}

suite.check(
  { id: 'eth_estimateGas/one-param', clause: { section: '4.1', part: 'example' }, layer: 'advisory', title: 'the call object alone, as in the spec\'s example request, is accepted', covers: ['hit'] },
  async (t) => void (await expectEstimate(t, [PROBE_TRANSFER])),
);

suite.check(
  { id: 'eth_estimateGas/replay-real-tx', clause: { section: '4.1' }, layer: 'spec', title: 'replaying a real transaction at its parent block gives an estimate of at least the intrinsic gas', covers: ['hit'] },
  async (t) => {
    const hash = t.need(t.targets.successTx, 'successful transaction');
    const tx = await t.leaned<{ from: string; to: string | null; value: string; input: string; blockNumber: string }>('eth_getTransactionByHash', [hash], 'a known transaction');
    const parent = toQuantity(q(tx.blockNumber)! - 1n);
    await expectEstimate(t, [{ from: tx.from, ...(tx.to ? { to: tx.to } : {}), value: tx.value, data: tx.input }, parent]);
  },
);

suite.check(
  { id: 'eth_estimateGas/no-side-effect', clause: { section: '4.1' }, layer: 'spec', title: 'estimating adds no transaction: the sender\'s pending nonce is unchanged' },
  async (t) => {
    const hash = t.need(t.targets.successTx, 'successful transaction');
    const tx = await t.leaned<{ from: string }>('eth_getTransactionByHash', [hash], 'a known transaction');
    const call = { from: tx.from, to: tx.from, value: '0x0' };
    // A live sender may send a transaction of its own between two reads: measure twice before blaming.
    for (let attempt = 1; attempt <= 2; attempt++) {
      const before = await t.result<string>('eth_getTransactionCount', [tx.from, 'pending'], { fresh: true });
      await expectEstimate(t, [call, 'latest'], true);
      const after = await t.result<string>('eth_getTransactionCount', [tx.from, 'pending'], { fresh: true });
      if (before === after) return;
    }
    t.fail('the sender\'s pending nonce grew across an estimate, twice', { pointer: '/result' });
  },
);

export type MinedTx = Record<string, unknown> & { from: string; to: string | null; value: string; input: string; blockNumber: string; accessList?: unknown[] };

/** A mined transaction as the call object that replays it (no fees: the estimate then needs no balance for gas). */
export function callOf(tx: MinedTx): Record<string, unknown> {
  return { from: tx.from, ...(tx.to ? { to: tx.to } : {}), value: tx.value, data: tx.input, ...(Array.isArray(tx.accessList) && tx.accessList.length ? { accessList: tx.accessList } : {}) };
}

/** A discovered transaction, its receipt, and the number of its parent block (where replaying it sees the state it ran on). */
async function minedWithParent(t: CheckContext, hash: string): Promise<{ tx: MinedTx; receipt: { gasUsed: string; status?: string; transactionIndex: string }; parent: string }> {
  const tx = await t.leaned<MinedTx>('eth_getTransactionByHash', [hash], `the known transaction ${hash}`);
  const receipt = await t.leaned<{ gasUsed: string; status?: string; transactionIndex: string }>('eth_getTransactionReceipt', [hash], `the known transaction ${hash}`);
  const number = q(tx.blockNumber);
  if (number === undefined || number === 0n) t.skip(`the transaction's block ${tx.blockNumber} has no parent to replay it at`);
  return { tx, receipt, parent: toQuantity(number - 1n) };
}

/**
 * An estimate of a replayed successful transaction. The replay runs on the state the transaction ran on,
 * but in the parent block's context (number, timestamp, coinbase, base fee): a transaction that reads those
 * (a deadline, an MEV bot's checks) may revert there, which says nothing about the estimate. Such an
 * answer leaves the check inconclusive; any other error or an estimate that does not cover is judged.
 */
/** An error answer that says the call reverted: code 3, or a message saying so (the codes clients used before code 3). */
export const isRevert = (e: { code?: unknown; message?: unknown }): boolean => e.code === 3 || /revert/i.test(String(e.message ?? ''));

async function replayEstimate(t: CheckContext, call: Record<string, unknown>, parent: string): Promise<bigint> {
  const ex = await t.exchange(suite.method, [call, parent]);
  const error = (ex.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (error && isRevert(error)) {
    t.inconclusive(`the transaction reverts when replayed in its parent block's context (${String(error.message)}): it depends on the block (number, timestamp, coinbase), not only on the state`);
  }
  return expectEstimate(t, [call, parent]);
}

suite.check(
  { id: 'eth_estimateGas/estimate-covers-gas-used', clause: { section: '4.1' }, layer: 'spec', title: 'replaying a real transaction that is first in its block, at its parent block, estimates at least the gas it used (its receipt\'s gasUsed)', covers: ['hit'] },
  async (t) => {
    const { tx, receipt, parent } = await minedWithParent(t, t.need(t.targets.firstInBlockTx, 'successful transaction first in its block'));
    const gas = await replayEstimate(t, callOf(tx), parent);
    t.expect(gas >= q(receipt.gasUsed)!, `an estimate below the ${q(receipt.gasUsed)} gas the same transaction used at the same state is not enough to run it`, { pointer: '/result', expected: `>= ${receipt.gasUsed}`, actual: toQuantity(gas) });
  },
);

suite.check(
  { id: 'eth_estimateGas/estimate-covers-calldata', clause: { section: '4.1' }, layer: 'spec', title: 'a successful call to existing code, replayed at its parent block, estimates at least the intrinsic gas: 21000 plus its calldata (4/16 a byte) and access list', covers: ['hit'] },
  async (t) => {
    const { tx, parent } = await minedWithParent(t, t.need(t.targets.callToCode, 'successful call that ran code'));
    const call = callOf(tx);
    const intrinsic = gasFloor(call, eraOf(t));
    const gas = await replayEstimate(t, call, parent);
    t.expect(gas >= intrinsic, `an estimate below the intrinsic gas ${intrinsic} (21000 plus calldata and access list) cannot be enough`, { pointer: '/result', expected: `>= ${toQuantity(intrinsic)}`, actual: toQuantity(gas) });
  },
);

/** An estimate of a probe of the harness's own that must cover the least it can be charged (gasFloor). */
async function expectCovers(t: CheckContext, call: Record<string, unknown>, floor: bigint, what: string): Promise<void> {
  const gas = await expectEstimate(t, [call, 'latest']);
  t.expect(gas >= floor, `an estimate below ${floor}, the least ${what} can be charged (${eraOf(t)} rules), is not enough to run it`, { pointer: '/result', expected: `>= ${toQuantity(floor)}`, actual: toQuantity(gas) });
}

/** Bytes of code the deployment probe returns: 51,200 gas of code deposit. */
const DEPLOYED_BYTES = 256;

suite.check(
  { id: 'eth_estimateGas/covers-code-deposit', clause: { section: '4.1' }, layer: 'spec', title: `a creation that deploys ${DEPLOYED_BYTES} bytes of code estimates at least the least it can be charged: 21000 + 32000, its calldata, its init-code words (from Shanghai), its opcodes' fixed gas and 200 a deployed byte (EIP-7623's calldata floor from Prague)`, covers: ['hit'] },
  async (t) => {
    const probe = deployingInitCode(DEPLOYED_BYTES);
    const call = { from: PROBE_TRANSFER.from, data: probe.data };
    await expectCovers(t, call, gasFloor(call, eraOf(t), probe.execution), `a creation deploying ${DEPLOYED_BYTES} bytes`);
  },
);

suite.check(
  { id: 'eth_estimateGas/covers-access-list', clause: [{ section: '4.1' }, { section: '2.1' }], layer: 'spec', title: 'a call carrying an access list of 1 address and 1 storage key estimates at least 21000 + 2400 + 1900 (on a chain from Berlin on)', covers: ['hit'] },
  async (t) => {
    t.needFork('london', 'EIP-2930 access lists (Berlin, which no header field dates: held to London\'s)');
    const call = { ...PROBE_TRANSFER, accessList: [{ address: PROBE_TRANSFER.to, storageKeys: [ZERO_HASH] }] };
    await expectCovers(t, call, gasFloor(call, eraOf(t)), 'a call with that access list');
  },
);

/** Blocks of state below the head a node keeps (geth's default; `eth_capabilities` declares it): older state is archive. */
const RECENT_STATE_BLOCKS = 128n;
/** Above the floor, the cheap branch of the state probe stays below this (it uses ~2,600): an estimate past it took the other branch. */
const CHEAP_BRANCH_CEILING = 30_000n;

suite.check(
  { id: 'eth_estimateGas/state-at-block', clause: { section: '4.1', part: 'params' }, layer: 'spec', title: 'an estimate at a block runs on that block\'s state: init code branching on EXTCODESIZE of a contract created at block H (the walk\'s newest, within the latest 128 blocks) estimates at least 60000 above its floor at H-1 (no code yet) and less than 30000 above it at H (code)', covers: ['hit'] },
  async (t) => {
    const hash = t.targets.deployment ?? absentFromWalk(t, 'successful contract creation', 'no-recent-creation');
    const receipt = await t.leaned<{ contractAddress: string | null; blockNumber: string }>('eth_getTransactionReceipt', [hash], `the creation ${hash}`);
    const h = q(receipt.blockNumber)!;
    if (!receipt.contractAddress || h === 0n) t.inconclusive(`leans on eth_getTransactionReceipt, whose receipt of the creation ${hash} names no contractAddress or block 0`);
    const head = q(await t.result<string>('eth_blockNumber', [], { fresh: true })) ?? t.inconclusive('eth_blockNumber gave no head to measure the creation\'s depth by');
    if (head - (h - 1n) >= RECENT_STATE_BLOCKS) t.notOnThisChain('no-recent-creation', `not on this chain: the newest successful contract creation the walk met (${hash}) is in block ${h}, ${head - h} below the head ${head}: the state before it is older than the ${RECENT_STATE_BLOCKS} blocks a node keeps`);
    const code = await t.result<string>('eth_getCode', [receipt.contractAddress, toQuantity(h)]);
    if (!code || code === '0x') t.skip(`the newest successful contract creation the walk met (${hash}, block ${h}) deployed no code: nothing for EXTCODESIZE to tell apart`);
    const probe = codeSizeBranch(receipt.contractAddress as Hex);
    const call = { from: PROBE_TRANSFER.from, data: probe.data };
    const floor = gasFloor(call, eraOf(t));
    const sides = [
      { block: h - 1n, what: `block ${h - 1n}, before ${receipt.contractAddress} had code`, ok: (gas: bigint) => gas >= floor + probe.withoutCode, bound: `>= ${toQuantity(floor + probe.withoutCode)}`, wrong: 'below the gas of the branch taken where the contract has no code yet: estimated on a later state (the head\'s?)' },
      { block: h, what: `block ${h}, where ${receipt.contractAddress} has code`, ok: (gas: bigint) => gas < floor + CHEAP_BRANCH_CEILING, bound: `< ${toQuantity(floor + CHEAP_BRANCH_CEILING)}`, wrong: 'above the gas of the branch taken where the contract has code: estimated on an earlier state' },
    ];
    for (const side of sides) {
      // A node that keeps no state that old says so (archive not served, §8): listed, never a failure.
      const ex = await t.exchange(suite.method, [call, toQuantity(side.block)], { due: true });
      try {
        resultOf(ex);
      } catch (err) {
        if (err instanceof RpcError && notKept(err.code, err.rpcMessage)) {
          t.archive = { hash, block: toQuantity(side.block), depth: Number(head - side.block), answer: `error ${err.code}: ${err.rpcMessage}` };
          t.skip(`archive not served: the state of ${side.what} (${head - side.block} below the head) is not kept (error ${err.code}: ${err.rpcMessage})`);
        }
      }
    }
    await t.each(sides, async (side) => {
      const gas = await expectEstimate(t, [call, toQuantity(side.block)]);
      t.expect(side.ok(gas), `the estimate at ${side.what} is ${gas}, ${side.wrong}`, { pointer: '/result', expected: side.bound, actual: toQuantity(gas) });
    });
  },
);

suite.check(
  { id: 'eth_estimateGas/chain-revert', clause: [{ section: '4.1', rule: 3 }, { section: '7' }], layer: 'spec', title: 'a failed transaction found on the chain, first in its block, replayed at its parent block: code 3, "execution reverted" (with the decoded reason for Error(string)), data the hex revert payload', covers: ['revert'] },
  async (t) => {
    const { tx, receipt, parent } = await minedWithParent(t, t.need(t.targets.revertedTx, 'failed transaction first in its block'));
    // Gas left over means the failure was a REVERT; a failure that used all its gas may have been an
    // exceptional halt (out of gas), which a replay with more gas need not repeat. And the replay runs in the
    // parent block's context: a revert that read the block (a deadline passed) need not happen there.
    const reverted = q(receipt.gasUsed)! < q(tx['gas'] as string)!;
    const ex = await t.exchange(suite.method, [callOf(tx), parent]);
    const body = ex.body as { result?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
    if (body && 'result' in body && !body.error) {
      t.inconclusive(reverted ? 'the replay in the parent block\'s context does not revert: the failure depended on the block (number, timestamp, coinbase)' : 'the failed transaction used all its gas and its replay finds no revert: it may have run out of gas rather than reverted');
    }
    if (body?.error && !isRevert(body.error)) {
      t.inconclusive(`the replay fails otherwise than by a revert (${String(body.error.code)}: ${String(body.error.message)}): the transaction's failure is not one this check can replay`);
    }
    const err = await t.rpcError(suite.method, [callOf(tx), parent]);
    const data = typeof err.data === 'string' ? err.data : undefined;
    await t.each(
      [
        () => t.expectEqual(err.code, 3, `a REVERT must be error code 3, got ${JSON.stringify(err.code)}`, '/error/code'),
        () => t.expect(data !== undefined && /^0x([0-9a-f]{2})*$/i.test(data), `error.data must be the hex revert payload, got ${kindOf(err.data)}`, { pointer: '/error/data', actual: err.data }),
        // The message is judged by the payload the endpoint itself reported (the chain's contract chose it).
        () => data !== undefined && expectRevertMessage(t, err.rpcMessage, data),
      ],
      (judge) => judge(),
    );
  },
);

/** A throwaway key for the EIP-7702 authorization the advisory sends; nobody holds funds with it. */
const AUTHORITY_KEY = keccak256(toHex('rpc-certify: EIP-7702 authority for eth_estimateGas'));

suite.check(
  { id: 'eth_estimateGas/blob-call-fields', clause: [{ section: '4.1' }, { section: '2.1' }], layer: 'advisory', title: 'a call object with EIP-4844 fields (blobVersionedHashes, maxFeePerBlobGas), which the spec does not list, is estimated: a quantity of at least 21000 (on a chain from Cancun on)', covers: ['hit'] },
  async (t) => {
    t.needFork('cancun', 'EIP-4844 blob fields');
    // From a sender that has funds (a real transaction's): a node may ask for the blob fee's balance.
    const hash = t.targets.successTx;
    const sender = hash ? (await t.ifServed<{ from: string }>('eth_getTransactionByHash', [hash], `the known transaction ${hash}`))?.from : undefined;
    await expectEstimate(t, [{ ...PROBE_TRANSFER, ...(sender ? { from: sender } : {}), blobVersionedHashes: [`0x01${'ab'.repeat(31)}`], maxFeePerBlobGas: '0x1' }, 'latest']);
  },
);

suite.check(
  { id: 'eth_estimateGas/set-code-call-fields', clause: [{ section: '4.1' }, { section: '2.1' }], layer: 'advisory', title: 'a call object with an EIP-7702 authorizationList, which the spec does not list, is estimated with the authorization\'s cost: at least 21000 + 25000 per authorization (on a chain from Prague on)', covers: ['hit'] },
  async (t) => {
    t.needFork('prague', 'EIP-7702 authorizations');
    const signed = await privateKeyToAccount(AUTHORITY_KEY).signAuthorization({ chainId: Number(BigInt(t.targets.chainId)), address: PROBE_TRANSFER.to, nonce: 0 });
    const authorization = { chainId: t.targets.chainId, address: signed.address, nonce: '0x0', yParity: toQuantity(signed.yParity ?? 0), r: toQuantity(BigInt(signed.r)), s: toQuantity(BigInt(signed.s)) };
    const gas = await expectEstimate(t, [{ ...PROBE_TRANSFER, authorizationList: [authorization] }, 'latest']);
    t.expect(gas >= INTRINSIC_GAS + 25_000n, 'an estimate below 46000 left the authorization out: the transaction it estimates would run out of gas', { pointer: '/result', expected: `>= ${toQuantity(INTRINSIC_GAS + 25_000n)}`, actual: toQuantity(gas) });
  },
);

/** What error.data was, by kind (an --expect entry then describes it); never its content, which may echo a key. */
function kindOf(v: unknown): string {
  if (v === undefined) return 'none';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return `an object {${Object.keys(v).slice(0, 8).join(', ')}}`;
  return typeof v === 'string' ? 'a string that is not hex' : `a ${typeof v}`;
}

/** The error message a violation names, whole (endpoint text: the report redacts, then caps, it like any reason). */
function got(v: string): string {
  return JSON.stringify(v);
}

/** The message is one of the closed set §4.1 rule 3 and §7 accept for the payload (acceptedRevertMessages). */
function expectRevertMessage(t: CheckContext, message: string, payload: string): void {
  const accepted = acceptedRevertMessages(payload);
  t.expect(accepted.includes(message), `message must be ${accepted.map(got).join(' or ')} for this payload, got ${got(message)}`, { pointer: '/error/message', expected: accepted.join(' | '), actual: message });
}

/** A call that must revert with `payload`: code 3, error.data exactly the payload, the message one §7 accepts for it. */
async function expectRevert(t: CheckContext, call: Record<string, unknown>, payload: string): Promise<void> {
  const err = await t.rpcError(suite.method, [call, 'latest']);
  const data = typeof err.data === 'string' ? err.data : '';
  // Code, data and message are each judged: an --expect entry excusing a client's code must not excuse its data.
  await t.each(
    [
      () => t.expectEqual(err.code, 3, `a REVERT must be error code 3, got ${JSON.stringify(err.code)}`, '/error/code'),
      () => {
        t.expect(/^0x([0-9a-f]{2})*$/i.test(data), `error.data must be the hex ABI-encoded revert payload, got ${kindOf(err.data)}`, { pointer: '/error/data', actual: err.data });
        t.expectEqual(data.toLowerCase(), payload.toLowerCase(), 'error.data must be the exact revert payload', '/error/data');
      },
      () => expectRevertMessage(t, err.rpcMessage, payload),
    ],
    (judge) => judge(),
  );
}

/** Every kind of revert payload, provoked by init code that reverts with it: no contract, nothing sent, any chain. */
const PROVOKED: ReadonlyArray<{ id: `eth_estimateGas/${string}`; payload: Hex; title: string }> = [
  { id: 'eth_estimateGas/revert-initcode', payload: harnessPayload, title: 'a creation whose init code reverts with Error(string): code 3, "execution reverted: <reason>", data the ABI payload' },
  { id: 'eth_estimateGas/revert-empty', payload: '0x', title: 'a creation whose init code reverts with no data (revert()): code 3, "execution reverted", data "0x"' },
  { id: 'eth_estimateGas/revert-custom-error', payload: customErrorPayload(), title: 'a creation whose init code reverts with a custom error: code 3, "execution reverted" (no reason to decode), data exactly the payload' },
  { id: 'eth_estimateGas/revert-panic', payload: panicPayload(0x11), title: 'a creation whose init code reverts with Panic(0x11): code 3, "execution reverted" or geth\'s "execution reverted: arithmetic underflow or overflow", data exactly the payload' },
];

for (const p of PROVOKED) {
  suite.check({ id: p.id, clause: [{ section: '4.1', rule: 3 }, { section: '7' }], layer: 'spec', title: p.title, covers: ['revert'] }, async (t) => expectRevert(t, { data: revertingInitCode(p.payload) }, p.payload));
}

suite.check(
  { id: 'eth_estimateGas/revert-contracts', clause: [{ section: '4.1', rule: 3 }, { section: '7' }], layer: 'spec', title: 'calls to contracts known to revert (require, custom error, panic): code 3, message and data as §7', covers: ['revert'] },
  async (t) => {
    if (t.targets.reverts.length === 0) t.skip('no reverting contract call known on this endpoint (seeded on the embedded default)');
    await t.each(t.targets.reverts, (r) => expectRevert(t, { ...(r.to ? { to: r.to } : {}), data: r.data }, r.expectedData));
  },
);

suite.check(
  { id: 'eth_estimateGas/gas-cap', clause: [{ section: '4.1', rule: 1 }, { section: '8' }], layer: 'spec', title: 'a gas above 10x the block gas limit is capped (an estimate within the cap) or rejected with a JSON-RPC error, never a crash or a hang' },
  async (t) => {
    const head = await t.result<{ gasLimit: string }>('eth_getBlockByNumber', ['latest', false], { fresh: true });
    const cap = q(head.gasLimit)! * 10n;
    const ex = await t.exchange(suite.method, [{ ...PROBE_TRANSFER, gas: toQuantity(cap + 1n) }, 'latest']);
    if (ex.fault === 'timeout' || ex.fault === 'unreachable') t.fail(`an over-cap gas made the endpoint ${ex.fault === 'timeout' ? 'hang' : 'drop the connection'}`, { pointer: '' });
    t.expect(ex.fault === undefined && ex.httpStatus === 200, `an over-cap gas must get a JSON-RPC answer, got ${ex.fault ?? `HTTP ${ex.httpStatus}`}`, { pointer: '' });
    const body = ex.body as { result?: string; error?: unknown };
    if ('error' in body) return;
    t.expectShape('quantity', body.result);
    t.expect(q(body.result)! <= cap, 'an estimate above the 10x cap means the cap was not applied', { pointer: '/result', expected: `<= ${toQuantity(cap)}`, actual: body.result });
  },
);
