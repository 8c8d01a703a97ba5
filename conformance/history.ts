// How deep the endpoint serves history, against what it declares. For blocks, transactions, receipts and the state
// eth_estimateGas runs on, the oldest height served is found by a bounded search (core/history.ts), its boundary
// re-probed; a node that prunes answers error 4444 or its kin (core/not-kept.ts), named "pruned", never a generic
// error. What is declared: the near-head window (§8: --near-head-window, fixtures/networks.json) for transactions and
// receipts, and eth_capabilities where the endpoint serves it, per resource. A height declared kept and answered
// pruned fails, naming both; with nothing declared the depth is reported and not judged.
import { isObject, q, toQuantity } from '../core/hex.ts';
import { capabilitiesOf, type Capabilities, declaredOldest, depthText, findServedDepth, type HistoryDepth, HISTORY_RESOURCES, type HistoryResource, type Probe, type ProbeAnswer, REPROBES, type ServedDepth } from '../core/history.ts';
import { windowEdge } from '../core/near-head-window.ts';
import { notKept } from '../core/not-kept.ts';
import { resultOf, RpcError, type TransportError } from '../core/node/rpc-client.ts';
import { type CheckContext, MethodSuite } from './framework/check.ts';
import { PROBE_TRANSFER } from './framework/common.ts';
import { headOf } from './framework/near-head-window.ts';

const HERE = 'conformance/history.ts';
const suite = new MethodSuite('history', HERE);
export default suite;

/** Blocks the probe at a declared oldest height walks up for a transaction to ask. */
const EDGE_WALK = 64;

/** The call that asks blocks and state at a height, and whether its answer is the thing served. */
const ASKS: Record<'blocks' | 'state', { method: string; params: (n: string) => unknown[]; served: (v: unknown) => boolean; what: string }> = {
  blocks: { method: 'eth_getBlockByNumber', params: (n) => [n, false], served: isObject, what: 'the block' },
  state: { method: 'eth_estimateGas', params: (n) => [PROBE_TRANSFER, n], served: (v) => typeof v === 'string' && q(v) !== undefined, what: 'an estimate of a plain transfer at the block (its state)' },
};

/** Transactions and receipts are looked up by a transaction's hash (the §8 window's methods): the first of a block. */
const BY_HASH: Record<'transactions' | 'receipts', { method: string; key: string; what: string }> = {
  transactions: { method: 'eth_getTransactionByHash', key: 'hash', what: 'transactions looked up by hash' },
  receipts: { method: 'eth_getTransactionReceipt', key: 'transactionHash', what: 'receipts looked up by transaction hash' },
};

const byHash = (r: HistoryResource): r is keyof typeof BY_HASH => r in BY_HASH;

type Answer = { kind: 'served' | 'pruned'; detail: string; value?: unknown };

/** One call's answer as served or pruned: null, or an error saying the history is not kept. Any other error, or no answer, cannot tell. */
async function answerOf(t: CheckContext, method: string, params: unknown[], served: (v: unknown) => boolean, fresh: boolean): Promise<Answer> {
  const ex = await t.exchange(method, params, { fresh });
  let value: unknown;
  try {
    value = resultOf(ex);
  } catch (err) {
    // An answer that is no answer, or an error that is not "pruned", is judged by that method's own checks: here it
    // leaves the depth untold.
    if (!(err instanceof RpcError)) return t.inconclusive(`leans on ${method}, which gave no usable answer (${(err as TransportError).message.slice(0, 160)}): the depth cannot be told`);
    if (notKept(err.code, err.rpcMessage)) return { kind: 'pruned', detail: `pruned (error ${err.code}: ${err.rpcMessage.slice(0, 120)})` };
    return t.inconclusive(`leans on ${method}, which answered error ${err.code}: ${err.rpcMessage.slice(0, 120)} for ${String(params[0] === PROBE_TRANSFER ? params[1] : params[0])}: neither served nor pruned, the depth cannot be told`);
  }
  if (value === null) return { kind: 'pruned', detail: 'null (for a block the chain has)' };
  return served(value) ? { kind: 'served', detail: 'served', value } : t.inconclusive(`leans on ${method}, which answered neither its object nor null nor an error for ${String(params[0])}: the depth cannot be told`);
}

function probeOf(t: CheckContext, resource: HistoryResource): Probe {
  if (byHash(resource)) return (n, walk, below) => byHashAt(t, BY_HASH[resource], n, walk, below);
  const ask = ASKS[resource];
  return async (n) => {
    const params = ask.params(toQuantity(n));
    const a = await answerOf(t, ask.method, params, ask.served, false);
    return { kind: a.kind, at: n, detail: a.detail, again: async () => (await answerOf(t, ask.method, params, ask.served, true)).kind };
  };
}

/** The first transaction of the first block with one from n up (walk blocks, below `below`), looked up by its hash. */
async function byHashAt(t: CheckContext, lookup: (typeof BY_HASH)[keyof typeof BY_HASH], n: bigint, walk: number, below: bigint): Promise<ProbeAnswer> {
  for (let m = n; m < n + BigInt(walk) && m < below; m++) {
    const block = await answerOf(t, 'eth_getBlockByNumber', [toQuantity(m), false], isObject, false);
    // A block not served has no transaction to look up: neither its transactions nor its receipts are served.
    if (block.kind === 'pruned') return { kind: 'pruned', at: m, detail: `its block not served: ${block.detail}`, again: async () => (await answerOf(t, 'eth_getBlockByNumber', [toQuantity(m), false], isObject, true)).kind };
    const txs = isObject(block.value) && Array.isArray(block.value['transactions']) ? block.value['transactions'] : [];
    const hash = txs[0];
    if (typeof hash !== 'string') continue;
    const served = (v: unknown) => isObject(v) && v[lookup.key] === hash;
    const a = await answerOf(t, lookup.method, [hash], served, false);
    return { kind: a.kind, at: m, detail: a.detail, again: async () => (await answerOf(t, lookup.method, [hash], served, true)).kind };
  }
  return { kind: 'empty', at: n, detail: `no transaction in blocks ${n}-${n + BigInt(walk) - 1n}` };
}

/** eth_capabilities, asked once a run (the exchange is shared); undefined where the endpoint does not serve it. */
async function capabilities(t: CheckContext): Promise<Capabilities | undefined> {
  const ex = await t.exchange('eth_capabilities', []);
  try {
    return capabilitiesOf(resultOf(ex));
  } catch {
    return undefined;
  }
}

interface Declared {
  oldest: bigint;
  from: string;
}

/** What declares this resource kept, at `head`: the strictest (the oldest block) of the window and eth_capabilities. */
function declarations(t: CheckContext, resource: HistoryResource, caps: Capabilities | undefined, head: bigint): { declared?: Declared; notes: string[] } {
  const all: Declared[] = [];
  const notes: string[] = [];
  const window = t.window;
  if (window && byHash(resource)) all.push({ oldest: windowEdge(head, window.blocks), from: `the near-head window of ${window.blocks} blocks (${window.from})` });
  if (t.soldAsArchive) all.push({ oldest: 0n, from: '--archive (all history kept from genesis)' });
  const keep = caps?.resources[resource];
  if (keep?.disabled) notes.push(`eth_capabilities declares ${resource} not served (disabled)`);
  else if (keep) {
    const oldest = declaredOldest(keep, head);
    // Kept from above the head is no history kept at all: nothing of it to judge.
    if (oldest > head) notes.push(`eth_capabilities declares ${resource} kept from block ${keep.oldestBlock}, above the head ${head}: nothing declared to judge`);
    else all.push({ oldest, from: `eth_capabilities (oldestBlock ${keep.oldestBlock}${keep.window === undefined ? '' : `, a window of ${keep.window} blocks`} at head ${caps!.head})` });
  }
  const declared = all.sort((a, b) => (a.oldest < b.oldest ? -1 : a.oldest > b.oldest ? 1 : 0))[0];
  return { ...(declared ? { declared } : {}), notes };
}

const depthOf = (resource: HistoryResource, found: ServedDepth, declared: Declared | undefined): HistoryDepth => ({
  resource,
  head: Number(found.head),
  ...(found.oldestServed !== undefined ? { oldestServed: Number(found.oldestServed) } : {}),
  ...(found.newestPruned !== undefined ? { newestPruned: Number(found.newestPruned), prunedAnswer: found.prunedAnswer ?? 'pruned' } : {}),
  exact: found.exact,
  ...(found.moving ? { moving: found.moving } : {}),
  ...(declared ? { declared: { oldestBlock: Number(declared.oldest), from: declared.from } } : {}),
  probes: found.probes,
});

for (const resource of HISTORY_RESOURCES) {
  const what = byHash(resource) ? `${BY_HASH[resource].what} (${BY_HASH[resource].method}; the first of a block read by number)` : `${ASKS[resource].what} (${ASKS[resource].method})`;
  suite.check(
    { id: `history/${resource}`, clause: [{ section: '8' }, { invariant: 'history as deep as declared' }], layer: 'spec', title: `${what}: the oldest height served is found (a bounded search, its boundary re-probed ${REPROBES} times; error 4444 and its kin named pruned) and is no newer than what is declared kept: ${byHash(resource) ? 'the near-head window (§8), ' : ''}eth_capabilities where served, --archive; with nothing declared, reported and not judged`, covers: ['hit'] },
    async (t) => {
      const head = await headOf(t);
      const caps = await capabilities(t);
      const found = await findServedDepth(head, probeOf(t, resource), () => headOf(t));
      const after = await headOf(t);
      const { declared, notes } = declarations(t, resource, caps, after);
      const depth = depthOf(resource, found, declared);
      t.history = depth;
      t.note(`${resource} served: ${depthText(depth)}${found.moving ? `; the boundary moves: ${found.moving}` : ''}`);
      for (const n of notes) t.note(n);
      if (found.nothingToAsk) return t.skip(`no transaction to look up at the ${found.probes} heights searched: how deep ${resource} are served is not known`);
      if (!declared) return t.notOnThisChain('no-declared-depth', `not judged: nothing declares how deep ${resource === 'state' ? 'state is' : `${resource} are`} kept (no near-head window${byHash(resource) ? '' : ' applies'}, ${!caps ? 'no eth_capabilities' : notes.length ? notes.join('; ') : `eth_capabilities names no ${resource}`}, no --archive); served: ${depthText(depth)}`);
      if (found.newestPruned !== undefined && found.newestPruned >= declared.oldest) {
        t.fail(`served shallower than declared: block ${found.newestPruned} answered ${found.prunedAnswer ?? 'pruned'}, though ${declared.from} declares ${resource} kept from block ${declared.oldest}; served: ${depthText(depth)}`, { expected: `kept from block ${declared.oldest}`, actual: depthText(depth) });
      }
      if (found.servedThenPruned !== undefined && found.servedThenPruned >= declared.oldest) {
        t.fail(`served shallower than declared by some of the endpoint's nodes: ${found.moving ?? ''}; ${declared.from} declares ${resource} kept from block ${declared.oldest}`, { expected: `kept from block ${declared.oldest}`, actual: depthText(depth) });
      }
      // The decisive ask: at the declared oldest height itself (walking up for a transaction to ask). A window moves up
      // with the head: judged against what it declares at a head read after the answer, so a block mined meanwhile
      // that carried the height out of it is no failure.
      const edge = await probeOf(t, resource)(declared.oldest, byHash(resource) ? EDGE_WALK : 1, after + 1n);
      const still = edge.kind === 'pruned' ? declarations(t, resource, caps, await headOf(t)).declared : undefined;
      if (edge.kind === 'pruned' && still && edge.at >= still.oldest) t.fail(`served shallower than declared: block ${edge.at} answered ${edge.detail}, though ${declared.from} declares ${resource} kept from block ${declared.oldest}; served: ${depthText(depth)}`, { expected: `kept from block ${declared.oldest}`, actual: depthText(depth) });
      if (edge.kind === 'empty') t.partly(`no transaction in blocks ${declared.oldest}-${declared.oldest + BigInt(EDGE_WALK) - 1n} at the declared oldest height to look up: judged on the search's heights`);
    },
    HERE,
  );
}
