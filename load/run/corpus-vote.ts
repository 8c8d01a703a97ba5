// Load side by side: the corpus's compared answers (the digests of answers that cannot change: by hash, or at a final
// block) are the answers of the endpoint it was sampled from. Replayed as they are, every other endpoint would be
// judged against that one endpoint's client: an optional field another client serves, a legacy transaction's chainId
// one omits, would make its every answer "wrong". So before anything is measured, every endpoint is asked each
// compared entry once, and the answers vote field by field (core/vote.ts, the rules of conformance's quorum/*):
// - an endpoint the majority outvotes on a field has a finding at sampling (its run fails, naming the field);
// - every endpoint is then judged under load against its OWN answer (a wrong answer is one that changed under load);
// - a tie is no majority, never a side picked; null answers, errors and absent fields never vote.
// What the sampling endpoint's own sampling found (its findings, a method it does not serve, its lag) is its own.
import { setMaxListeners } from 'node:events';
import { type Exchange, RpcClient } from '../../core/node/rpc-client.ts';
import { sha256Hex } from '../../core/node/fingerprint.ts';
import { isObject } from '../../core/hex.ts';
import { type AnswerKind } from '../../core/answer-diff.ts';
import { METHOD_FACTS, type RpcMethod } from '../../core/methods.ts';
import type { NamedEndpoint } from '../../core/node/side-by-side.ts';
import { redact } from '../../core/redact.ts';
import { type Ballot, valuesText, vote } from '../../core/vote.ts';
import { outcomeOf } from '../plan/sample.ts';
import { answerDigest } from '../shared/answer.ts';
import { anchorOf } from '../shared/bounds.ts';
import { namedHash } from '../shared/named-block.ts';
import { classify } from '../shared/classify.ts';
import { type Corpus, type CorpusEntry, expectationOf, type Finding, type MethodSampling } from '../shared/corpus.ts';
import { shapeFault } from '../shared/shapes.ts';
import type { CorpusVote } from '../report/side-by-side.ts';

/** An endpoint's own answer to a compared entry: its digest, and its bytes' fingerprint and schema verdict (corpus.ts). */
type Held = Pick<CorpusEntry, 'answer' | 'reply' | 'shaped'>;

/** The answer kind of a method's result (answer-diff.ts): which fields the spec lists, how nested values are read. */
function kindOf(method: RpcMethod): AnswerKind {
  const r = METHOD_FACTS[method].result;
  return r === 'block' || r === 'uncle' || r === 'transaction' || r === 'receipt' ? r : r === 'block-receipts' ? 'receipts' : 'other';
}

/**
 * Each endpoint's corpus: the same entries in the same order, each compared entry holding that endpoint's own answer,
 * and the vote's findings. `sampler`: the endpoint the corpus was sampled from (its sampling record stays its own);
 * absent for a corpus read from a file, whose sampling was an earlier run's. Endpoints are asked in parallel, each
 * entry once, within the key's budget (--rate-limit) where one is given.
 */
export async function voteCorpus(corpus: Corpus, endpoints: readonly NamedEndpoint[], sampler: string | undefined, opts: { signal?: AbortSignal; rateLimit?: number } = {}): Promise<{ corpora: Map<string, Corpus>; vote: CorpusVote }> {
  const { signal, rateLimit } = opts;
  // Every call in flight listens to Ctrl-C: several endpoints asked at once are more than node's default of 10 listeners.
  if (signal) setMaxListeners(0, signal);
  const clients = endpoints.map((e) => ({ name: e.name, client: new RpcClient({ url: e.url, timeoutMs: TIMEOUT_MS, concurrency: AT_ONCE, fingerprints: true, ...(rateLimit ? { ratePerS: rateLimit } : {}), ...(signal ? { signal } : {}) }) }));
  // An endpoint that let one call time out is asked nothing more: a hanging one costs one timeout, not one per entry.
  const hanging = new Set<string>();
  const ask = async (name: string, client: RpcClient, method: RpcMethod, params: unknown[]): Promise<Exchange | undefined> => {
    if (hanging.has(name)) return undefined;
    const ex = await client.exchange(method, params);
    if (ex.fault === 'timeout') hanging.add(name);
    return ex;
  };
  const result: CorpusVote = { endpoints: endpoints.map((e) => e.name), compared: 0, noMajority: 0, outvoted: {}, unanswered: {} };
  // Per endpoint: the entry replacing each compared one (by method and params: two methods take the same params), and its findings per method.
  const own = new Map(endpoints.map((e) => [e.name, { answers: new Map<string, Held>(), findings: new Map<RpcMethod, Finding>() }]));
  // One compared entry asked of every endpoint: each one's own answer kept, and the vote on them.
  const voteOn = async (method: RpcMethod, entry: CorpusEntry): Promise<void> => {
    const anchor = anchorOf(entry.bounds);
    const answers = await Promise.all(clients.map(async ({ name, client }) => ({ name, ex: await ask(name, client, method, entry.params) })));
    const ballots: Ballot[] = [];
    for (const { name, ex } of answers) {
      const verdict = ex ? classify(outcomeOf(ex), expectationOf(entry.kind)) : undefined;
      const value = verdict?.cls === 'ok' ? verdict.envelope?.result : undefined;
      // Asked by the number of a block not yet final, only an answer from the block sampled votes (another may be another fork's).
      const elsewhere = anchor !== undefined && namedHash(value)?.toLowerCase() !== anchor;
      if (value === undefined || value === null || !(isObject(value) || Array.isArray(value)) || elsewhere) {
        // The sampler's own answer, sampled, is still held to under load: only another's is then left uncompared.
        if (name !== sampler) result.unanswered[name] = (result.unanswered[name] ?? 0) + 1;
        continue;
      }
      ballots.push({ name, answer: value });
      // The sampler keeps the answer it was sampled with: one it answers otherwise now is a change under load too.
      if (name === sampler) continue;
      // Another's own answer, fingerprinted, is what it is held to under load: the same bytes are recognised, not parsed again.
      const reply = ex?.replyFingerprint;
      const shaped = reply && verdict?.envelope && !shapeFault(method, verdict.envelope);
      own.get(name)!.answers.set(keyOf(method, entry), { answer: answerDigest(value, sha256Hex), ...(reply ? { reply } : {}), ...(shaped ? { shaped: true as const } : {}) });
    }
    if (ballots.length < 2) return;
    result.compared++;
    let tied = false;
    for (const self of ballots) {
      const v = vote(kindOf(method), self, ballots.filter((b) => b !== self));
      tied ||= v.ties.length > 0;
      const first = v.outvoted[0];
      if (!first) continue;
      result.outvoted[self.name] = (result.outvoted[self.name] ?? 0) + 1;
      const served = first.values.reduce((a, x) => a + x.by.length, 0);
      const more = v.outvoted.length > 1 ? ` (+${v.outvoted.length - 1} more field(s))` : '';
      const example = redact(`${clip(JSON.stringify(entry.params), 120)}: ${first.path} is ${clip(first.ours, 80)} here, outvoted by ${clip(first.majority ?? '', 80)} (${first.values[0]!.by.length} of the ${served} endpoints serving the field, side by side: ${clip(valuesText(first, self.name), 200)})${more}`);
      const findings = own.get(self.name)!.findings;
      const known = findings.get(method);
      if (known) known.count++;
      else findings.set(method, { kind: entry.kind, cls: 'wrong', count: 1, example });
    }
    if (tied) result.noMajority++;
  };
  try {
    for (const [method, entries] of Object.entries(corpus.entries) as Array<[RpcMethod, CorpusEntry[]]>) {
      const distinct = [...new Map(entries.filter((e) => e.answer !== undefined).map((e) => [JSON.stringify(e.params), e])).values()];
      // A few entries at a time, so an endpoint found hanging is not asked the rest.
      for (let i = 0; i < distinct.length; i += AT_ONCE) await Promise.all(distinct.slice(i, i + AT_ONCE).map((entry) => voteOn(method, entry)));
    }
  } finally {
    for (const c of clients) c.client.close();
  }
  const corpora = new Map(
    endpoints.map((e) => {
      const mine = own.get(e.name)!;
      const entries = Object.fromEntries(Object.entries(corpus.entries).map(([m, list]) => [m, list.map((x) => (x.answer === undefined || e.name === sampler ? x : { ...notHeld(x), ...mine.answers.get(keyOf(m, x)) }))])) as Corpus['entries'];
      // A corpus of an older version may have no sampling record for a method: an outvoted answer still gets one.
      const methods = new Set([...Object.keys(corpus.sampling), ...mine.findings.keys()]) as Set<RpcMethod>;
      const sampling = Object.fromEntries(
        [...methods].map((m) => {
          const s = corpus.sampling[m] ?? { status: 'served', tried: {}, correct: {}, rejected: {}, findings: [] };
          const found = mine.findings.get(m);
          const base: MethodSampling = e.name === sampler ? s : othersRecord(s);
          return [m, found ? { ...base, findings: [...base.findings, found] } : base];
        }),
      ) as Corpus['sampling'];
      const { targetHead, ...rest } = corpus;
      return [e.name, { ...rest, ...(e.name === sampler && targetHead ? { targetHead } : {}), entries, sampling }];
    }),
  );
  return { corpora, vote: result };
}

/**
 * A compared entry without the sampler's answer. Where this endpoint gave no value at the vote, it has no answer of its
 * own to be held to: under load its value is not compared (only its kind judged), as for an entry sampled near the head.
 */
function notHeld(entry: CorpusEntry): CorpusEntry {
  const { answer: _a, reply: _r, shaped: _s, ...rest } = entry;
  return rest;
}

/** Another endpoint's sampling record as this endpoint's: the corpus's composition, none of its findings or lag. */
function othersRecord(s: MethodSampling): MethodSampling {
  const { reason: _r, aboveTargetHead: _a, lateWithinGrace: _l, ...rest } = s;
  return { ...rest, status: 'served', findings: [] };
}

const TIMEOUT_MS = 10_000;
const AT_ONCE = 8;
const keyOf = (method: string, entry: CorpusEntry) => `${method} ${JSON.stringify(entry.params)}`;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
