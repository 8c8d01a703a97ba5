// The load report of several endpoints side by side (run/side-by-side.ts): the same corpus, rate and duration against
// each, one after another. One table per method (p50/p95/p99, failures, wrong answers, stale fresh reads per endpoint),
// one chart (p95 per method, a bar per endpoint), the best endpoint per method and by how much (or that their p95
// intervals overlap: not told apart), and every reason each did not pass. Each endpoint's own load.json/html beside.
import schema from '../../schemas/files/load-side-by-side.json' with { type: 'json' };
import { escapeHtml as esc } from '../../core/inert.ts';
import { newJunitBuilder } from '../../core/node/junit.ts';
import { schemaFaults } from '../../core/node/schema-faults.ts';
import { EXIT } from '../../core/node/errors.ts';
import type { ReportHeader } from '../../core/report-header.ts';
import { decide } from './verdict.ts';
import { groupedBars, PALETTE } from './svg.ts';
import type { LoadReport } from '../shared/load-report.ts';
import { STYLE } from './style.ts';
import { AGREE_BY_CONSTRUCTION } from '../../core/vote.ts';

export type EndpointLoadVerdict = LoadReport['verdict'] | 'unusable';

/** Worst last: the run's verdict and exit code are its worst endpoint's. */
const RANK: readonly EndpointLoadVerdict[] = ['pass', 'measured', 'inconclusive', 'unusable', 'fail', 'incomplete'];

export interface LoadRow {
  name: string;
  requests: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  /** p95's interval (intervals.ts), where the sample bounds one. */
  p95Interval?: [number, number];
  failureRate: number;
  wrong: number;
  /** Entries answered wrong before the run (findings at sampling: outvoted by the majority, say). */
  wrongAtSampling?: number;
  fresh?: { requests: number; stale: number; staleRate: number };
}

/** A method's fastest endpoint: `apart` when told apart from the next; `tie`, `noInterval` (too few answers for a p95 interval), `alone` (the others failed or answered wrong). */
export interface Best {
  name: string;
  p95: number;
  than?: string;
  byMs?: number;
  ratio?: number;
  apart: boolean;
  tie?: true;
  noInterval?: true;
  alone?: true;
}

export interface LoadSideBySide extends ReportHeader<'rpc-certify-load-side-by-side', 1> {
  createdAt: string;
  profile: string;
  /** The endpoint whose sampling gave every run its corpus, or the --corpus file. */
  corpusFrom?: string;
  /** As many endpoints served another chain as the one measured: the first endpoint's was taken. */
  chainTie?: string;
  /** The corpus's compared answers asked of every usable endpoint before any was measured (run/corpus-vote.ts). */
  vote?: CorpusVote;
  summary: { verdict: EndpointLoadVerdict; exitCode: number; worst: string[] };
  endpoints: Array<{ name: string; endpoint: string; verdict: EndpointLoadVerdict; exitCode: number; reasons: string[]; report?: string }>;
  methods: Array<{ method: string; rows: LoadRow[]; best?: Best }>;
}

/** One endpoint in the vote on the corpus's compared answers (run/corpus-vote.ts). */
export interface EndpointVote {
  name: string;
  /** Distinct entries on which the majority outvoted it (each a finding at sampling in its own report). */
  outvoted: number;
  /** Distinct entries where it answered other than what was asked (a transaction of another index, say): findings too. */
  outside: number;
  /** Distinct entries with a field on which no value had a majority, its own among the tied ones. */
  tied: number;
  tieExample?: string;
  /** Distinct entries it gave no value for (null, an error, no answer, near the head another block than sampled). */
  unanswered: number;
  unansweredExample?: string;
  /** Distinct entries it answered with a value that no other endpoint did: held against no one. */
  alone: number;
  aloneExample?: string;
}

/**
 * What the vote on the corpus's compared answers found. An outvoted endpoint (or one answering other than asked) has a
 * finding at sampling, which fails its run; one in a tie, or that gave no value to vote with, was not judged against
 * the others: side by side it is inconclusive at best.
 */
export interface CorpusVote {
  /** own: each endpoint held under load to its own answers; recorded: to the corpus file's (--corpus). */
  held: 'own' | 'recorded';
  /** Distinct compared entries that two or more endpoints answered with a value. */
  compared: number;
  /** Of those, where some field had no majority (as many endpoints serving each value): no side picked. */
  noMajority: number;
  /** Ctrl-C during the vote: what it had not asked is not counted against anyone. */
  interrupted?: true;
  endpoints: EndpointVote[];
}

/** The vote in one line: how much was compared, who was outvoted, what had no majority, what was not answered. */
export function voteText(v: CorpusVote): string {
  const counted = (n: number, what: string) => (n ? [`${n} ${what}`] : []);
  const per = v.endpoints.flatMap((e) => {
    const said = [...counted(e.outvoted, 'outvoted'), ...counted(e.outside, 'not what was asked'), ...counted(e.tied, 'in a tie'), ...counted(e.unanswered, 'with no value'), ...counted(e.alone, 'alone with a value')];
    return said.length ? [`${e.name}: ${said.join(', ')}`] : [];
  });
  return `${v.compared} compared answer(s) voted field by field among ${v.endpoints.map((e) => e.name).join(', ')}${v.interrupted ? ' (interrupted: what was not asked counts against no one)' : ''}: ${per.length ? per.join('; ') : 'every endpoint with the majority'}; ${v.noMajority} without a majority on some field (no side picked); each endpoint held under load to ${v.held === 'own' ? 'its own answers' : "the corpus file's answers"} (${AGREE_BY_CONSTRUCTION})`;
}

/** An endpoint's part in the vote, where the vote counts (not cut short by Ctrl-C). */
const votedOf = (vote: CorpusVote | undefined, name: string): EndpointVote | undefined => (vote?.interrupted ? undefined : vote?.endpoints.find((e) => e.name === name));

/** Why the vote leaves an endpoint unjudged against the others: it cannot pass side by side. */
export function voteDoubts(v: EndpointVote): string[] {
  return [
    ...(v.tied ? [`the corpus vote: ${v.tied} compared answer(s) with no majority, e.g. ${v.tieExample ?? ''}: one of the endpoints deviates, and the vote cannot tell which`] : []),
    ...(v.unanswered ? [`the corpus vote: ${v.unanswered} compared answer(s) given no value, e.g. ${v.unansweredExample ?? ''}: never held against the other endpoints' answers`] : []),
    ...(v.alone ? [`the corpus vote: ${v.alone} compared answer(s) no other endpoint gave a value for, e.g. ${v.aloneExample ?? ''}: held against no one`] : []),
  ];
}

export interface EndpointLoad {
  name: string;
  endpoint: string;
  exitCode: number;
  /** Its load.json, relative to the side-by-side report. */
  path?: string;
  report?: LoadReport;
  /** Why it has no report (a usage error, an endpoint not usable, no k6). */
  failed?: string;
}

export function assembleLoadSideBySide(runs: readonly EndpointLoad[], profile: string, corpusFrom: string | undefined, createdAt: string, chainTie?: string, vote?: CorpusVote): LoadSideBySide {
  const endpoints = runs.map((r) => {
    const own: EndpointLoadVerdict = r.exitCode === EXIT.unusable ? 'unusable' : (r.report?.verdict ?? (r.exitCode === EXIT.interrupted ? 'incomplete' : 'unusable'));
    // Its own run passed, but the vote could not hold some of its answers against the others': not a pass side by side.
    const voted = votedOf(vote, r.name);
    const doubts = r.report && own === 'pass' && voted ? voteDoubts(voted) : [];
    return {
      name: r.name,
      endpoint: r.endpoint,
      verdict: doubts.length ? ('inconclusive' as const) : own,
      exitCode: doubts.length ? EXIT.inconclusive : r.exitCode,
      reasons: [...(r.report ? (r.report.reasons ?? []) : [r.failed ?? 'no report']), ...doubts],
      ...(r.path ? { report: r.path } : {}),
    };
  });
  const unjudged = new Set(endpoints.filter((e) => e.verdict === 'inconclusive').map((e) => e.name));
  const verdict = endpoints.reduce<EndpointLoadVerdict>((w, e) => (RANK.indexOf(e.verdict) > RANK.indexOf(w) ? e.verdict : w), 'pass');
  const worst = endpoints.filter((e) => e.verdict === verdict);
  const methods = [...new Set(runs.flatMap((r) => Object.keys(r.report?.methods ?? {})))].map((method) => {
    const rows = runs.flatMap((r): LoadRow[] => {
      const m = r.report?.methods[method];
      if (!m) return [];
      const fresh = r.report?.freshness?.methods[method];
      const p95i = m.latencyIntervals?.p95;
      const atSampling = (r.report?.corpus.methods?.[method]?.findings ?? []).filter((f) => f.cls === 'wrong').reduce((a, f) => a + f.count, 0);
      return [{ name: r.name, requests: m.requests, p50: m.latencyMs?.p50 ?? null, p95: m.latencyMs?.p95 ?? null, p99: m.latencyMs?.p99 ?? null, ...(p95i ? { p95Interval: p95i } : {}), failureRate: m.failureRate, wrong: m.classes.wrong ?? 0, ...(atSampling ? { wrongAtSampling: atSampling } : {}), ...(fresh ? { fresh: { requests: fresh.requests, stale: fresh.stale, staleRate: fresh.staleRate } } : {}) }];
    });
    // An endpoint the vote could not judge is not recommended, however fast.
    const best = bestOf(rows.filter((x) => !unjudged.has(x.name)), runs.find((r) => r.report)?.report?.plan.slo.maxFailureRate ?? 0, rows.length);
    return { method, rows, ...(best ? { best } : {}) };
  });
  return {
    kind: 'rpc-certify-load-side-by-side',
    schemaVersion: 1,
    harness: runs.find((r) => r.report)?.report?.harness ?? { name: 'rpc-certify', version: 'unknown' },
    createdAt,
    profile,
    ...(corpusFrom ? { corpusFrom } : {}),
    ...(chainTie ? { chainTie } : {}),
    ...(vote ? { vote } : {}),
    summary: { verdict, exitCode: worst[0]?.exitCode ?? 2, worst: worst.map((e) => e.name) },
    endpoints,
    methods,
  };
}

/**
 * The fastest at p95 among those that answered without a wrong answer and within the failure limit, and by how much
 * ahead of the next: told apart only where both p95 intervals are known and do not overlap (else the difference may be
 * the run's noise). Equal p95s are a tie, never a winner.
 */
function bestOf(rows: LoadRow[], maxFailureRate: number, measured: number): LoadSideBySide['methods'][number]['best'] {
  const ranked = rows.filter((r): r is LoadRow & { p95: number } => r.p95 !== null && r.wrong === 0 && !r.wrongAtSampling && r.failureRate <= maxFailureRate).sort((a, b) => a.p95 - b.p95);
  const [first, second] = ranked;
  if (!first) return undefined;
  if (!second) return { name: first.name, p95: first.p95, apart: false, ...(ranked.length < measured ? { alone: true } : {}) };
  if (second.p95 === first.p95) return { name: first.name, p95: first.p95, than: second.name, byMs: 0, ratio: 1, apart: false, tie: true };
  const apart = first.p95Interval !== undefined && second.p95Interval !== undefined && first.p95Interval[1] < second.p95Interval[0];
  return { name: first.name, p95: first.p95, than: second.name, byMs: round(second.p95 - first.p95), ratio: first.p95 > 0 ? round(second.p95 / first.p95) : 0, apart, ...(first.p95Interval && second.p95Interval ? {} : { noInterval: true }) };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The schema faults of a side-by-side load report as written; empty when valid. */
export const loadSideBySideFaults = schemaFaults(schema);

const wrongText = (x: LoadRow) => `${x.wrong}${x.wrongAtSampling ? ` (+${x.wrongAtSampling} at sampling)` : ''}`;
const ms = (n: number | null) => (n === null ? '–' : `${round(n)} ms`);
const pct = (n: number) => `${round(n * 100)}%`;

function bestText(b: Best): string {
  if (!b.than) return `${b.name} (${ms(b.p95)} p95; ${b.alone ? 'the only one judged, without a wrong answer or failures over the limit' : 'the only one measured'})`;
  if (b.tie) return `${b.name} and ${b.than} tied at ${ms(b.p95)} p95`;
  const why = b.apart ? '' : b.noInterval ? ' (too few answers for a p95 interval: not told apart)' : ' (their p95 intervals overlap: not told apart)';
  return `${b.name}: ${ms(b.p95)} p95, ${b.byMs} ms (x${b.ratio}) ahead of ${b.than}${why}`;
}

export function loadSideBySideSummary(r: LoadSideBySide, paths: string[]): string {
  const width = Math.max(8, ...r.endpoints.map((e) => e.name.length));
  return [
    `load side by side (${r.profile}): ${r.summary.verdict.toUpperCase()}  (${r.endpoints.length} endpoints, one after another${r.corpusFrom ? `, the corpus sampled from ${r.corpusFrom}: a wrong answer is one that differs from the endpoint's own answer before the run` : ''}; the worst: ${r.summary.worst.join(', ')})`,
    ...(r.chainTie ? [`  ${r.chainTie}`] : []),
    ...(r.vote ? [`  the corpus: ${voteText(r.vote)}`] : []),
    ...r.endpoints.map((e) => `  ${e.name.padEnd(width)} ${e.verdict.toUpperCase().padEnd(12)} ${e.reasons.length ? `${e.reasons.slice(0, 3).join('; ')}${e.reasons.length > 3 ? `; +${e.reasons.length - 3} more` : ''}` : 'every limit held'}`),
    '  per method, p50 / p95 / p99, failures, wrong answers:',
    ...r.methods.flatMap((m) => [`    ${m.method}${m.best ? `: best ${bestText(m.best)}` : ''}`, ...m.rows.map((x) => `      ${x.name.padEnd(width)} ${ms(x.p50)} / ${ms(x.p95)} / ${ms(x.p99)}, ${pct(x.failureRate)} failed, ${wrongText(x)} wrong${x.fresh ? `, ${x.fresh.stale} of ${x.fresh.requests} fresh reads stale` : ''}`)]),
    `  reports: ${paths.join('\n           ')}`,
  ].join('\n');
}

/** One suite per endpoint, its decision's checks as test cases (load.junit.xml's, named by endpoint). */
export function loadSideBySideJunit(runs: readonly EndpointLoad[], vote?: CorpusVote): string {
  const builder = newJunitBuilder().name('rpc-certify load side by side');
  for (const run of runs) {
    const suite = builder.testSuite().name(run.name);
    if (!run.report) {
      suite.testCase().className(`${run.name}.run`).name('endpoint measured').failure(run.failed ?? 'no report');
      continue;
    }
    const voted = votedOf(vote, run.name);
    if (voted) {
      const c = suite.testCase().className(`${run.name}.vote`).name("its compared answers held against the other endpoints' (the corpus vote)");
      const doubts = voteDoubts(voted);
      if (voted.outvoted || voted.outside) c.failure(`${voted.outvoted} outvoted, ${voted.outside} not what was asked (findings at sampling, in its own report)`);
      else if (doubts.length) c.error(doubts.join('; '));
    }
    for (const check of decide(run.report).checks) {
      const c = suite.testCase().className(`${run.name}.${check.className}`).name(check.name);
      if (check.failure !== undefined) c.failure(check.failure);
      else if (check.inconclusive !== undefined) c.error(check.inconclusive);
      else if (check.skipped !== undefined) c.skipped().standardOutput(check.skipped);
    }
  }
  return builder.build();
}

export function loadSideBySideHtml(r: LoadSideBySide): string {
  const names = r.endpoints.map((e) => e.name);
  const color = (name: string) => PALETTE[names.indexOf(name) % PALETTE.length]!;
  const chart = groupedBars({ groups: r.methods.map((m) => ({ label: m.method, bars: m.rows.filter((x) => x.p95 !== null).map((x) => ({ name: x.name, value: x.p95!, color: color(x.name) })) })), unit: 'ms' });
  const rows = r.methods.flatMap((m) =>
    m.rows.map((x, i) => `<tr>${i === 0 ? `<th rowspan="${m.rows.length}"><code>${esc(m.method)}</code>${m.best ? `<div class="muted">best: ${esc(bestText(m.best))}</div>` : ''}</th>` : ''}<td><span style="color:${color(x.name)}">■</span> ${esc(x.name)}</td><td class="num">${ms(x.p50)}</td><td class="num">${ms(x.p95)}</td><td class="num">${ms(x.p99)}</td><td class="num">${x.requests}</td><td class="num">${pct(x.failureRate)}</td><td class="num">${wrongText(x)}</td><td class="num">${x.fresh ? `${x.fresh.stale} of ${x.fresh.requests}` : '–'}</td></tr>`),
  );
  const endpoints = r.endpoints.map((e) => `<tr><th>${e.report ? `<a href="${esc(e.report.replace(/\.json$/, '.html'))}">${esc(e.name)}</a>` : esc(e.name)}</th><td>${esc(e.endpoint)}</td><td><b>${esc(e.verdict.toUpperCase())}</b></td><td>${e.reasons.length ? `<ul>${e.reasons.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : '<span class="muted">none</span>'}</td></tr>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>rpc-certify load: ${r.endpoints.length} endpoints side by side: ${esc(r.summary.verdict.toUpperCase())}</title><style>${STYLE}</style></head><body><main>
<h1>Load side by side: ${esc(r.summary.verdict.toUpperCase())}</h1>
<p class="muted">${esc(r.createdAt)} · profile ${esc(r.profile)} · the same corpus${r.corpusFrom ? ` (sampled from ${esc(r.corpusFrom)})` : ''}, rate and duration against each, one after another · the worst: ${esc(r.summary.worst.join(', '))}</p>
${r.vote ? `<p class="${r.vote.endpoints.some((e) => e.outvoted || e.outside || e.tied || e.unanswered || e.alone) ? 'why fail' : 'muted'}"><b>The corpus's answers, voted:</b> ${esc(voteText(r.vote))}</p>` : ''}
<h2>p95 per method</h2>${chart}
<h2>Per method</h2><table><thead><tr><th>method</th><th>endpoint</th><th>p50</th><th>p95</th><th>p99</th><th>requests</th><th>failed</th><th>wrong</th><th>stale fresh reads</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>
<h2>Endpoints <span class="muted">every reason each did not pass</span></h2><table><thead><tr><th>endpoint</th><th>address</th><th>verdict</th><th>reasons</th></tr></thead><tbody>${endpoints.join('\n')}</tbody></table>
</main></body></html>
`;
}
