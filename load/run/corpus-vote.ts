// Load side by side: the corpus's compared answers (the digests of answers that cannot change: by hash, or at a final
// block) are the answers of the endpoint it was sampled from. Replayed as they are, every other endpoint would be
// judged against that one endpoint's client: an optional field another client serves, a legacy transaction's chainId
// one omits, would make its every answer "wrong". So before anything is measured, every endpoint is asked each
// compared entry once, and the answers vote field by field (core/vote.ts, the rules of conformance's quorum/*):
// - an endpoint the majority outvotes, or whose answer is not the one asked for (bounds.ts), has a finding at sampling;
// - every endpoint is then held under load to its OWN answer (a wrong answer is one that changed under load), unless
//   the corpus came from a file: then each is held to the file's, as a replay of one endpoint is;
// - a tie is no majority, never a side picked; null answers, errors and absent fields never vote. An endpoint in a tie,
//   or that gave no value to vote with, was not judged against the others: side by side it cannot pass (report).
// What the sampling endpoint's own sampling found (its findings, a method it does not serve, its lag) is its own.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Exchange, RpcClient } from '../../core/node/rpc-client.ts';
import { sha256Hex } from '../../core/node/fingerprint.ts';
import { isObject, q } from '../../core/hex.ts';
import { type AnswerKind } from '../../core/answer-diff.ts';
import { METHOD_FACTS, type RpcMethod } from '../../core/methods.ts';
import type { NamedEndpoint } from '../../core/node/side-by-side.ts';
import { redact } from '../../core/redact.ts';
import { clip } from '../../core/inert.ts';
import { type Ballot, valuesText, vote } from '../../core/vote.ts';
import { outcomeOf } from '../plan/sample.ts';
import { answerDigest } from '../shared/answer.ts';
import { anchorOf, boundsFault } from '../shared/bounds.ts';
import { classify, type Envelope } from '../shared/classify.ts';
import { type Corpus, type CorpusEntry, expectationOf, type Finding, type MethodSampling } from '../shared/corpus.ts';
import { namedHash } from '../shared/named-block.ts';
import { shapeFault } from '../shared/shapes.ts';
import { DEFAULT_GRACE_MS } from '../shared/freshness.ts';
import type { CorpusVote, EndpointVote } from '../report/side-by-side.ts';

const TIMEOUT_MS = 10_000;
/** Entries asked at once: an endpoint found hanging is asked none of the rest. */
const AT_ONCE = 8;
/** A call that got no answer (a 5xx, a reset; the client itself waits out a 429) is asked again this many times, one at a time, before it counts as unanswered. */
const RETRIES = 2;
const RETRY_WAIT_MS = 500;
const LAG_WAIT_MS = 30_000;
const MAX_RETRY_WAIT_MS = 5_000;

/** An endpoint's own answer to a compared entry: its digest, and its bytes' fingerprint and schema verdict (corpus.ts). */
type Held = Pick<CorpusEntry, 'answer' | 'reply' | 'shaped'>;

/** What one endpoint answered one compared entry: a value that votes, or why none. */
interface Asked {
  value?: unknown;
  ex?: Exchange;
  envelope?: Envelope;
  /** Why no value: "HTTP 429", "null", "error -32000", "another block than the one sampled". */
  none?: string;
  /** No answer at all (a transport fault, 429, 5xx): worth asking again. */
  retry?: true;
  /** Answered null: an endpoint behind the others does not know the block yet, and is asked again once its head has it. */
  unknown?: true;
}

/** The answer kind of a method's result (answer-diff.ts): which fields the spec lists, how nested values are read. */
function kindOf(method: RpcMethod): AnswerKind {
  const r = METHOD_FACTS[method].result;
  return r === 'block' || r === 'uncle' || r === 'transaction' || r === 'receipt' ? r : r === 'block-receipts' ? 'receipts' : 'other';
}

export interface VoteOptions {
  /** The endpoint the corpus was sampled from: it keeps its sampled answers and its own sampling record. */
  sampler?: string;
  /** The corpus was read from a file (--corpus): every endpoint is held to the file's answers, as one endpoint's replay is. */
  fromFile?: boolean;
  signal?: AbortSignal;
  /** --rate-limit: the key's budget, requests a second. */
  rateLimit?: number;
}

/**
 * Each endpoint's corpus (the same entries in the same order, each compared entry holding that endpoint's own answer
 * unless the corpus came from a file) and the vote's findings. Endpoints are asked in parallel, each entry once.
 */
export async function voteCorpus(corpus: Corpus, endpoints: readonly NamedEndpoint[], opts: VoteOptions = {}): Promise<{ corpora: Map<string, Corpus>; vote: CorpusVote }> {
  const { signal, rateLimit, sampler } = opts;
  // Every call in flight listens to Ctrl-C: several endpoints asked at once are more than node's default of 10 listeners.
  if (signal) setMaxListeners(0, signal);
  const keeps = (name: string) => opts.fromFile === true || name === sampler;
  const clients = new Map(endpoints.map((e) => [e.name, new RpcClient({ url: e.url, timeoutMs: TIMEOUT_MS, concurrency: AT_ONCE, fingerprints: true, ...(rateLimit ? { ratePerS: rateLimit } : {}), ...(signal ? { signal } : {}) })]));
  // An endpoint that let one call time out is asked nothing more: a hanging one costs one timeout, not one per entry.
  const hanging = new Set<string>();
  const ask = async (name: string, method: RpcMethod, entry: CorpusEntry): Promise<Asked> => {
    if (hanging.has(name)) return { none: `not asked: an earlier call timed out after ${TIMEOUT_MS / 1000} s` };
    const ex = await clients.get(name)!.exchange(method, entry.params);
    if (ex.fault === 'timeout') hanging.add(name);
    const verdict = classify(outcomeOf(ex), expectationOf(entry.kind));
    const value = verdict.cls === 'ok' ? verdict.envelope?.result : undefined;
    if (verdict.cls === 'timeout' || verdict.cls === 'http_error' || verdict.cls === 'rate_limited') return { none: ex.fault ?? (ex.httpStatus ? `HTTP ${ex.httpStatus}` : verdict.cls), ...(verdict.cls === 'timeout' ? {} : { retry: true as const }) };
    if (verdict.cls === 'null_unexpected') return { none: 'null', unknown: true };
    if (value === undefined || !(isObject(value) || Array.isArray(value))) return { none: verdict.code !== undefined ? `error ${verdict.code}` : JSON.stringify(value ?? null).slice(0, 40) };
    // Asked by the number of a block not yet final, only an answer from the block sampled votes (another may be another fork's).
    const anchor = anchorOf(entry.bounds);
    if (anchor !== undefined && namedHash(value)?.toLowerCase() !== anchor) return { none: 'another block than the one sampled' };
    return { value, ex, ...(verdict.envelope ? { envelope: verdict.envelope } : {}) };
  };

  // How long, all told, an endpoint that answered null is waited for to reach the block another endpoint had.
  const lagDeadline = new Map<string, number>();
  const caughtUp = async (name: string, block: bigint): Promise<{ head: bigint | undefined; waited: boolean }> => {
    const deadline = lagDeadline.get(name) ?? Date.now() + LAG_WAIT_MS;
    lagDeadline.set(name, deadline);
    for (let waited = false; ; waited = true) {
      const head = q(await clients.get(name)!.call<string>('eth_blockNumber', []).catch(() => undefined));
      if (head === undefined || head >= block || Date.now() >= deadline || signal?.aborted) return { head, waited };
      await sleep(RETRY_WAIT_MS);
    }
  };
  const per = new Map(endpoints.map((e) => [e.name, { held: new Map<string, Held>(), findings: new Map<RpcMethod, Finding>(), vote: { name: e.name, outvoted: 0, outside: 0, tied: 0, unanswered: 0, alone: 0 } as EndpointVote }]));
  const find = (name: string, method: RpcMethod, kind: CorpusEntry['kind'], example: string) => {
    const findings = per.get(name)!.findings;
    const known = findings.get(method);
    if (known) known.count++;
    else findings.set(method, { kind, cls: 'wrong', count: 1, example: redact(example) });
  };
  const result: CorpusVote = { held: opts.fromFile ? 'recorded' : 'own', compared: 0, noMajority: 0, endpoints: [] };

  // Phase 1: every compared entry asked of every endpoint, a few at a time; then the calls that got no answer, again.
  const asked: Array<{ method: RpcMethod; entry: CorpusEntry; by: Map<string, Asked> }> = [];
  try {
    for (const [method, entries] of Object.entries(corpus.entries) as Array<[RpcMethod, CorpusEntry[]]>) {
      const distinct = [...new Map(entries.filter((e) => e.answer !== undefined).map((e) => [JSON.stringify(e.params), e])).values()];
      for (let i = 0; i < distinct.length; i += AT_ONCE) {
        const chunk = await Promise.all(distinct.slice(i, i + AT_ONCE).map(async (entry) => ({ method, entry, by: new Map(await Promise.all(endpoints.map(async (e) => [e.name, await ask(e.name, method, entry)] as const))) })));
        asked.push(...chunk);
      }
    }
    for (const a of asked) {
      for (const [name, got] of a.by) {
        let now = got;
        for (let k = 0; k < RETRIES && now.retry && !signal?.aborted && !hanging.has(name); k++) {
          const wait = Math.min(MAX_RETRY_WAIT_MS, (now.ex?.retryAfterS ?? 0) * 1000 || RETRY_WAIT_MS);
          await sleep(wait);
          now = await ask(name, a.method, a.entry);
        }
        // A null where another endpoint has the value: asked again once this one's head has the block (it may be behind).
        const block = now.unknown ? blockOf([...a.by.values()]) : undefined;
        if (block !== undefined && !signal?.aborted && !hanging.has(name)) {
          const { head, waited } = await caughtUp(name, block);
          if (head !== undefined && head < block) now = { ...now, none: `null: its head, block ${head}, is below block ${block} after ${LAG_WAIT_MS / 1000} s (behind the others)` };
          else {
            now = await ask(name, a.method, a.entry);
            // A block it has only just announced may not be indexed yet: once more, past the fresh reads' grace.
            if (waited && now.unknown && !signal?.aborted) {
              await sleep(DEFAULT_GRACE_MS);
              now = await ask(name, a.method, a.entry);
            }
          }
        }
        a.by.set(name, now);
      }
    }
  } finally {
    for (const c of clients.values()) c.close();
  }
  if (signal?.aborted) result.interrupted = true;

  // Phase 2: each endpoint's own answer kept, checked against what was asked, and voted.
  for (const { method, entry, by } of asked) {
    const params = clip(JSON.stringify(entry.params), 120);
    const ballots: Ballot[] = [];
    for (const [name, got] of by) {
      const mine = per.get(name)!;
      if (got.value === undefined) {
        if (!result.interrupted) {
          mine.vote.unanswered++;
          // What it answered may quote anything, the key too.
          mine.vote.unansweredExample ??= redact(`${method}(${params}) answered ${got.none ?? 'nothing'}`);
        }
        continue;
      }
      ballots.push({ name, answer: got.value });
      if (name === sampler) {
        // What it is held to is what it answered at sampling: an answer it changed since is no answer it could be voted on.
        if (answerDigest(got.value, sha256Hex) !== entry.answer) find(name, method, entry.kind, `${params} answered otherwise at the vote than at sampling, on data that cannot change (the answer voted is not the one it is held to)`);
        continue;
      }
      // Sampling checked the sampler's answer against what was asked (a transaction of another index, say): the others' here.
      const broken = entry.bounds ? boundsFault(entry.bounds, got.value) : undefined;
      if (broken) {
        mine.vote.outside++;
        find(name, method, entry.kind, `${params} answered ${clip(broken, 160)}`);
      }
      if (keeps(name)) continue;
      // Its own answer, fingerprinted, is what it is held to under load: the same bytes are recognised, not parsed again.
      const reply = got.ex?.replyFingerprint;
      const shaped = reply && got.envelope && !shapeFault(method, got.envelope);
      mine.held.set(keyOf(method, entry), { answer: answerDigest(got.value, sha256Hex), ...(reply ? { reply } : {}), ...(shaped ? { shaped: true as const } : {}) });
    }
    if (ballots.length === 1) {
      const mine = per.get(ballots[0]!.name)!.vote;
      mine.alone++;
      mine.aloneExample ??= redact(`${method}(${params})`);
    }
    if (ballots.length < 2) continue;
    result.compared++;
    let tied = false;
    for (const self of ballots) {
      const v = vote(kindOf(method), self, ballots.filter((b) => b !== self));
      const mine = per.get(self.name)!;
      const tie = v.ties[0];
      if (tie) {
        tied = true;
        mine.vote.tied++;
        mine.vote.tieExample ??= redact(`${method}(${params}): ${tie.path}: ${clip(valuesText(tie, self.name), 200)}`);
      }
      const first = v.outvoted[0];
      if (!first) continue;
      mine.vote.outvoted++;
      const served = first.values.reduce((a, x) => a + x.by.length, 0);
      const more = v.outvoted.length > 1 ? ` (+${v.outvoted.length - 1} more field(s))` : '';
      find(self.name, method, entry.kind, `${params}: ${first.path} is ${clip(first.ours, 80)} here, outvoted by ${clip(first.majority ?? '', 80)} (${first.values[0]!.by.length} of the ${served} endpoints serving the field, side by side: ${clip(valuesText(first, self.name), 200)})${more}`);
    }
    if (tied) result.noMajority++;
  }
  result.endpoints = endpoints.map((e) => per.get(e.name)!.vote);

  const corpora = new Map(
    endpoints.map((e) => {
      const mine = per.get(e.name)!;
      const kept = keeps(e.name);
      const entries = Object.fromEntries(Object.entries(corpus.entries).map(([m, list]) => [m, list.map((x) => (x.answer === undefined || kept ? x : { ...notHeld(x), ...mine.held.get(keyOf(m, x)) }))])) as Corpus['entries'];
      // A corpus of an older version may have no sampling record for a method: a finding still gets one.
      const methods = new Set([...Object.keys(corpus.sampling), ...mine.findings.keys()]) as Set<RpcMethod>;
      const sampling = Object.fromEntries(
        [...methods].map((m) => {
          const s = corpus.sampling[m] ?? { status: 'served', tried: {}, correct: {}, rejected: {}, findings: [] };
          const found = mine.findings.get(m);
          const base: MethodSampling = kept ? s : othersRecord(s, (corpus.entries[m]?.length ?? 0) > 0);
          return [m, found ? { ...base, findings: [...base.findings, found] } : base];
        }),
      ) as Corpus['sampling'];
      const { targetHead, ...rest } = corpus;
      return [e.name, { ...rest, ...(kept && targetHead ? { targetHead } : {}), entries, sampling }];
    }),
  );
  return { corpora, vote: result };
}

/**
 * A compared entry without the sampler's answer. Where this endpoint gave no value at the vote, it has no answer of its
 * own to be held to: under load its value is not compared (only its kind judged), and side by side it cannot pass.
 */
function notHeld(entry: CorpusEntry): CorpusEntry {
  const { answer: _a, reply: _r, shaped: _s, ...rest } = entry;
  return rest;
}

/**
 * Another endpoint's sampling record as this endpoint's: the corpus's composition, none of its findings or lag. A method
 * the corpus has nothing to ask stays not served, with the sampler's reason: never measured, it does not pass.
 */
function othersRecord(s: MethodSampling, asked: boolean): MethodSampling {
  const { reason, aboveTargetHead: _a, lateWithinGrace: _l, ...rest } = s;
  if (!asked) return { ...rest, status: 'not served', reason: `the corpus has nothing to ask it: sampled from another endpoint, whose answers gave no entry (${reason ?? 'none kept'})`, findings: [] };
  return { ...rest, status: 'served', findings: [] };
}

/** The block another endpoint's answer names (a transaction's or receipt's blockNumber, a block's number): where the entry's data is. */
function blockOf(answers: readonly Asked[]): bigint | undefined {
  for (const a of answers) {
    const o = (Array.isArray(a.value) ? a.value[0] : a.value) as { blockNumber?: unknown; number?: unknown } | undefined;
    const n = q(typeof o?.blockNumber === 'string' ? o.blockNumber : typeof o?.number === 'string' ? o.number : undefined);
    if (n !== undefined) return n;
  }
  return undefined;
}

const keyOf = (method: string, entry: CorpusEntry) => `${method} ${JSON.stringify(entry.params)}`;
