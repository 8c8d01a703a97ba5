// Several endpoints load-tested side by side (load --url a=URL --url b=URL …): the same corpus, rate and duration
// against each, one after another by default, so they never compete for this machine's CPU. The corpus is sampled
// once, before any is measured, from the first endpoint whose sampling is clean (else the best; or read from
// --corpus), its compared answers voted among the endpoints (corpus-vote.ts), and replayed against each; each
// endpoint's own reports go to <out>/endpoints/<name>/, and one report (load.json, load.html, load.junit.xml) puts
// them in one table and one chart.
import { join, relative, resolve, sep } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { writeFileAtomic } from '../../core/node/atomic.ts';
import { EXIT, failureOf } from '../../core/node/errors.ts';
import { LOAD_FILES } from '../../core/report-files.ts';
import { redact, redactUrl } from '../../core/redact.ts';
import { type ChainRead, endpointDir, ENDPOINTS_DIR, type NamedEndpoint, readChains, runChain, type RunChain } from '../../core/node/side-by-side.ts';
import { RpcClient } from '../../core/node/rpc-client.ts';
import { readReport } from '../report/report.ts';
import { assembleLoadSideBySide, type EndpointLoad, voteText, loadSideBySideFaults, loadSideBySideHtml, loadSideBySideJunit, loadSideBySideSummary } from '../report/side-by-side.ts';
import { type LoadOptions, type LoadOutcome, prepareTest, readCorpus, runLoad, stderrLog, usage, writeCorpus } from './run.ts';
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
  const failed = new Map<string, LoadOutcome>();
  if (opts.corpus && resolve(opts.corpus).startsWith(`${resolve(opts.out, ENDPOINTS_DIR)}${sep}`)) {
    usage(`--corpus ${opts.corpus} is in the folder this run writes each endpoint's reports and corpus to (${join(opts.out, ENDPOINTS_DIR)}): copy it elsewhere first`);
  }
  const sampled: { corpus: Corpus; from?: string } | undefined = opts.corpus ? { corpus: await readCorpus(opts) } : await sampleOnce(opts, usable, failed, log);
  // Every endpoint's answers voted, each held to its own (or the file's); the majority's verdict a finding at sampling.
  const voters = usable.filter((e) => !failed.has(e.name));
  const voted = sampled && !opts.signal?.aborted ? await voteCorpus(sampled.corpus, voters, { ...(sampled.from ? { sampler: sampled.from } : { fromFile: true }), ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}) }) : undefined;
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
    log(`load: endpoint ${e.name}, replaying the corpus ${sampled?.from ? `sampled from ${sampled.from} with its own compared answers` : opts.corpus}`);
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
  await writeFileAtomic(paths[2]!, loadSideBySideJunit(runs, voted?.vote));
  return { exitCode: report.summary.exitCode, reportPaths: paths, summary: loadSideBySideSummary(report, paths) };
}

/**
 * The corpus, sampled once before any endpoint is measured: from the first usable endpoint whose sampling serves every
 * method without a finding, else the one that did best (a first endpoint that refuses a method would leave it
 * unasked of every other). An endpoint whose sampling failed is not measured, with why; a usage error ends the run.
 */
async function sampleOnce(opts: Omit<LoadOptions, 'url' | 'endpointName'>, usable: readonly NamedEndpoint[], failed: Map<string, LoadOutcome>, log: (line: string) => void): Promise<{ corpus: Corpus; from: string } | undefined> {
  let best: { corpus: Corpus; from: string; flaws: number } | undefined;
  for (const e of usable) {
    if (opts.signal?.aborted) return undefined;
    log(`load: sampling the corpus from ${e.name}`);
    try {
      const corpus = (await (await prepareTest({ ...opts, url: e.url }, 1)).corpus(log, opts.signal)).corpus;
      const sampling = Object.values(corpus.sampling);
      const notServed = sampling.filter((m) => m.status === 'not served').length;
      const findings = sampling.reduce((a, m) => a + m.findings.length, 0);
      // A method not served weighs more than any number of findings.
      const flaws = notServed * 1_000_000 + findings;
      if (!best || flaws < best.flaws) best = { corpus, from: e.name, flaws };
      if (flaws === 0) break;
      log(`load: the corpus sampled from ${e.name} has ${notServed} method(s) not served and ${findings} finding(s): sampling from the next endpoint too, the best corpus kept`);
    } catch (err) {
      const failure = failureOf(err);
      if (failure.kind === 'usage' || failure.kind === 'unexpected') throw err;
      if (failure.kind === 'interrupted' || opts.signal?.aborted) return undefined;
      failed.set(e.name, { exitCode: failure.exitCode, reportPaths: [], summary: redact(`load: ${failure.message}`) });
    }
  }
  return best && { corpus: best.corpus, from: best.from };
}
