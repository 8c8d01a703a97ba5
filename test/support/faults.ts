// The fault catalogue: each fault breaks one rule the way real endpoints do, and names the checks that
// must catch it. The self-test runs the suite once per fault and asserts those checks fail, and asserts
// that every check of the suite is killed by at least one fault.
import * as Rlp from 'ox/Rlp';
import * as Secp256k1 from 'ox/Secp256k1';
import { type Address, getContractAddress, keccak256, numberToHex, serializeTransaction, type TransactionSerializable, toHex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { toQuantity } from '../../core/hex.ts';
import { blockSize } from '../../core/invariants/block-size.ts';
import { headerHash } from '../../core/invariants/header.ts';
import { intrinsicGas } from '../../core/invariants/intrinsic.ts';
import type { Targets } from '../../core/targets.ts';
import { allSuites } from '../../conformance/methods.ts';
import { pruneAnswer } from '../../devnet/pruned.ts';
import { HISTORY_RESOURCES } from '../../core/history.ts';
import type { Fault, FaultContext, RpcRequest, RpcResponse, Synthetic } from './fault-proxy.ts';

const M = {
  estimate: 'eth_estimateGas',
  block: 'eth_getBlockByHash',
  uncleN: 'eth_getUncleByBlockNumberAndIndex',
  uncleH: 'eth_getUncleByBlockHashAndIndex',
  txIdx: 'eth_getTransactionByBlockNumberAndIndex',
  tx: 'eth_getTransactionByHash',
  receipt: 'eth_getTransactionReceipt',
  blockReceipts: 'eth_getBlockReceipts',
} as const;

type Json = Record<string, unknown>;
const TAGS = ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const;
const notFound = (res: RpcResponse): RpcResponse => ({ jsonrpc: '2.0', id: res.id, error: { code: -32000, message: 'not found' } });
const invalidParams = (res: RpcResponse): RpcResponse => ({ jsonrpc: '2.0', id: res.id, error: { code: -32602, message: 'invalid argument' } });

/** Rewrites the non-null results of one method. */
function results(method: string, mutate: (result: any, req: RpcRequest) => unknown, when: (req: RpcRequest) => boolean = () => true): Fault['rewrite'] {
  return (req, res) => (req.method === method && when(req) && 'result' in res && res.result !== null ? { ...res, result: mutate(res.result, req) } : res);
}

function fault(name: string, kills: string[], rewrite: Fault['rewrite'], extra: Partial<Fault> = {}): Fault {
  return { name, kills, rewrite, ...extra };
}

function envelopeFaults(method: string): Fault[] {
  return [
    fault(`${method}: jsonrpc "1.0" in results`, [`${method}/envelope`, 'service/every-answer-jsonrpc'], (req, res) => (req.method === method && 'result' in res ? { ...res, jsonrpc: '1.0' } : res)),
    fault(`${method}: error responses echo the id as a string`, [`${method}/envelope-error`], (req, res) => (req.method === method && 'error' in res ? { ...res, id: String(res.id) } : res)),
  ];
}

/**
 * Envelope defects on every answer: the id echoed wrong, retyped or null, or a body with both result and
 * error. The answers stay usable (one exchange, one call): every envelope check fails, the suite still runs.
 */
export function envelopeDefects(): Fault[] {
  const ids = allSuites.flatMap((s) => s.checks.map((c) => c.spec.id));
  const envelope = (pattern: RegExp) => ids.filter((id) => pattern.test(id));
  const everyAnswer = (name: string, kills: string[], change: (res: RpcResponse) => RpcResponse): Fault => fault(`envelope: ${name}`, kills, (_req, res) => change(res), { methods: allSuites.map((s) => s.method), exact: true });
  const both = /\/envelope(-error)?$/;
  // The service's id checks see it too: their answers (a result for id null, -32600 with id null otherwise) carry another id.
  const idChecks = ['service/id-null', 'service/id-object', 'service/id-fractional', 'service/every-answer-id'];
  return [
    everyAnswer('another id echoed', [...envelope(both), ...idChecks], (res) => ({ ...res, id: Number(res.id) + 1000 })),
    everyAnswer('the id echoed as a string', [...envelope(both), ...idChecks], (res) => ({ ...res, id: String(res.id) })),
    everyAnswer('id null', [...envelope(both), 'service/every-answer-id'], (res) => ({ ...res, id: null })),
    // On answers with a value only: with a null result, which of the two was meant cannot be told (and a
    // dev chain's uncle lookups all answer null). The answer to id null is a value: both there fail service/id-null.
    everyAnswer('both result and error', [...envelope(/^(?!eth_getUncle).*\/envelope$/), 'service/id-null'], (res) => (res.result !== undefined && res.result !== null ? { ...res, error: { code: -32000, message: 'spurious' } } : res)),
  ];
}

/** The all-zero hash answered with an error, as anvil does for uncles, instead of null. */
function zeroHashError(method: string): Fault {
  return fault(`${method}: the all-zero hash answered with an error`, [`${method}/null-zero-hash`], (req, res) => (req.method === method && /^0x0{64}$/.test(String(req.params[0])) ? invalidParams(res) : res));
}

function nullToError(method: string, kills: string[]): Fault {
  return fault(`${method}: a miss is an error instead of null`, kills.map((k) => `${method}/${k}`), (req, res) => (req.method === method && 'result' in res && res.result === null ? notFound(res) : res));
}

function tagRejected(method: string, tag: string, at: number): Fault {
  return fault(`${method}: tag "${tag}" rejected`, [`${method}/tag-${tag}`], (req, res) => (req.method === method && req.params[at] === tag ? invalidParams(res) : res));
}

/** A judged block other than the busiest and the empty one (which other checks fetch and shape-check). */
function judgedOnly(targets: Targets): string | undefined {
  const other = [targets.multiTxBlock?.hash, targets.emptyBlock?.hash];
  return (targets.judgedBlocks ?? []).find((b) => !other.includes(b.hash) && b.why.some((w) => w.startsWith('type 0x3')))?.hash;
}

export function faultCatalogue(targets: Targets): Fault[] {
  const synthetic = { synthetic: true } as const;
  return [
    // eth_estimateGas
    ...envelopeFaults(M.estimate),
    fault('estimate: quantity with a leading zero', [`${M.estimate}/transfer-estimate`], results(M.estimate, (r: string) => `0x0${r.slice(2)}`, (req) => req.params[1] === 'latest')),
    fault('estimate: hex block number rejected', [`${M.estimate}/block-number-param`], (req, res) => (req.method === M.estimate && /^0x/.test(String(req.params[1])) ? invalidParams(res) : res)),
    ...(['pending', 'safe', 'finalized'] as const).map((tag) => tagRejected(M.estimate, tag, 1)),
    fault('estimate: one-param form rejected', [`${M.estimate}/one-param`], (req, res) => (req.method === M.estimate && req.params.length === 1 ? invalidParams(res) : res)),
    fault('estimate: below intrinsic gas for contract calls', [`${M.estimate}/replay-real-tx`], results(M.estimate, () => '0x5207', (req) => Boolean((req.params[0] as Json)['data']))),
    fault('estimate: the estimate is sent as a transaction', [`${M.estimate}/no-side-effect`], async (req, res, ctx: FaultContext) => {
      const call = req.params[0] as Json;
      if (req.method === M.estimate && call['from'] && call['to'] === call['from']) await ctx.upstream('eth_sendTransaction', [{ from: call['from'], to: call['to'], value: '0x0' }]);
      return res;
    }),
    fault('estimate: revert reason not decoded into the message', [`${M.estimate}/revert-initcode`, `${M.estimate}/revert-contracts`], (req, res) => (req.method === M.estimate && res.error?.code === 3 ? { ...res, error: { ...res.error, message: 'execution reverted' } } : res)),
    fault('estimate: revert as -32000', [`${M.estimate}/revert-initcode`, `${M.estimate}/revert-contracts`, `${M.estimate}/chain-revert`], (req, res) => (req.method === M.estimate && res.error?.code === 3 ? { ...res, error: { ...res.error, code: -32000 } } : res)),
    fault('estimate: revert data dropped for contract calls', [`${M.estimate}/revert-contracts`, `${M.estimate}/chain-revert`], (req, res) => (req.method === M.estimate && res.error && (req.params[0] as Json)['to'] ? { ...res, error: { code: res.error.code, message: res.error.message } } : res)),
    fault('estimate: revert data not the payload', [`${M.estimate}/revert-initcode`], (req, res) => (req.method === M.estimate && res.error?.code === 3 ? { ...res, error: { ...res.error, data: '0x08c379a0' } } : res)),
    fault('estimate: calls with data estimated at their intrinsic gas only (execution left out)', [`${M.estimate}/estimate-covers-gas-used`], results(M.estimate, (_r: string, req) => toQuantity(intrinsicGas(req.params[0] as Json)), (req) => ((req.params[0] as Json)['data'] as string | undefined ?? '0x').length > 2)),
    fault('estimate: 21000 for every call (calldata left out)', [`${M.estimate}/estimate-covers-calldata`, `${M.estimate}/estimate-covers-gas-used`], results(M.estimate, () => '0x5208')),
    fault('estimate: EIP-4844 call fields rejected', [`${M.estimate}/blob-call-fields`], (req, res) => (req.method === M.estimate && (req.params[0] as Json)['blobVersionedHashes'] ? invalidParams(res) : res)),
    fault('estimate: the authorizationList ignored', [`${M.estimate}/set-code-call-fields`], results(M.estimate, () => '0x5208', (req) => Boolean((req.params[0] as Json)['authorizationList']))),
    // What real providers get wrong, provoked on any chain (issue 34).
    fault('estimate: every estimate answered at the head, whatever block is asked (a non-archive node\'s silent fallback)', [`${M.estimate}/state-at-block`], async (req, res, ctx) => (req.method === M.estimate && /^0x/.test(String(req.params[1])) ? { ...(await ctx.upstream(M.estimate, [req.params[0], 'latest'])), id: res.id } : res)),
    fault('estimate: revert() without data answered -32000 with no data', [`${M.estimate}/revert-empty`], (req, res) => (req.method === M.estimate && res.error?.code === 3 && res.error.data === '0x' ? { jsonrpc: '2.0', id: res.id, error: { code: -32000, message: 'execution reverted' } } : res)),
    fault('estimate: a custom error\'s payload decoded as a reason in the message (anvil\'s "custom error 0x…")', [`${M.estimate}/revert-custom-error`, `${M.estimate}/revert-contracts`], (req, res) => (req.method === M.estimate && res.error?.code === 3 && /^0x(?!08c379a0|4e487b71)[0-9a-f]{8}/.test(String(res.error.data)) ? { ...res, error: { ...res.error, message: `execution reverted: custom error ${String(res.error.data).slice(0, 10)}` } } : res)),
    fault('estimate: a Panic named in words of its own ("panic: arithmetic underflow or overflow (0x11)")', [`${M.estimate}/revert-panic`], (req, res) => (req.method === M.estimate && res.error?.code === 3 && String(res.error.data).startsWith('0x4e487b71') ? { ...res, error: { ...res.error, message: `execution reverted: panic: ${res.error.message.replace(/^execution reverted: /, '')} (0x${BigInt(`0x${String(res.error.data).slice(10)}`).toString(16)})` } } : res)),
    fault('estimate: a creation\'s code deposit left out (200 a byte of the code it returns)', [`${M.estimate}/covers-code-deposit`], results(M.estimate, (r: string) => toQuantity(BigInt(r) - 200n * 256n), (req) => (req.params[0] as Json)['to'] === undefined && String((req.params[0] as Json)['data']).startsWith('0x6101006100'))),
    fault('estimate: an access list\'s gas left out', [`${M.estimate}/covers-access-list`], results(M.estimate, (r: string, req) => toQuantity(BigInt(r) - 2_400n * BigInt(((req.params[0] as Json)['accessList'] as unknown[]).length) - 1_900n), (req) => Array.isArray((req.params[0] as Json)['accessList']))),
    {
      name: 'estimate: HTTP 500 with an HTML body for a large gas',
      kills: [`${M.estimate}/gas-cap`],
      raw: (req) => (req.method === M.estimate && (req.params[0] as Json)['gas'] ? { status: 500, contentType: 'text/html', body: '<html>Internal Server Error</html>' } : undefined),
    },
    fault('estimate: the gas cap is not applied', [`${M.estimate}/gas-cap`], (req, res) => (req.method === M.estimate && (req.params[0] as Json)['gas'] ? { jsonrpc: '2.0', id: res.id, result: (req.params[0] as Json)['gas'] } : res)),

    // eth_getBlockByHash
    ...envelopeFaults(M.block),
    fault('block: uppercase transaction hashes', [`${M.block}/hashes-shape`], results(M.block, (b: Json) => ({ ...b, transactions: (b['transactions'] as string[]).map((h) => `0x${h.slice(2).toUpperCase()}`) }), (req) => req.params[1] === false)),
    fault('block: hash list out of order', [`${M.block}/hashes-match-full`], results(M.block, (b: Json) => ({ ...b, transactions: [...(b['transactions'] as string[])].reverse() }), (req) => req.params[1] === false)),
    fault('block: full transactions all at index 0', [`${M.block}/full-shape`], results(M.block, (b: Json) => ({ ...b, transactions: (b['transactions'] as Json[]).map((tx) => ({ ...tx, transactionIndex: '0x0' })) }), (req) => req.params[1] === true)),
    fault('block: an empty block lists a transaction', [`${M.block}/empty-block`], results(M.block, (b: Json) => ({ ...b, transactions: (b['transactions'] as unknown[]).length ? b['transactions'] : [targets.successTx] }), (req) => req.params[1] === true)),
    fault('block: 20-byte parentHash', [`${M.block}/hashes-shape`, `${M.block}/full-shape`], results(M.block, (b: Json) => ({ ...b, parentHash: (b['parentHash'] as string).slice(0, 42) }))),
    fault('block: 255-byte logsBloom', [`${M.block}/hashes-shape`], results(M.block, (b: Json) => ({ ...b, logsBloom: (b['logsBloom'] as string).slice(0, -2) }))),
    fault('block: nonce missing', [`${M.block}/hashes-shape`], results(M.block, (b: Json) => ({ ...b, nonce: undefined }))),
    nullToError(M.block, ['null-on-miss']),
    // Red-team A2: a required field no invariant reads, dropped from a judged block that no other shape check fetches.
    fault('block: uncles dropped from the blob block (judged, not the busiest)', [`${M.block}/judged-shape`], results(M.block, (b: Json) => ({ ...b, uncles: undefined }), (req) => req.params[0] === judgedOnly(targets))),
    // Red-team A9: a type nobody can re-encode, on a chain not known to have it, is reported, not only left out.
    fault('block (full): the set-code transaction relabelled as type 0x7e', [`${M.block}/tx-types`], results(M.block, (b: Json) => ({ ...b, transactions: (b['transactions'] as Array<Json | string>).map((tx) => (typeof tx === 'object' && tx['type'] === '0x4' ? { ...tx, type: '0x7e' } : tx)) }), (req) => req.params[1] === true)),
    fault('block: totalDifficulty dropped', [`${M.block}/total-difficulty`], results(M.block, (b: Json) => ({ ...b, totalDifficulty: undefined }))),
    fault('block: an L2 field added', [`${M.block}/extra-fields`], results(M.block, (b: Json) => ({ ...b, l1BlockNumber: '0x1' }))),
    // ganache: the string "true" read as the boolean, and the full block served.
    fault('block: the flag "true" (a string) read as true', [`${M.block}/robust-flag-string`], async (req, res, ctx) => (req.method === M.block && req.params[1] === 'true' ? { jsonrpc: '2.0', id: res.id, result: (await ctx.upstream(M.block, [req.params[0], true])).result } : res)),

    // uncles (synthetic history: the empty block is given one uncle)
    ...[M.uncleN, M.uncleH].flatMap((m) => [
      ...envelopeFaults(m),
      nullToError(m, ['null-no-uncle', 'null-unknown-block']),
      fault(`${m}: an uncle with transactions and a totalDifficulty`, [`${m}/uncle-shape`], results(m, (u: Json) => ({ ...u, transactions: [targets.successTx], totalDifficulty: '0x1' })), synthetic),
      fault(`${m}: the uncle is not the one its block lists`, [`${m}/uncle-shape`], results(m, (u: Json) => ({ ...u, hash: targets.head.hash })), synthetic),
    ]),
    ...TAGS.map((tag) => tagRejected(M.uncleN, tag, 0)),
    fault('uncle by number: latest serves a header the head does not list as its uncle', [`${M.uncleN}/latest-is-head`], async (req, res, ctx) => {
      if (req.method !== M.uncleN || req.params[0] !== 'latest') return res;
      const parent = (await ctx.upstream('eth_getBlockByNumber', [bumped((await ctx.upstream('eth_blockNumber', [])).result, -1n), false])).result as Json;
      return { ...res, result: { ...parent, transactions: undefined, totalDifficulty: null } };
    }),

    // eth_getTransactionByBlockNumberAndIndex
    ...envelopeFaults(M.txIdx),
    fault('tx by index: transactionIndex always 0x0', [`${M.txIdx}/every-index`], results(M.txIdx, (tx: Json) => ({ ...tx, transactionIndex: '0x0' }))),
    fault('tx by index: blockHash of another block', [`${M.txIdx}/every-index`], results(M.txIdx, (tx: Json) => ({ ...tx, blockHash: targets.head.hash === tx['blockHash'] ? targets.scanned.from : targets.head.hash }))),
    ...TAGS.map((tag) => tagRejected(M.txIdx, tag, 0)),
    fault('tx by index: pending index 0 has no transactionIndex match', [`${M.txIdx}/tag-latest`], results(M.txIdx, (tx: Json) => ({ ...tx, transactionIndex: '0x7' }), (req) => req.params[0] === 'latest')),
    fault('tx by index: safe and finalized resolved as latest', [`${M.txIdx}/tags-name-their-block`], async (req, res, ctx) => (req.method === M.txIdx && (req.params[0] === 'safe' || req.params[0] === 'finalized') ? { ...res, result: (await ctx.upstream(M.txIdx, ['latest', req.params[1]])).result } : res)),
    fault('tx by index: earliest resolved as block 1', [`${M.txIdx}/tags-name-their-block`], async (req, res, ctx) => (req.method === M.txIdx && req.params[0] === 'earliest' ? { ...res, result: (await ctx.upstream(M.txIdx, ['0x1', req.params[1]])).result } : res)),
    nullToError(M.txIdx, ['null-out-of-range', 'null-future-block']),
    fault('tx by index: latest serves the block before the head (stale)', [`${M.txIdx}/latest-is-head`], async (req, res, ctx) => {
      if (req.method !== M.txIdx || req.params[0] !== 'latest') return res;
      const head = (await ctx.upstream('eth_blockNumber', [])).result;
      return { ...res, result: (await ctx.upstream(M.txIdx, [bumped(head, -1n), req.params[1]])).result };
    }),

    // eth_getTransactionByHash
    ...envelopeFaults(M.tx),
    ...(
      [
        ['0x0', 'v'],
        ['0x1', 'accessList'],
        ['0x2', 'maxFeePerGas'],
        ['0x3', 'blobVersionedHashes'],
        ['0x4', 'authorizationList'],
      ] as const
    ).map(([type, field]) => fault(`tx: type ${type} without ${field}`, [`${M.tx}/type-${type}-shape`], results(M.tx, (tx: Json) => (tx['type'] === type ? { ...tx, [field]: undefined } : tx)), type === '0x3' ? synthetic : {})),
    fault('tx: r with leading zeros', [`${M.tx}/type-0x2-shape`], results(M.tx, (tx: Json) => (tx['type'] === '0x2' ? { ...tx, r: `0x00${(tx['r'] as string).slice(2)}` } : tx))),
    fault('tx: mined transaction with blockHash null', [`${M.tx}/type-0x1-shape`], results(M.tx, (tx: Json) => (tx['type'] === '0x1' ? { ...tx, blockHash: null } : tx))),
    fault('tx: chainID spelled in capitals', [`${M.tx}/type-0x2-shape`], results(M.tx, (tx: Json) => (tx['type'] === '0x2' ? { ...tx, chainID: tx['chainId'] } : tx))),
    fault('tx: creation with to = zero address', [`${M.tx}/creation-to-null`], results(M.tx, (tx: Json) => (tx['to'] === null ? { ...tx, to: '0x0000000000000000000000000000000000000000' } : tx))),
    nullToError(M.tx, ['null-on-miss']),
    fault('tx: an L2 field added', [`${M.tx}/extra-fields`], results(M.tx, (tx: Json) => ({ ...tx, sourceHash: targets.head.hash }))),

    // §8 on both lookups by hash: a window declared 6 blocks wide, served 3 (the seeded chain's head is block 10).
    fault('a near-head window smaller than declared: 3 blocks served, 6 declared', [`${M.tx}/near-head-window`, `${M.receipt}/near-head-window`, 'history/transactions', 'history/receipts'], servedWindow(3), { nearHeadWindow: 6 }),
    // History expiry (EIP-4444) against eth_capabilities, which still declares everything kept from genesis.
    fault('history: only the latest 4 blocks served (error 4444 beyond), all of it declared kept', HISTORY, expired(4, 1)),
    // A pool of nodes behind one endpoint: every other answer for old history comes from a node that expired it.
    fault('history: one answer in two from a node that expired all but the latest 4 blocks', HISTORY, expired(4, 2), { oneAtATime: true }),
    // eth_getTransactionReceipt
    ...envelopeFaults(M.receipt),
    fault('receipt: success reported as 0x0', [`${M.receipt}/success-receipt`], results(M.receipt, (r: Json) => ({ ...r, status: '0x0' }), (req) => req.params[0] === targets.successTx)),
    fault('receipt: failure reported as 0x1', [`${M.receipt}/failed-receipt`], results(M.receipt, (r: Json) => ({ ...r, status: '0x1' }), (req) => req.params[0] === targets.failedTx)),
    fault('receipt: creation without contractAddress', [`${M.receipt}/creation-receipt`], results(M.receipt, (r: Json) => ({ ...r, contractAddress: null }), (req) => req.params[0] === targets.contractCreation)),
    fault('receipt: logs point at another block', [`${M.receipt}/logs-receipt`], results(M.receipt, (r: Json) => ({ ...r, logs: (r['logs'] as Json[]).map((l) => ({ ...l, blockHash: targets.head.hash === l['blockHash'] ? targets.scanned.from : targets.head.hash })) }))),
    fault('receipt: log topic of 31 bytes', [`${M.receipt}/logs-receipt`], results(M.receipt, (r: Json) => ({ ...r, logs: (r['logs'] as Json[]).map((l) => ({ ...l, topics: (l['topics'] as string[]).map((t) => t.slice(0, -2)) })) }))),
    fault('receipt: both root and status', [`${M.receipt}/root-xor-status`, `${M.receipt}/success-receipt`], results(M.receipt, (r: Json) => ({ ...r, root: targets.head.hash }))),
    fault('receipt: status 0x2', [`${M.receipt}/root-xor-status`], results(M.receipt, (r: Json) => ({ ...r, status: r['status'] === '0x1' ? '0x2' : r['status'] }))),
    fault('receipt: pre-Byzantium receipt with status instead of root', [`${M.receipt}/pre-byzantium-root`], results(M.receipt, (r: Json) => (r['root'] ? { ...r, root: undefined, status: '0x1' } : r)), synthetic),
    fault('receipt: contractAddress left out of a call\'s receipt', [`${M.receipt}/null-fields-present`], results(M.receipt, (r: Json) => (r['contractAddress'] === null ? { ...r, contractAddress: undefined } : r))),
    fault('receipt: to left out of a creation\'s receipt', [`${M.receipt}/null-fields-present`], results(M.receipt, (r: Json) => (r['to'] === null ? { ...r, to: undefined } : r))),
    fault('receipt: logs flagged removed', [`${M.receipt}/logs-not-removed`], results(M.receipt, (r: Json) => ({ ...r, logs: (r['logs'] as Json[]).map((l) => ({ ...l, removed: true })) }))),
    nullToError(M.receipt, ['null-on-miss']),
    fault('receipt: an extra field', [`${M.receipt}/extra-fields`], results(M.receipt, (r: Json) => ({ ...r, l1Fee: '0x1' }))),
    // anvil: blobGasPrice on every receipt, a blob transaction's or not.
    fault('receipt: blobGasPrice on the receipts of non-blob transactions', [`${M.receipt}/blob-fields-blob-only`], results(M.receipt, (r: Json) => (r['type'] === '0x3' ? r : { ...r, blobGasPrice: '0x1' }))),

    // eth_getBlockReceipts
    ...envelopeFaults(M.blockReceipts),
    fault('block receipts: reversed', [`${M.blockReceipts}/receipts-in-order`], results(M.blockReceipts, (rs: Json[]) => [...rs].reverse())),
    fault('block receipts: one missing', [`${M.blockReceipts}/receipts-in-order`], results(M.blockReceipts, (rs: Json[]) => rs.slice(1))),
    fault('block receipts: an empty block gives null', [`${M.blockReceipts}/empty-block`], results(M.blockReceipts, (rs: Json[]) => (rs.length === 0 ? null : rs))),
    fault('block receipts: a future block gives []', [`${M.blockReceipts}/null-future-block`], (req, res) => (req.method === M.blockReceipts && res.result === null ? { ...res, result: [] } : res)),
    fault('block receipts: pending gives null', [`${M.blockReceipts}/pending-equals-latest`], (req, res) => (req.method === M.blockReceipts && req.params[0] === 'pending' ? { ...res, result: null } : res)),
    fault('block receipts: latest serves the block before the head (stale)', [`${M.blockReceipts}/latest-is-head`], async (req, res, ctx) => {
      if (req.method !== M.blockReceipts || req.params[0] !== 'latest') return res;
      const head = (await ctx.upstream('eth_blockNumber', [])).result;
      return { ...res, result: (await ctx.upstream(M.blockReceipts, [bumped(head, -1n)])).result };
    }),
    fault('block receipts: a block hash parameter rejected', [`${M.blockReceipts}/block-hash-param`], (req, res) => (req.method === M.blockReceipts && /^0x[0-9a-f]{64}$/.test(String(req.params[0])) ? invalidParams(res) : res)),
    fault('block receipts: from of the zero address', [`${M.blockReceipts}/receipts-match-txs`], results(M.blockReceipts, (rs: Json[]) => rs.map((r) => ({ ...r, from: `0x${'00'.repeat(20)}` })))),
    // The receipts of a judged block other than the busiest (whose order and place receipts-in-order reads) name another block and index.
    fault('block receipts: the blob block\'s receipts name another block and index', [`${M.blockReceipts}/receipts-match-txs`], results(M.blockReceipts, (rs: Json[]) => rs.map((r) => (r['type'] === '0x3' ? { ...r, blockHash: targets.head.hash, blockNumber: '0x1', transactionIndex: '0x63' } : r)))),
    fault('block receipts: from dropped from the blob block\'s receipts', [`${M.blockReceipts}/receipts-match-txs`], results(M.blockReceipts, (rs: Json[]) => rs.map((r) => (r['type'] === '0x3' ? { ...r, from: undefined, blobGasUsed: '0x0' } : r)))),
    fault('block receipts: effectiveGasPrice one wei high', [`${M.blockReceipts}/effective-gas-price`], results(M.blockReceipts, (rs: Json[]) => rs.map((r) => ({ ...r, effectiveGasPrice: bumped(r['effectiveGasPrice'], 1n) })))),
    fault('block receipts: a 1559 receipt priced at its maxFeePerGas', [`${M.blockReceipts}/effective-gas-price`], async (req, res, ctx) => {
      if (req.method !== M.blockReceipts || !Array.isArray(res.result)) return res;
      const out = [];
      for (const r of res.result as Json[]) {
        const tx = r['type'] === '0x2' ? ((await ctx.upstream(M.tx, [r['transactionHash']])).result as Json) : undefined;
        out.push(tx ? { ...r, effectiveGasPrice: tx['maxFeePerGas'] } : r);
      }
      return { ...res, result: out };
    }),
    fault('block receipts: safe and finalized answered as latest', [`${M.blockReceipts}/tags-name-their-block`], async (req, res, ctx) => (req.method === M.blockReceipts && (req.params[0] === 'safe' || req.params[0] === 'finalized') ? { ...res, result: (await ctx.upstream(M.blockReceipts, ['latest'])).result } : res)),
    fault('block receipts: earliest answered as block 1', [`${M.blockReceipts}/tags-name-their-block`], async (req, res, ctx) => (req.method === M.blockReceipts && req.params[0] === 'earliest' ? { ...res, result: (await ctx.upstream(M.blockReceipts, ['0x1'])).result } : res)),
    fault('block receipts: logs flagged removed', [`${M.blockReceipts}/logs-not-removed`], results(M.blockReceipts, (rs: Json[]) => rs.map((r) => ({ ...r, logs: (r['logs'] as Json[]).map((l) => ({ ...l, removed: true })) })))),
    ...(['latest', 'earliest', 'safe', 'finalized'] as const).map((tag) => tagRejected(M.blockReceipts, tag, 0)),
    fault('block receipts: decimal block numbers rejected', [`${M.blockReceipts}/decimal-string`, `${M.blockReceipts}/decimal-number`], (req, res) => (req.method === M.blockReceipts && !/^0x|^[a-z]/.test(String(req.params[0])) ? invalidParams(res) : res)),

    // `latest` judged against what the endpoint serves by hash (no reference): a cached head, a lagging backend.
    ...headFaults(),

    // Against a reference node (the clean gateway itself): a head behind it, and one value changed per method.
    ...referenceFaults(),
    ...quorumFaults(),

    ...invariantFaults(targets),
    ...envelopeDefects(),
    ...[M.block, M.uncleH, M.tx, M.receipt].map(zeroHashError),
    fault('block: the all-zero hash answered with the genesis block', [`${M.block}/null-zero-hash`], async (req, res, ctx) => (req.method === M.block && /^0x0{64}$/.test(String(req.params[0])) ? { ...res, result: (await ctx.upstream('eth_getBlockByNumber', ['0x0', req.params[1]])).result } : res)),
  ];
}

/** The checks that judge `latest` against what the endpoint serves by hash and against eth_blockNumber. */
const LATEST_NOT_BEHIND = [M.blockReceipts, M.txIdx, M.uncleN].map((m) => `${m}/latest-not-behind`);

// A round robin over a fresh and a stale backend (roundRobin) is not here: the catalogue runs on a lock of the clean
// chain, whose top blocks the stale backend does not serve, so the run is refused before any check (exit 2).
// test/conformance/latest-fresh.test.ts runs it with discovery, as a user would.
function headFaults(): Fault[] {
  return [
    fault('latest and eth_blockNumber 5 blocks behind, lookups by hash and number current (a cached head)', LATEST_NOT_BEHIND, behind(5n, false)),
    fault('eth_blockNumber one block above the head latest names', LATEST_NOT_BEHIND, (req, res) => (req.method === 'eth_blockNumber' && typeof res.result === 'string' ? { ...res, result: bumped(res.result, 1n) } : res)),
    // eth_getBlockByNumber stays current here: the catalogue's lock holds the standing chain's top blocks, and a lock
    // not found by number is refused before any check (test/conformance/latest-fresh.test.ts hides it too, with discovery).
    fault('eth_getBlockReceipts and eth_getTransactionByBlockNumberAndIndex by number of the newest 5 blocks null, latest and by hash current', HEAD_BY_NUMBER, byNumberHidesNewest(5n, false)),
    fault('block receipts by hash of the newest 3 blocks: an older block\'s receipts', [`${M.blockReceipts}/head-served`], olderReceiptsByHash(3n)),
    fault('transactions and receipts by hash of the newest 5 blocks null (not indexed yet)', HEAD_BY_TX_HASH, freshTxsNull(5n)),
  ];
}

/** The head-served checks of the lookups by number, and of those by transaction hash. */
export const HEAD_BY_NUMBER = [M.blockReceipts, M.txIdx].map((m) => `${m}/head-served`);
export const HEAD_BY_TX_HASH = [M.tx, M.receipt].map((m) => `${m}/head-served`);
const chainHead = async (ctx: FaultContext) => BigInt(String((await ctx.upstream('eth_blockNumber', [])).result));

/**
 * Lookups by an explicit number of the newest `n` blocks answer null (an index lagging the head); latest and by hash
 * current. `blocks`: eth_getBlockByNumber too.
 */
export function byNumberHidesNewest(n: bigint, blocks: boolean): NonNullable<Fault['rewrite']> {
  const byNumber = new Set([...(blocks ? ['eth_getBlockByNumber'] : []), M.blockReceipts, M.txIdx, M.uncleN]);
  return async (req, res, ctx) => {
    const asked = byNumber.has(req.method) ? paramBlock(req.params[0]) : undefined;
    return asked !== undefined && 'result' in res && asked > (await chainHead(ctx)) - n ? { ...res, result: null } : res;
  };
}

/** eth_getBlockReceipts by the hash of one of the newest `n` blocks answers the receipts of block head-n. */
export function olderReceiptsByHash(n: bigint): NonNullable<Fault['rewrite']> {
  return async (req, res, ctx) => {
    const named = resultBlock(req.method, res.result);
    if (req.method !== M.blockReceipts || String(req.params[0]).length !== 66 || named === undefined) return res;
    const head = await chainHead(ctx);
    return named > head - n ? { ...res, result: (await ctx.upstream(M.blockReceipts, [toQuantity(head - n)])).result } : res;
  };
}

/** eth_getTransactionByHash and eth_getTransactionReceipt of a transaction in one of the newest `n` blocks answer null. */
export function freshTxsNull(n: bigint): NonNullable<Fault['rewrite']> {
  return async (req, res, ctx) => {
    const named = req.method === M.tx || req.method === M.receipt ? resultBlock(req.method, res.result) : undefined;
    return named !== undefined && named > (await chainHead(ctx)) - n ? { ...res, result: null } : res;
  };
}

/**
 * Faults the reference/* checks catch, run with the clean gateway as the reference. The catalogue runs on a lock of the
 * clean chain, so the head lags by its eth_blockNumber and latest (lookups current: behind(5n, false)); the seeded chain's
 * blocks are a second apart at least, so 5 blocks are 4 s or more, over the 1 s the catalogue's reference runs allow.
 * Per method, one value its answers carry changed.
 */
function referenceFaults(): Fault[] {
  const bump = (x: unknown) => toQuantity(BigInt(String(x)) + 1n);
  const perMethod: Array<[string, Fault['rewrite']]> = [
    [M.estimate, results(M.estimate, (gas: string) => toQuantity((BigInt(gas) * 9n) / 10n))],
    [M.block, results(M.block, (b: Json) => ({ ...b, miner: `0x${'ab'.repeat(20)}` }))],
    // A dev chain has no uncles: the miss every method answers null is answered with an error.
    [M.uncleN, (req, res) => (req.method === M.uncleN ? notFound(res) : res)],
    [M.uncleH, (req, res) => (req.method === M.uncleH ? notFound(res) : res)],
    [M.txIdx, results(M.txIdx, (tx: Json) => ({ ...tx, nonce: bump(tx['nonce']) }))],
    [M.tx, results(M.tx, (tx: Json) => ({ ...tx, nonce: bump(tx['nonce']) }))],
    [M.receipt, results(M.receipt, (r: Json) => ({ ...r, gasUsed: bump(r['gasUsed']) }))],
    [M.blockReceipts, results(M.blockReceipts, (rs: Json[]) => rs.map((r) => ({ ...r, gasUsed: bump(r['gasUsed']) })))],
  ];
  return [
    fault('eth_blockNumber and latest 5 blocks behind the reference (lookups current)', ['reference/head-lag-start', 'reference/head-lag-end'], behind(5n, false), { reference: true }),
    ...perMethod.map(([method, rewrite]) => fault(`${method}: a value changed, against the reference`, [`reference/${method}-agrees`], rewrite, { reference: true })),
  ];
}

/**
 * Faults the quorum/* checks catch, run side by side with two clean endpoints: per method, a value no hash commits to
 * (or that a hash commits to, which the quorum sees all the same) one higher. The uncle comes from the synthetic history,
 * which the clean endpoints serve too.
 */
function quorumFaults(): Fault[] {
  const bump = (field: string) => (o: Json) => ({ ...o, [field]: toQuantity(BigInt(String(o[field])) + 1n) });
  return [
    fault(`${M.block}: size one higher, side by side`, [`quorum/${M.block}-majority`], results(M.block, bump('size')), { peers: true }),
    fault(`${M.uncleH}: gasUsed one higher, side by side`, [`quorum/${M.uncleH}-majority`], results(M.uncleH, bump('gasUsed')), { peers: true, synthetic: true }),
    fault(`${M.tx}: nonce one higher, side by side`, [`quorum/${M.tx}-majority`], results(M.tx, bump('nonce')), { peers: true }),
    fault(`${M.receipt}: gasUsed one higher, side by side`, [`quorum/${M.receipt}-majority`], results(M.receipt, bump('gasUsed')), { peers: true }),
    fault(`${M.blockReceipts}: gasUsed one higher, side by side`, [`quorum/${M.blockReceipts}-majority`], results(M.blockReceipts, (rs: Json[]) => rs.map(bump('gasUsed'))), { peers: true }),
  ];
}

/** A block number (hex) in a call's params, or the block a result names: a block, a transaction, a receipt, a block's receipts. */
const paramBlock = (p: unknown) => (typeof p === 'string' && /^0x[0-9a-f]{1,16}$/.test(p) ? BigInt(p) : undefined);
function resultBlock(method: string, result: unknown): bigint | undefined {
  if (method.startsWith('eth_getUncle')) return undefined; // an uncle's number is its own, older than the block listing it
  const one = Array.isArray(result) ? result[0] : result;
  const n = one && typeof one === 'object' ? ((one as Json)['blockNumber'] ?? (one as Json)['number']) : undefined;
  return typeof n === 'string' ? BigInt(n) : undefined;
}

/**
 * A backend `lag` blocks behind the chain's head. Its eth_blockNumber and its `latest` name the block `lag` back;
 * `hide`: it knows nothing above that block either (lookups by number or hash null, its `pending` its own), as a
 * lagging backend of a balancer; otherwise only `latest` lags (a cached head) and every lookup is current.
 */
export function behind(lag: bigint, hide: boolean): NonNullable<Fault['rewrite']> {
  return async (req, res, ctx) => {
    const head = BigInt(String((await ctx.upstream('eth_blockNumber', [])).result)) - lag;
    if (req.method === 'eth_blockNumber') return { ...res, result: toQuantity(head) };
    const tag = req.params.findIndex((p) => p === 'latest' || (hide && p === 'pending'));
    if (tag >= 0) res = { ...(await ctx.upstream(req.method, req.params.map((p, i) => (i === tag ? toQuantity(head) : p)))), id: res.id };
    if (!hide) return res;
    const asked = req.method === M.estimate ? undefined : paramBlock(req.params[0]);
    const named = resultBlock(req.method, res.result);
    return (asked !== undefined && asked > head) || (named !== undefined && named > head) ? { jsonrpc: '2.0', id: res.id, result: null } : res;
  };
}

/** eth_blockNumber current; `latest`, by number and by hash `lag` blocks behind (behind(lag, true) for the rest). */
export function currentNumberOverStale(lag: bigint): NonNullable<Fault['rewrite']> {
  const rest = behind(lag, true);
  return (req, res, ctx) => (req.method === 'eth_blockNumber' ? res : rest(req, res, ctx));
}

/** A balancer alternating its calls between the fresh chain and a backend `lag` blocks behind it (behind(lag, true)). */
export function roundRobin(lag: bigint): NonNullable<Fault['rewrite']> {
  const stale = behind(lag, true);
  let calls = 0;
  return (req, res, ctx) => (calls++ % 2 === 0 ? res : stale(req, res, ctx));
}

/**
 * A connection-pinned (L4) balancer over the fresh chain and a backend `lag` blocks behind it (behind(lag, true)):
 * each TCP connection is served by one of them, alternately in the order they were opened.
 */
export function sticky(lag: bigint): NonNullable<Fault['rewrite']> {
  const stale = behind(lag, true);
  return (req, res, ctx) => (ctx.connection % 2 === 0 ? res : stale(req, res, ctx));
}

/** One hex digit changed: the value keeps its shape, and everything recomputed over it changes. */
const nibble = (h: string) => `${h.slice(0, -1)}${h.endsWith('0') ? '1' : '0'}`;
const flipParity = (p: string) => (p === '0x0' ? '0x1' : '0x0');
const ZERO_BLOOM = `0x${'00'.repeat(256)}`;

/**
 * Faults for the invariant layer: silent corruption that keeps every shape valid (a digit of a root, a
 * signed field, a bloom, a gas figure), or two methods that disagree about the same object.
 */
function invariantFaults(targets: Targets): Fault[] {
  const synthetic = { synthetic: true } as const;
  const multi = (p: unknown) => p === targets.multiTxBlock?.number;
  const mapTxs = (b: Json, f: (tx: Json, i: number) => Json) => ({ ...b, transactions: (b['transactions'] as Json[]).map((tx, i) => (typeof tx === 'object' ? f(tx, i) : tx)) });
  const mapLogs = (rs: Json[], f: (log: Json, j: number) => Json) => rs.map((r) => ({ ...r, logs: (r['logs'] as Json[]).map(f) }));
  return [
    // eth_getBlockByHash: the header and the full transactions against what they commit to
    fault('block: stateRoot changed by one hex digit', [`${M.block}/block-hash`], results(M.block, (b: Json) => ({ ...b, stateRoot: nibble(b['stateRoot'] as string) }))),
    fault('block: sha3Uncles of a block without uncles is the empty trie root', [`${M.block}/sha3-uncles-empty`, `${M.block}/block-hash`], results(M.block, (b: Json) => ({ ...b, sha3Uncles: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421' }))),
    fault('block: a withdrawal added, withdrawalsRoot kept', [`${M.block}/withdrawals-root`], results(M.block, (b: Json) => ({ ...b, withdrawals: [...((b['withdrawals'] as Json[] | undefined) ?? []), { index: '0x7', validatorIndex: '0x1', address: `0x${'11'.repeat(20)}`, amount: '0x3b9aca00' }] }))),
    fault('block: transactionsRoot of the empty trie for every block', [`${M.block}/transactions-root`, `${M.block}/block-hash`], results(M.block, (b: Json) => ({ ...b, transactionsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421' }))),
    // The embedded default's own deviation (the blob block's root is the trie of the network forms) is excused by
    // embedded.json only as that cause: any other wrong root of that block, or the cause not shown, still fails.
    fault('block: the blob block\'s transactionsRoot off by one hex digit (not the network forms\' trie either)', [`${M.block}/transactions-root`, `${M.block}/block-hash`], results(M.block, (b: Json) => ({ ...b, transactionsRoot: nibble(b['transactionsRoot'] as string) }), (req) => req.params[0] === judgedOnly(targets))),
    fault('raw transaction: eth_getRawTransactionByHash not served (the blob block\'s network forms cannot be had)', [`${M.block}/transactions-root`], (req, res) => (req.method === 'eth_getRawTransactionByHash' ? { jsonrpc: '2.0', id: res.id, error: { code: -32601, message: 'the method eth_getRawTransactionByHash does not exist' } } : res), { methods: [M.block] }),
    fault('raw transaction: the blob\'s network form with another commitment', [`${M.block}/transactions-root`], results('eth_getRawTransactionByHash', (raw: string) => {
      if (!raw.startsWith('0x03')) return raw;
      const [body, blobs, commitments, proofs] = Rlp.toHex(`0x${raw.slice(4)}`) as [unknown, unknown, `0x${string}`[], unknown];
      return `0x03${Rlp.fromHex([body, blobs, [nibble(commitments[0]!) as `0x${string}`, ...commitments.slice(1)], proofs] as never).slice(2)}`;
    }), { methods: [M.block] }),
    fault('block (full): a transaction\'s input altered', [`${M.block}/transactions-root`, `${M.tx}/agrees-with-block`, `${M.txIdx}/agrees-with-hash`], results(M.block, (b: Json) => mapTxs(b, (tx, i) => (i === 2 ? { ...tx, input: `${tx['input'] as string}00` } : tx)), (req) => req.params[1] === true)),
    fault('block (full): a transaction\'s yParity flipped', [`${M.block}/transactions-root`], results(M.block, (b: Json) => mapTxs(b, (tx) => (tx['yParity'] ? { ...tx, yParity: flipParity(tx['yParity'] as string), v: flipParity(tx['yParity'] as string) } : tx)), (req) => req.params[1] === true)),
    fault('block: stateRoot corrupt in the oldest block judged only', [`${M.block}/block-hash`], results(M.block, (b: Json) => ({ ...b, stateRoot: nibble(b['stateRoot'] as string) }), (req) => req.params[0] === targets.judgedBlocks?.at(-1)?.hash)),
    fault('block: size one byte short (anvil leaves out the empty withdrawals list)', [`${M.block}/block-size`], results(M.block, (b: Json) => ({ ...b, size: bumped(b['size'], -1n) }))),
    fault('block: logsBloom zeroed', [`${M.block}/logs-bloom`, `${M.block}/block-hash`], results(M.block, (b: Json) => ({ ...b, logsBloom: ZERO_BLOOM }))),
    // A header rewritten with its hash recomputed over it: block-hash cannot see these, only what the header names can.
    fault('block: parentHash names the head block (each hash recomputed)', [`${M.block}/parent-hash`], results(M.block, (b: Json) => rehashed({ ...b, parentHash: targets.head.hash }))),
    fault('block: timestamps count down the chain (each hash recomputed)', [`${M.block}/parent-hash`], results(M.block, (b: Json) => rehashed({ ...b, timestamp: bumped(b['timestamp'], -1000n * BigInt(b['number'] as string)) }))),
    fault('block (full): a 1559 transaction\'s gasPrice is its maxFeePerGas', [`${M.block}/gas-price-paid`], results(M.block, (b: Json) => mapTxs(b, (tx) => (tx['type'] === '0x2' ? { ...tx, gasPrice: tx['maxFeePerGas'] } : tx)), (req) => req.params[1] === true)),
    fault('block: totalDifficulty counts the blocks, not their difficulty', [`${M.block}/total-difficulty-sum`], results(M.block, (b: Json) => ({ ...b, totalDifficulty: b['number'] }))),

    // eth_getBlockReceipts: the receipts against each other and against the block header
    fault('block receipts: a log dropped from one receipt', [`${M.blockReceipts}/receipts-root`, `${M.blockReceipts}/receipt-blooms`, `${M.blockReceipts}/log-indexes`, `${M.receipt}/agrees-with-block-receipts`, `${M.block}/logs-bloom`], results(M.blockReceipts, (rs: Json[]) => {
      const i = rs.findIndex((r) => (r['logs'] as unknown[]).length > 0);
      return rs.map((r, k) => (k === i ? { ...r, logs: (r['logs'] as Json[]).slice(1) } : r));
    })),
    fault('block receipts: logsBloom zeroed', [`${M.blockReceipts}/receipt-blooms`, `${M.blockReceipts}/receipts-root`], results(M.blockReceipts, (rs: Json[]) => rs.map((r) => ({ ...r, logsBloom: ZERO_BLOOM })))),
    fault('block receipts: one cumulativeGasUsed bumped', [`${M.blockReceipts}/gas-accounting`, `${M.blockReceipts}/receipts-root`], results(M.blockReceipts, (rs: Json[]) => rs.map((r, i) => (i === 1 ? { ...r, cumulativeGasUsed: bumped(r['cumulativeGasUsed'], 1n) } : r)))),
    fault('block receipts: a committed field corrupt in a judged block other than the busiest', [`${M.blockReceipts}/receipts-root`], results(M.blockReceipts, (rs: Json[]) => rs.map((r) => ({ ...r, cumulativeGasUsed: bumped(r['cumulativeGasUsed'], 1n) })), (req) => req.params[0] === targets.judgedBlocks?.find((b) => b.hash !== targets.multiTxBlock?.hash && (b.txCount ?? 0) > 0)?.number)),
    fault('block receipts: gasUsed reported as the cumulative figure', [`${M.blockReceipts}/gas-accounting`], results(M.blockReceipts, (rs: Json[]) => rs.map((r) => ({ ...r, gasUsed: r['cumulativeGasUsed'] })))),
    fault('block receipts: logIndex restarts at 0 in each receipt', [`${M.blockReceipts}/log-indexes`], results(M.blockReceipts, (rs: Json[]) => mapLogs(rs, (log, j) => ({ ...log, logIndex: toQuantity(j) })))),
    fault('block receipts: the receipts of the previous block', [`${M.blockReceipts}/receipts-root`, `${M.blockReceipts}/gas-accounting`], async (req, res, ctx) => {
      if (req.method !== M.blockReceipts || !multi(req.params[0])) return res;
      const other = await ctx.upstream(M.blockReceipts, [bumped(String(req.params[0]), -1n)]);
      return { ...res, result: ((other.result ?? []) as Json[]).map((r) => ({ ...r, blockHash: targets.multiTxBlock!.hash, blockNumber: targets.multiTxBlock!.number })) };
    }),

    // eth_getTransactionByHash: the signed fields, the signature, and the block's copy
    fault('tx: value changed by one wei', [`${M.tx}/signed-hash`, `${M.tx}/signature`, `${M.tx}/agrees-with-block`], results(M.tx, (tx: Json) => ({ ...tx, value: bumped(tx['value'], 1n) }))),
    fault('tx: typed transactions with yParity flipped', [`${M.tx}/signed-hash`, `${M.tx}/signature`], results(M.tx, (tx: Json) => (tx['yParity'] ? { ...tx, yParity: flipParity(tx['yParity'] as string), v: flipParity(tx['yParity'] as string) } : tx))),
    fault('tx: typed transactions with v disagreeing with yParity', [`${M.tx}/signature`], results(M.tx, (tx: Json) => (tx['yParity'] ? { ...tx, v: flipParity(tx['yParity'] as string) } : tx))),
    fault('tx: legacy v with another chain id', [`${M.tx}/signature`, `${M.tx}/signed-hash`], results(M.tx, (tx: Json) => (tx['type'] === '0x0' && BigInt(tx['v'] as string) >= 35n ? { ...tx, v: bumped(tx['v'], 2n) } : tx))),
    fault('tx: from of another account', [`${M.tx}/signature`], results(M.tx, (tx: Json) => ({ ...tx, from: tx['to'] ?? tx['from'] }))),
    fault('tx: a 1559 transaction\'s maxPriorityFeePerGas altered', [`${M.tx}/signed-hash`], results(M.tx, (tx: Json) => (tx['type'] === '0x2' ? { ...tx, maxPriorityFeePerGas: bumped(tx['maxPriorityFeePerGas'], 1n) } : tx))),
    fault('tx: the 7702 authorization nonce altered', [`${M.tx}/signed-hash`], results(M.tx, (tx: Json) => (tx['type'] === '0x4' ? { ...tx, authorizationList: (tx['authorizationList'] as Json[]).map((a) => ({ ...a, nonce: bumped(a['nonce'], 1n) })) } : tx))),
    fault('tx: a blob transaction with another versioned hash', [`${M.tx}/signed-hash`, `${M.tx}/signature`], results(M.tx, (tx: Json) => (tx['type'] === '0x3' ? { ...tx, blobVersionedHashes: (tx['blobVersionedHashes'] as string[]).map(nibble) } : tx)), synthetic),
    fault('tx: a pre-EIP-155 transaction with v flipped', [`${M.tx}/signed-hash`, `${M.tx}/signature`], results(M.tx, (tx: Json) => (tx['v'] === '0x1b' || tx['v'] === '0x1c' ? { ...tx, v: tx['v'] === '0x1b' ? '0x1c' : '0x1b' } : tx)), synthetic),
    fault('tx: a mined 1559 transaction\'s gasPrice is its maxFeePerGas', [`${M.tx}/agrees-with-block`], results(M.tx, (tx: Json) => (tx['maxFeePerGas'] ? { ...tx, gasPrice: tx['maxFeePerGas'] } : tx))),

    // eth_getTransactionByBlockNumberAndIndex: the same transaction as the other methods
    // Red-team A5b/A5c: lookups broken for a block other than the busiest (the set-code one), which no target sits in.
    fault('tx: the set-code transaction by hash names another block, index and sender', [`${M.tx}/agrees-with-block`], results(M.tx, (tx: Json) => (tx['type'] === '0x4' ? { ...tx, blockHash: `0x${'55'.repeat(32)}`, blockNumber: '0x2', transactionIndex: '0x9', from: `0x${'66'.repeat(20)}` } : tx)), { methods: [M.tx] }),
    fault('tx by index: the set-code transaction\'s value and nonce altered', [`${M.txIdx}/agrees-with-hash`], results(M.txIdx, (tx: Json) => (tx['type'] === '0x4' ? { ...tx, value: bumped(tx['value'], 12345n), nonce: '0x99' } : tx))),
    fault('tx by index: gas of another transaction', [`${M.txIdx}/agrees-with-hash`], results(M.txIdx, (tx: Json) => ({ ...tx, gas: bumped(tx['gas'], 1n) }))),

    // eth_getTransactionReceipt: the receipt against its block's receipts, its transaction, its logs
    fault('receipt: cumulativeGasUsed differs from the block receipts', [`${M.receipt}/agrees-with-block-receipts`, `${M.receipt}/committed-receipts`], results(M.receipt, (r: Json) => ({ ...r, cumulativeGasUsed: bumped(r['cumulativeGasUsed'], 1n) }))),
    fault('receipt: type 0x0 for every receipt', [`${M.receipt}/agrees-with-tx`], results(M.receipt, (r: Json) => ({ ...r, type: '0x0' })), { methods: [M.receipt] }),
    fault('receipt: to of the sender', [`${M.receipt}/agrees-with-tx`], results(M.receipt, (r: Json) => (r['to'] ? { ...r, to: r['from'] } : r)), { methods: [M.receipt] }),
    // Red-team A5/A7: receipts no per-target check reads (the blob and set-code ones), wrong only in what
    // no root commits to; judged one by one, with eth_getBlockReceipts served or not.
    ...(
      [
        ['name another block', (r: Json) => ({ ...r, blockHash: targets.head.hash === r['blockHash'] ? targets.scanned.from : targets.head.hash, blockNumber: '0x1' })],
        ['sit at another index', (r: Json) => ({ ...r, transactionIndex: '0x63' })],
        ['lack from', (r: Json) => ({ ...r, from: undefined })],
        ['have to zeroed', (r: Json) => ({ ...r, to: `0x${'00'.repeat(20)}` })],
        ['have logs pointing at another transaction', (r: Json) => ({ ...r, logs: (r['logs'] as Json[]).map((l) => ({ ...l, transactionIndex: bumped(l['transactionIndex'], 1n) })) })],
        ['have a blobGasUsed of 0x0', (r: Json) => (r['blobGasUsed'] ? { ...r, blobGasUsed: '0x0' } : r)],
      ] as const
    ).map(([what, change]) => fault(`receipt: blob and set-code receipts ${what}`, [`${M.receipt}/judged-receipts`], results(M.receipt, (r: Json) => (r['type'] === '0x3' || r['type'] === '0x4' ? change(r) : r)), { methods: [M.receipt] })),
    fault('receipt: logIndex restarts at 0 in each receipt', [`${M.receipt}/log-indexes`, `${M.receipt}/agrees-with-block-receipts`], results(M.receipt, (r: Json) => ({ ...r, logs: (r['logs'] as Json[]).map((l, j) => ({ ...l, logIndex: toQuantity(j) })) })), { methods: [M.receipt] }),
    fault('receipt: logsBloom zeroed', [`${M.receipt}/logs-bloom`], results(M.receipt, (r: Json) => ({ ...r, logsBloom: ZERO_BLOOM }))),
    fault('receipt: contractAddress from the nonce after the creation\'s', [`${M.receipt}/contract-address`], async (req, res, ctx) => {
      if (req.method !== M.receipt || !(res.result as Json | null)?.['contractAddress']) return res;
      const tx = (await ctx.upstream(M.tx, [req.params[0]])).result as Json;
      const next = getContractAddress({ from: tx['from'] as Address, nonce: BigInt(tx['nonce'] as string) + 1n }).toLowerCase();
      return { ...res, result: { ...(res.result as Json), contractAddress: next } };
    }),

    // uncles (synthetic history): the header served is the uncle's
    ...[M.uncleN, M.uncleH].map((m) => fault(`${m}: the uncle's stateRoot changed by one hex digit`, [`${m}/uncle-hash`], results(m, (u: Json) => ({ ...u, stateRoot: nibble(u['stateRoot'] as string) })), synthetic)),

    // the head: a balancer whose next read lands on a backend behind
    laggingHead('the latest block and eth_blockNumber come from a backend 2 blocks behind after the preflight', 2n, ['latest', 'eth_blockNumber']),

    // after a reorg, played over the standing chain: the head's block seen under a second hash, `nibble(hash)`
    ...reorgFaults(),
  ];
}

/**
 * A reorg at the head, played over a standing chain: the head's block is also shown under another hash (one hex digit
 * changed), as `latest` answers it a second time, the first read after the preflight's. A by-number cache keeps that
 * orphan at the head's height (after the first read by number, the lock's check); a transaction index names it for
 * the head's transactions. `latest` and the parent chain otherwise name the real block.
 */
function reorgFaults(): Fault[] {
  const played = () => {
    let latestReads = 0;
    let byNumber = 0;
    let head: Json | undefined;
    return {
      /** The answer as the reorg played shows it, or undefined for the real one. */
      orphan(req: RpcRequest, r: Json): Json | undefined {
        if (req.method !== 'eth_getBlockByNumber') return undefined;
        if (req.params[0] === 'latest') {
          head = r;
          return latestReads++ === 1 ? { ...r, hash: nibble(r['hash'] as string) } : undefined;
        }
        return head && r['number'] === head['number'] && byNumber++ > 0 ? { ...r, hash: nibble(r['hash'] as string) } : undefined;
      },
      head: () => head?.['hash'] as string | undefined,
    };
  };
  const cache = played();
  const index = played();
  return [
    fault('reorg: a by-number cache keeps serving the head block a reorg took away (another hash at the head\'s height)', ['service/after-reorg'], (req, res) => {
      if (!('result' in res) || res.result === null) return res;
      const shown = cache.orphan(req, res.result as Json);
      return shown ? { ...res, result: shown } : res;
    }, { methods: ['service'] }),
    fault('reorg: a transaction index names the head block a reorg took away, for the head\'s transactions', ['service/after-reorg'], (req, res) => {
      if (!('result' in res) || res.result === null) return res;
      const r = res.result as Json;
      if (req.method === 'eth_getBlockByNumber') {
        const shown = req.params[0] === 'latest' ? index.orphan(req, r) : undefined;
        return shown ? { ...res, result: shown } : res;
      }
      const head = index.head();
      return (req.method === M.tx || req.method === M.receipt) && head !== undefined && r['blockHash'] === head ? { ...res, result: { ...r, blockHash: nibble(head) } } : res;
    }, { methods: ['service'] }),
  ];
}

/**
 * Reads of the head after the first (the preflight's) answered from a backend `behind` blocks back: `eth_blockNumber`
 * with its number, `latest` with that real block (every other answer is the upstream's own).
 */
/**
 * §8's near-head window served `served` blocks wide: eth_getTransactionReceipt and eth_getTransactionByHash answer null
 * for a transaction of a block older than the latest `served` blocks (archive not served), as the spec allows a
 * network that declares such a window. Declared wider than served, the window is smaller than declared.
 */
/**
 * History older than the latest `keep` blocks answered error 4444 (devnet/pruned.ts, the gateway's pruned mode), by one
 * answer in `every`: 1 is a node that expired it, 2 a pool where one node in two has. eth_capabilities is the gateway's,
 * declaring all of it kept.
 */
export function expired(keep: number, every: number): NonNullable<Fault['rewrite']> {
  let old = 0;
  return async (req, res, ctx) => {
    if (req.method === 'eth_capabilities') return res;
    const head = BigInt(String((await ctx.upstream('eth_blockNumber', [])).result));
    const pruned = pruneAnswer(req as never, res as never, head, keep) as RpcResponse;
    return pruned === res || old++ % every !== 0 ? res : pruned;
  };
}

const HISTORY = HISTORY_RESOURCES.map((r) => `history/${r}`);

export function servedWindow(served: number): NonNullable<Fault['rewrite']> {
  return async (req, res, ctx) => {
    if ((req.method !== M.tx && req.method !== M.receipt) || !('result' in res) || res.result === null) return res;
    const head = BigInt(String((await ctx.upstream('eth_blockNumber', [])).result));
    const block = BigInt(String((res.result as Json)['blockNumber']));
    return block > head - BigInt(served) ? res : { jsonrpc: '2.0', id: res.id, result: null };
  };
}

export function laggingHead(name: string, behind: bigint, reads: Array<'latest' | 'eth_blockNumber'>): Fault {
  let seen = 0;
  return fault(`head: ${name}`, ['service/head-never-goes-back'], async (req, res, ctx) => {
    const latest = req.method === 'eth_getBlockByNumber' && req.params[0] === 'latest';
    if (!(latest || req.method === 'eth_blockNumber') || !('result' in res) || res.result === null) return res;
    if (seen++ === 0 || !reads.includes(latest ? 'latest' : 'eth_blockNumber')) return res;
    const older = toQuantity(BigInt(latest ? String((res.result as Json)['number']) : String(res.result)) - behind);
    return latest ? { ...res, result: (await ctx.upstream('eth_getBlockByNumber', [older, req.params[1]])).result } : { ...res, result: older };
  }, { methods: ['service'] });
}

/**
 * Synthetic history over a dev chain: the empty block gets one uncle (the header of its parent, as an
 * uncle), and two transactions a dev chain cannot have are served by hash: a pre-Byzantium, pre-EIP-155
 * legacy transaction with its receipt (root, no status) and a blob (type 0x3) transaction. Returns the
 * targets that point at them.
 *
 * The two transactions are really signed here (a fixed throwaway key, deterministic signatures), so their
 * hashes and senders recompute like any real one. They sit in a block the endpoint does not serve (as
 * pruned history would): relabelling a transaction of a served block, as an earlier version did, broke
 * that block's receiptsRoot and the cross-method agreement, and no synthetic rewrite can fix a root
 * without changing the block hash.
 */
export function syntheticHistory(targets: Targets, uncle: Json): { synthetic: Synthetic; targets: Partial<Targets> } {
  const host = targets.emptyBlock!;
  const uncleView = { ...uncle, totalDifficulty: null, transactions: undefined };
  const isHost = (p: unknown) => p === host.hash || p === host.number;
  const history = syntheticTransactions(Number(targets.chainId), uncle);
  // Served where the dev chain answers null: `<method>:<hash>` -> result.
  const byHash = new Map<string, Json>([
    [`${M.tx}:${String(history.preByzantium.tx['hash'])}`, history.preByzantium.tx],
    [`${M.receipt}:${String(history.preByzantium.tx['hash'])}`, history.preByzantium.receipt],
    [`${M.tx}:${String(history.blob['hash'])}`, history.blob],
  ]);
  const synthetic: Synthetic = {
    async rewrite(req, res) {
      if (!('result' in res) || res.result === null) {
        if ((req.method === M.uncleN || req.method === M.uncleH) && isHost(req.params[0]) && req.params[1] === '0x0') return { ...res, error: undefined, result: uncleView };
        const served = byHash.get(`${req.method}:${String(req.params[0])}`);
        if (served) return { jsonrpc: '2.0', id: res.id, result: structuredClone(served) };
        return res;
      }
      const r = res.result as any;
      switch (req.method) {
        case M.block:
        case 'eth_getBlockByNumber':
          // The host has no transactions, so its hashes-only form is its full form: the size counts the uncle.
          return isHost(req.params[0]) ? { ...res, result: { ...r, uncles: [uncle['hash']], size: toQuantity(blockSize(r, [uncle])) } } : res;
        default:
          return res;
      }
    },
  };
  return { synthetic, targets: { uncleBlock: { ...host, uncleCount: 1 }, preByzantiumTx: history.preByzantium.tx['hash'] as string, txByType: { '0x3': history.blob['hash'] as string } } };
}

/** A header with its hash recomputed over its (rewritten) fields: a consistent forgery, which only what it names can expose. */
const rehashed = (b: Json): Json => ({ ...b, hash: headerHash(b) });

/** A hex quantity (or hex string holding one) moved by `by`. */
const bumped = (v: unknown, by: bigint) => toQuantity(BigInt(v as string) + by);

/**
 * A pre-EIP-155 legacy transaction with a pre-Byzantium receipt, and a blob transaction, signed with a
 * throwaway key (RFC 6979, so the same bytes every run), in the JSON-RPC form a node serves them.
 */
function syntheticTransactions(chainId: number, uncle: Json): { preByzantium: { tx: Json; receipt: Json }; blob: Json } {
  const privateKey = keccak256(toHex('rpc-certify: synthetic history signer'));
  const from = privateKeyToAddress(privateKey).toLowerCase();
  const block = { blockHash: keccak256(toHex('rpc-certify: a synthetic block no endpoint serves')), blockNumber: toQuantity(BigInt(String(uncle['number']))) };
  const sign = (unsigned: TransactionSerializable) => {
    const { r, s, yParity } = Secp256k1.sign({ payload: keccak256(serializeTransaction(unsigned)), privateKey });
    return { r, s, yParity, signed: serializeTransaction(unsigned, { r: numberToHex(r, { size: 32 }), s: numberToHex(s, { size: 32 }), ...(unsigned.type === 'legacy' ? { v: 27n + BigInt(yParity) } : { yParity }) }) };
  };

  const legacy = { type: 'legacy', nonce: 7, gasPrice: 20_000_000_000n, gas: 21_000n, to: String(uncle['miner']).toLowerCase() as Address, value: 10n ** 18n, data: '0x' } as const;
  const l = sign(legacy);
  const legacyTx: Json = {
    ...block,
    transactionIndex: '0x0',
    hash: keccak256(l.signed),
    type: '0x0',
    from,
    to: legacy.to,
    nonce: toQuantity(legacy.nonce),
    gas: toQuantity(legacy.gas),
    gasPrice: toQuantity(legacy.gasPrice),
    value: toQuantity(legacy.value),
    input: legacy.data,
    v: toQuantity(27 + l.yParity),
    r: toQuantity(l.r),
    s: toQuantity(l.s),
  };
  const receipt: Json = {
    ...block,
    transactionIndex: '0x0',
    transactionHash: legacyTx['hash'],
    type: '0x0',
    from,
    to: legacy.to,
    contractAddress: null,
    root: uncle['stateRoot'],
    cumulativeGasUsed: toQuantity(legacy.gas),
    gasUsed: toQuantity(legacy.gas),
    effectiveGasPrice: legacyTx['gasPrice'],
    logs: [],
    logsBloom: `0x${'00'.repeat(256)}`,
  };

  const blob = {
    type: 'eip4844',
    chainId,
    nonce: 8,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: 30_000_000_000n,
    maxFeePerBlobGas: 1_000_000_000n,
    gas: 21_000n,
    to: legacy.to,
    value: 0n,
    data: '0x',
    accessList: [],
    blobVersionedHashes: [`0x01${'ab'.repeat(31)}`],
  } as const;
  const b = sign(blob);
  const blobTx: Json = {
    ...block,
    transactionIndex: '0x1',
    hash: keccak256(b.signed),
    type: '0x3',
    chainId: toQuantity(chainId),
    from,
    to: blob.to,
    nonce: toQuantity(blob.nonce),
    gas: toQuantity(blob.gas),
    gasPrice: toQuantity(blob.maxFeePerGas),
    maxFeePerGas: toQuantity(blob.maxFeePerGas),
    maxPriorityFeePerGas: toQuantity(blob.maxPriorityFeePerGas),
    maxFeePerBlobGas: toQuantity(blob.maxFeePerBlobGas),
    value: toQuantity(blob.value),
    input: blob.data,
    accessList: [],
    blobVersionedHashes: [...blob.blobVersionedHashes],
    v: toQuantity(b.yParity),
    yParity: toQuantity(b.yParity),
    r: toQuantity(b.r),
    s: toQuantity(b.s),
  };
  return { preByzantium: { tx: legacyTx, receipt }, blob: blobTx };
}
