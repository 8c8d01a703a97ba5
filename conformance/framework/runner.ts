// Runs the suites it is given (conformance/methods.ts has the harness's; the caller passes them, so the
// framework imports no method file): preflight, discovery, then the method suites as Mocha suites (one Mocha
// test per check), collecting a CheckResult per check. Mocha suites are built fresh per run, so one process can
// run the suite many times (the self-tests do, once per injected fault).
import { setMaxListeners } from 'node:events';
import Mocha from 'mocha';
import { redactCapped, redactUrl, redactValues } from '../../core/redact.ts';
import { isObject, toQuantity } from '../../core/hex.ts';
import type { BlockRef, Targets } from '../../core/targets.ts';
import { type CheckBody, CheckContext, CheckOutcome, stable, type CheckResult, type CheckSpec, type MethodSuite, type RunState } from './check.ts';
import { schedule } from './schedule.ts';
import { coverageOf, discoverTargets, loadTargets, lockBlocksMissing, mergeFixtures } from './discovery.ts';
import { expectationFor, type Expectations } from './expectations.ts';
import { fixtureTargets } from './fixtures.ts';
import { ForkLog } from './fork-log.ts';
import type { HistoryDepth } from '../../core/history.ts';
import { namePruned } from './pruned.ts';
import { HeadLog } from './head-log.ts';
import type { Peers } from './quorum.ts';
import { EnvelopeLog } from './envelope-log.ts';
import { RpcClient, TransportError, RpcError, resultOf } from '../../core/node/rpc-client.ts';
import { RECEIPTS_BUDGET } from './receipt-checks.ts';
import { renderClause } from './clause.ts';
import { otherGenesis } from '../../core/node/same-chain.ts';
import { openReference, type ReferenceMeta, ReferenceRefused, type ReferenceState } from './reference.ts';
import { DEFAULT_MAX_HEAD_LAG_BLOCKS, DEFAULT_MAX_HEAD_LAG_S } from '../../core/head-lag.ts';
import { METHODS } from '../../core/methods.ts';
import { nearHeadWindowOf } from '../../core/networks.ts';
import { type NearHeadWindow, windowMargin } from '../../core/near-head-window.ts';

/** What a run is asked: built once (cli/conformance.ts parses the command line into it; tests write it). */
export interface RunSettings {
  url: string;
  /** Only these of the suites (by method); all of them when absent. */
  methods?: string[];
  targetsFile?: string;
  /** Targets to add to what discovery finds (per-network fixtures, the embedded default's seed). */
  fixtures?: Array<{ targets: Partial<Targets>; source: 'fixture' | 'seed' }>;
  timeoutMs?: number;
  concurrency?: number;
  /** PEM of a CA to trust. */
  ca?: string;
  /** --rate-limit: the key's budget, requests a second; the run's client sends no faster. */
  rateLimit?: number;
  discoveryDepth?: number;
  /** --network: the endpoint must serve this network's chain, or it is not the endpoint meant. */
  network?: { name: string; chainId: string };
  /** Requests discovery may spend walking (default DEFAULT_DISCOVERY_BUDGET). */
  discoveryBudget?: number;
  /** Receipts the whole-block receipt checks may fetch one by one (default RECEIPTS_BUDGET). */
  receiptsBudget?: number;
  /** Known deviations (--expect): noted on the checks they name. */
  expect?: Expectations;
  /** The run deadline: what is unfinished when it passes becomes inconclusive, and the run still reports. */
  deadlineMs?: number;
  /** --reference-url: a trusted node on the same chain the reference/* checks compare the endpoint with. */
  referenceUrl?: string;
  /** --max-head-lag, in seconds (default DEFAULT_MAX_HEAD_LAG_S): how far the endpoint's head may trail the reference's. */
  maxHeadLagS?: number;
  /** --max-head-lag-blocks (core/head-lag.ts: only on a chain of 1 s blocks or slower). */
  maxHeadLagBlocks?: number;
  /** --near-head-window N (§8): wins over the network's own (fixtures/networks.json). */
  nearHeadWindow?: number;
  /** --archive: the endpoint is sold as archive: every kind of history kept from genesis (the history/* checks judge it). */
  archive?: boolean;
  /** The endpoint's name in the report instead of its redacted URL: the embedded default, gone when the run ends. */
  endpointName?: string;
}

export interface RunOptions extends RunSettings {
  /** Targets already found (on this endpoint, or another serving the same chain): no discovery, no lock check. */
  targets?: Targets;
  /** Discovery walks back from this height when the head is above it (side by side: the lowest head of the endpoints, so each has every target). */
  discoveryHead?: bigint;
  /** The suites to run (conformance/methods.ts: allSuites), `methods` picking among them. */
  suites: readonly MethodSuite[];
  /** Checks run at once (default --concurrency): 1 runs them one after another, as the benchmark compares. */
  checksAtOnce?: number;
  /** Called as each check ends, in the catalogue's order, for progress output. */
  onResult?: (r: CheckResult) => void;
  /** Called when a reorg took a target away and the checks start again (the terminal says why before their results). */
  onRerun?: (why: string) => void;
  /** Ctrl-C: stops the run at once, also in preflight and discovery; what ran is kept and the result is marked incomplete. */
  signal?: AbortSignal;
  /** The other endpoints of a side-by-side run: the quorum/* checks hold this endpoint's answers against theirs. */
  peers?: Peers;
}

/**
 * What a run records about itself, declared once: the report keeps it whole as its `run` (ReportRun adds what the
 * report knows besides; schemas/files/conformance-report.json is tested against both).
 */
export interface RunMeta {
  /** Redacted. */
  endpoint: string;
  startedAt: string;
  finishedAt: string;
  /** Absent when the run was stopped before the preflight read them. */
  chainId?: string;
  clientVersion?: string;
  headBefore?: BlockRef;
  headAfter?: BlockRef;
  requestCount: number;
  methods: string[];
  complete: boolean;
  incompleteReason?: string;
  /** The --expect file the run was judged with. */
  expectations?: { file: string; client?: string; entries: number };
  /** The run deadline (--deadline) and whether it cut the run short (what was unfinished is inconclusive). */
  deadlineMs?: number;
  deadlineReached?: boolean;
  /** The reference node (--reference-url) and what the comparisons with it found. */
  reference?: ReferenceMeta;
  /** The near-head window (§8) the run judged with: --near-head-window, or the network's; absent when none is declared. */
  nearHeadWindow?: NearHeadWindow;
  /** --rate-limit: the budget the run was paced at, and how long its requests waited for it in all, ms. */
  rateLimit?: { perS: number; pacedMs: number };
  /** The heights the run was shown under more than one hash, and each time a reorg took a target away (the checks ran again). */
  reorgs?: { seen: Array<{ number: string; hashes: string[] }>; reruns?: string[] };
}

export interface RunResult extends RunMeta {
  targets?: Targets;
  checks: CheckResult[];
}

/** A method that left this many calls in a row without any answer is not waited on again (a stalled method cost ~4 min at a 10 s timeout). */
export const NO_ANSWER_LIMIT = 3;

/** The endpoint cannot be certified at all: unreachable, not JSON-RPC, key refused. Exit code 2. */
export class EndpointUnusable extends Error {}

/** The reference node (--reference-url) cannot serve the run: unreachable, not JSON-RPC, another chain. Exit code 2. */
export class ReferenceUnusable extends EndpointUnusable {}

export async function runConformance(opts: RunOptions): Promise<RunResult> {
  const startedAt = new Date().toISOString();
  // The reference checks come with a reference, whatever --methods picks (they compare the methods it picks), and are
  // not on a run without one: neither passed, nor skipped against the judged share, nor listed.
  // So do the quorum checks with other endpoints side by side (opts.peers).
  const companions = [...(opts.referenceUrl ? ['reference'] : []), ...(opts.peers ? ['quorum'] : [])];
  const picked = selectSuites(opts.suites, opts.methods?.length && companions.length ? [...opts.methods, ...companions] : opts.methods);
  const suites = picked.filter((x) => (x.method !== 'reference' || opts.referenceUrl) && (x.method !== 'quorum' || opts.peers));
  // One signal stops everything in flight: Ctrl-C (opts.signal) or the deadline.
  const stop = new AbortController();
  // Every call in flight and every paced wait listens to it: more than Node's default of 10 with checks run at once.
  setMaxListeners(0, stop.signal);
  // Every head the run reads, from the preflight on, is logged: service/head-never-goes-back judges them.
  const heads = new HeadLog();
  const envelopes = new EnvelopeLog();
  const forks = new ForkLog();
  const client = new RpcClient({ url: opts.url, timeoutMs: opts.timeoutMs ?? 10_000, concurrency: opts.concurrency ?? 8, ...(opts.ca ? { ca: opts.ca } : {}), ...(opts.rateLimit ? { ratePerS: opts.rateLimit } : {}), signal: stop.signal, noAnswerLimit: NO_ANSWER_LIMIT, onAnswer: (ex, asked, answered) => {
      heads.observe(ex, asked, answered);
      envelopes.observe(ex);
      forks.observe(ex);
    },
  });
  // Its own client: its answers never enter the endpoint's head log, request count or not-served tally.
  const refClient = opts.referenceUrl ? new RpcClient({ url: opts.referenceUrl, timeoutMs: opts.timeoutMs ?? 10_000, concurrency: opts.concurrency ?? 8, ...(opts.ca ? { ca: opts.ca } : {}), signal: stop.signal, noAnswerLimit: NO_ANSWER_LIMIT }) : undefined;
  // The deadline and the signal from here on: a client that cannot be made (a URL that is none) leaves no timer behind
  // to hold the process until the deadline.
  const deadlineText = opts.deadlineMs === undefined ? '' : formatMs(opts.deadlineMs);
  const deadline = opts.deadlineMs === undefined ? undefined : setTimeout(() => stop.abort(`the run deadline of ${deadlineText}`), opts.deadlineMs);
  const onInterrupt = () => stop.abort(opts.signal?.reason);
  if (opts.signal?.aborted) onInterrupt();
  else opts.signal?.addEventListener('abort', onInterrupt, { once: true });
  let reference: ReferenceState | undefined;
  try {
    let pre: Awaited<ReturnType<typeof preflight>> | undefined;
    let targets: Targets | undefined;
    let window: NearHeadWindow | undefined;
    let discover: ((from: BlockRef) => Promise<Targets>) | undefined;
    try {
      pre = await preflight(client);
      const { chainId, head } = pre;
      if (opts.network && BigInt(opts.network.chainId) !== BigInt(chainId)) {
        throw new EndpointUnusable(`--network ${opts.network.name} is chain ${opts.network.chainId}, but the endpoint serves chain ${chainId}: not the network asked for`);
      }
      if (refClient && opts.referenceUrl) reference = await referenceOf(client, refClient, opts.referenceUrl, chainId, opts);
      window = nearHeadWindowOf(chainId, opts.nearHeadWindow);
      // A declared window keeps the walk (and so every transaction target) inside it, a margin clear of its edge; a
      // network fixture's transaction is old history, archive the window does not serve: left out.
      const depth = Math.min(opts.discoveryDepth ?? 64, window ? Math.max(1, window.blocks - windowMargin(window.blocks)) : Infinity);
      const { preByzantiumTx, ...recentFixtures } = await fixtureTargets(client, chainId);
      const fixtures = window ? recentFixtures : { ...recentFixtures, ...(preByzantiumTx ? { preByzantiumTx } : {}) };
      // The caller's fixtures (the seed's, --reverts) on top of whatever the targets came from, and the coverage of both.
      const withFixtures = (t: Targets): Targets => {
        let found = t;
        for (const f of opts.fixtures ?? []) found = mergeFixtures(found, f.targets, f.source);
        found.coverage = coverageOf(found);
        return found;
      };
      // Targets the caller found are kept whatever happens: none discovered again after a reorg.
      if (!opts.targets) discover = async (from) => withFixtures(mergeFixtures(await discoverTargets(client, { depth, ...(opts.discoveryBudget ? { budget: opts.discoveryBudget } : {}), chainId, head: from, width: checksAtOnce(opts) }), fixtures, 'fixture'));
      targets = opts.targets ?? (opts.targetsFile ? await loadTargets(opts.targetsFile) : await discover!(await discoveryStart(client, head, opts.discoveryHead)));
      if (targets.chainId !== chainId) throw new EndpointUnusable(`targets are for chain ${targets.chainId}, the endpoint serves chain ${chainId}`);
      if (opts.targetsFile) {
        // Same chain id is not the same chain: a lock's blocks not here would fail every check that uses them.
        const missing = await lockBlocksMissing(client, targets);
        if (missing.length > 0) {
          const named = missing.slice(0, 3).map((b) => `#${BigInt(b.number)} ${b.hash}`).join(', ');
          throw new EndpointUnusable(`--targets ${opts.targetsFile}: ${missing.length} block(s) of the lock are not on this endpoint's chain (no block, or another hash, at their number: ${named}${missing.length > 3 ? ', …' : ''}): another chain with chain id ${BigInt(chainId)} (a restarted devnet, a reset testnet, another client), or history reorganised since the lock was written. Run without --targets to discover targets here`);
        }
      }
      if (opts.targetsFile) targets = withFixtures(targets);
    } catch (err) {
      // Stopped during preflight or discovery: whatever failed there failed because the run was stopped.
      if (!stop.signal.aborted) throw err;
    }

    const runChecks = (on: Targets) => runMocha(suites, { client, targets: on, memo: new Map(), receiptsBudget: opts.receiptsBudget ?? RECEIPTS_BUDGET, heads, envelopes, forks, ...(reference ? { reference } : {}), ...(opts.peers ? { peers: opts.peers } : {}), ...(window ? { window } : {}), ...(opts.archive ? { archive: true as const } : {}) }, opts.checksAtOnce ?? checksAtOnce(opts), opts.onResult, stop.signal, opts.expect);
    let checks = targets && !stop.signal.aborted ? await runChecks(targets) : [];
    // A reorg that took a target block away during the run fails checks an honest chain passes (its hash answers null,
    // its transactions name another block): the checks run again on targets below the reach of the reorgs seen.
    const reruns: string[] = [];
    for (let lost = targets && discover && !stop.signal.aborted ? await reorgedTargets(client, targets) : undefined; lost && discover && !stop.signal.aborted; ) {
      const below = lost.head - 2n * (lost.head - lost.lowest + 1n);
      const from = below > 0n ? await client.call<{ number: string; hash: string } | null>('eth_getBlockByNumber', [toQuantity(below), false]).catch(() => null) : null;
      if (!isObject(from) || typeof from.number !== 'string' || typeof from.hash !== 'string' || reruns.length >= REORG_RERUNS) {
        reruns.push(`${lost.why}; the checks were not run again (${reruns.length >= REORG_RERUNS ? `${REORG_RERUNS} runs again already` : 'no block that deep'}): failures on that block may be the reorg's`);
        break;
      }
      reruns.push(`${lost.why}: the checks ran again on targets from block ${BigInt(from.number)} down`);
      opts.onRerun?.(reruns.at(-1)!);
      targets = await discover({ number: from.number, hash: from.hash });
      checks = await runChecks(targets);
      lost = stop.signal.aborted ? undefined : await reorgedTargets(client, targets);
    }
    const interrupted = opts.signal?.aborted === true;
    const deadlineReached = !interrupted && stop.signal.aborted;
    // Every check gets a verdict unless Ctrl-C stopped the run: one that did not run (the deadline) is inconclusive.
    const budget = opts.rateLimit ? ` (the run was paced at ${opts.rateLimit} requests a second by --rate-limit: the key's budget, not the endpoint, held it back)` : '';
    if (!interrupted) checks.push(...unfinished(suites, checks, deadlineReached ? `not run: ${String(stop.signal.reason)} passed${budget}` : 'the check ended without a verdict (a harness fault)'));
    namePruned(checks);
    const reorged = forks.reorged();
    const headAfter = stop.signal.aborted ? undefined : await client.call<{ number: string; hash: string } | null>('eth_getBlockByNumber', ['latest', false]).catch(() => undefined);
    return {
      endpoint: opts.endpointName ?? redactUrl(opts.url),
      startedAt,
      finishedAt: new Date().toISOString(),
      ...(pre ? { chainId: pre.chainId, headBefore: pre.head } : {}),
      // The endpoint's words, kept in the report: redacted, then capped.
      ...(pre?.clientVersion ? { clientVersion: redactCapped(pre.clientVersion, 200) } : {}),
      ...(isObject(headAfter) && typeof headAfter.number === 'string' && typeof headAfter.hash === 'string' ? { headAfter: { number: headAfter.number, hash: headAfter.hash } } : {}),
      ...(targets ? { targets } : {}),
      checks,
      requestCount: client.requestCount,
      methods: suites.map((s) => s.method),
      complete: !interrupted,
      ...(interrupted ? { incompleteReason: `interrupted by ${String(opts.signal?.reason)} ${pre ? (targets ? `after ${checks.length} checks` : 'during discovery') : 'during the preflight'}` } : {}),
      ...(opts.expect ? { expectations: { file: opts.expect.file, ...(opts.expect.client ? { client: opts.expect.client } : {}), entries: opts.expect.fail.length + opts.expect.skip.length } } : {}),
      ...(opts.deadlineMs !== undefined ? { deadlineMs: opts.deadlineMs, deadlineReached } : {}),
      // What the reference and the endpoint answered: redacted like the checks' texts.
      ...(reference ? { reference: redactValues({ ...reference.meta, requestCount: reference.client.requestCount, ...(reference.failed ? { failed: redactCapped(reference.failed, MAX_TEXT) } : {}) }) } : {}),
      ...(window ? { nearHeadWindow: window } : {}),
      ...(opts.rateLimit ? { rateLimit: { perS: opts.rateLimit, pacedMs: Math.round(client.pacedMs) } } : {}),
      ...(reorged.length || reruns.length ? { reorgs: { seen: reorged.map((r) => ({ number: toQuantity(r.number), hashes: r.blocks.map((b) => b.hash) })), ...(reruns.length ? { reruns } : {}) } } : {}),
    };
  } finally {
    clearTimeout(deadline);
    opts.signal?.removeEventListener('abort', onInterrupt);
    client.close();
    refClient?.close();
  }
}

/**
 * Checks run at once: --concurrency, fewer under --rate-limit. A paced client spaces each check's own calls by the
 * checks at once over the rate: a bracket around the head or a nonce read before and after an estimate would span
 * seconds on a chain that moves meanwhile (8 checks at 5 a second: 1.6 s a step). Held to a step of 0.1 s at most.
 */
export function checksAtOnce(opts: Pick<RunSettings, 'concurrency' | 'rateLimit'>): number {
  const width = opts.concurrency ?? 8;
  return opts.rateLimit ? Math.max(1, Math.min(width, Math.floor(opts.rateLimit / 10))) : width;
}

/** Where discovery starts: the head, or the block at `below` when the head is above it (and the endpoint serves it). */
async function discoveryStart(client: RpcClient, head: BlockRef, below: bigint | undefined): Promise<BlockRef> {
  if (below === undefined || BigInt(head.number) <= below) return head;
  const b = await client.call<{ number?: unknown; hash?: unknown } | null>('eth_getBlockByNumber', [toQuantity(below), false]).catch(() => null);
  return isObject(b) && typeof b.number === 'string' && typeof b.hash === 'string' ? { number: b.number, hash: b.hash } : head;
}

/** Times at most the checks run again after a reorg took their targets away. */
const REORG_RERUNS = 2;

/**
 * The target blocks (the head discovery started from, judged, busiest, empty, withdrawals, per era) whose number the endpoint now answers with another block: a reorg
 * took them away during the run. With the lowest such height and the head now, or undefined when every one stands.
 */
async function reorgedTargets(client: RpcClient, t: Targets): Promise<{ lowest: bigint; head: bigint; why: string } | undefined> {
  const refs = new Map<string, BlockRef>();
  for (const r of [t.head, t.multiTxBlock, t.emptyBlock, t.withdrawalsBlock, ...(t.judgedBlocks ?? []), ...Object.values(t.eraBlocks ?? {})]) if (r) refs.set(r.hash, r);
  const now = await Promise.all([...refs.values()].map((ref) => client.call<{ hash?: unknown } | null>('eth_getBlockByNumber', [ref.number, false]).then((b) => ({ ref, b }), () => ({ ref, b: undefined }))));
  const gone = now.flatMap(({ ref, b }) => (isObject(b) && typeof b.hash === 'string' && b.hash !== ref.hash ? [{ ref, now: b.hash }] : []));
  if (!gone.length) return undefined;
  const head = await client.call<string>('eth_blockNumber', []).catch(() => undefined);
  const lowest = gone.map((g) => BigInt(g.ref.number)).reduce((a, b) => (a < b ? a : b));
  const first = gone[0]!;
  return {
    lowest,
    head: typeof head === 'string' && /^0x[0-9a-f]+$/i.test(head) ? BigInt(head) : lowest,
    why: `a reorg took ${gone.length} target block(s) away during the run (block ${BigInt(first.ref.number)} was ${first.ref.hash}, now ${first.now})`,
  };
}

/** The reference opened (its chain id must be the endpoint's), or the run refused naming it (ReferenceUnusable, exit 2). */
async function referenceOf(client: RpcClient, refClient: RpcClient, url: string, chainId: string, opts: RunSettings): Promise<ReferenceState> {
  try {
    const said = await openReference(refClient, chainId);
    const other = await otherGenesis(client, refClient);
    if (other) throw new ReferenceRefused(other);
    const compare = (opts.methods ?? []).filter((m) => (METHODS as readonly string[]).includes(m));
    return {
      client: refClient,
      memo: new Map(),
      compare: compare.length ? compare : METHODS,
      meta: { endpoint: redactUrl(url), chainId: said.chainId, ...(said.clientVersion ? { clientVersion: redactCapped(said.clientVersion, 200) } : {}), maxHeadLagS: opts.maxHeadLagS ?? DEFAULT_MAX_HEAD_LAG_S, maxHeadLagBlocks: opts.maxHeadLagBlocks ?? DEFAULT_MAX_HEAD_LAG_BLOCKS, headLag: {}, agreement: [], requestCount: 0 },
    };
  } catch (err) {
    if (err instanceof ReferenceRefused) throw new ReferenceUnusable(err.message);
    throw err;
  }
}

/** An inconclusive result for each check of the suites that has none. */
function unfinished(suites: readonly MethodSuite[], done: CheckResult[], reason: string): CheckResult[] {
  const have = new Set(done.map((c) => c.id));
  return suites.flatMap((suite) =>
    suite.checks
      .filter(({ spec }) => !have.has(spec.id))
      .map(({ spec }): CheckResult => ({ ...baseOf(suite, spec), verdict: 'inconclusive', reason, durationMs: 0, evidence: [] })),
  );
}

function baseOf(suite: MethodSuite, spec: CheckSpec): Pick<CheckResult, 'id' | 'method' | 'clause' | 'layer' | 'title' | 'covers'> {
  return { id: spec.id, method: suite.method, clause: renderClause(spec.clause), layer: spec.layer, title: spec.title, covers: spec.covers ?? [] };
}

function formatMs(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function selectSuites(all: readonly MethodSuite[], methods?: string[]): readonly MethodSuite[] {
  if (!methods?.length) return all;
  const unknown = methods.filter((m) => !all.some((s) => s.method === m));
  if (unknown.length) throw new EndpointUnusable(`unknown method(s): ${unknown.join(', ')}`);
  return all.filter((s) => methods.includes(s.method));
}

async function preflight(client: RpcClient): Promise<{ chainId: string; clientVersion?: string; head: { number: string; hash: string } }> {
  try {
    // An answer with a wrong, retyped or null id, or with both result and error, is still an answer: one
    // HTTP exchange carries one call, so it is matched by the exchange. The envelope checks fail it.
    const chainId = resultOf<string>(await client.exchange('eth_chainId', []));
    if (typeof chainId !== 'string') throw new EndpointUnusable(`eth_chainId returned ${JSON.stringify(chainId)}, not a hex quantity`);
    // Both at once: a round trip less over a real network.
    const version = client.call<string>('web3_clientVersion', []).catch(() => undefined);
    const head = await client.call<{ number: string; hash: string } | null>('eth_getBlockByNumber', ['latest', false]);
    if (!isObject(head) || typeof head.number !== 'string' || typeof head.hash !== 'string') throw new EndpointUnusable(`eth_getBlockByNumber("latest") returned ${JSON.stringify(head)?.slice(0, 80)}, not a block`);
    const clientVersion = await version;
    return { chainId, head: { number: head.number, hash: head.hash }, ...(typeof clientVersion === 'string' ? { clientVersion } : {}) };
  } catch (err) {
    if (err instanceof EndpointUnusable) throw err;
    if (err instanceof TransportError) throw new EndpointUnusable(describeTransport(err));
    if (err instanceof RpcError) {
      const status = err.exchange.httpStatus;
      const keyHint = status === 401 || status === 403 ? ' (API key refused?)' : '';
      throw new EndpointUnusable(`endpoint answered the preflight with JSON-RPC error ${err.code}: ${err.rpcMessage}${status !== 200 ? ` (HTTP ${status})` : ''}${keyHint}`);
    }
    throw err;
  }
}

function describeTransport(err: TransportError): string {
  const ex = err.exchange;
  switch (ex.fault) {
    case 'unreachable':
      return `endpoint unreachable: ${ex.faultDetail ?? ''}`;
    case 'timeout':
      return `endpoint timed out: ${ex.faultDetail ?? ''}`;
    case 'rate-limited':
      return `endpoint is rate limiting (${ex.faultDetail ?? 'HTTP 429'}${ex.retryAfterS !== undefined ? `, Retry-After ${ex.retryAfterS}s` : ''}); try again later`;
    case 'http-status':
      return `endpoint answered HTTP ${ex.httpStatus}${ex.httpStatus === 401 || ex.httpStatus === 403 ? ' (API key refused?)' : ''}, not JSON-RPC`;
    default:
      return `endpoint does not speak JSON-RPC: ${ex.faultDetail ?? ex.fault ?? 'unknown fault'}`;
  }
}

/**
 * The checks as a Mocha suite, one Mocha test per check, in the catalogue's order; their bodies run concurrently
 * (schedule.ts: `width` at once, a check marked `alone` by itself), and each test reports its check's result in
 * turn, so results, progress and reports keep the catalogue's order whatever finished first.
 */
async function runMocha(suites: readonly MethodSuite[], state: RunState, width: number, onResult?: (r: CheckResult) => void, signal?: AbortSignal, expect?: Expectations): Promise<CheckResult[]> {
  const today = new Date().toISOString().slice(0, 10);
  const catalogue = suites.flatMap((suite) => suite.checks.map(({ spec, body }) => ({ suite, spec, body })));
  const running = schedule(
    catalogue.map(({ suite, spec, body }) => ({ alone: spec.alone === true, run: () => runCheck(suite, spec, body, state, today, expect) })),
    width,
    () => signal?.aborted === true,
  );
  const reported = new Set<number>();
  const results: CheckResult[] = [];
  const report = (i: number, result: CheckResult | undefined) => {
    if (!result || reported.has(i)) return;
    reported.add(i);
    results.push(result);
    onResult?.(result);
  };
  // No Mocha timeout: a check timed out by Mocha would go on in the background and lose its verdict. Request
  // timeouts and the run deadline bound every check instead.
  const mocha = new Mocha({ reporter: class {} as unknown as Mocha.ReporterConstructor, timeout: 0 });
  let i = 0;
  for (const suite of suites) {
    const mochaSuite = Mocha.Suite.create(mocha.suite, suite.method);
    for (const { spec } of suite.checks) {
      const at = i++;
      mochaSuite.addTest(
        new Mocha.Test(`${spec.id} [${renderClause(spec.clause)}] ${spec.title}`, async function (this: Mocha.Context) {
          const result = await running[at];
          report(at, result);
          if (!result || result.verdict === 'skip' || result.verdict === 'inconclusive') this.skip();
          if (result.verdict === 'fail') throw new Error(result.reason);
        }),
      );
    }
  }
  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    signal?.addEventListener('abort', () => runner.abort(), { once: true });
  });
  mocha.dispose();
  // Stopped: the checks that were running still end (their calls are cut short) and keep their verdicts.
  const left = await Promise.allSettled(running);
  left.forEach((settled, at) => report(at, settled.status === 'fulfilled' ? settled.value : undefined));
  return results;
}

/** One check run: its body judged into a result, whatever the body does (throws, violations, nothing judged). */
async function runCheck(suite: MethodSuite, spec: CheckSpec, body: CheckBody, state: RunState, today: string, expect?: Expectations): Promise<CheckResult> {
  const t = new CheckContext(state, suite.method);
  const started = performance.now();
  const base = baseOf(suite, spec);
  let result: CheckResult;
  try {
    await body(t);
    result = judged(base, t.violations.length > 0 ? violated(t.violations) : (judgedNothing(t) ?? { verdict: 'pass' }), t);
  } catch (err) {
    try {
      // A violation found before the check stopped stands, whatever stopped it.
      const last = verdictOf(err);
      const all = last.verdict === 'fail' ? [...t.violations, err instanceof CheckOutcome ? err : new CheckOutcome('fail', last.reason ?? '', last)] : t.violations;
      result = judged(base, all.length > 0 && (last.verdict !== 'fail' || all.length > 1) ? violated(all) : last, t);
    } catch (inner) {
      // Even an answer that defeats the verdict's own rendering (a stack overflow) ends in a verdict.
      result = judged(base, { verdict: 'fail', reason: `the answer could not be judged: ${(inner as Error).message ?? String(inner)}` }, t);
    }
  }
  result.durationMs = Math.round(performance.now() - started);
  const expectation = expect && expectationFor(spec.id, expect, today);
  if (expectation) result.expectation = expectation;
  // Notes can quote the endpoint (the fields it added, the blocks it served): redacted like a verdict's texts.
  if (t.notes.length) result.note = redactCapped(t.notes.join('\n'), MAX_NOTE);
  if (t.partial) result.partial = redactCapped(t.partial, MAX_TEXT);
  if (t.archive) result.archive = { ...t.archive, answer: redactCapped(t.archive.answer, 200) };
  if (t.history) result.history = redactedHistory(t.history);
  const picked = [...new Set(t.blockScope.picked.values())];
  if (picked.length > 0) result.blocks = { picked: picked.length, whole: result.verdict === 'pass' || result.verdict === 'fail' ? picked.filter((h) => !t.blockScope.left.has(h)) : [] };
  return result;
}

/** A history depth with its texts redacted (what the endpoint answered, what declared it): its keys and enum values are the
 * report's own words, which a short key must not cut through. */
function redactedHistory(h: HistoryDepth): HistoryDepth {
  const { prunedAnswer, moving, declared, ...rest } = h;
  return {
    ...rest,
    ...(prunedAnswer === undefined ? {} : { prunedAnswer: redactCapped(prunedAnswer, MAX_TEXT) }),
    ...(moving === undefined ? {} : { moving: redactCapped(moving, MAX_TEXT) }),
    ...(declared ? { declared: { oldestBlock: declared.oldestBlock, from: redactCapped(declared.from, MAX_TEXT) } } : {}),
  };
}

/** The check's result with everything that came from the endpoint redacted and capped. */
function judged(base: ReturnType<typeof baseOf>, v: Pick<CheckResult, 'verdict' | 'reason' | 'violations' | 'pointer' | 'expected' | 'actual' | 'inapplicable'>, t: CheckContext): CheckResult {
  return {
    ...base,
    verdict: v.verdict,
    ...(v.inapplicable ? { inapplicable: v.inapplicable } : {}),
    ...(v.reason !== undefined ? { reason: redactCapped(v.reason, MAX_TEXT) } : {}),
    ...(v.violations !== undefined ? { violations: v.violations.map((m) => redactCapped(m, MAX_TEXT)) } : {}),
    ...(v.pointer !== undefined ? { pointer: redactCapped(v.pointer, 500) } : {}),
    ...(v.expected !== undefined ? { expected: redactCapped(v.expected, MAX_TEXT) } : {}),
    ...(v.actual !== undefined ? { actual: redactCapped(v.actual, MAX_TEXT) } : {}),
    durationMs: 0,
    // Redacted as recorded (check.ts, evidenceOf).
    evidence: t.evidence,
  };
}

/**
 * A check that ended without a violation passes only if it judged something (red team: two agrees-with checks
 * passed on blocks without transactions having sent only eth_getBlockByHash). Inconclusive when a call it made got
 * no answer (the other side of its comparison, or its own method); a skip, "judged nothing", when no call of its own
 * method (the service suite: of any) got an answer, or when every list each() went through was empty.
 */
function judgedNothing(t: CheckContext): Pick<CheckResult, 'verdict' | 'reason'> | undefined {
  const { answered, unanswered, lists, leaves, counted, empty } = t.tally;
  if (unanswered.length > 0) return { verdict: 'inconclusive', reason: `judged without an answer: ${unanswered[0]}${unanswered.length > 1 ? ` (+${unanswered.length - 1} more call(s) unanswered)` : ''}` };
  if (answered === 0) {
    const sent = [...new Set(t.evidence.map((e) => (e.request as { method?: unknown } | null)?.method).filter((m): m is string => typeof m === 'string'))];
    return { verdict: 'skip', reason: `judged nothing: no answered call of ${t.method === 'service' ? 'any method' : t.method}${sent.length ? ` (it asked only ${sent.join(', ')})` : ''}` };
  }
  if (counted !== undefined ? counted === 0 : lists > 0 && leaves === 0) return { verdict: 'skip', reason: `judged nothing: ${empty.join('; ') || 'every list it goes through was empty'}` };
  return undefined;
}

/** Texts of a verdict (reason, expected, actual) are capped: an endpoint may send a 200 KB error message. */
const MAX_TEXT = 2000;
/** A note lists what a check met (blocks, fields): longer than a verdict's texts, still capped. */
const MAX_NOTE = 8000;

/** The verdict of a check that found one or more violations: the first one's detail, every one's message. */
function violated(all: CheckOutcome[]): Pick<CheckResult, 'verdict' | 'reason' | 'violations' | 'pointer' | 'expected' | 'actual'> {
  const first = verdictOf(all[0]);
  if (all.length === 1) return first;
  const rest = all.slice(1, 4).map((v) => v.message);
  const reason = `${first.reason} (+${all.length - 1} more: ${rest.join('; ')}${all.length > 4 ? `; …` : ''})`;
  return { ...first, reason, violations: all.map((v) => v.message) };
}

function verdictOf(err: unknown): Pick<CheckResult, 'verdict' | 'reason' | 'pointer' | 'expected' | 'actual' | 'inapplicable'> {
  if (err instanceof CheckOutcome) {
    return {
      verdict: err.verdict,
      reason: err.message,
      ...(err.premise ? { inapplicable: err.premise } : {}),
      ...(err.detail.pointer !== undefined ? { pointer: err.detail.pointer } : {}),
      ...(err.detail.expected !== undefined ? { expected: show(err.detail.expected) } : {}),
      ...(err.detail.actual !== undefined ? { actual: show(err.detail.actual) } : {}),
    };
  }
  // A chai assertion or a bug in a check: still a verdict with its message, never a crash of the run.
  const e = err as { message?: string; expected?: unknown; actual?: unknown };
  return { verdict: 'fail', reason: `${e.message ?? String(err)}`, ...(e.expected !== undefined ? { expected: show(e.expected) } : {}), ...(e.actual !== undefined ? { actual: show(e.actual) } : {}) };
}

function show(v: unknown): string {
  const s = typeof v === 'string' ? v : stable(v);
  return s === undefined ? String(v) : s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s;
}
