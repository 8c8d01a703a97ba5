// The endpoint against a trusted reference node on the same chain (--reference-url): its head lag at the start and
// the end of the checks, and, for every discovered target, each method's answer compared with the reference's field
// by field (answer-diff.ts). A provider consistently behind, whose answers all agree with one another, cannot be
// told from a correct one alone. Without a reference these checks are not on the run (left out of the judged share);
// a reference that fails mid-run leaves the checks that needed it inconclusive, never a verdict on the endpoint.
import { q, toQuantity, isObject } from '../core/hex.ts';
import { blocksJudged, lagOver, lagSeconds } from '../core/head-lag.ts';
import { METHODS, METHOD_FACTS, type ParamKind, type RpcMethod } from '../core/methods.ts';
import type { ShapeName } from '../core/schemas.ts';
import { errorStringPayload, HARNESS_REVERT_REASON, revertingInitCode } from '../core/revert.ts';
import type { BlockRef, Targets } from '../core/targets.ts';
import { type Exchange, resultOf, RpcError, type TransportError } from '../core/node/rpc-client.ts';
import { type CheckContext, MethodSuite } from './framework/check.ts';
import type { Section } from './framework/clause.ts';
import { type AnswerKind, type Difference, diffAnswers, same } from '../core/answer-diff.ts';
import type { HeadLag, MethodAgreement } from './framework/reference.ts';
import { PROBE_TRANSFER } from './framework/common.ts';
import { callOf, isRevert, type MinedTx } from './eth_estimateGas.ts';

const HERE = 'conformance/reference.ts';
/** The head lag at the start: its suite runs before the methods' suites (conformance/methods.ts). */
export const referenceStart = new MethodSuite('reference', HERE);
/** The answers compared, then the head lag at the end: after the methods' suites. */
export const reference = new MethodSuite('reference', HERE);

/**
 * An estimate may sit this far below the reference's at the same block and state: geth's binary search stops within
 * 1.5% of the least gas that runs the call (estimateGasErrorRatio), so two honest nodes differ by up to that. Above
 * the reference's it is noted, never a difference: §4.1 says an estimate may be significantly larger than needed.
 */
export const ESTIMATE_BAND = 0.02;

const byHash = (result: ShapeName, params: readonly ParamKind[]) => METHODS.find((m) => METHOD_FACTS[m].result === result && METHOD_FACTS[m].params.join() === params.join());
/** The methods the comparisons read a transaction through (by hash), from the method table. */
const TX_BY_HASH = byHash('transaction', ['txHash'])!;

function lagCheck(suite: MethodSuite, at: 'start' | 'end'): void {
  suite.check(
    { id: `reference/head-lag-${at}`, clause: [{ section: '1' }, { invariant: 'head as fresh as a reference' }], layer: 'invariant', title: `at the ${at} of the checks, the endpoint's head (eth_blockNumber) trails the reference's by no more than the allowance (--max-head-lag, in seconds of chain time; --max-head-lag-blocks on a chain of 1 s blocks or slower), read between two reads of the reference's; a reference behind the endpoint is named, not blamed`, covers: ['tag:latest'], alone: true },
    async (t) => judgeLag(t, at),
  );
}

lagCheck(referenceStart, 'start');

for (const method of METHODS) {
  const facts = METHOD_FACTS[method];
  reference.check(
    { id: `reference/${method}-agrees`, clause: [{ section: facts.section as Section }, { invariant: 'same answer as a reference' }], layer: 'invariant', title: `for every discovered target, ${method} answers as the reference does, field by field: exact where both serve a value, a field only the reference serves a difference when the spec lists it${facts.result === 'quantity' ? `; estimates at one block both serve, at most ${ESTIMATE_BAND * 100}% below the reference's` : ''}`, covers: ['hit'] },
    async (t) => agree(t, method),
  );
}

lagCheck(reference, 'end');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function judgeLag(t: CheckContext, at: 'start' | 'end'): Promise<void> {
  const ref = t.reference;
  const allowance = ref.meta.maxHeadLagS;
  const allowed = { seconds: allowance, blocks: ref.meta.maxHeadLagBlocks };
  const over = (l: HeadLag) => lagOver({ blocks: l.behindBlocks, seconds: l.behindSeconds }, allowed, l.blockTimeS);
  const first = await readLag(t);
  let lag = first;
  // An honest node may trail by a moment: only a lag that outlasts the allowance is judged.
  if (over(first)) {
    await sleep(Math.max(allowance * 1000, 500));
    lag = await readLag(t);
  }
  ref.meta.headLag[at] = lag;
  const where = `eth_blockNumber named block ${lag.endpoint}; the reference was at block ${lag.referenceBefore} before it was asked and ${lag.referenceAfter} after`;
  const why = over(lag);
  if (why) {
    const least = blocksJudged(lag.blockTimeS) ? Math.min(allowed.blocks, Math.max(1, Math.floor(allowance))) : Math.max(1, Math.floor(allowance));
    t.fail(`the endpoint's head is ${lag.behindBlocks} block(s) behind the reference's (${why}), and still ${Math.max(allowance, 0.5)} s after a first read ${first.behindBlocks} block(s) behind: ${where}`, { pointer: '/result', expected: `at least block ${lag.referenceBefore - least}`, actual: toQuantity(lag.endpoint) });
  }
  if (lag.referenceBehindSeconds > allowance) {
    t.inconclusive(`the reference is ${lag.referenceBehindBlocks} block(s) behind the endpoint (${lag.referenceBehindSeconds} s of chain time, over the allowance of ${allowance} s): a stale reference cannot judge the endpoint's head, and the endpoint is not blamed for it (${where})`);
  }
  t.note(`${lag.behindBlocks > 0 ? `the endpoint ${lag.behindBlocks} block(s) (${lag.behindSeconds} s) behind the reference` : lag.referenceBehindBlocks > 0 ? `the reference ${lag.referenceBehindBlocks} block(s) (${lag.referenceBehindSeconds} s) behind the endpoint` : 'the endpoint level with the reference'}: ${where}${first !== lag ? `; at a first read ${first.behindBlocks} block(s) (${first.behindSeconds} s) behind, read again ${Math.max(allowance, 0.5)} s later` : ''}`);
}

/** The endpoint's eth_blockNumber between two reads of the reference's (race-safe: a moving chain only raises the later read). */
async function readLag(t: CheckContext): Promise<HeadLag> {
  const before = await blockNumber(t, 'reference');
  const endpoint = await blockNumber(t, 'endpoint');
  const after = await blockNumber(t, 'reference');
  const behind = before > endpoint ? before - endpoint : 0n;
  const refBehind = endpoint > after ? endpoint - after : 0n;
  // Seconds from the first block one side lacks to the other side's head, read off the side that has both.
  const behindSeconds = behind > 1n ? lagSeconds(await timestamp(t, 'reference', endpoint + 1n), await timestamp(t, 'reference', before)) : 0;
  // Those seconds span behind - 1 block intervals: with 3 or more, the chain's block time (the block allowance's premise).
  const blockTimeS = behind >= 4n ? behindSeconds / Number(behind - 1n) : undefined;
  const referenceBehindSeconds = refBehind > 1n ? lagSeconds(await timestamp(t, 'endpoint', after + 1n), await timestamp(t, 'endpoint', endpoint)) : 0;
  return { endpoint: Number(endpoint), referenceBefore: Number(before), referenceAfter: Number(after), behindBlocks: Number(behind), behindSeconds, referenceBehindBlocks: Number(refBehind), referenceBehindSeconds, ...(blockTimeS === undefined ? {} : { blockTimeS }) };
}

type Side = 'endpoint' | 'reference';

/** A call's result on one side: an error or no answer leaves the check inconclusive (the head cannot be read). */
async function read(t: CheckContext, side: Side, method: string, params: unknown[], fresh: boolean): Promise<unknown> {
  const ex = side === 'reference' ? await t.refExchange(method, params, { fresh }) : await t.exchange(method, params, { fresh });
  try {
    return resultOf(ex);
  } catch (err) {
    if (err instanceof RpcError) return t.inconclusive(`the ${side} answered ${method} with JSON-RPC error ${err.code}: ${err.rpcMessage}: the head lag cannot be read`);
    throw t.untestable(err as TransportError);
  }
}

async function blockNumber(t: CheckContext, side: Side): Promise<bigint> {
  const v = await read(t, side, 'eth_blockNumber', [], true);
  const n = typeof v === 'string' ? q(v) : undefined;
  return n ?? t.inconclusive(`the ${side} answered eth_blockNumber with ${JSON.stringify(v)}, not a block number`);
}

async function timestamp(t: CheckContext, side: Side, n: bigint): Promise<bigint> {
  const b = await read(t, side, 'eth_getBlockByNumber', [toQuantity(n), false], false);
  const ts = isObject(b) && typeof b['timestamp'] === 'string' ? q(b['timestamp']) : undefined;
  return ts ?? t.inconclusive(`the ${side} gave no block ${n} with a timestamp: the lag cannot be turned into seconds`);
}

/** One call compared: a lookup, whether the reference is known to hold it, and whether it is an estimate. */
interface Call extends Lookup {
  /** The object exists (a discovered target): a reference answering null lacks it, and the call is not compared. */
  found: boolean;
  estimate?: boolean;
}

async function agree(t: CheckContext, method: RpcMethod): Promise<void> {
  const ref = t.reference;
  if (!ref.compare.includes(method)) t.notOnThisChain('methods', `not on this run: --methods leaves ${method} out`);
  const record: MethodAgreement = { method, compared: 0, agreed: 0, notCompared: [], differences: [], noted: [] };
  ref.meta.agreement.push(record);
  const calls = await callsFor(t, method, record);
  await t.each(calls, async (c) => {
    const refEx = await t.refExchange(method, c.params);
    const theirs = answerOf(refEx);
    if (theirs === undefined) return t.inconclusive(`the reference answered ${c.what} with no JSON-RPC result or error: nothing compared`);
    // An error of the reference's says nothing of the endpoint (history it prunes, a method it lacks); only a revert is an answer to compare.
    if ('error' in theirs && !(c.estimate && isRevert(theirs.error))) return void record.notCompared.push(`${c.what}: the reference answered error ${String(theirs.error.code)}: ${theirs.error.message}`);
    if (!('error' in theirs) && theirs.result === null && c.found) return void record.notCompared.push(`${c.what}: the reference has none (behind the endpoint, or history it does not keep)`);
    const named = c.blockHash && !('error' in theirs) ? blockHashIn(theirs.result) : undefined;
    if (named !== undefined && named !== c.blockHash) return void record.notCompared.push(`${c.what}: the reference's block at that number is another one (${named})`);
    const ex = await t.exchange(method, c.params, { due: true });
    const ours = answerOf(ex);
    if (ours === undefined) throw t.untestable(transportError(ex));
    record.compared++;
    const differences = c.estimate ? compareEstimates(ours, theirs, record, c.what) : compareLookups(c.kind, ours, theirs, record, c.what);
    if (differences.length === 0) return void record.agreed++;
    record.differences.push(...differences.map((d) => ({ ...d, call: c.what })));
    const [first, ...rest] = differences as [Difference, ...Difference[]];
    t.fail(`${c.what}: ${first.path} differs from the reference's: ours ${first.ours}, the reference's ${first.reference}${first.why ? ` (${first.why})` : ''}${rest.length ? ` (+${rest.length} more field(s): ${rest.slice(0, 4).map((d) => d.path).join(', ')}${rest.length > 4 ? ', …' : ''})` : ''}`, { pointer: first.path, expected: first.reference, actual: first.ours });
  }, `no discovered target for ${method}`);
  t.judging(record.compared, `no call of ${method} could be compared with the reference${record.notCompared.length ? ` (${record.notCompared[0]}${record.notCompared.length > 1 ? `, +${record.notCompared.length - 1} more` : ''})` : ''}`);
  const said = [...record.notCompared.map((n) => `not compared: ${n}`), ...record.noted.map((n) => `noted: ${n}`)];
  t.note(`${record.compared} call(s) compared with the reference, ${record.agreed} agreed${said.length ? `; ${said.slice(0, 20).join('; ')}${said.length > 20 ? `; and ${said.length - 20} more` : ''}` : ''}`);
}

type Answer = { result: unknown } | { error: { code: unknown; message: string; data?: unknown } };

/** A JSON-RPC answer's result or error; undefined when there is neither (no answer, not JSON). */
function answerOf(ex: Exchange): Answer | undefined {
  try {
    return { result: resultOf(ex) };
  } catch (err) {
    if (err instanceof RpcError) return { error: { code: err.code, message: err.rpcMessage, ...(err.data !== undefined ? { data: err.data } : {}) } };
    return undefined;
  }
}

/** The transport fault of an exchange that carries neither a result nor an error. */
function transportError(ex: Exchange): TransportError {
  try {
    resultOf(ex);
  } catch (err) {
    return err as TransportError;
  }
  throw new Error('harness bug: an exchange with an answer taken for a transport fault');
}

const shown = (a: Answer): string => ('error' in a ? `error ${String(a.error.code)}: ${a.error.message}` : (JSON.stringify(a.result) ?? 'undefined'));

function compareLookups(kind: AnswerKind, ours: Answer, theirs: Answer, record: MethodAgreement, what: string): Difference[] {
  if ('error' in ours) return [{ path: '/', ours: shown(ours), reference: shown(theirs) }];
  if ('error' in theirs) return [];
  if ((ours.result === null) !== (theirs.result === null)) return [{ path: '/', ours: shown(ours), reference: shown(theirs) }];
  const d = diffAnswers(kind, ours.result, theirs.result);
  record.noted.push(...[...d.oneSided, ...d.allowed].map((n) => `${what}: ${n}`));
  return d.differences;
}

/** Estimates at one block both serve: within the band below the reference's; a revert's code and payload exactly. */
function compareEstimates(ours: Answer, theirs: Answer, record: MethodAgreement, what: string): Difference[] {
  if ('error' in ours && 'error' in theirs) {
    const out: Difference[] = [];
    if (ours.error.code !== theirs.error.code) out.push({ path: '/error/code', ours: String(ours.error.code), reference: String(theirs.error.code) });
    if (!same(ours.error.data, theirs.error.data)) out.push({ path: '/error/data', ours: JSON.stringify(ours.error.data) ?? 'absent', reference: JSON.stringify(theirs.error.data) ?? 'absent' });
    if (ours.error.message !== theirs.error.message) record.noted.push(`${what}: error messages differ (ours ${JSON.stringify(ours.error.message)}, the reference's ${JSON.stringify(theirs.error.message)})`);
    return out;
  }
  if ('error' in ours || 'error' in theirs) return [{ path: '/', ours: shown(ours), reference: shown(theirs), why: 'one side estimates, the other answers an error' }];
  const [o, r] = [typeof ours.result === 'string' ? q(ours.result) : undefined, typeof theirs.result === 'string' ? q(theirs.result) : undefined];
  if (r === undefined) return [];
  if (o === undefined) return [{ path: '/', ours: shown(ours), reference: shown(theirs), why: 'not a quantity' }];
  const pct = Number(((o - r) * 10_000n) / (r === 0n ? 1n : r)) / 100;
  if (Number(o) < Number(r) * (1 - ESTIMATE_BAND)) return [{ path: '/', ours: shown(ours), reference: shown(theirs), why: `${-pct}% below the reference's estimate at the same block, beyond the ${ESTIMATE_BAND * 100}% band` }];
  if (Number(o) > Number(r) * (1 + ESTIMATE_BAND)) record.noted.push(`${what}: ${pct}% above the reference's estimate (§4.1: an estimate may be larger than needed)`);
  return [];
}

/** The block a by-number answer names (a transaction's or receipts' blockHash); undefined when it names none. */
export function blockHashIn(result: unknown): string | undefined {
  const one = Array.isArray(result) ? result[0] : result;
  return isObject(one) && typeof one['blockHash'] === 'string' ? one['blockHash'].toLowerCase() : undefined;
}

/** Every discovered block (the head, each class's, each era's, the blocks judged), once each. */
export function blocksOf(targets: Targets): BlockRef[] {
  const all = [targets.head, targets.multiTxBlock, targets.emptyBlock, targets.withdrawalsBlock, targets.uncleBlock, ...Object.values(targets.eraBlocks ?? {}), ...(targets.judgedBlocks ?? [])];
  const seen = new Map<string, BlockRef>();
  for (const b of all) if (b && !seen.has(b.hash)) seen.set(b.hash, { number: b.number, hash: b.hash });
  return [...seen.values()];
}

/** Every discovered transaction, once each. */
export function txsOf(targets: Targets): string[] {
  return [...new Set([...Object.values(targets.txByType), targets.contractCreation, targets.txWithLogs, targets.failedTx, targets.successTx, targets.callToCode, targets.firstInBlockTx, targets.revertedTx, targets.preByzantiumTx].filter((h): h is string => typeof h === 'string'))];
}

export const blockName = (b: BlockRef) => `block ${BigInt(b.number)} (${b.hash})`;

/** The reference's copy of a transaction, read by hash: where it has none, calls built from it are not made. */
async function referenceTx(t: CheckContext, hash: string): Promise<MinedTx | undefined> {
  const a = answerOf(await t.refExchange(TX_BY_HASH, [hash]));
  return a && 'result' in a && isObject(a.result) && typeof a.result['from'] === 'string' ? (a.result as MinedTx) : undefined;
}

/** A call of an immutable lookup built from the targets: what it asks, its params, its answer's kind, the block asked by number. */
export interface Lookup {
  what: string;
  params: unknown[];
  kind: AnswerKind;
  /** Asked by number: an answer must name this block, or it is another block at that number. */
  blockHash?: string;
}

/**
 * The calls of a lookup whose answer is fixed once its target is settled, for every discovered target: blocks by hash
 * (both ways), transactions and receipts by hash, a block's receipts by number. Undefined for the other methods.
 */
export function lookups(targets: Targets, method: RpcMethod): Lookup[] | undefined {
  const facts = METHOD_FACTS[method];
  if (facts.result === 'block') return blocksOf(targets).flatMap((b) => [false, true].map((full) => ({ what: `${blockName(b)}, ${full ? 'full transactions' : 'transaction hashes'}`, params: [b.hash, full], kind: 'block' as const })));
  if (facts.result === 'transaction' && facts.params[0] === 'txHash') return txsOf(targets).map((h) => ({ what: `transaction ${h}`, params: [h], kind: 'transaction' as const }));
  if (facts.result === 'receipt') return txsOf(targets).map((h) => ({ what: `the receipt of ${h}`, params: [h], kind: 'receipt' as const }));
  if (facts.result === 'block-receipts') return blocksOf(targets).map((b) => ({ what: `the receipts of ${blockName(b)}`, params: [b.number], kind: 'receipts' as const, blockHash: b.hash.toLowerCase() }));
  return undefined;
}

/** The calls to compare for a method, built from its parameters and result in the method table. */
async function callsFor(t: CheckContext, method: RpcMethod, record: MethodAgreement): Promise<Call[]> {
  const facts = METHOD_FACTS[method];
  const fixed = lookups(t.targets, method);
  if (fixed) return fixed.map((c) => ({ ...c, found: true }));
  switch (facts.result) {
    case 'uncle': {
      const key = facts.params[0] === 'blockHash' ? 'hash' : 'number';
      const u = t.targets.uncleBlock;
      // A chain without uncles: the miss at index 0 of the head is compared (both must answer null).
      if (!u) return [{ what: `uncle 0 of ${blockName(t.targets.head)} (none on this chain)`, params: [t.targets.head[key], '0x0'], kind: 'uncle', found: false }];
      return Array.from({ length: u.uncleCount }, (_, i): Call => ({ what: `uncle ${i} of ${blockName(u)}`, params: [u[key], toQuantity(i)], kind: 'uncle', found: true }));
    }
    case 'transaction':
      return (
        await Promise.all(
          txsOf(t.targets).map(async (h): Promise<Call | undefined> => {
            const tx = await referenceTx(t, h);
            if (!tx || typeof tx['transactionIndex'] !== 'string' || typeof tx['blockHash'] !== 'string') return void record.notCompared.push(`transaction ${h}: the reference has no mined copy of it to read its block and index from`);
            return { what: `transaction ${tx['transactionIndex']} of block ${BigInt(tx.blockNumber)} (${h})`, params: [tx.blockNumber, tx['transactionIndex']], kind: 'transaction', found: true, blockHash: tx['blockHash'].toLowerCase() };
          }),
        )
      ).filter((c): c is Call => c !== undefined);
    default:
      return estimateCalls(t, record);
  }
}

/** Estimates compared at one block both serve (the discovery head, by number), never at two `latest`s. */
async function estimateCalls(t: CheckContext, record: MethodAgreement): Promise<Call[]> {
  const at = t.targets.head;
  const block = answerOf(await t.refExchange('eth_getBlockByNumber', [at.number, false]));
  const hash = block && 'result' in block && isObject(block.result) ? block.result['hash'] : undefined;
  if (typeof hash !== 'string' || hash.toLowerCase() !== at.hash.toLowerCase()) {
    record.notCompared.push(`every estimate: the reference ${typeof hash === 'string' ? `has another block ${hash}` : 'has no block'} at ${blockName(at)}, the block the estimates are compared at`);
    return [];
  }
  const mined = [t.targets.successTx, t.targets.callToCode, t.targets.firstInBlockTx, t.targets.contractCreation, t.targets.txWithLogs].filter((h): h is string => typeof h === 'string');
  const replays = (await Promise.all([...new Set(mined)].map(async (h) => ({ h, tx: await referenceTx(t, h) })))).flatMap(({ h, tx }) => (tx ? [{ what: `transaction ${h} replayed`, call: callOf(tx) }] : []));
  const harness = errorStringPayload(HARNESS_REVERT_REASON);
  const reverts = [...t.targets.reverts.map((r) => ({ what: `the ${r.kind} revert ${r.reason ?? ''}`.trim(), call: { ...(r.to ? { to: r.to } : {}), data: r.data } })), { what: 'the harness\'s reverting creation', call: { data: revertingInitCode(harness) } }];
  return [{ what: 'a plain transfer', call: PROBE_TRANSFER as Record<string, unknown> }, ...replays, ...reverts].map(({ what, call }) => ({ what: `the estimate of ${what} at ${blockName(at)}`, params: [call, at.number], kind: 'other', found: false, estimate: true }));
}
