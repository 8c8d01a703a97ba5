// Load side by side votes the corpus's compared answers before anything is measured (load/run/corpus-vote.ts): the
// endpoint the majority outvotes, or that answers other than asked, has a finding at sampling; every endpoint is held to
// its own answer (another client's optional field is no wrong answer), or to a corpus file's; a tie picks no side and,
// like an answer never given, leaves the endpoint unjudged (report: inconclusive); the sampler's findings stay its own.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { voteCorpus } from '../../load/run/corpus-vote.ts';
import { answerDigest } from '../../load/shared/answer.ts';
import { boundsOf } from '../../load/shared/bounds.ts';
import { sha256Hex } from '../../core/node/fingerprint.ts';
import { registerUrlSecrets } from '../../core/redact.ts';
import type { Corpus, CorpusEntry } from '../../load/shared/corpus.ts';
import { assembleLoadSideBySide, type EndpointVote } from '../../load/report/side-by-side.ts';
import type { LoadReport } from '../../load/shared/load-report.ts';

const TX = `0x${'ab'.repeat(32)}`;
const OTHER_TX = `0x${'cd'.repeat(32)}`;
const receipt = (extra: Record<string, unknown> = {}) => ({ transactionHash: TX, blockHash: `0x${'11'.repeat(32)}`, blockNumber: '0x5', status: '0x1', effectiveGasPrice: '0x3b9aca00', logs: [], ...extra });
const clean = (name: string, more: Partial<EndpointVote> = {}): EndpointVote => ({ name, outvoted: 0, outside: 0, tied: 0, unanswered: 0, alone: 0, ...more });

describe('load side by side: the corpus voted among the endpoints before the run (corpus-vote.ts)', function () {
  const servers: Server[] = [];
  /** An endpoint answering from `tables[method]` by the first param (null for any other); `first503`: each call's first ask answered HTTP 503. */
  const serve = async (tables: Record<string, Record<string, unknown>>, first503 = false): Promise<{ name: string; url: string }> => {
    const seen = new Set<string>();
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString())).on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string; params: string[] };
        const key = JSON.stringify([call.method, call.params]);
        if (first503 && !seen.has(key)) return void (seen.add(key), res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>busy</h1>'));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: tables[call.method]?.[call.params[0]!] ?? null }));
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { name: `e${servers.length}`, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/vote-test-key` };
  };
  const receipts = (answers: Record<string, unknown>) => ({ eth_getTransactionReceipt: answers });
  after(() => servers.forEach((s) => (s.closeAllConnections(), s.close())));

  const entry = (params: unknown[], answer: unknown, more: Partial<CorpusEntry> = {}): CorpusEntry => ({ params, note: 'tx type 0x2', kind: 'hit', answer: answerDigest(answer, sha256Hex), reply: 'sampler-bytes', shaped: true, settled: true, ...more });
  const corpusOf = (entries: Partial<Corpus['entries']>): Corpus =>
    ({
      version: 3,
      seed: 1,
      missShare: 0.1,
      chainId: '0x1',
      head: '0x10',
      blocksSampled: 4,
      targetHead: { head: '0x10', behindReference: 0, wentBack: 0 },
      entries,
      sampling: Object.fromEntries(Object.keys(entries).map((m) => [m, { status: 'not served', reason: 'the sampler', tried: { hit: 2 }, correct: { hit: 2 }, rejected: {}, findings: [{ kind: 'miss', cls: 'ok', count: 1, example: "the sampler's own" }] }])),
    }) as unknown as Corpus;

  it('the one the majority outvotes has a finding naming the field; the others are held to their own answers, another client\'s extra field no wrong answer', async () => {
    const sampler = await serve(receipts({ [TX]: receipt(), [OTHER_TX]: receipt({ transactionHash: OTHER_TX }) }));
    // Another client: an extra field on every receipt, the same values otherwise.
    const other = await serve(receipts({ [TX]: receipt({ l1Fee: '0x1' }), [OTHER_TX]: receipt({ transactionHash: OTHER_TX, l1Fee: '0x1' }) }));
    const corrupt = await serve(receipts({ [TX]: receipt({ effectiveGasPrice: '0x3b9aca01' }), [OTHER_TX]: receipt({ transactionHash: OTHER_TX }) }));
    const corpus = corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt()), entry([OTHER_TX], receipt({ transactionHash: OTHER_TX })), entry([TX], receipt())] });
    const { corpora, vote } = await voteCorpus(corpus, [sampler, other, corrupt], { sampler: sampler.name });
    expect(vote).to.deep.equal({ held: 'own', compared: 2, noMajority: 0, endpoints: [clean(sampler.name), clean(other.name), clean(corrupt.name, { outvoted: 1 })] });

    const own = corpora.get(sampler.name)!;
    expect(own.entries.eth_getTransactionReceipt, 'the sampler keeps its entries as sampled').to.deep.equal(corpus.entries.eth_getTransactionReceipt);
    expect(own.targetHead, 'its own lag').to.deep.equal(corpus.targetHead);
    expect(own.sampling.eth_getTransactionReceipt?.findings.map((f) => f.example)).to.deep.equal(["the sampler's own"]);

    const theirs = corpora.get(other.name)!;
    const [first, second, third] = theirs.entries.eth_getTransactionReceipt;
    expect(first!.answer, 'its own answer, extra field and all').to.equal(answerDigest(receipt({ l1Fee: '0x1' }), sha256Hex));
    expect(first!.reply, 'its own bytes').to.not.equal('sampler-bytes');
    expect(third, 'the same entry twice, the same own answer').to.deep.equal(first);
    expect(second!.settled).to.equal(true);
    expect(theirs.targetHead, "the sampler's lag is not its own").to.equal(undefined);
    expect(theirs.sampling.eth_getTransactionReceipt, "none of the sampler's findings, nor its 'not served'").to.deep.include({ status: 'served', findings: [] });
    expect(theirs.sampling.eth_getTransactionReceipt?.reason).to.equal(undefined);

    const bad = corpora.get(corrupt.name)!.sampling.eth_getTransactionReceipt!.findings;
    expect(bad).to.have.length(1);
    expect(bad[0]).to.deep.include({ kind: 'hit', cls: 'wrong', count: 1 });
    expect(bad[0]!.example).to.match(/^\["0xabab.*"\]: \/effectiveGasPrice is "0x3b9aca01" here, outvoted by "0x3b9aca00" \(2 of the 3 endpoints serving the field, side by side: "0x3b9aca00" from e1, e2 against "0x3b9aca01" from e3 \(this endpoint\)\)$/);
  });

  it('a transaction and its receipt, asked with the same params: each entry keeps its own method\'s answer', async () => {
    const tx = { hash: TX, blockHash: `0x${'11'.repeat(32)}`, blockNumber: '0x5', nonce: '0x0' };
    const tables = { eth_getTransactionReceipt: { [TX]: receipt() }, eth_getTransactionByHash: { [TX]: tx } };
    const a = await serve(tables);
    const b = await serve(tables);
    const { corpora, vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt())], eth_getTransactionByHash: [entry([TX], tx, { note: 'a transaction' })] }), [a, b], { sampler: a.name });
    expect(vote.compared).to.equal(2);
    const theirs = corpora.get(b.name)!.entries;
    expect(theirs.eth_getTransactionByHash[0]).to.deep.include({ note: 'a transaction', answer: answerDigest(tx, sha256Hex) });
    expect(theirs.eth_getTransactionReceipt[0]).to.deep.include({ note: 'tx type 0x2', answer: answerDigest(receipt(), sha256Hex) });
  });

  it('an answer other than the one asked (another index) is a finding for any endpoint, not only the one sampled from', async () => {
    const params = ['0x5', '0x3'];
    const tx = (index: string) => ({ hash: TX, blockHash: `0x${'11'.repeat(32)}`, blockNumber: '0x5', transactionIndex: index });
    const method = 'eth_getTransactionByBlockNumberAndIndex';
    const a = await serve({ [method]: { '0x5': tx('0x3') } });
    const b = await serve({ [method]: { '0x5': tx('0x7') } });
    const { corpora, vote } = await voteCorpus(corpusOf({ [method]: [entry(params, tx('0x3'), { bounds: boundsOf(method, params, undefined)! })] }), [a, b], { sampler: a.name });
    expect(vote.endpoints[1]).to.deep.include({ name: b.name, outside: 1 });
    expect(corpora.get(b.name)!.sampling[method]!.findings[0]!.example).to.match(/^\["0x5","0x3"\] answered .*0x7.*0x3/);
  });

  it('two that differ: no majority, no side picked, each held to its own answer and inconclusive side by side; an endpoint without a value too', async () => {
    const a = await serve(receipts({ [TX]: receipt() }));
    const b = await serve(receipts({ [TX]: receipt({ effectiveGasPrice: '0x1' }) }));
    const silent = await serve({});
    const { corpora, vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt())] }), [a, b, silent], { sampler: a.name });
    expect(vote.noMajority).to.equal(1);
    expect(vote.endpoints.map((e) => [e.name, e.outvoted, e.tied, e.unanswered])).to.deep.equal([[a.name, 0, 1, 0], [b.name, 0, 1, 0], [silent.name, 0, 0, 1]]);
    expect(vote.endpoints[0]!.tieExample, vote.endpoints[0]!.tieExample).to.match(/^eth_getTransactionReceipt\(\["0xabab.*"\]\): \/effectiveGasPrice: "0x3b9aca00" from e\d+ \(this endpoint\) against "0x1" from e\d+$/);
    expect(vote.endpoints[2]!.unansweredExample).to.match(/^eth_getTransactionReceipt\(\["0xabab.*"\]\) answered null$/);
    for (const e of [a, b]) expect(corpora.get(e.name)!.sampling.eth_getTransactionReceipt!.findings.filter((f) => f.cls === 'wrong'), e.name).to.deep.equal([]);
    expect(corpora.get(b.name)!.entries.eth_getTransactionReceipt[0]!.answer).to.equal(answerDigest(receipt({ effectiveGasPrice: '0x1' }), sha256Hex));
    const left = corpora.get(silent.name)!.entries.eth_getTransactionReceipt[0]!;
    expect([left.answer, left.reply, left.shaped, left.settled]).to.deep.equal([undefined, undefined, undefined, true]);

    // Side by side, a run that passed alone is not a pass where the vote could not judge it.
    const passed = { verdict: 'pass', reasons: [], methods: {}, corpus: { methods: {} } } as unknown as LoadReport;
    const side = assembleLoadSideBySide([a, b, silent].map((e) => ({ name: e.name, endpoint: e.name, exitCode: 0, report: passed })), 'gate', a.name, 'now', undefined, vote);
    expect(side.endpoints.map((e) => [e.verdict, e.exitCode])).to.deep.equal([['inconclusive', 3], ['inconclusive', 3], ['inconclusive', 3]]);
    expect(side.endpoints[0]!.reasons.at(-1)).to.match(/^the corpus vote: 1 compared answer\(s\) with no majority, e\.g\. .*: one of the endpoints deviates, and the vote cannot tell which$/);
    expect(side.endpoints[2]!.reasons.at(-1)).to.match(/^the corpus vote: 1 compared answer\(s\) given no value, e\.g\. .* answered null: never held against the other endpoints' answers$/);
    expect(side.summary.exitCode).to.equal(3);
  });

  it('a corpus file: every endpoint held to the file\'s answers and sampling record, as a replay of one endpoint is; the vote\'s findings added', async () => {
    const a = await serve(receipts({ [TX]: receipt() }));
    const b = await serve(receipts({ [TX]: receipt() }));
    const c = await serve(receipts({ [TX]: receipt({ effectiveGasPrice: '0x1' }) }));
    const corpus = corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt())] });
    const { corpora, vote } = await voteCorpus(corpus, [a, b, c], { fromFile: true });
    expect(vote.held).to.equal('recorded');
    for (const e of [a, b, c]) expect(corpora.get(e.name)!.entries, e.name).to.deep.equal(corpus.entries);
    expect(corpora.get(c.name)!.sampling.eth_getTransactionReceipt!.findings.map((f) => f.cls)).to.deep.equal(['ok', 'wrong']);
    expect(corpora.get(b.name)!.sampling).to.deep.equal(corpus.sampling);
  });

  it('a call answered HTTP 503 is asked again, one at a time, before it counts as unanswered (a 429 the client retries itself)', async () => {
    const a = await serve(receipts({ [TX]: receipt() }));
    const limited = await serve(receipts({ [TX]: receipt() }), true);
    const { vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt())] }), [a, limited], { sampler: a.name });
    expect(vote.endpoints).to.deep.equal([clean(a.name), clean(limited.name)]);
  });

  it('an endpoint that hangs is asked nothing more after its first timeout: one timeout, not one per entry', async function () {
    this.timeout(60_000);
    const txs = Array.from({ length: 20 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`);
    const a = await serve(receipts(Object.fromEntries(txs.map((t) => [t, receipt({ transactionHash: t })]))));
    let asked = 0;
    const server = createServer((req) => void (asked++, req.resume()));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const hang = { name: 'hang', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/vote-test-key` };
    const { vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: txs.map((t) => entry([t], receipt({ transactionHash: t }))) }), [a, hang], { sampler: a.name });
    expect(vote.endpoints[1]).to.deep.include({ name: 'hang', unanswered: 20 });
    expect(asked, 'the first few at once, then none').to.be.at.most(8);
  });

  it('endpoint names that are object keys (constructor, __proto__) are counted as any other', async () => {
    const tables = receipts({ [TX]: receipt() });
    const [a, b, c] = [await serve(tables), await serve(tables), await serve(receipts({ [TX]: receipt({ effectiveGasPrice: '0x1' }) }))];
    const { vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt())] }), [{ ...a, name: '__proto__' }, { ...b, name: 'toString' }, { ...c, name: 'constructor' }], { sampler: '__proto__' });
    expect(vote.endpoints.map((e) => [e.name, e.outvoted])).to.deep.equal([['__proto__', 0], ['toString', 0], ['constructor', 1]]);
  });

  it('the sampler answering otherwise at the vote than at sampling: a finding (it is held to what it was sampled with, which no one voted on)', async () => {
    const honest = receipts({ [TX]: receipt() });
    const [a, b, c] = [await serve(honest), await serve(honest), await serve(honest)];
    // Sampled deviant (a backend behind a balancer), honest at the vote.
    const { corpora, vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt({ effectiveGasPrice: '0x1' }))] }), [a, b, c], { sampler: a.name });
    expect(vote.endpoints.map((e) => e.outvoted)).to.deep.equal([0, 0, 0]);
    expect(corpora.get(a.name)!.sampling.eth_getTransactionReceipt!.findings.at(-1)).to.deep.include({ cls: 'wrong', count: 1 });
    expect(corpora.get(a.name)!.sampling.eth_getTransactionReceipt!.findings.at(-1)!.example).to.match(/answered otherwise at the vote than at sampling/);
  });

  it('an endpoint behind the others answers null for a new block: asked again once its head has it, not counted unanswered', async function () {
    this.timeout(30_000);
    const a = await serve(receipts({ [TX]: receipt() }));
    const start = Date.now();
    // Two blocks behind for its first 1.5 s: block 5 unknown until then.
    const head = () => (Date.now() - start < 1500 ? 3 : 5);
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString())).on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string };
        const result = call.method === 'eth_blockNumber' ? `0x${head().toString(16)}` : head() >= 5 ? receipt() : null;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const behind = { name: 'behind', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/vote-test-key` };
    const { vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt())] }), [a, behind], { sampler: a.name });
    expect(vote.endpoints).to.deep.equal([clean(a.name), clean('behind')]);
    expect(vote.compared).to.equal(1);
  });

  it('an endpoint alone with a value (no other gave one) was held against no one: inconclusive side by side, not a pass', async () => {
    const a = await serve(receipts({ [TX]: receipt() }));
    const silent = await serve({});
    const { vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt())] }), [a, silent], { sampler: a.name });
    expect(vote.endpoints[0]).to.deep.include({ alone: 1, unanswered: 0 });
    const passed = { verdict: 'pass', reasons: [], methods: {}, corpus: { methods: {} } } as unknown as LoadReport;
    const side = assembleLoadSideBySide([{ name: a.name, endpoint: a.name, exitCode: 0, report: passed }], 'gate', a.name, 'now', undefined, vote);
    expect(side.endpoints[0]!.verdict).to.equal('inconclusive');
    expect(side.endpoints[0]!.reasons.at(-1)).to.match(/^the corpus vote: 1 compared answer\(s\) no other endpoint gave a value for, e\.g\. eth_getTransactionReceipt\(.*\): held against no one$/);
  });

  it('an answer quoting the key (a string where a receipt is due) is no value, and its example in the report does not quote the key', async () => {
    const KEY = 'SENTINEL-KEY-VOTE-789';
    registerUrlSecrets(`http://127.0.0.1/v3/${KEY}`);
    const a = await serve(receipts({ [TX]: receipt() }));
    const echo = await serve(receipts({ [TX]: `no such key ${KEY}` }));
    const { vote } = await voteCorpus(corpusOf({ eth_getTransactionReceipt: [entry([TX], receipt())] }), [a, echo], { sampler: a.name });
    expect(vote.endpoints[1]!.unanswered).to.equal(1);
    // Only the key is redacted (other test files in the same worker register their own keys, which may be common words).
    expect(vote.endpoints[1]!.unansweredExample).to.match(/^eth_getTransactionReceipt\(.*\) answered "/);
    expect(JSON.stringify(vote)).to.not.include(KEY);
  });
});
