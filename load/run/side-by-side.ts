// Several endpoints load-tested side by side (load --url a=URL --url b=URL …): the same corpus, rate and duration
// against each, one after another by default, so they never compete for this machine's CPU. The corpus is sampled
// once, from the first endpoint that serves one (or read from --corpus), its compared answers voted among the
// endpoints (corpus-vote.ts), and replayed against each, held to its own answers; each
// endpoint's own reports go to <out>/endpoints/<name>/, and one report (load.json, load.html, load.junit.xml) puts
// them in one table and one chart.
import { join, relative } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { writeFileAtomic } from '../../core/node/atomic.ts';
import { EXIT } from '../../core/node/errors.ts';
import { LOAD_FILES } from '../../core/report-files.ts';
import { redact, redactUrl } from '../../core/redact.ts';
import { type ChainRead, endpointDir, type NamedEndpoint, readChains, runChain, type RunChain } from '../../core/node/side-by-side.ts';
import { RpcClient } from '../../core/node/rpc-client.ts';
import { readReport } from '../report/report.ts';
import { assembleLoadSideBySide, type EndpointLoad, voteText, loadSideBySideFaults, loadSideBySideHtml, loadSideBySideJunit, loadSideBySideSummary } from '../report/side-by-side.ts';
import { expectedFailures, type LoadOptions, type LoadOutcome, prepareTest, readCorpus, runLoad, stderrLog, usage, writeCorpus } from './run.ts';
import { voteCorpus } from './corpus-vote.ts';
import type { Corpus } from '../shared/corpus.ts';

/** Why an endpoint is not measured: it gave no chain, serves another than the run's, or not the one --network names. */
function refusal(r: ChainRead, chain: RunChain | undefined, network: LoadOptions['network']): string | undefined {
  if (r.error !== undefined || r.chainId === undefined) return `it gave no chain id and head at the start (${r.error ?? 'no answer'})`;
  if (network && BigInt(network.chainId) !== BigInt(r.chainId)) return `--network ${network.name} is chain ${BigInt(network.chainId)}, it serves chain ${BigInt(r.chainId)}`;
  return chain?.others.get(r.name);
}

export async function runLoadSideBySide(opts: Omit<LoadOptions, 'url' | 'endpointName'>, endpoints: readonly NamedEndpoint[]): Promise<LoadOutcome> {
  if (opts.baseline) usage('--baseline judges one endpoint against its own earlier runs: side by side, run each endpoint alone with its baseline');
  if (opts.profile === 'capacity') usage('--profile capacity steps one endpoint to its limit: side by side, run each endpoint alone (the others would measure this machine, not the endpoint)');
  const createdAt = new Date().toISOString();
  // The chain most endpoints serve is the run's: an endpoint on another (or on no chain --network names, or that gives
  // none) is not usable, never measured against a corpus of a chain it does not serve; the corpus comes from the chain.
  const clients = new Map(endpoints.map((e) => [e.name, new RpcClient({ url: e.url, timeoutMs: 10_000, ...(opts.signal ? { signal: opts.signal } : {}) })]));
  const reads = await readChains(clients).finally(() => clients.forEach((c) => c.close()));
  const chain = runChain(reads);
  const refused = new Map(reads.map((r) => [r.name, refusal(r, chain, opts.network)]));
  const usable = endpoints.filter((e) => !refused.get(e.name));
  const log = opts.log ?? stderrLog;
  // The corpus, once, before any endpoint is measured: sampled from the first usable endpoint that gives one (or read
  // from --corpus); an endpoint whose sampling failed is not measured, with why.
  const failed = new Map<string, LoadOutcome>();
  let sampled: { corpus: Corpus; from?: string } | undefined;
  for (const e of opts.corpus ? [undefined] : usable) {
    if (opts.signal?.aborted) break;
    if (e) log(`load: sampling the corpus from ${e.name}`);
    const outcome = await expectedFailures(
      'load',
      async () => {
        sampled = e ? { corpus: (await (await prepareTest({ ...opts, url: e.url }, 1)).corpus(log, opts.signal)).corpus, from: e.name } : { corpus: await readCorpus(opts) };
        return { exitCode: EXIT.pass, reportPaths: [], summary: '' };
      },
      opts.signal,
    );
    if (sampled) break;
    if (!e) return outcome;
    failed.set(e.name, outcome);
  }
  // Every endpoint held to its own answers, the majority's verdict on them a finding at sampling (corpus-vote.ts).
  const voters = usable.filter((e) => !failed.has(e.name));
  const voted = sampled && !opts.signal?.aborted ? await voteCorpus(sampled.corpus, voters, sampled.from, { ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}) }) : undefined;
  if (voted) log(`load: the corpus's compared answers asked of ${voters.length} endpoint(s): ${voteText(voted.vote)}`);
  const corpusFrom = sampled?.from ?? opts.corpus;
  const runs: EndpointLoad[] = [];
  for (const e of endpoints) {
    if (opts.signal?.aborted) {
      runs.push({ name: e.name, endpoint: redactUrl(e.url), exitCode: EXIT.interrupted, failed: `not run: interrupted by ${String(opts.signal.reason)} before its turn` });
      continue;
    }
    const why = refused.get(e.name);
    const own = voted?.corpora.get(e.name);
    if (why || !own) {
      const failure = failed.get(e.name);
      runs.push({ name: e.name, endpoint: redactUrl(e.url), exitCode: why ? EXIT.unusable : (failure?.exitCode ?? EXIT.unusable), failed: redact(why ? `not usable: ${why}` : `not measured: ${failure?.summary ?? 'no corpus to replay'}`) });
      continue;
    }
    const dir = endpointDir(opts.out, e.name);
    const corpus = join(dir, LOAD_FILES.corpus);
    await mkdir(dir, { recursive: true });
    await writeCorpus(corpus, own);
    log(`load: endpoint ${e.name}, replaying the corpus ${sampled?.from ? `sampled from ${sampled.from}` : opts.corpus} with its own compared answers`);
    // A replayed corpus holds its own seed, misses, targets and window: the options that shape sampling are spent.
    const { seed: _s, missShare: _m, targets: _t, nearHeadWindow: _w, corpus: _c, ...replay } = opts;
    const outcome = await runLoad({ ...replay, corpus, url: e.url, endpointName: e.name, out: dir });
    const json = outcome.reportPaths.find((p) => p.endsWith(LOAD_FILES.json));
    const report = json ? await readReport(json).catch(() => undefined) : undefined;
    runs.push({ name: e.name, endpoint: redactUrl(e.url), exitCode: outcome.exitCode, ...(json ? { path: relative(opts.out, json) } : {}), ...(report ? { report } : { failed: redact(outcome.summary) }) });
  }
  const report = assembleLoadSideBySide(runs, opts.profile, corpusFrom, createdAt, chain?.tie, voted?.vote);
  const faults = loadSideBySideFaults(report);
  if (faults.length) throw new Error(`harness bug: the side-by-side load report does not match schemas/files/load-side-by-side.json:\n  ${faults.join('\n  ')}`);
  await mkdir(opts.out, { recursive: true });
  const paths = [join(opts.out, LOAD_FILES.json), join(opts.out, LOAD_FILES.html), join(opts.out, LOAD_FILES.junit)];
  await writeFileAtomic(paths[0]!, `${JSON.stringify(report, null, 2)}\n`);
  await writeFileAtomic(paths[1]!, loadSideBySideHtml(report));
  await writeFileAtomic(paths[2]!, loadSideBySideJunit(runs));
  return { exitCode: report.summary.exitCode, reportPaths: paths, summary: loadSideBySideSummary(report, paths) };
}
