// Side by side (several endpoints in one run): every immutable answer of this endpoint held against the other
// endpoints' answers to the same call, field by field (core/vote.ts). Advisory: a majority is evidence, not
// proof (providers sharing a backend or a client agree by construction); --strict makes it fatal. Not on a run of
// one endpoint (left out of the judged share, not listed).
import { isObject, toQuantity } from '../core/hex.ts';
import { METHODS, METHOD_FACTS, type RpcMethod } from '../core/methods.ts';
import { type Exchange, resultOf } from '../core/node/rpc-client.ts';
import { type CheckContext, MethodSuite } from './framework/check.ts';
import type { Section } from './framework/clause.ts';
import { AGREE_BY_CONSTRUCTION, type Ballot, type Contest, valuesText, vote } from '../core/vote.ts';
import { blockHashIn, blockName, type Lookup, lookups } from './reference.ts';

const HERE = 'conformance/quorum.ts';
export const quorum = new MethodSuite('quorum', HERE);

/** The methods whose answers are immutable once the target is settled: asked by hash, or a settled block's receipts. */
export const QUORUM_METHODS = METHODS.filter((m) => {
  const f = METHOD_FACTS[m];
  return f.result !== 'quantity' && (f.params[0] === 'blockHash' || f.params[0] === 'txHash' || f.result === 'block-receipts');
});

for (const method of QUORUM_METHODS) {
  const facts = METHOD_FACTS[method];
  quorum.check(
    { id: `quorum/${method}-majority`, clause: [{ section: facts.section as Section }, { invariant: 'same answer as the other providers' }], layer: 'advisory', title: `for every discovered target, ${method} answers as the majority of the endpoints side by side, field by field (the reference diff's rules); null answers, errors and absent fields never vote; a tie is no majority, never a side picked`, covers: ['hit'] },
    async (t) => hold(t, method),
  );
}

function callsFor(t: CheckContext, method: RpcMethod): Lookup[] {
  const fixed = lookups(t.targets, method);
  if (fixed) return fixed;
  // By hash, an uncle is fixed too: the quorum holds every uncle of the block discovery found (none: not on this chain).
  const u = t.targets.uncleBlock ?? t.notOnThisChain('history-era', 'no block with uncles on this chain: no uncle to compare');
  return Array.from({ length: u.uncleCount }, (_, i) => ({ what: `uncle ${i} of ${blockName(u)}`, params: [u.hash, toQuantity(i)], kind: 'uncle' as const }));
}

/** An answer that votes: a result that is an object or a list (of the block asked, by number); else why it does not. */
function ballotOf(name: string, ex: Exchange, call: Lookup): Ballot | string {
  let result: unknown;
  try {
    result = resultOf(ex);
  } catch (err) {
    return `${name} answered ${(err as Error).message.slice(0, 160)}`;
  }
  if (result === null || !(isObject(result) || Array.isArray(result))) return `${name} answered ${JSON.stringify(result)?.slice(0, 80)}`;
  const named = blockHashIn(result);
  // Asked by number, only an answer naming the block asked votes: an empty list, or another block, may be another chain's.
  if (call.blockHash && named !== call.blockHash) return `${name} answered ${named === undefined ? 'a list naming no block' : `with another block at that number (${named})`}`;
  return { name, answer: result };
}

async function hold(t: CheckContext, method: RpcMethod): Promise<void> {
  const peers = t.peers;
  if (peers.names.length === 0) t.inconclusive('no other endpoint on this chain answered its chain id at the start: nothing to hold the answers against');
  if (peers.methods && !peers.methods.includes(method)) t.notOnThisChain('methods', `not on this run: --methods leaves ${method} out`);
  const self = peers.self;
  const calls = callsFor(t, method);
  // Every call asked of every endpoint at once (memoized): a slow peer costs its slowest answers, not their sum.
  t.warm(calls.map((c) => [method, c.params] as const));
  for (const c of calls) void peers.ask(method, c.params);
  let compared = 0;
  let outvoted = 0;
  const noVote: string[] = [];
  const ties: string[] = [];
  const others: string[] = [];
  await t.each(calls, async (c) => {
    const [ex, theirs] = await Promise.all([t.exchange(method, c.params), t.peerExchanges(method, c.params)]);
    const ours = ballotOf(self, ex, c);
    if (typeof ours === 'string') return void noVote.push(`${c.what}: ${ours}, so it does not vote (its own checks judge that answer)`);
    const ballots: Ballot[] = [];
    for (const p of theirs) {
      const b = ballotOf(p.name, p.exchange, c);
      if (typeof b === 'string') noVote.push(`${c.what}: ${b}`);
      else ballots.push(b);
    }
    if (ballots.length === 0) return void noVote.push(`${c.what}: no other endpoint served it`);
    compared++;
    const v = vote(c.kind, ours, ballots);
    ties.push(...v.ties.map((x) => `${c.what}: ${x.path}: ${valuesText(x, self)}`));
    others.push(...v.others.map((x) => `${c.what}: ${x.path}: ${valuesText(x, self)}`));
    outvoted += v.outvoted.length;
    t.failAll(v.outvoted.map((x): [string, { pointer: string; expected: unknown; actual: unknown }] => [`${c.what}: ${x.path} is ${x.ours} here, but ${outvotedBy(x)}: ${valuesText(x, self)}`, { pointer: x.path, expected: JSON.parse(x.majority ?? 'null'), actual: JSON.parse(x.ours) }]));
  }, `no discovered target for ${method}`);
  t.judging(compared, `no call of ${method} was answered by this endpoint and another`);
  const said = [...ties.map((x) => `NO MAJORITY: ${x}`), ...others.map((x) => `another endpoint outvoted: ${x}`), ...noVote.map((x) => `not voted: ${x}`)];
  t.note(`${compared} call(s) held against ${peers.names.join(', ')}${outvoted ? `, this endpoint outvoted on ${outvoted} field(s)` : ''}${said.length ? `; ${said.slice(0, 20).join('; ')}${said.length > 20 ? `; and ${said.length - 20} more` : ''}` : outvoted ? '' : ', all agreeing'}; ${AGREE_BY_CONSTRUCTION}`);
  // A tie judges no one: said, never a pass (a failure elsewhere in the check stands).
  if (ties.length && t.violations.length === 0) t.inconclusive(`no majority: ${ties[0]}${ties.length > 1 ? ` (+${ties.length - 1} more field(s) tied)` : ''}: at least one endpoint deviates, and the endpoints side by side cannot tell which`);
}

function outvotedBy(c: Contest): string {
  const top = c.values.find((v) => v.value === c.majority);
  const served = c.values.reduce((n, v) => n + v.by.length, 0);
  return `${c.majority} at ${top?.by.join(', ')} (the majority: ${top?.by.length} of the ${served} endpoints serving the field)`;
}
