// Finds the suite's targets on the endpoint itself, as coverage: one walk back from the head, bounded
// by a depth and a request budget, collects every target class the walked range holds (each transaction
// type, creation, logs, failed and successful transactions, a call that ran code, a revert, pre-Byzantium
// receipts, uncles, withdrawals, empty and busy blocks, one block per fork era) and keeps fetching full
// transactions and receipts until each class is found or the range is walked. It then picks the blocks
// the block-level invariants judge. Nothing is hard-coded to one chain.
import { readFile } from 'node:fs/promises';
import type { BlockRef, CoverageEntry, JudgedBlock, MalformedBlock, Targets } from '../../core/targets.ts';
import { validateShape } from '../../core/schemas.ts';
import { isObject, q, toQuantity } from '../../core/hex.ts';
import type { Json } from '../../core/invariants/encoding.ts';
import { headerFork } from '../../core/invariants/header.ts';
import { ranCode } from '../../core/invariants/intrinsic.ts';
import { type RpcClient, RpcError } from '../../core/node/rpc-client.ts';

interface RawBlock extends Json {
  number: string;
  hash: string;
  transactions: unknown[];
}

export interface DiscoveryOptions {
  /** How many blocks at most to walk back from the head. */
  depth: number;
  /** How many requests the walk may spend (blocks, receipts); it stops there and says so. */
  budget?: number;
  /** The chain and head the preflight read: discovery walks back from there. */
  chainId: string;
  head: BlockRef;
  /** Blocks (and their receipts) read ahead of the walk at once (default READ_AHEAD): a walk over a real network pays a round trip per window, not per block. */
  width?: number;
}

export const KNOWN_TYPES = ['0x0', '0x1', '0x2', '0x3', '0x4'];
/** Types a call object can replay faithfully through eth_estimateGas (no blobs, no authorizations). */
const REPLAYABLE_TYPES = ['0x0', '0x1', '0x2'];
export const DEFAULT_DISCOVERY_BUDGET = 256;
/** How many blocks the block-level invariants judge at most. */
export const JUDGED_BLOCKS = 16;
export const READ_AHEAD = 8;
/** Receipts fetched one by one per block when eth_getBlockReceipts is not served. */
const RECEIPTS_ONE_BY_ONE = 16;

/** The target classes of the coverage matrix, in the order a reader thinks of them. */
export const COVERAGE_CLASSES: ReadonlyArray<readonly [string, string]> = [
  ['multiTxBlock', 'block with several transactions'],
  ['emptyBlock', 'empty block'],
  ...KNOWN_TYPES.map((type) => [`txByType.${type}`, `transaction of type ${type}`] as const),
  ['contractCreation', 'contract creation'],
  ['deployment', 'successful contract creation (estimate at a block)'],
  ['txWithLogs', 'transaction with logs'],
  ['successTx', 'successful transaction'],
  ['failedTx', 'failed transaction'],
  ['callToCode', 'successful call that ran code'],
  ['firstInBlockTx', 'successful transaction first in its block (estimate replay)'],
  ['revertedTx', 'failed transaction first in its block (revert replay)'],
  ['withdrawalsBlock', 'block with withdrawals'],
  ['uncleBlock', 'block with uncles (pre-merge)'],
  ['preByzantiumTx', 'receipt with root (pre-Byzantium)'],
];

/** Classes only receipts (with their full transactions) reveal. */
const RECEIPT_CLASSES = ['failedTx', 'successTx', 'txWithLogs', 'callToCode', 'firstInBlockTx', 'revertedTx', 'preByzantiumTx', 'deployment'] as const;

interface Walked extends BlockRef {
  era: string;
  txCount: number;
}

export async function discoverTargets(client: RpcClient, opts: DiscoveryOptions): Promise<Targets> {
  const { chainId, head } = opts;
  const budget = opts.budget ?? DEFAULT_DISCOVERY_BUDGET;
  const startCount = client.requestCount;
  const spent = () => client.requestCount - startCount;
  const headNumber = q(head.number) ?? 0n;
  const t: Targets = {
    chainId,
    head,
    scanned: { from: head.number, to: head.number, blocks: 0 },
    txByType: {},
    eraBlocks: {},
    reverts: [],
    sources: {},
  };
  /** The block being read when it fails its shape: the classes it yields are recorded as malformed. */
  let malformed: MalformedBlock | undefined;
  const found = (key: string) => {
    t.sources[key] = 'discovery';
    malformed?.classes.push(key);
  };
  const walked: Walked[] = [];
  /** The block of each transaction a target names. */
  const blockOfTx = new Map<string, string>();
  /** A plain transfer first in its block: the estimate replay's target when no code-running one is met. */
  let plainFirst: string | undefined;
  /** A failure first in its block that used all its gas: a revert or an exceptional halt, the replay tells. */
  let allGasFailure: string | undefined;
  const receipts: ReceiptsState = { perBlock: true, served: false };
  let stoppedBy: NonNullable<Targets['scanned']['stoppedBy']> = 'range';

  const inRange = (n: bigint) => n >= 0n && headNumber - n < BigInt(opts.depth);
  const ahead = readAhead(client, receipts, () => spent() < budget);
  for (let n = headNumber; inRange(n); n--) {
    if (spent() >= budget && !ahead.has(n)) {
      stoppedBy = 'budget';
      break;
    }
    // Discovery reads what an untrusted endpoint says: a block it cannot make sense of never crashes the
    // run. Full transaction objects only while a class still needs them: once all are found, the rest of
    // the walk costs a hash list a block. The blocks below are read ahead as this one is, within the budget.
    const full = needsTransactions(t);
    // Ahead only where the walk one block at a time would read as far: a block costs 1 request, 2 with its receipts by
    // block, up to 17 one by one (never read ahead); near the budget's end, one block at a time, as before.
    const cost = !full || !needsReceipts(t) ? 1 : receipts.served && receipts.perBlock ? 2 : Infinity;
    const width = opts.width ?? READ_AHEAD;
    const span = budget - spent() >= cost * width ? width : 1;
    for (let k = 0; k < span && inRange(n - BigInt(k)); k++) ahead.start(n - BigInt(k), full, needsReceipts(t));
    const read = await ahead.take(n, full);
    const raw = read.raw;
    if (client.stopped) break;
    if (!isObject(raw)) continue;
    // Every block read is held to the block shape: one that fails it is recorded (walked-shape fails on it)
    // and still read as far as it can be, so a class it holds is "malformed", never "not on this chain".
    const faults = validateShape('block', raw);
    malformed = faults.length > 0 ? { number: toQuantity(n), ...(typeof raw['hash'] === 'string' ? { hash: raw['hash'] } : {}), full, faults: faults.slice(0, 4).map((f) => `${f.pointer} ${f.message}`), classes: [] } : undefined;
    if (malformed) (t.malformedBlocks ??= []).push(malformed);
    if (typeof raw['hash'] !== 'string') continue;
    const block = { ...raw, hash: raw['hash'], number: typeof raw['number'] === 'string' ? raw['number'] : toQuantity(n), transactions: Array.isArray(raw['transactions']) ? raw['transactions'] : [] } as RawBlock;
    t.scanned = { from: block.number, to: head.number, blocks: t.scanned.blocks + 1 };
    const ref: BlockRef = { number: block.number, hash: block.hash };
    const count = block.transactions.length;
    const era = eraOf(block);
    walked.push({ ...ref, era, txCount: count });
    collectHeaderClasses(t, block, ref, count, era, found);

    const txs = full ? (block.transactions.filter(isObject) as Json[]) : [];
    for (const tx of txs) {
      if (typeof tx['hash'] !== 'string') continue;
      const type = typeof tx['type'] === 'string' ? tx['type'] : '0x0';
      if (!t.txByType[type]) {
        t.txByType[type] = tx['hash'];
        blockOfTx.set(tx['hash'], block.hash);
        found(`txByType.${type}`);
      }
      if (tx['to'] === null && !t.contractCreation) {
        t.contractCreation = tx['hash'];
        blockOfTx.set(tx['hash'], block.hash);
        found('contractCreation');
      }
    }
    if (full && txs.length > 0 && needsReceipts(t)) {
      const list = await (read.receipts ?? blockReceipts(client, block, receipts, () => spent() < budget));
      for (const r of list) {
        const tx = txs.find((x) => x['hash'] === r['transactionHash']);
        if (!tx) continue;
        const hit = collectReceiptClasses(t, tx, r, tx === txs[0], found);
        for (const key of hit) {
          blockOfTx.set(tx['hash'] as string, block.hash);
          if (key === 'plainFirst') plainFirst ??= tx['hash'] as string;
          if (key === 'allGasFailure') allGasFailure ??= tx['hash'] as string;
        }
      }
    }
    if (allFound(t)) {
      stoppedBy = 'all-found';
      break;
    }
  }
  malformed = undefined;
  // Stopped mid-walk (the deadline, Ctrl-C): what was not found was not looked for.
  if (client.stopped && stoppedBy !== 'all-found') stoppedBy = 'interrupted';
  if (!t.firstInBlockTx && plainFirst) {
    t.firstInBlockTx = plainFirst;
    found('firstInBlockTx');
  }
  if (!t.revertedTx && allGasFailure) {
    t.revertedTx = allGasFailure;
    found('revertedTx');
  }
  t.scanned.stoppedBy = stoppedBy;
  t.scanned.requests = spent();
  t.judgedBlocks = pickJudged(t, walked, blockOfTx);
  return t;
}

/** The fork era a header's fields say ('frontier' for anything before London); 'unknown' if they contradict. */
export function eraOf(header: Json): string {
  try {
    return headerFork(header);
  } catch {
    return 'unknown';
  }
}

/** What the header and the hash list alone reveal: empty and busy blocks, uncles, withdrawals, eras. */
function collectHeaderClasses(t: Targets, block: RawBlock, ref: BlockRef, count: number, era: string, found: (key: string) => void): void {
  if (count === 0 && !t.emptyBlock) {
    t.emptyBlock = ref;
    found('emptyBlock');
  }
  if (count >= 2 && count > (t.multiTxBlock?.txCount ?? 1) && count <= 500) {
    t.multiTxBlock = { ...ref, txCount: count };
    found('multiTxBlock');
  }
  const uncles = block['uncles'];
  if (Array.isArray(uncles) && uncles.length > 0 && !t.uncleBlock) {
    t.uncleBlock = { ...ref, uncleCount: uncles.length };
    found('uncleBlock');
  }
  const withdrawals = block['withdrawals'];
  if (Array.isArray(withdrawals) && withdrawals.length > 0 && !t.withdrawalsBlock) {
    t.withdrawalsBlock = { ...ref, withdrawals: withdrawals.length };
    found('withdrawalsBlock');
  }
  if (era !== 'unknown' && !t.eraBlocks?.[era]) {
    t.eraBlocks = { ...t.eraBlocks, [era]: ref };
    found(`era.${era}`);
  }
}

/**
 * What one receipt (with its transaction) reveals; returns the keys it filled, 'plainFirst' for a plain
 * transfer first in its block and 'allGasFailure' for a failure first in its block that used all its gas
 * (the fallbacks when nothing better is met).
 */
function collectReceiptClasses(t: Targets, tx: Json, r: Json, first: boolean, found: (key: string) => void): string[] {
  const hash = tx['hash'] as string;
  const hit: string[] = [];
  const set = (key: (typeof RECEIPT_CLASSES)[number]) => {
    if (t[key]) return;
    t[key] = hash;
    found(key);
    hit.push(key);
  };
  const type = typeof tx['type'] === 'string' ? tx['type'] : '0x0';
  const replayable = REPLAYABLE_TYPES.includes(type);
  const gasUsed = q(r['gasUsed'] as string);
  const gas = q(tx['gas'] as string);
  if (typeof r['root'] === 'string') set('preByzantiumTx');
  if (Array.isArray(r['logs']) && r['logs'].length > 0) set('txWithLogs');
  if (r['status'] === '0x0') {
    set('failedTx');
    if (first && replayable && gasUsed !== undefined && gas !== undefined) {
      if (gasUsed < gas) set('revertedTx');
      else hit.push('allGasFailure');
    }
  }
  if (r['status'] === '0x1') {
    set('successTx');
    if (tx['to'] === null && typeof r['contractAddress'] === 'string') set('deployment');
    const code = gasUsed !== undefined && (tx['to'] === null || ranCode(tx, gasUsed));
    if (replayable && code && tx['to'] !== null) set('callToCode');
    if (first && replayable) {
      if (code) set('firstInBlockTx');
      else hit.push('plainFirst');
    }
  }
  return hit;
}

/** A block read ahead, and its receipts when they were wanted as it came in. */
interface AheadRead {
  raw: unknown;
  receipts?: Promise<Json[]>;
}

/**
 * The walk's reads ahead: `start` reads a block (full or not) and, when it comes in full with transactions while
 * receipts are still wanted, its receipts; `take` hands a block to the walk as it would have read it itself (a block
 * read full for a walk that no longer needs its transactions is given their hashes).
 */
function readAhead(client: RpcClient, state: ReceiptsState, within: () => boolean) {
  const reads = new Map<bigint, { full: boolean; read: Promise<AheadRead> }>();
  const blockOf = (n: bigint, full: boolean) => client.call<unknown>('eth_getBlockByNumber', [toQuantity(n), full]).catch(() => null);
  return {
    has: (n: bigint) => reads.has(n),
    start(n: bigint, full: boolean, wantReceipts: boolean): void {
      if (reads.has(n)) return;
      const read = blockOf(n, full).then((raw): AheadRead => {
        const txs = isObject(raw) && Array.isArray(raw['transactions']) ? raw['transactions'] : [];
        // Receipts ahead only once eth_getBlockReceipts answered one: read one by one, they are the budget's, in the walk's order.
        if (!full || !wantReceipts || !state.served || !state.perBlock || !isObject(raw) || txs.length === 0 || typeof raw['number'] !== 'string' || typeof raw['hash'] !== 'string') return { raw };
        const receipts = blockReceipts(client, raw as RawBlock, state, within);
        // Awaited when the walk comes to it; an error it throws is thrown there, never unhandled here.
        receipts.catch(() => undefined);
        return { raw, receipts };
      });
      reads.set(n, { full, read });
    },
    async take(n: bigint, full: boolean): Promise<AheadRead> {
      const got = reads.get(n);
      reads.delete(n);
      // Not read yet, or read without transactions the walk needs: read now, as the walk would have.
      if (!got || (full && !got.full)) return { raw: await blockOf(n, full) };
      const read = await got.read;
      if (full || !got.full || !isObject(read.raw) || !Array.isArray(read.raw['transactions'])) return full ? read : { raw: read.raw };
      return { raw: { ...read.raw, transactions: read.raw['transactions'].map((tx) => (isObject(tx) ? tx['hash'] : tx)) } };
    },
  };
}

/**
 * A block's receipts: eth_getBlockReceipts, or one by one (the first few) where that method is not served.
 * Whatever the endpoint gets wrong here, the checks judge; discovery only reads what it can.
 */
/** How the walk reads receipts: by block until eth_getBlockReceipts errs (perBlock), and whether it has answered one (served). */
interface ReceiptsState {
  perBlock: boolean;
  served: boolean;
}

async function blockReceipts(client: RpcClient, block: RawBlock, state: ReceiptsState, within: () => boolean): Promise<Json[]> {
  if (state.perBlock) {
    try {
      const all = await client.call<unknown>('eth_getBlockReceipts', [block.number]);
      if (Array.isArray(all)) {
        state.served = true;
        return all.filter(isObject);
      }
    } catch (err) {
      // Not served (or not for this parameter): the rest of the walk reads receipts one by one.
      if (err instanceof RpcError) state.perBlock = false;
    }
  }
  const out: Json[] = [];
  for (const tx of block.transactions.slice(0, RECEIPTS_ONE_BY_ONE)) {
    if (!within()) break;
    const hash = isObject(tx) ? tx['hash'] : tx;
    const r = await client.call<unknown>('eth_getTransactionReceipt', [hash]).catch(() => null);
    if (isObject(r)) out.push(r);
  }
  return out;
}

function needsReceipts(t: Targets): boolean {
  return RECEIPT_CLASSES.some((k) => !t[k]);
}

/** Full transaction objects are needed while a type or a creation is missing, or a receipt class (judged with its transaction). */
function needsTransactions(t: Targets): boolean {
  return !KNOWN_TYPES.every((k) => t.txByType[k]) || !t.contractCreation || needsReceipts(t);
}

function allFound(t: Targets): boolean {
  return !needsTransactions(t) && Boolean(t.multiTxBlock && t.emptyBlock && t.uncleBlock && t.withdrawalsBlock);
}

/**
 * The blocks the block-level invariants judge, at most JUDGED_BLOCKS: the busiest block, one per era
 * (its busiest), the blocks holding a target, genesis if walked, then blocks spread evenly over the rest.
 */
function pickJudged(t: Targets, walked: Walked[], blockOfTx: Map<string, string>): JudgedBlock[] {
  const byHash = new Map(walked.map((w) => [w.hash, w]));
  const picked = new Map<string, JudgedBlock>();
  const add = (hash: string | undefined, why: string) => {
    const w = hash ? byHash.get(hash) : undefined;
    if (!w) return;
    const known = picked.get(w.hash);
    if (known) {
      if (!known.why.includes(why)) known.why.push(why);
      return;
    }
    if (picked.size < JUDGED_BLOCKS) picked.set(w.hash, { number: w.number, hash: w.hash, era: w.era, txCount: w.txCount, why: [why] });
  };
  add(t.multiTxBlock?.hash, 'most transactions');
  const eras = [...new Set(walked.map((w) => w.era))];
  for (const era of eras) {
    const busiest = walked.filter((w) => w.era === era).reduce((a, b) => (b.txCount > a.txCount ? b : a));
    add(busiest.hash, `${era} era`);
  }
  add(t.uncleBlock?.hash, 'uncles');
  add(t.withdrawalsBlock?.hash, 'withdrawals');
  add(t.emptyBlock?.hash, 'empty');
  for (const [type, hash] of Object.entries(t.txByType).sort()) add(blockOfTx.get(hash), `type ${type}`);
  for (const key of ['contractCreation', 'deployment', 'txWithLogs', 'failedTx', 'callToCode', 'firstInBlockTx', 'revertedTx', 'preByzantiumTx'] as const) {
    const hash = t[key];
    if (hash) add(blockOfTx.get(hash), key);
  }
  add(walked.find((w) => w.number === '0x0')?.hash, 'genesis');
  const rest = walked.filter((w) => !picked.has(w.hash));
  const room = JUDGED_BLOCKS - picked.size;
  if (room > 0 && rest.length > 0) {
    const step = Math.max(1, rest.length / room);
    for (let i = 0; i < rest.length && picked.size < JUDGED_BLOCKS; i += step) add(rest[Math.floor(i)]!.hash, 'spread');
  }
  // Newest first; a number that is not hex (an endpoint's garbage) sorts last rather than crash the run.
  return [...picked.values()].sort((a, b) => Number((q(b.number) ?? -1n) - (q(a.number) ?? -1n)));
}

/**
 * The coverage matrix: per class, found (and from where), found only in a malformed block, or missing,
 * with why: the walk covered its range ("not on this chain within N blocks"), ran out of budget before it
 * did, or was stopped (deadline, Ctrl-C) before it did.
 */
export function coverageOf(t: Targets): Record<string, CoverageEntry> {
  const out: Record<string, CoverageEntry> = {};
  const within = t.scanned.blocks;
  const missing = (): CoverageEntry =>
    t.scanned.stoppedBy === 'budget' ? { status: 'out-of-budget', within } : t.scanned.stoppedBy === 'interrupted' ? { status: 'not-looked-for', within } : { status: 'absent', within };
  const bad = new Map((t.malformedBlocks ?? []).flatMap((b) => b.classes.map((key) => [key, b] as const)));
  const foundEntry = (key: string): CoverageEntry => {
    const source = t.sources[key] ? { source: t.sources[key] } : {};
    const block = bad.get(key);
    if (!block) return { status: 'found', ...source };
    return { status: 'malformed', ...source, note: `taken from block ${block.number}, which fails the block shape (eth_getBlockByHash/walked-shape)` };
  };
  const value = (key: string): unknown => (key.startsWith('txByType.') ? t.txByType[key.slice('txByType.'.length)] : (t as unknown as Record<string, unknown>)[key]);
  for (const [key] of COVERAGE_CLASSES) {
    const v = value(key);
    out[key] = v ? foundEntry(key) : missing();
  }
  for (const type of Object.keys(t.txByType).filter((k) => !KNOWN_TYPES.includes(k)).sort()) {
    const entry = foundEntry(`txByType.${type}`);
    const unknown = 'a type this harness does not know (an L2 type?): its envelope is not recomputed';
    out[`txByType.${type}`] = { ...entry, note: entry.note ? `${entry.note}; ${unknown}` : unknown };
  }
  for (const era of Object.keys(t.eraBlocks ?? {})) out[`era.${era}`] = foundEntry(`era.${era}`);
  return out;
}

/** Adds fixture targets (pre-merge uncles, pre-Byzantium receipts, seeded reverts) that discovery cannot reach. */
export function mergeFixtures(t: Targets, fixture: Partial<Targets>, source: 'fixture' | 'seed'): Targets {
  const merged: Targets = { ...t, txByType: { ...t.txByType }, reverts: [...t.reverts, ...(fixture.reverts ?? [])], sources: { ...t.sources } };
  for (const [key, value] of Object.entries(fixture) as Array<[keyof Targets, unknown]>) {
    if (key === 'reverts' || key === 'sources' || key === 'chainId' || value === undefined) continue;
    if (key === 'txByType') {
      for (const [type, hash] of Object.entries(value as Record<string, string>)) {
        if (!merged.txByType[type]) {
          merged.txByType[type] = hash;
          merged.sources[`txByType.${type}`] = source;
        }
      }
      continue;
    }
    if (merged[key] === undefined) {
      (merged as unknown as Record<string, unknown>)[key] = value;
      merged.sources[key] = source;
    }
  }
  // A fixture's block with uncles is judged too (its header, size and roots), if there is room.
  const uncle = merged.uncleBlock;
  if (uncle && merged.sources['uncleBlock'] === source && merged.judgedBlocks && !merged.judgedBlocks.some((b) => b.hash === uncle.hash)) {
    merged.judgedBlocks = [...merged.judgedBlocks.slice(0, JUDGED_BLOCKS - 1), { number: uncle.number, hash: uncle.hash, era: 'pre-merge', why: [`uncles (${source})`] }];
  }
  return merged;
}

/** A lockfile written by an earlier run, reused with --targets. */
export async function loadTargets(path: string): Promise<Targets> {
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => Promise.reject(new Error(`${path}: cannot read it (${e.code ?? e.message})`)));
  let parsed: Targets;
  try {
    parsed = JSON.parse(text) as Targets;
  } catch (e) {
    throw new Error(`${path}: not JSON, so not a targets lockfile (${(e as Error).message.replace(/\s+/g, " ")})`);
  }
  if (!parsed || typeof parsed.chainId !== 'string' || !isObject(parsed.txByType)) throw new Error(`${path} is not a targets lockfile`);
  return { ...parsed, reverts: parsed.reverts ?? [], sources: Object.fromEntries(Object.keys(parsed.sources ?? {}).map((k) => [k, 'lockfile'])) };
}

/**
 * The blocks a lockfile's walk met (head, judged, busiest, empty, per era, within the range it walked) that this
 * endpoint's chain does not hold: eth_getBlockByNumber at their number gives no block (a shorter chain) or a block of
 * another hash. Another chain with the same chain id (a devnet restarted, a testnet reset, another client), or
 * history reorganised since. Asked by number, not through eth_getBlockByHash (a method under test: its wrong
 * answers are for its checks to fail); an answer that is not a block (an error, no answer) says nothing either way.
 */
export async function lockBlocksMissing(client: RpcClient, t: Targets): Promise<BlockRef[]> {
  const walked = (ref: BlockRef | undefined): ref is BlockRef => {
    if (!ref || typeof ref.hash !== 'string' || typeof ref.number !== 'string') return false;
    try {
      return BigInt(ref.number) >= BigInt(t.scanned.from) && BigInt(ref.number) <= BigInt(t.scanned.to);
    } catch {
      return false;
    }
  };
  const refs = [t.head, t.multiTxBlock, t.emptyBlock, t.withdrawalsBlock, ...(t.judgedBlocks ?? []), ...Object.values(t.eraBlocks ?? {})].filter(walked);
  const unique = [...new Map(refs.map((r) => [r.hash, { number: r.number, hash: r.hash }])).values()];
  const answers = await Promise.all(
    unique.map(async (ref) => {
      const block = await client.call<unknown>('eth_getBlockByNumber', [ref.number, false]).catch(() => undefined);
      const other = isObject(block) && typeof block['hash'] === 'string' && /^0x[0-9a-f]{64}$/i.test(block['hash']) && block['hash'].toLowerCase() !== ref.hash.toLowerCase();
      return { ref, here: block !== null && !other };
    }),
  );
  return answers.filter((a) => !a.here).map((a) => a.ref);
}
