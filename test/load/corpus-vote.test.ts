// Load side by side votes the corpus's compared answers before anything is measured (load/run/corpus-vote.ts): the
// endpoint the majority outvotes has a finding at sampling naming the field; every endpoint is held to its own answer
// (another client's optional field is no wrong answer); a tie picks no side; the sampler's own findings stay its own.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { voteCorpus } from '../../load/run/corpus-vote.ts';
import { answerDigest } from '../../load/shared/answer.ts';
import { sha256Hex } from '../../core/node/fingerprint.ts';
import type { Corpus, CorpusEntry } from '../../load/shared/corpus.ts';

const TX = `0x${'ab'.repeat(32)}`;
const OTHER_TX = `0x${'cd'.repeat(32)}`;
const receipt = (extra: Record<string, unknown> = {}) => ({ transactionHash: TX, blockHash: `0x${'11'.repeat(32)}`, blockNumber: '0x5', status: '0x1', effectiveGasPrice: '0x3b9aca00', logs: [], ...extra });

describe('load side by side: the corpus voted among the endpoints before the run (corpus-vote.ts)', function () {
  const servers: Server[] = [];
  /** An endpoint answering each receipt asked from `answers` (by transaction hash), each transaction from `txs`; null for any other. */
  const serve = async (answers: Record<string, unknown>, txs: Record<string, unknown> = {}): Promise<{ name: string; url: string }> => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString())).on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string; params: string[] };
        const table = call.method === 'eth_getTransactionByHash' ? txs : answers;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: table[call.params[0]!] ?? null }));
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { name: `e${servers.length}`, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/vote-test-key` };
  };
  after(() => servers.forEach((s) => (s.closeAllConnections(), s.close())));

  const entry = (tx: string, answer: unknown): CorpusEntry => ({ params: [tx], note: 'tx type 0x2', kind: 'hit', answer: answerDigest(answer, sha256Hex), reply: 'sampler-bytes', shaped: true, settled: true });
  const corpusOf = (entries: CorpusEntry[], txs: CorpusEntry[] = []): Corpus =>
    ({
      version: 3,
      seed: 1,
      missShare: 0.1,
      chainId: '0x1',
      head: '0x10',
      blocksSampled: 4,
      targetHead: { head: '0x10', behindReference: 0, wentBack: 0 },
      entries: { eth_getTransactionReceipt: entries, ...(txs.length ? { eth_getTransactionByHash: txs } : {}) },
      sampling: { eth_getTransactionReceipt: { status: 'not served', reason: 'the sampler', tried: { hit: 2 }, correct: { hit: 2 }, rejected: {}, findings: [{ kind: 'miss', cls: 'ok', count: 1, example: "the sampler's own" }] } },
    }) as unknown as Corpus;

  it('the one the majority outvotes has a finding naming the field; the others are held to their own answers, another client\'s extra field no wrong answer', async () => {
    const sampler = await serve({ [TX]: receipt(), [OTHER_TX]: receipt({ transactionHash: OTHER_TX }) });
    // Another client: an extra field on every receipt, the same values otherwise.
    const other = await serve({ [TX]: receipt({ l1Fee: '0x1' }), [OTHER_TX]: receipt({ transactionHash: OTHER_TX, l1Fee: '0x1' }) });
    const corrupt = await serve({ [TX]: receipt({ effectiveGasPrice: '0x3b9aca01' }), [OTHER_TX]: receipt({ transactionHash: OTHER_TX }) });
    const corpus = corpusOf([entry(TX, receipt()), entry(OTHER_TX, receipt({ transactionHash: OTHER_TX })), entry(TX, receipt())]);
    const { corpora, vote } = await voteCorpus(corpus, [sampler, other, corrupt], sampler.name);
    expect(vote).to.deep.equal({ endpoints: [sampler.name, other.name, corrupt.name], compared: 2, noMajority: 0, outvoted: { [corrupt.name]: 1 }, unanswered: {} });

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
    const a = await serve({ [TX]: receipt() }, { [TX]: tx });
    const b = await serve({ [TX]: receipt() }, { [TX]: tx });
    const { corpora, vote } = await voteCorpus(corpusOf([entry(TX, receipt())], [{ ...entry(TX, tx), note: 'a transaction' }]), [a, b], a.name);
    expect(vote.compared).to.equal(2);
    const theirs = corpora.get(b.name)!.entries;
    expect(theirs.eth_getTransactionByHash[0]).to.deep.include({ note: 'a transaction', answer: answerDigest(tx, sha256Hex) });
    expect(theirs.eth_getTransactionReceipt[0]).to.deep.include({ note: 'tx type 0x2', answer: answerDigest(receipt(), sha256Hex) });
  });

  it('two that differ: no majority, no side picked, each held to its own answer; an endpoint without a value has that value left uncompared', async () => {
    const a = await serve({ [TX]: receipt() });
    const b = await serve({ [TX]: receipt({ effectiveGasPrice: '0x1' }) });
    const silent = await serve({});
    const corpus = corpusOf([entry(TX, receipt())]);
    const { corpora, vote } = await voteCorpus(corpus, [a, b, silent], undefined);
    expect(vote).to.deep.equal({ endpoints: [a.name, b.name, silent.name], compared: 1, noMajority: 1, outvoted: {}, unanswered: { [silent.name]: 1 } });
    for (const e of [a, b]) {
      expect(corpora.get(e.name)!.sampling.eth_getTransactionReceipt!.findings, e.name).to.deep.equal([]);
      expect(corpora.get(e.name)!.targetHead, 'a corpus read from a file: its lag is an earlier run\'s').to.equal(undefined);
    }
    expect(corpora.get(b.name)!.entries.eth_getTransactionReceipt[0]!.answer).to.equal(answerDigest(receipt({ effectiveGasPrice: '0x1' }), sha256Hex));
    const left = corpora.get(silent.name)!.entries.eth_getTransactionReceipt[0]!;
    expect([left.answer, left.reply, left.shaped, left.settled]).to.deep.equal([undefined, undefined, undefined, true]);
  });

  it('an endpoint that hangs is asked nothing more after its first timeout: one timeout, not one per entry', async function () {
    this.timeout(60_000);
    const txs = Array.from({ length: 20 }, (_, i) => `0x${i.toString(16).padStart(64, '0')}`);
    const a = await serve(Object.fromEntries(txs.map((t) => [t, receipt({ transactionHash: t })])));
    let asked = 0;
    const server = createServer((req) => void (asked++, req.resume()));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const hang = { name: 'hang', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/vote-test-key` };
    const { vote } = await voteCorpus(corpusOf(txs.map((t) => entry(t, receipt({ transactionHash: t })))), [a, hang], a.name);
    expect(vote.unanswered).to.deep.equal({ hang: 20 });
    expect(asked, 'the first few at once, then none').to.be.at.most(8);
  });
});
