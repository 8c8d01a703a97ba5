// Runs the suite: preflight, discovery, then the method suites as Mocha suites (one Mocha test per
// check), collecting a CheckResult per check. Suites are built fresh per run, so one process can run
// the suite many times (the self-tests do, once per injected fault).
import Mocha from 'mocha';
import { redactUrl } from '../../core/redact.ts';
import { isObject } from '../../core/hex.ts';
import type { Targets } from '../../core/targets.ts';
import { CheckContext, CheckOutcome, stable, type CheckResult, type MethodSuite, type RunState } from './check.ts';
import { coverageOf, discoverTargets, loadTargets, mergeFixtures } from './discovery.ts';
import { expectationFor, type Expectations } from './expectations.ts';
import { fixtureTargets } from './fixtures.ts';
import { RpcClient, TransportError, RpcError, resultOf } from './rpc-client.ts';
import { allSuites } from '../methods.ts';

export interface RunOptions {
  url: string;
  methods?: string[];
  strict?: boolean;
  targetsFile?: string;
  /** Targets to add to what discovery finds (per-network fixtures, the embedded default's seed). */
  fixtures?: Array<{ targets: Partial<Targets>; source: 'fixture' | 'seed' }>;
  timeoutMs?: number;
  concurrency?: number;
  /** PEM of a CA to trust. */
  ca?: string;
  discoveryDepth?: number;
  /** --network: the endpoint must serve this network's chain, or it is not the endpoint meant. */
  network?: { name: string; chainId: string };
  /** Requests discovery may spend walking (default DEFAULT_DISCOVERY_BUDGET). */
  discoveryBudget?: number;
  /** Called as each check ends, for progress output. */
  onResult?: (r: CheckResult) => void;
  /** Stops the run between checks; what ran is kept and the result is marked incomplete. */
  signal?: AbortSignal;
  /** Known deviations (--expect): noted on the checks they name. */
  expect?: Expectations;
}

export interface RunResult {
  endpoint: string;
  startedAt: string;
  finishedAt: string;
  chainId: string;
  clientVersion?: string;
  headBefore: { number: string; hash: string };
  headAfter?: { number: string; hash: string };
  targets: Targets;
  checks: CheckResult[];
  requestCount: number;
  methods: string[];
  complete: boolean;
  incompleteReason?: string;
  expectations?: { file: string; client?: string; entries: number };
}

/** The endpoint cannot be certified at all: unreachable, not JSON-RPC, key refused. Exit code 2. */
export class EndpointUnusable extends Error {}

export async function runConformance(opts: RunOptions): Promise<RunResult> {
  const startedAt = new Date().toISOString();
  const client = new RpcClient({ url: opts.url, timeoutMs: opts.timeoutMs ?? 10_000, concurrency: opts.concurrency ?? 8, ...(opts.ca ? { ca: opts.ca } : {}) });
  try {
    const { chainId, clientVersion, head } = await preflight(client);
    if (opts.network && BigInt(opts.network.chainId) !== BigInt(chainId)) {
      throw new EndpointUnusable(`--network ${opts.network.name} is chain ${opts.network.chainId}, but the endpoint serves chain ${chainId}: not the network asked for`);
    }
    let targets = opts.targetsFile
      ? await loadTargets(opts.targetsFile)
      : mergeFixtures(await discoverTargets(client, { depth: opts.discoveryDepth ?? 64, ...(opts.discoveryBudget ? { budget: opts.discoveryBudget } : {}), chainId, head }), await fixtureTargets(client, chainId), 'fixture');
    if (targets.chainId !== chainId) throw new EndpointUnusable(`targets are for chain ${targets.chainId}, the endpoint serves chain ${chainId}`);
    for (const f of opts.fixtures ?? []) targets = mergeFixtures(targets, f.targets, f.source);
    targets.coverage = coverageOf(targets);

    const suites = selectSuites(opts.methods);
    const state: RunState = { client, targets, memo: new Map() };
    const checks = await runMocha(suites, state, opts.onResult, opts.signal, opts.expect);
    const headAfter = await client.call<{ number: string; hash: string } | null>('eth_getBlockByNumber', ['latest', false]).catch(() => undefined);
    return {
      endpoint: redactUrl(opts.url),
      startedAt,
      finishedAt: new Date().toISOString(),
      chainId,
      ...(clientVersion ? { clientVersion } : {}),
      headBefore: head,
      ...(isObject(headAfter) && typeof headAfter.number === 'string' && typeof headAfter.hash === 'string' ? { headAfter: { number: headAfter.number, hash: headAfter.hash } } : {}),
      targets,
      checks,
      requestCount: client.requestCount,
      methods: suites.map((s) => s.method),
      complete: !opts.signal?.aborted && checks.length === suites.reduce((n, s) => n + s.checks.length, 0),
      ...(opts.signal?.aborted ? { incompleteReason: `interrupted by ${String(opts.signal.reason)} after ${checks.length} checks` } : {}),
      ...(opts.expect ? { expectations: { file: opts.expect.file, ...(opts.expect.client ? { client: opts.expect.client } : {}), entries: opts.expect.fail.length + opts.expect.skip.length } } : {}),
    };
  } finally {
    client.close();
  }
}

function selectSuites(methods?: string[]): MethodSuite[] {
  if (!methods?.length) return allSuites;
  const unknown = methods.filter((m) => !allSuites.some((s) => s.method === m));
  if (unknown.length) throw new EndpointUnusable(`unknown method(s): ${unknown.join(', ')}`);
  return allSuites.filter((s) => methods.includes(s.method));
}

async function preflight(client: RpcClient): Promise<{ chainId: string; clientVersion?: string; head: { number: string; hash: string } }> {
  try {
    // An answer with a wrong, retyped or null id, or with both result and error, is still an answer: one
    // HTTP exchange carries one call, so it is matched by the exchange. The envelope checks fail it.
    const chainId = resultOf<string>(await client.exchange('eth_chainId', []));
    if (typeof chainId !== 'string') throw new EndpointUnusable(`eth_chainId returned ${JSON.stringify(chainId)}, not a hex quantity`);
    const head = await client.call<{ number: string; hash: string } | null>('eth_getBlockByNumber', ['latest', false]);
    if (!isObject(head) || typeof head.number !== 'string' || typeof head.hash !== 'string') throw new EndpointUnusable(`eth_getBlockByNumber("latest") returned ${JSON.stringify(head)?.slice(0, 80)}, not a block`);
    const clientVersion = await client.call<string>('web3_clientVersion', []).catch(() => undefined);
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
      return `endpoint is rate limiting (HTTP 429${ex.retryAfterS !== undefined ? `, Retry-After ${ex.retryAfterS}s` : ''}); try again later`;
    case 'http-status':
      return `endpoint answered HTTP ${ex.httpStatus}${ex.httpStatus === 401 || ex.httpStatus === 403 ? ' (API key refused?)' : ''}, not JSON-RPC`;
    default:
      return `endpoint does not speak JSON-RPC: ${ex.faultDetail ?? ex.fault ?? 'unknown fault'}`;
  }
}

async function runMocha(suites: MethodSuite[], state: RunState, onResult?: (r: CheckResult) => void, signal?: AbortSignal, expect?: Expectations): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const today = new Date().toISOString().slice(0, 10);
  const mocha = new Mocha({ reporter: class {} as unknown as Mocha.ReporterConstructor, timeout: 60_000 });
  for (const suite of suites) {
    const mochaSuite = Mocha.Suite.create(mocha.suite, suite.method);
    for (const { spec, body } of suite.checks) {
      const id = suite.id(spec.intent);
      mochaSuite.addTest(
        new Mocha.Test(`${id} [${spec.clause}] ${spec.title}`, async function (this: Mocha.Context) {
          const t = new CheckContext(state, suite.method);
          const started = performance.now();
          const base = { id, method: suite.method, clause: spec.clause, layer: spec.layer, title: spec.title, covers: spec.covers ?? [] };
          let result: CheckResult;
          try {
            await body(t);
            result = { ...base, verdict: 'pass', durationMs: 0, evidence: t.evidence };
          } catch (err) {
            result = { ...base, ...verdictOf(err), durationMs: 0, evidence: t.evidence };
          }
          result.durationMs = Math.round(performance.now() - started);
          const expectation = expect && expectationFor(id, expect, today);
          if (expectation) result.expectation = expectation;
          if (t.notes.length) result.note = t.notes.join('\n');
          results.push(result);
          onResult?.(result);
          if (result.verdict === 'skip' || result.verdict === 'inconclusive') this.skip();
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
  return results;
}

function verdictOf(err: unknown): Pick<CheckResult, 'verdict' | 'reason' | 'pointer' | 'expected' | 'actual'> {
  if (err instanceof CheckOutcome) {
    return {
      verdict: err.verdict,
      reason: err.message,
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
  return s === undefined ? String(v) : s.length > 2000 ? `${s.slice(0, 2000)}…` : s;
}
