// The fault catalogue: each fault breaks one rule the way real endpoints do, and names the checks that
// must catch it. The self-test runs the suite once per fault and asserts those checks fail, and asserts
// that every check of the suite is killed by at least one fault.
import type { Targets } from '../../core/targets.ts';
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
    fault(`${method}: jsonrpc "1.0" in results`, [`${method}/envelope`], (req, res) => (req.method === method && 'result' in res ? { ...res, jsonrpc: '1.0' } : res)),
    fault(`${method}: error responses echo the id as a string`, [`${method}/envelope-error`], (req, res) => (req.method === method && 'error' in res ? { ...res, id: String(res.id) } : res)),
  ];
}

function nullToError(method: string, kills: string[]): Fault {
  return fault(`${method}: a miss is an error instead of null`, kills.map((k) => `${method}/${k}`), (req, res) => (req.method === method && 'result' in res && res.result === null ? notFound(res) : res));
}

function tagRejected(method: string, tag: string, at: number): Fault {
  return fault(`${method}: tag "${tag}" rejected`, [`${method}/tag-${tag}`], (req, res) => (req.method === method && req.params[at] === tag ? invalidParams(res) : res));
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
    fault('estimate: revert as -32000', [`${M.estimate}/revert-initcode`, `${M.estimate}/revert-contracts`], (req, res) => (req.method === M.estimate && res.error?.code === 3 ? { ...res, error: { ...res.error, code: -32000 } } : res)),
    fault('estimate: revert data dropped for contract calls', [`${M.estimate}/revert-contracts`], (req, res) => (req.method === M.estimate && res.error && (req.params[0] as Json)['to'] ? { ...res, error: { code: res.error.code, message: res.error.message } } : res)),
    fault('estimate: revert data not the payload', [`${M.estimate}/revert-initcode`], (req, res) => (req.method === M.estimate && res.error?.code === 3 ? { ...res, error: { ...res.error, data: '0x08c379a0' } } : res)),
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
    fault('block: totalDifficulty dropped', [`${M.block}/total-difficulty`], results(M.block, (b: Json) => ({ ...b, totalDifficulty: undefined }))),
    fault('block: an L2 field added', [`${M.block}/extra-fields`], results(M.block, (b: Json) => ({ ...b, l1BlockNumber: '0x1' }))),

    // uncles (synthetic history: the empty block is given one uncle)
    ...[M.uncleN, M.uncleH].flatMap((m) => [
      ...envelopeFaults(m),
      nullToError(m, ['null-no-uncle', 'null-unknown-block']),
      fault(`${m}: an uncle with transactions and a totalDifficulty`, [`${m}/uncle-shape`], results(m, (u: Json) => ({ ...u, transactions: [targets.successTx], totalDifficulty: '0x1' })), synthetic),
      fault(`${m}: the uncle is not the one its block lists`, [`${m}/uncle-shape`], results(m, (u: Json) => ({ ...u, hash: targets.head.hash })), synthetic),
    ]),
    ...TAGS.map((tag) => tagRejected(M.uncleN, tag, 0)),

    // eth_getTransactionByBlockNumberAndIndex
    ...envelopeFaults(M.txIdx),
    fault('tx by index: transactionIndex always 0x0', [`${M.txIdx}/every-index`], results(M.txIdx, (tx: Json) => ({ ...tx, transactionIndex: '0x0' }))),
    fault('tx by index: blockHash of another block', [`${M.txIdx}/every-index`], results(M.txIdx, (tx: Json) => ({ ...tx, blockHash: targets.head.hash === tx['blockHash'] ? targets.scanned.from : targets.head.hash }))),
    ...TAGS.map((tag) => tagRejected(M.txIdx, tag, 0)),
    fault('tx by index: pending index 0 has no transactionIndex match', [`${M.txIdx}/tag-latest`], results(M.txIdx, (tx: Json) => ({ ...tx, transactionIndex: '0x7' }), (req) => req.params[0] === 'latest')),
    nullToError(M.txIdx, ['null-out-of-range', 'null-future-block']),

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
    nullToError(M.receipt, ['null-on-miss']),
    fault('receipt: an extra field', [`${M.receipt}/extra-fields`], results(M.receipt, (r: Json) => ({ ...r, l1Fee: '0x1' }))),

    // eth_getBlockReceipts
    ...envelopeFaults(M.blockReceipts),
    fault('block receipts: reversed', [`${M.blockReceipts}/receipts-in-order`], results(M.blockReceipts, (rs: Json[]) => [...rs].reverse())),
    fault('block receipts: one missing', [`${M.blockReceipts}/receipts-in-order`], results(M.blockReceipts, (rs: Json[]) => rs.slice(1))),
    fault('block receipts: an empty block gives null', [`${M.blockReceipts}/empty-block`], results(M.blockReceipts, (rs: Json[]) => (rs.length === 0 ? null : rs))),
    fault('block receipts: a future block gives []', [`${M.blockReceipts}/null-future-block`], (req, res) => (req.method === M.blockReceipts && res.result === null ? { ...res, result: [] } : res)),
    fault('block receipts: pending gives null', [`${M.blockReceipts}/pending-equals-latest`], (req, res) => (req.method === M.blockReceipts && req.params[0] === 'pending' ? { ...res, result: null } : res)),
    ...(['latest', 'earliest', 'safe', 'finalized'] as const).map((tag) => tagRejected(M.blockReceipts, tag, 0)),
    fault('block receipts: decimal block numbers rejected', [`${M.blockReceipts}/decimal-string`, `${M.blockReceipts}/decimal-number`], (req, res) => (req.method === M.blockReceipts && !/^0x|^[a-z]/.test(String(req.params[0])) ? invalidParams(res) : res)),
  ];
}

/**
 * Synthetic history over a dev chain: the empty block gets one uncle (the header of its parent, as an
 * uncle), one spare transaction gets a pre-Byzantium receipt (root, no status), another is presented
 * as a blob (type 0x3) transaction. Returns the targets that point at them.
 */
export function syntheticHistory(targets: Targets, spare: { preByzantium: string; blob: string }, uncle: Json): { synthetic: Synthetic; targets: Partial<Targets> } {
  const host = targets.emptyBlock!;
  const uncleView = { ...uncle, totalDifficulty: null, transactions: undefined };
  const isHost = (p: unknown) => p === host.hash || p === host.number;
  const toReceipt = (r: Json) => (r['transactionHash'] === spare.preByzantium ? { ...r, status: undefined, root: uncle['stateRoot'] } : r);
  const synthetic: Synthetic = {
    async rewrite(req, res) {
      if (!('result' in res) || res.result === null) {
        if ((req.method === M.uncleN || req.method === M.uncleH) && isHost(req.params[0]) && req.params[1] === '0x0') return { ...res, error: undefined, result: uncleView };
        return res;
      }
      const r = res.result as any;
      switch (req.method) {
        case M.block:
        case 'eth_getBlockByNumber':
          return isHost(req.params[0]) ? { ...res, result: { ...r, uncles: [uncle['hash']] } } : res;
        case M.tx:
          return r.hash === spare.blob ? { ...res, result: { ...r, type: '0x3', maxFeePerBlobGas: '0x1', blobVersionedHashes: [`0x01${'ab'.repeat(31)}`] } } : res;
        case M.receipt:
          return { ...res, result: toReceipt(r) };
        case M.blockReceipts:
          return { ...res, result: (r as Json[]).map(toReceipt) };
        default:
          return res;
      }
    },
  };
  return { synthetic, targets: { uncleBlock: { ...host, uncleCount: 1 }, preByzantiumTx: spare.preByzantium, txByType: { '0x3': spare.blob } } };
}
