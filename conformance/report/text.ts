// Plain-text renderings shared by the JUnit and HTML writers and the CLI summary.
import { depthText } from '../../core/history.ts';
import type { Evidence } from '../framework/check.ts';
import { inert } from '../../core/inert.ts';
import { METHODS } from '../../core/methods.ts';
import { type ConformanceReport, type JudgedShare, percent } from './model.ts';
import type { NotServedMethod } from './not-served.ts';
import type { HeadLag, ReferenceMeta } from '../framework/reference.ts';

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** The request on one line, as sent: short, and ready to paste into curl. */
export function requestText(ev: Evidence): string {
  return JSON.stringify(ev.request) ?? String(ev.request);
}

/** The response excerpt, pretty-printed when it is whole JSON (an excerpt cut at the cap is shown raw). */
export function responseText(ev: Evidence): string {
  if (ev.response === undefined) return ev.fault ? `(no body: ${ev.fault})` : '(no body)';
  try {
    return JSON.stringify(JSON.parse(ev.response), null, 2);
  } catch {
    return ev.response;
  }
}

/** "HTTP 200 · application/json · 12 ms · fault: …": what the transport saw. */
export function exchangeMeta(ev: Evidence): string {
  return [
    // An exchange with the reference node (--reference-url) is not the endpoint's: said first.
    ev.reference && 'the REFERENCE node (--reference-url)',
    ev.peer !== undefined && `ANOTHER ENDPOINT: ${ev.peer}`,
    ev.httpStatus !== undefined ? `HTTP ${ev.httpStatus}` : 'no HTTP response',
    ev.contentType,
    formatDuration(ev.durationMs),
    ev.fault && `fault: ${ev.fault}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The exchanges of a failed check, the failing one first: the last one it made, since a check stops at its
 * first failed assertion (earlier ones are controls and lookups). A passing check keeps the order they ran in. */
export function failingFirst(evidence: Evidence[], failed: boolean): Evidence[] {
  const last = evidence.at(-1);
  return failed && last && evidence.length > 1 ? [last, ...evidence.slice(0, -1)] : evidence;
}

/**
 * Where copy-as-curl takes the secret part of the endpoint from: the key alone ($RPC_CERTIFY_API_KEY) when it is the one
 * thing redacted, else the whole URL ($RPC_CERTIFY_URL): several redacted segments, a query or userinfo cannot be
 * rebuilt from one key.
 */
export function curlSource(endpoint: string): '$RPC_CERTIFY_API_KEY' | '$RPC_CERTIFY_URL' {
  return endpoint.includes('://') && endpoint.split('<redacted>').length === 2 && !endpoint.includes('?') ? '$RPC_CERTIFY_API_KEY' : '$RPC_CERTIFY_URL';
}

/** Where the copy-as-curl command takes its URL from, in words for the page. */
export function curlWhere(endpoint: string): string {
  if (!endpoint.includes('://')) return `the whole URL from $RPC_CERTIFY_URL: ${endpoint} stopped when the run ended; \`rpc-certify devnet\` serves one and prints its URL`;
  return curlSource(endpoint) === '$RPC_CERTIFY_URL' ? `the whole URL from $RPC_CERTIFY_URL: ${endpoint}` : 'the key from $RPC_CERTIFY_API_KEY';
}

/** The exchange as a curl command a reader can paste: the key (or the whole URL, curlSource) is read from the environment, never written. */
export function curlText(ev: Evidence, endpoint: string): string {
  const url = curlSource(endpoint) === '$RPC_CERTIFY_URL' ? '${RPC_CERTIFY_URL:?the endpoint URL, key included}' : endpoint.replace('<redacted>', '$RPC_CERTIFY_API_KEY').replace(/["\\`]/g, '\\$&');
  return `curl -sS "${url}" -H 'Content-Type: application/json' --data '${requestText(ev).replaceAll("'", "'\\''")}'`;
}

/** "NOT SERVED: m (all 9 well-formed calls: 9 × error -32601: …); 20 of its 25 checks fail on it", or "not served (expected …)" for a gap the --expect file accounts for. */
export function notServedLine(m: NotServedMethod, expectFile?: string): string {
  const head = m.expected ? `not served (expected: ${expectFile ?? 'the --expect file'} lists its ${m.failedChecks} failure(s))` : 'NOT SERVED';
  const fails = m.expected ? '' : `; ${m.failedChecks} of its ${m.checks} checks fail on it`;
  return `${head}: ${m.method} (all ${m.calls} well-formed calls: ${inert(m.answers.join('; '), 200)})${fails}`;
}

/** The near-head window line: "near-head window: 128 blocks (--near-head-window); archive not served (not judged): m at depth 140 (null); …". */
export function windowLine(report: ConformanceReport): string | undefined {
  const w = report.run.nearHeadWindow;
  if (!w) return undefined;
  const archive = report.summary.archive ?? [];
  const lookups = archive.map((a) => `${a.method} at depth ${a.depth} (${inert(a.answer, 80)}${a.answer === 'served' ? '' : ': archive not served'})`);
  const byNumber = report.checks.filter((c) => c.inapplicable === 'archive').map((c) => c.id);
  const pruned = byNumber.length ? `; ${byNumber.length} check(s) whose lookup by number older than it was answered pruned, left out as archive: ${byNumber.join(', ')}` : '';
  return `near-head window (§8): ${w.blocks} blocks (${w.from}); lookups older than it, not judged: ${lookups.length ? lookups.join('; ') : 'none made'}${pruned}`;
}

/** The spec's methods and the service-wide checks a --methods subset (`methods`, the run's) left out: not certified by it, whatever its verdict. */
export function notCertified(methods: readonly string[]): string[] {
  return [...METHODS, 'history', 'service'].filter((m) => !methods.includes(m));
}

/** What a report's verdict does not cover (reports written before the field: from its methods). */
export function uncertified(report: ConformanceReport): string[] {
  return report.summary.notCertified ?? notCertified(report.run.methods);
}

/** The line that says a verdict covers a subset (red team C7: a one-method run read "PASS" with no word of the other seven). */
export function scopeLine(report: ConformanceReport): string | undefined {
  const left = uncertified(report);
  const certified = METHODS.filter((m) => report.run.methods.includes(m)).length;
  return left.length ? `scope: ${certified} of the spec's ${METHODS.length} methods (--methods); NOT certified by this run: ${left.join(', ')}` : undefined;
}


/** The judged share, first line: "judged: 106 of the 106 fatal checks this chain can have (100%; --min-judged 90%)". */
export function judgedLine(j: JudgedShare): string {
  return `judged: ${j.judged} of the ${j.of} fatal checks this chain can have (${percent(j.share)}; --min-judged ${percent(j.floor)})${j.share < j.floor ? ' BELOW THE FLOOR' : ''}`;
}

/** Per method, "eth_getTransactionReceipt 8/25", the ones short of whole first. */
export function perMethodLine(j: JudgedShare): string {
  const methods = [...j.perMethod].filter((m) => m.of > 0).sort((a, b) => a.judged / a.of - b.judged / b.of);
  return `per method (judged/can have, left out as not on this chain): ${methods.map((m) => `${m.method} ${m.judged}/${m.of}${m.leftOut ? ` (${m.leftOut} left out)` : ''}`).join(', ')}`;
}

/** Groups of checks by reason: "N × reason (id, id, …)". */
export function reasonGroups(groups: Array<{ reason: string; checks: string[] }>, ids = 4): string[] {
  return groups.map((g) => `${g.checks.length} × ${inert(g.reason, 160)} (${g.checks.slice(0, ids).join(', ')}${g.checks.length > ids ? ', …' : ''})`);
}

/** What this chain cannot have, left out of the share, grouped by reason. */
export function inapplicableGroups(j: JudgedShare): Array<{ reason: string; checks: string[] }> {
  const groups = new Map<string, string[]>();
  for (const { id, reason } of j.inapplicable) groups.set(reason, [...(groups.get(reason) ?? []), id]);
  return [...groups].map(([reason, checks]) => ({ reason, checks }));
}

/**
 * What the block-level checks did with the blocks discovery picked, from their results (CheckResult.blocks): per
 * block, how many of them judged it whole; how many blocks every one of them judged whole; the checks short of all.
 */
export function blockCoverage(report: ConformanceReport): { picked: number; checks: number; wholeByAll: number; perBlock: Map<string, number>; short: Array<{ id: string; whole: number; verdict: string }> } {
  const picked = report.targets?.judgedBlocks ?? [];
  const level = report.checks.filter((c) => c.blocks !== undefined);
  const perBlock = new Map(picked.map((b) => [b.hash, level.filter((c) => c.blocks?.whole.includes(b.hash)).length]));
  const short = level.filter((c) => (c.blocks?.whole.length ?? 0) < picked.length).map((c) => ({ id: c.id, whole: c.blocks?.whole.length ?? 0, verdict: c.verdict }));
  return { picked: picked.length, checks: level.length, wholeByAll: [...perBlock.values()].filter((n) => n === level.length && n > 0).length, perBlock, short };
}

/** "blocks judged: 11 picked (…); judged whole by every one of the 28 block-level checks: 4 (fewer: …)", from the checks' results. */
export function blockCoverageText(report: ConformanceReport): string | undefined {
  const judged = report.targets?.judgedBlocks ?? [];
  if (judged.length === 0) return undefined;
  const cov = blockCoverage(report);
  const eras = [...new Set(judged.map((b) => b.era))].join(', ');
  const fewer = cov.short.map((s) => `${s.id} ${s.whole}${s.verdict === 'pass' || s.verdict === 'fail' ? '' : ` (${s.verdict})`}`);
  const unfinished = report.run.deadlineReached ? '; the deadline stopped some checks before they ran: they judged none' : '';
  return `${judged.length} block(s) picked (${eras}); judged whole by every one of the ${cov.checks} block-level checks that ran: ${cov.wholeByAll}${fewer.length ? ` (fewer: ${fewer.slice(0, 6).join(', ')}${fewer.length > 6 ? `, and ${fewer.length - 6} more` : ''})` : ''}${unfinished}`;
}

/** A head lag read as a reader checks it: "the endpoint 5 block(s) (11 s) behind: block 5, the reference 10 (before) to 10 (after)". */
export function headLagText(lag: HeadLag | undefined): string {
  if (!lag) return 'not read';
  const who = lag.behindBlocks > 0 ? `the endpoint ${lag.behindBlocks} block(s) (${lag.behindSeconds} s) behind` : lag.referenceBehindBlocks > 0 ? `the REFERENCE ${lag.referenceBehindBlocks} block(s) (${lag.referenceBehindSeconds} s) behind the endpoint` : 'level';
  return `${who}: endpoint at block ${lag.endpoint}, the reference at ${lag.referenceBefore} before and ${lag.referenceAfter} after`;
}

/** The reference section's lines (terminal, JUnit): the node, the head lag at the start and the end, per-method agreement, each difference with both answers. */
export function referenceLines(ref: ReferenceMeta, differences = 10): string[] {
  const diffs = ref.agreement.flatMap((a) => a.differences.map((d) => `${a.method}: ${d.call}: ${d.path}: ours ${d.ours}, the reference's ${d.reference}${d.why ? ` (${d.why})` : ''}`));
  return [
    `reference: ${ref.endpoint} (chain ${BigInt(ref.chainId)}${ref.clientVersion ? `, ${inert(ref.clientVersion, 80)}` : ''}); head lag allowance ${ref.maxHeadLagS} s (--max-head-lag), ${ref.maxHeadLagBlocks} blocks where blocks come a second or more apart (--max-head-lag-blocks); ${ref.requestCount} request(s) to it`,
    ...(ref.failed ? [`REFERENCE FAILED during the run: ${inert(ref.failed, 200)}: the checks that needed it after that are inconclusive (not blamed on the endpoint)`] : []),
    `head lag at the start: ${headLagText(ref.headLag.start)}`,
    `head lag at the end: ${headLagText(ref.headLag.end)}`,
    `agreement (calls agreeing of those compared): ${ref.agreement.length ? ref.agreement.map((a) => `${a.method} ${a.agreed}/${a.compared}${a.notCompared.length ? ` (+${a.notCompared.length} not compared)` : ''}`).join(', ') : 'nothing compared'}`,
    ...diffs.slice(0, differences).map((d) => `DIFFERS ${inert(d, 400)}`),
    ...(diffs.length > differences ? [`… and ${diffs.length - differences} more difference(s) (conformance.json, run.reference)`] : []),
  ];
}

/** The budget the run was paced at (--rate-limit), and what it cost. */
export function rateLimitLine(report: ConformanceReport): string | undefined {
  const r = report.run.rateLimit;
  return r ? `  rate limit: paced at ${r.perS} requests a second (--rate-limit); its requests were held for the budget ${(r.pacedMs / 1000).toFixed(1)} s of the run` : undefined;
}

/** How deep each kind of history is served (the history/* checks), and whether that was judged: "history served: blocks …". */
export function historyLines(report: ConformanceReport): string[] {
  const found = report.checks.filter((c) => c.history);
  if (!found.length) return [];
  const verdict = (c: ConformanceReport['checks'][number]) =>
    c.history?.declared ? `${c.verdict === 'pass' ? 'as declared' : c.verdict.toUpperCase()}: ${c.history.declared.from} keeps it from block ${c.history.declared.oldestBlock}` : c.inapplicable === 'no-declared-depth' ? 'not judged: nothing declares it' : c.verdict;
  return [
    '  history served (found by a search over heights; eth_capabilities and the near-head window are what is declared):',
    ...found.map((c) => `    ${c.history!.resource}: ${inert(depthText(c.history!), 240)}; ${verdict(c)}${c.history!.moving ? `; THE BOUNDARY MOVES: ${inert(c.history!.moving, 200)}` : ''}`),
  ];
}

/** The reorgs the run saw, and the checks it ran again because one took their targets away: said whenever there was one. */
export function reorgLines(report: ConformanceReport): string[] {
  const r = report.run.reorgs;
  if (!r) return [];
  return [
    `  reorgs: the run saw ${r.seen.length} height(s) under more than one hash${r.seen.length ? ` (${r.seen.map((x) => `block ${BigInt(x.number)}`).join(', ')})` : ''}${report.checks.some((c) => c.id === 'service/after-reorg' && c.verdict === 'skip') ? ', after service/after-reorg had run: what was served after them is NOT JUDGED' : ''}`,
    ...(r.reruns ?? []).map((why) => `    ${why}`),
  ];
}
