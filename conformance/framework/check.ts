// How a check is declared and what it can do. Each method file under conformance/ builds one
// MethodSuite; the runner turns it into a Mocha suite, one Mocha test per check.
import { factsOf } from '../../core/methods.ts';
import { validateShape, type ShapeName } from '../../core/schemas.ts';
import type { Targets } from '../../core/targets.ts';
import { redactCapped, redactDeep, redactValues } from '../../core/redact.ts';
import { type Exchange, NO_ANSWER, type RpcClient, resultOf, RpcError, TransportError } from '../../core/node/rpc-client.ts';
import type { ExpectationNote } from './expectations.ts';
import { beforeFork } from './era.ts';
import type { Fork } from '../../core/invariants/header.ts';
import type { HeadLog } from './head-log.ts';
import type { ForkLog } from './fork-log.ts';
import type { EnvelopeLog } from './envelope-log.ts';
import type { Tie } from '../../core/fields.ts';
import type { Clause } from './clause.ts';
import type { ReferenceState } from './reference.ts';
import type { Peers } from './quorum.ts';
import { insideWindow, type NearHeadWindow } from '../../core/near-head-window.ts';
import { q } from '../../core/hex.ts';
import type { HistoryDepth } from '../../core/history.ts';
import { notKept } from '../../core/not-kept.ts';

/** `spec` and `invariant` failures fail the run; `advisory` ones only with --strict. */
export type Layer = 'spec' | 'invariant' | 'advisory';
export type Verdict = 'pass' | 'fail' | 'skip' | 'inconclusive';

/**
 * The closed list of premises whose absence leaves a check out of the judged share (CheckResult.inapplicable): what
 * this chain cannot hold, and what this run was not asked to judge. Any other missing target (a transaction at all, a
 * success, a log, a busy block) is a skip counted as not judged, so a chain that shows little is never certified.
 */
export const NOT_HERE = {
  'pre-fork': 'a fork the chain\'s head has not reached',
  'history-era': 'an era the chain never had (uncles before the merge, receipts with root before Byzantium)',
  'type-absent': 'a transaction type of a fork the chain reached, none in the range walked (and none at the reference, given one)',
  'no-recent-creation': 'no successful contract creation in the range walked, or the newest one deeper than the 128 blocks of state a node keeps',
  'no-reference': 'no --reference-url on this run',
  'no-peers': 'one endpoint on this run (quorum/* compares the answers of several, side by side)',
  methods: 'a method --methods leaves out',
  'no-window': 'no near-head window declared for this network',
  archive: 'history older than the declared near-head window, answered pruned: a network that declares the window is read as serving no archive (§8: "archive requests are unavailable"; --archive holds it to all history)',
  'no-key': 'no /v3/<API_KEY> segment in the endpoint URL',
  'no-reorg': 'no reorg seen during the run (a remote endpoint\'s chain cannot be made to reorganise: what it serves after one is judged only when the run sees one)',
  'no-declared-depth': 'nothing declares how deep the endpoint keeps this history (no near-head window for it, no eth_capabilities naming it): the depth served is reported, not judged',
  'no-batch': 'an endpoint that serves no batches (the spec does not ask for them; service/batch, advisory, says how it answered)',
} as const;
export type NotHere = keyof typeof NOT_HERE;

/** What a check exercised, for the coverage matrix: hit, miss, a tag, a tx type. */
export type Coverage = `hit` | `miss` | `tag:${string}` | `type:${string}` | 'revert' | 'robustness';

/** A check's full, stable id: `<method>/<intent>`. */
export type CheckId = `${string}/${string}`;

export interface CheckSpec {
  /** Written out whole where the check is declared (a grep for it lands there); loops and shared builders compose it
   * as a template from `${suite.method}/`. Its prefix must be the suite's method. */
  id: CheckId;
  /** The spec section(s) or facts.md invariant(s) the check enforces; renderClause prints it. */
  clause: Clause;
  layer: Layer;
  title: string;
  covers?: Coverage[];
  /**
   * The fields of the spec's objects (and the block tags) whose VALUE the check ties to something recomputed or
   * cross-checked (a hash, a root, a sum over the chain, another method's answer, the block it names), not only their
   * format. Only what the body really compares: docs/checks.md's field table is written from it (fields.ts).
   */
  ties?: Tie[];
  /**
   * Runs by itself (schedule.ts): after every check before it in the catalogue has ended, before any after it starts.
   * For a check that judges what the run read so far (every answer, every head read) or the head at one moment.
   */
  alone?: true;
}

/** What a check recorded of one exchange, redacted when recorded (evidenceOf). */
export interface Evidence {
  request: unknown;
  httpStatus?: number;
  contentType?: string;
  response?: string;
  durationMs: number;
  fault?: string;
  /** A well-formed call a check needed a result (or null) for: an endpoint serving the method owes it one (not-served.ts). */
  resultDue?: boolean;
  /** An exchange with the reference node (--reference-url), not with the endpoint: nothing of the endpoint's is judged by it. */
  reference?: true;
  /** An exchange with another endpoint of a side-by-side run (quorum checks), by its name: not this endpoint's either. */
  peer?: string;
}

export interface CheckResult {
  id: string;
  method: string;
  /** The clause as renderClause prints it (the report keeps the printed form). */
  clause: string;
  layer: Layer;
  title: string;
  covers: Coverage[];
  verdict: Verdict;
  reason?: string;
  /** Every violation a failed check found, when it found more than one (the reason names the first). An --expect
   * `match` must match each of them: an entry explains the deviation it describes, not whatever else follows it. */
  violations?: string[];
  /** What a check observed beyond its verdict (e.g. the protocol fields an extra-fields check met). */
  note?: string;
  /** What a check judged only in part, and why (a request budget): its verdict covers less than its title says. */
  partial?: string;
  /** A skip because this chain (or run) cannot have what the check judges, by the premise of the closed list NOT_HERE it
   * stands on (an era it has not reached, uncles after the merge): left out of the judged share, listed with its
   * reason. Any other skip counts as not judged. */
  inapplicable?: NotHere;
  /**
   * For a check that judges the blocks discovery picked (judgedRefs): how many it set out to judge and the hashes of
   * those it judged whole (none unless its verdict is pass or fail). The summary's block coverage is computed from these.
   */
  blocks?: { picked: number; whole: string[] };
  pointer?: string;
  expected?: string;
  actual?: string;
  durationMs: number;
  evidence: Evidence[];
  /** Set when an --expect file names this check. */
  expectation?: ExpectationNote;
  /** A lookup older than the declared near-head window (§8), made once and listed, never judged. */
  archive?: ArchiveLookup;
  /** How deep the endpoint serves one kind of history (conformance/history.ts), whatever the verdict. */
  history?: HistoryDepth;
}

/** One lookup of a transaction older than the declared near-head window, and what the endpoint answered. */
export interface ArchiveLookup {
  hash: string;
  block: string;
  /** Blocks below the head when it was asked (the window holds depths 0 .. N-1). */
  depth: number;
  /** "null", "error <code>: <message>", or "served" (the endpoint keeps more than it must). */
  answer: string;
}

export type CheckBody = (t: CheckContext) => Promise<void>;

export class MethodSuite {
  /** Each check with the repository path of the file that declares it (the catalogue's file column). */
  readonly checks: Array<{ spec: CheckSpec; body: CheckBody; file: string }> = [];
  /** `file`: this suite's own source, as a path from the repository root (a literal: the CLI runs bundled). */
  constructor(readonly method: string, readonly file: string) {}

  /** `file`: where the check is declared, when that is a shared builder and not the suite's own file. */
  check(spec: CheckSpec, body: CheckBody, file = this.file): this {
    if (!spec.id.startsWith(`${this.method}/`)) throw new Error(`check ${spec.id} is declared in the suite of ${this.method}: its id must start with "${this.method}/"`);
    this.checks.push({ spec, body, file });
    return this;
  }
}

/** Every check id of these suites: what an --expect file may name. */
export function checkIds(suites: readonly MethodSuite[]): Set<string> {
  return new Set(suites.flatMap((s) => s.checks.map((c) => c.spec.id)));
}

/** A check's verdict other than pass, thrown from inside its body. */
export class CheckOutcome extends Error {
  constructor(
    readonly verdict: Exclude<Verdict, 'pass'>,
    message: string,
    readonly detail: { pointer?: string; expected?: unknown; actual?: unknown } = {},
    /** A skip whose premise this chain cannot meet (CheckResult.inapplicable), by the closed list. */
    readonly premise?: NotHere,
  ) {
    super(message);
  }
}

export interface RunState {
  client: RpcClient;
  targets: Targets;
  /** Exchanges shared between checks of one run (same method and params), to keep request counts low. */
  memo: Map<string, Promise<Exchange>>;
  /** Receipts the whole-block checks of eth_getTransactionReceipt may fetch one by one (RECEIPTS_BUDGET). */
  receiptsBudget: number;
  /** Every read of the head the run made so far (HeadLog), for the check that the head never goes back. */
  heads: HeadLog;
  /** The trusted node of --reference-url, when one was given (the reference/* checks compare with it). */
  reference?: ReferenceState;
  /** The other endpoints of a side-by-side run (the quorum/* checks hold this one's answers against theirs). */
  peers?: Peers;
  /** The near-head window declared for the endpoint's network (§8), if any. */
  window?: NearHeadWindow;
  /** --archive: every kind of history declared kept from genesis. */
  archive?: true;
  /** The envelope of every answer of the run (every-answer.ts). */
  envelopes: EnvelopeLog;
  /** Every block the run was shown (ForkLog), for the check of what is served after a reorg. */
  forks: ForkLog;
}

const EXCERPT = 4000;
/** Suites that judge the endpoint as a whole: an answer to any call is their own. */
const WHOLE_ENDPOINT = new Set(['service', 'reference', 'history', 'quorum']);

/** What a check body gets: the targets, calls that record evidence, and verdict helpers. */
export class CheckContext {
  readonly evidence: Evidence[] = [];
  readonly notes: string[] = [];
  /** Set by partly(): what the check left unjudged (CheckResult.partial). */
  partial: string | undefined;
  /** Set by the near-head window check (CheckResult.archive). */
  archive: ArchiveLookup | undefined;
  /** Set by the history checks (CheckResult.history). */
  history: HistoryDepth | undefined;
  /** Why the last null or error from a windowed method may be the window's doing (outOfWindow), else undefined. */
  private windowDoubt: string | undefined;
  /** Failures recorded by each() while the check went on judging the other items. */
  readonly violations: CheckOutcome[] = [];
  /**
   * What the check judged, for the runner's rule that a check which compared nothing never passes (judgedNothing):
   * its own method's calls that were answered, the calls of any method that were not, and the items each() judged.
   */
  readonly tally: { answered: number; unanswered: string[]; lists: number; leaves: number; counted?: number; empty: string[] } = { answered: 0, unanswered: [], lists: 0, leaves: 0, empty: [] };
  /** The each() items being judged, innermost last: an item whose judge opens another each() is not a leaf. */
  private readonly items: Array<{ nested: boolean }> = [];
  /** The judged blocks the check set out to judge (judgedRefs: name -> hash) and those it left out. */
  readonly blockScope = { picked: new Map<string, string>(), left: new Set<string>() };
  constructor(
    private readonly state: RunState,
    readonly method: string,
  ) {}

  get targets(): Targets {
    return this.state.targets;
  }

  get client(): RpcClient {
    return this.state.client;
  }

  get heads(): HeadLog {
    return this.state.heads;
  }

  get receiptsBudget(): number {
    return this.state.receiptsBudget;
  }

  get envelopes(): EnvelopeLog {
    return this.state.envelopes;
  }

  get forks(): ForkLog {
    return this.state.forks;
  }

  get window(): NearHeadWindow | undefined {
    return this.state.window;
  }

  /** Whether the run declares the endpoint archive (--archive). */
  get soldAsArchive(): boolean {
    return this.state.archive === true;
  }

  /**
   * A raw exchange, recorded as evidence. `fresh` skips the run-wide memo (for head-dependent calls); `due` marks a
   * well-formed call that is owed a result; `apart` (fresh only) sends it over a new connection of its own.
   */
  async exchange(method: string, params: unknown[], opts: { fresh?: boolean; due?: boolean; apart?: boolean } = {}): Promise<Exchange> {
    const pending = opts.fresh ? this.state.client.exchange(method, params, { apart: opts.apart === true }) : this.shared(method, params);
    const ex = await pending;
    this.record(ex, opts.due);
    return ex;
  }

  /** The run's one exchange of this call (the memo), sent now if no check sent it yet. */
  private shared(method: string, params: unknown[]): Promise<Exchange> {
    const key = JSON.stringify([method, params]);
    let pending = this.state.memo.get(key);
    if (!pending) this.state.memo.set(key, (pending = this.state.client.exchange(method, params)));
    return pending;
  }

  /**
   * Sends at once calls the check will then make one after another (not fresh): over a real network they cost one
   * round trip, not one each. Nothing is recorded or judged here: each is, as before, when the check asks for it.
   */
  warm(calls: ReadonlyArray<readonly [method: string, params: unknown[]]>): void {
    for (const [method, params] of calls) void this.shared(method, params);
  }

  /** Records an exchange as evidence; one the endpoint could not be tested by ends the check inconclusive. */
  record(ex: Exchange, due = false): void {
    this.evidence.push({ ...evidenceOf(ex), ...(due ? { resultDue: true } : {}) });
    const method = (ex.request as { method?: unknown } | null)?.method;
    if (ex.fault !== undefined && NO_ANSWER.includes(ex.fault)) this.tally.unanswered.push(`${typeof method === 'string' ? method : 'a request'} (${ex.fault}${ex.faultDetail ? `: ${ex.faultDetail}` : ''})`);
    else if (method === this.method || WHOLE_ENDPOINT.has(this.method)) this.tally.answered++;
    // A rate limit (429, after the polite retries) or a stopped run says nothing of the endpoint's conformance,
    // whatever the check wanted of this exchange: the check could not be tested (red team B2).
    if (ex.fault === 'rate-limited' || ex.fault === 'interrupted') this.inconclusive(`endpoint could not be tested: ${ex.fault}: ${ex.faultDetail ?? ''}`.trim());
  }

  /** The reference node of --reference-url, if the run has one. */
  get referenceIfAny(): ReferenceState | undefined {
    return this.state.reference;
  }

  /** The reference node of --reference-url; a check that needs one is not on a run without it (left out of the judged share). */
  get reference(): ReferenceState {
    const ref = this.state.reference;
    if (!ref) this.notOnThisChain('no-reference', 'not on this run: no --reference-url was given (these checks compare the endpoint with a trusted node on the same chain)');
    return ref;
  }

  /** The other endpoints of a side-by-side run; a check that needs them is not on a run of one endpoint (left out of the judged share). */
  get peers(): Peers {
    const peers = this.state.peers;
    if (!peers) this.notOnThisChain('no-peers', 'not on this run: one endpoint only (these checks hold its answers against other endpoints\' in a side-by-side run)');
    return peers;
  }

  /** The same call made to every other endpoint, each exchange recorded as evidence marked with the peer's name. */
  async peerExchanges(method: string, params: unknown[]): Promise<Array<{ name: string; exchange: Exchange }>> {
    const answers = await this.peers.ask(method, params);
    for (const a of answers) this.evidence.push({ ...evidenceOf(a.exchange), peer: a.name });
    if (answers.some((a) => a.exchange.fault === 'interrupted')) this.inconclusive('endpoint could not be tested: interrupted');
    return answers;
  }

  /**
   * The same call made to the reference node, recorded as evidence marked `reference` (never counted as the endpoint's).
   * A reference that gives no usable answer (unreachable, a timeout, not JSON) is named as failed for the rest of the run,
   * and the check is inconclusive: a reference that fails says nothing of the endpoint.
   */
  async refExchange(method: string, params: unknown[], opts: { fresh?: boolean } = {}): Promise<Exchange> {
    const ref = this.reference;
    if (ref.failed) this.inconclusive(`the reference failed during the run (${ref.failed}): nothing can be compared with it`);
    const key = JSON.stringify([method, params]);
    let pending = opts.fresh ? undefined : ref.memo.get(key);
    if (!pending) {
      pending = ref.client.exchange(method, params);
      if (!opts.fresh) ref.memo.set(key, pending);
    }
    const ex = await pending;
    this.evidence.push({ ...evidenceOf(ex), reference: true });
    if (ex.fault === 'interrupted') this.inconclusive(`endpoint could not be tested: ${ex.fault}: ${ex.faultDetail ?? ''}`.trim());
    if (ex.fault) {
      ref.failed ??= `${method}: ${ex.fault}${ex.faultDetail ? `: ${ex.faultDetail}` : ''}`;
      this.inconclusive(`the reference gave no usable answer to ${method} (${ex.fault}${ex.faultDetail ? `: ${ex.faultDetail}` : ''}): nothing can be compared with it`);
    }
    return ex;
  }

  /**
   * The result of a call that must succeed. A transport fault makes the check inconclusive (the
   * endpoint could not be tested); a JSON-RPC error where a result was due is a failure.
   */
  async result<T = unknown>(method: string, params: unknown[], opts: { fresh?: boolean; apart?: boolean } = {}): Promise<T> {
    const ex = await this.exchange(method, params, { ...opts, due: true });
    this.windowDoubt = undefined;
    try {
      const value = resultOf<T>(ex);
      if (value === null) await this.outOfWindow(method);
      return value;
    } catch (err) {
      if (err instanceof RpcError) {
        await this.archiveAsked(method, params, err);
        await this.outOfWindow(method);
        if (this.windowDoubt) this.inconclusive(`${method} answered JSON-RPC error ${err.code}: ${err.rpcMessage}, and ${this.windowDoubt}`);
        // Another method this check leans on (eth_getBlockReceipts, say, which hardhat and ganache lack) is
        // judged by its own checks: its error leaves this one unjudged, never failed.
        if (method !== this.method) this.inconclusive(`leans on ${method}, which did not serve the call (JSON-RPC error ${err.code}: ${err.rpcMessage}): ${this.method} cannot be judged by this check here`);
        this.fail(`expected a result, got JSON-RPC error ${err.code}: ${err.rpcMessage}`, { pointer: '/error' });
      }
      // Nor does an answer from it that is not usable at all (too deep, not JSON, an HTTP error): its own checks judge that.
      if (method !== this.method) this.unusable(method, err as TransportError);
      throw this.untestable(err as TransportError);
    }
  }

  /**
   * The result of another method this check leans on but does not judge: an answer from it that is unusable
   * for any reason (an error, an unusable body, null where the object is known to exist, a value failing
   * that method's shape) makes the check inconclusive, naming that method.
   */
  async leaned<T>(method: string, params: unknown[], what: string, opts: { fresh?: boolean } = {}): Promise<T> {
    return this.usable(method, await this.result<T | null>(method, params, opts), what);
  }

  private usable<T>(method: string, value: T | null, what: string): T {
    if (value === null) this.inconclusive(`leans on ${method}, which returned null for ${what}: ${this.method} cannot be judged by this check here${this.windowDoubt ? `; ${this.windowDoubt}` : ''}`);
    // The shape its answer must have to be used (core/methods.ts, schemas/); none for a method outside the eight.
    const shape = factsOf(method)?.result;
    const fault = shape && validateShape(shape, value)[0];
    if (fault) this.inconclusive(`leans on ${method}, whose answer for ${what} fails its ${shape} shape (${fault.pointer} ${fault.message}): ${this.method} cannot be judged by this check here`);
    return value;
  }

  /** Like leaned(), but undefined when the method does not serve the call, for a check with an equivalent path. */
  async ifServed<T>(method: string, params: unknown[], what: string): Promise<T | undefined> {
    const ex = await this.exchange(method, params, { due: true });
    let value: T | null;
    try {
      value = resultOf<T | null>(ex);
    } catch (err) {
      if (err instanceof RpcError) return undefined;
      this.unusable(method, err as TransportError);
    }
    return this.usable(method, value, what);
  }

  /** Another method's answer that is not usable at all (too deep, not JSON, an HTTP error): its own checks judge that. */
  private unusable(method: string, err: TransportError): never {
    return this.inconclusive(`leans on ${method}, whose answer is unusable (${err.message}): ${this.method} cannot be judged by this check here`);
  }

  /** The error object of a call that must fail with a JSON-RPC error. */
  async rpcError(method: string, params: unknown[]): Promise<RpcError> {
    const ex = await this.exchange(method, params);
    try {
      const result = resultOf(ex);
      this.fail('expected a JSON-RPC error, got a result', { pointer: '/result', actual: result });
    } catch (err) {
      if (err instanceof RpcError) return err;
      if (err instanceof CheckOutcome) throw err;
      throw this.untestable(err as TransportError);
    }
  }

  untestable(err: TransportError): CheckOutcome {
    const ex = err.exchange;
    // Not JSON, nested past any sense, or an HTTP error status from a reachable endpoint is the endpoint's
    // fault; rate limits, timeouts, refused connections and a stopped run mean it could not be tested.
    if (ex.fault === 'non-json' || ex.fault === 'http-status' || ex.fault === 'too-large' || ex.fault === 'too-deep') {
      return new CheckOutcome('fail', `${ex.fault}: ${ex.faultDetail ?? ''}`.trim(), { pointer: '' });
    }
    return new CheckOutcome('inconclusive', `endpoint could not be tested: ${err.message}`);
  }

  /** Fails when the value does not match the named schema, pointing at the first fault; `where` names the value in the message. */
  expectShape(name: ShapeName, value: unknown, at = '/result', where?: string): void {
    const faults = validateShape(name, value);
    if (faults.length === 0) return;
    const first = faults[0]!;
    const more = faults.length > 1 ? ` (+${faults.length - 1} more: ${faults.slice(1, 4).map((f) => `${f.pointer} ${f.message}`).join('; ')})` : '';
    this.fail(`${where ? `${where}: ` : ''}${name} shape: ${first.pointer} ${first.message}${more}`, { pointer: joinPointer(at, first.pointer), actual: pick(value, first.pointer) });
  }

  expectEqual(actual: unknown, expected: unknown, message: string, pointer?: string): void {
    if (stable(actual) !== stable(expected)) this.fail(message, { pointer, expected, actual });
  }

  expect(condition: boolean, message: string, detail: { pointer?: string; expected?: unknown; actual?: unknown } = {}): void {
    if (!condition) this.fail(message, detail);
  }

  /** The value of a lookup that must find something: null fails with the message, at /result. */
  found<T>(value: T | null, message: string): T {
    if (value === null && this.windowDoubt) this.inconclusive(`${message}, and ${this.windowDoubt}`);
    if (value === null) this.fail(message, { pointer: '/result', actual: null });
    return value;
  }

  /**
   * After a null or an error from a method the declared near-head window limits (§8): whether the targets may have
   * left the window since discovery walked them (the chain moved past the margin discovery kept). Then the answer
   * may be "archive not served", which the spec allows: found() and result() leave it unjudged, saying why. Never
   * without a declared window: old lookups must work then.
   */
  private async outOfWindow(method: string): Promise<void> {
    const window = this.state.window;
    if (!window || !factsOf(method)?.windowed) return;
    const oldest = q(this.targets.scanned.from);
    const head = q(await this.state.client.call<string>('eth_blockNumber', []).catch(() => undefined));
    if (oldest === undefined || head === undefined || insideWindow(oldest, head, window.blocks)) return;
    this.windowDoubt = `the targets walked from block ${oldest} on are no longer all inside the declared near-head window of ${window.blocks} blocks (${window.from}) at head ${head}: archive not served, not judged`;
  }

  /**
   * A call for a block older than the declared near-head window (§8: "archive requests are unavailable") answered as
   * pruned history (error 4444 and its kin): what the network declares it does not keep, left out of the judged share.
   * Only where the block is known by its parameter (a number, "earliest"); one named by hash is judged as before.
   */
  private async archiveAsked(method: string, params: unknown[], err: RpcError): Promise<void> {
    const window = this.state.window;
    const at = factsOf(method)?.params.indexOf('block') ?? (method === 'eth_getBlockByNumber' ? 0 : -1);
    const param = at >= 0 ? params[at] : undefined;
    const block = param === 'earliest' ? 0n : typeof param === 'string' && /^0x[0-9a-f]{1,16}$/i.test(param) ? q(param) : undefined;
    // Sold as archive (--archive), old history is due whatever window the network declares.
    if (!window || this.state.archive || block === undefined || !notKept(err.code, err.rpcMessage)) return;
    const head = q(await this.result<string>('eth_blockNumber', [], { fresh: true }));
    if (head === undefined || insideWindow(block, head, window.blocks)) return;
    this.notOnThisChain('archive', `${method} answered pruned history (error ${err.code}: ${err.rpcMessage.slice(0, 120)}) for block ${block}${param === 'earliest' ? ' ("earliest")' : ''}, older than the declared near-head window of ${window.blocks} blocks (${window.from}) at head ${head}: a network that declares the window is read as serving no archive (§8: "archive requests are unavailable"), not judged`);
  }

  /**
   * Judges every item: a failure on one is recorded and the next is judged, so the check reports every
   * violation (and an --expect `match` is held to each), not the first one only. Any other outcome stops the check.
   */
  async each<T>(items: Iterable<T>, judge: (item: T, index: number) => void | Promise<void>, none = 'an empty list'): Promise<void> {
    const outer = this.items.at(-1);
    if (outer) outer.nested = true;
    this.tally.lists++;
    let i = 0;
    for (const item of items) {
      const frame = { nested: false };
      this.items.push(frame);
      try {
        await judge(item, i++);
      } catch (err) {
        if (!(err instanceof CheckOutcome) || err.verdict !== 'fail') throw err;
        this.violations.push(err);
      } finally {
        this.items.pop();
        // Only an item judged itself counts: a block whose transactions are judged counts by its transactions.
        if (!frame.nested) this.tally.leaves++;
      }
    }
    if (i === 0 && !this.tally.empty.includes(none)) this.tally.empty.push(none);
  }

  /**
   * Declares that n of what the check judges (the receipts or logs of a block) were judged here: a check that
   * declares some and whose blocks held none of them judged nothing, and the runner says so with `none`.
   */
  judging(n: number, none: string): void {
    // Declared counts replace each()'s leaves: the items fetched on the way (a block's receipts) are not what is judged (its logs).
    this.tally.counted = (this.tally.counted ?? 0) + n;
    if (n === 0 && !this.tally.empty.includes(none)) this.tally.empty.push(none);
  }

  /** A judged block (judgedRefs) left out of this check, by the name judgedRefs gave it: not judged whole. */
  leaveOut(name: string): void {
    const hash = this.blockScope.picked.get(name) ?? [...this.blockScope.picked].find(([n]) => name.startsWith(n))?.[1];
    if (hash) this.blockScope.left.add(hash);
  }

  /** Fails with every violation given (none: nothing happens): the runner reports each, the reason names the first. */
  failAll(violations: Array<[message: string, detail: { pointer?: string | undefined; expected?: unknown; actual?: unknown }]>): void {
    const outcomes = violations.map(([message, detail]) => new CheckOutcome('fail', message, detail));
    const last = outcomes.pop();
    if (!last) return;
    this.violations.push(...outcomes);
    throw last;
  }

  /** Records an observation for the report, whatever the verdict. */
  note(text: string): void {
    this.notes.push(text);
  }

  /** Records that the verdict covers only part of what the check judges (the summary and JUnit name it, not only the note). */
  partly(what: string): void {
    this.partial = what;
  }

  fail(message: string, detail: { pointer?: string | undefined; expected?: unknown; actual?: unknown } = {}): never {
    throw new CheckOutcome('fail', message, detail);
  }

  skip(reason: string): never {
    throw new CheckOutcome('skip', reason);
  }

  /** A skip because this chain (or this run) cannot have what the check judges, on a premise of the closed list NOT_HERE: the reason names why. */
  notOnThisChain(premise: NotHere, reason: string): never {
    throw new CheckOutcome('skip', reason, {}, premise);
  }

  /** A premise that needs a fork (`what` came with it): on a chain whose era is before it, the check skips as not on this chain, naming the era. */
  needFork(fork: Fork, what: string): void {
    const why = beforeFork(this.targets, fork, what);
    if (why) this.notOnThisChain('pre-fork', why);
  }

  inconclusive(reason: string): never {
    throw new CheckOutcome('inconclusive', reason);
  }

  /** A target the check cannot run without; a missing one is a skip with the reason, never a pass. */
  need<T>(value: T | undefined, what: string): T {
    if (value === undefined || value === null) this.skip(`no ${what} found on this endpoint (discovery and fixtures)`);
    return value;
  }
}

/** JSON text of a value, bigints included, for comparisons and evidence. */
export function stable(v: unknown): string | undefined {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
}

/**
 * An exchange as evidence, redacted: the request, what the transport saw, an excerpt of the body. Made once per
 * exchange: the checks sharing one (the run's memo) record the same evidence.
 */
function evidenceOf(ex: Exchange): Evidence {
  let evidence = evidenceMade.get(ex);
  if (!evidence) {
    evidence = {
      // The request may carry what an endpoint served (a transaction's access list, replayed), its keys too: redacted
      // whole. The envelope's field names are the harness's: its values only.
      request: redactDeep(ex.request),
      ...redactValues({
        ...(ex.httpStatus !== undefined ? { httpStatus: ex.httpStatus } : {}),
        ...(ex.contentType !== undefined ? { contentType: ex.contentType } : {}),
        durationMs: ex.durationMs,
        ...(ex.fault ? { fault: `${ex.fault}: ${ex.faultDetail ?? ''}` } : {}),
      }),
      ...(ex.bodyText !== undefined ? { response: excerpt(ex.bodyText) } : {}),
    };
    evidenceMade.set(ex, evidence);
  }
  return evidence;
}
const evidenceMade = new WeakMap<Exchange, Evidence>();

/** The body's first EXCERPT characters, redacted (only as much as the cut keeps: a blob block's body is megabytes). */
function excerpt(text: string): string {
  const clean = redactCapped(text, EXCERPT);
  return text.length > EXCERPT ? `${clean}… (${text.length} chars)` : clean;
}

function joinPointer(at: string, inner: string): string {
  return inner === '/' ? at : `${at}${inner}`;
}

function pick(value: unknown, pointer: string): unknown {
  let cur = value;
  for (const part of pointer.split('/').filter(Boolean)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
