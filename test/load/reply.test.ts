// What the VUs read and skip: corpus entries packed as lines (load/k6/packed-entry.ts), and answers recognised
// by their fingerprint (core/reply.ts), which must always get the verdict classify() gives them, whatever
// the endpoint sends under load.
import { expect } from 'chai';
import { replyFingerprint, sha256Hex } from '../../core/node/fingerprint.ts';
import { markedText, replyText } from '../../core/reply.ts';
import { type Classification, classify, type Expectation, type HttpOutcome, metVerdict } from '../../load/shared/classify.ts';
import type { CorpusEntry } from '../../load/shared/corpus.ts';
import { packEntry, unpackEntry } from '../../load/k6/packed-entry.ts';
import { createRng } from '../../load/shared/rng.ts';
import { envelope, randomAnswer } from '../support/hostile-answers.ts';

const tx = (id: number) => envelope(id, { result: { hash: '0xab', nonce: '0x1' } });

describe('load: corpus entries as the VUs read them (packed-entry.ts)', () => {
  it('packs what a request needs into one line and unpacks it unchanged, whatever the params hold', () => {
    const entries: CorpusEntry[] = [
      { params: ['0xab'], note: 'tx type 0x2', kind: 'hit', answer: 'k3x9', reply: 'f'.repeat(64) },
      { params: [{ to: '0x01', data: '0x|x' }, 'latest'], note: 'init code reverts', kind: 'revert' },
      { params: ['0x1', '0x0'], note: 'miss: no uncle', kind: 'miss' },
      { params: ['0x1', '0x0'], note: 'block without uncles', kind: 'empty' },
      { params: ['0x5', '0x1'], note: 'recent block', kind: 'hit', bounds: 'n:0x5:0x1', reply: 'e'.repeat(64), shaped: true },
      { params: ['0xcd'], note: 'older block', kind: 'hit', answer: 'k3x9', settled: true, depth: '1k+' },
    ];
    const unpacked = (e: CorpusEntry) => ({ ...(e.answer ? { answer: e.answer } : {}), ...(e.bounds ? { bounds: e.bounds } : {}), ...(e.reply ? { reply: e.reply } : {}), ...(e.settled ? { settled: true } : {}), ...(e.shaped ? { shaped: true } : {}), ...(e.depth ? { depth: e.depth } : {}), params: JSON.stringify(e.params) });
    // The expectation follows from the kind alone.
    expect(entries.map((e) => unpackEntry(packEntry(e)))).to.deep.equal([
      { expect: 'value', miss: false, ...unpacked(entries[0]!) },
      { expect: 'error', errorCode: 3, miss: true, ...unpacked(entries[1]!) },
      { expect: 'null', miss: true, ...unpacked(entries[2]!) },
      { expect: 'null', miss: false, ...unpacked(entries[3]!) },
      { expect: 'value', miss: false, ...unpacked(entries[4]!) },
      { expect: 'value', miss: false, ...unpacked(entries[5]!) },
    ]);
  });

  it('null for a settled hit is wrong; for a hit near the head, null_unexpected (a lagging node may not have it yet)', () => {
    const nul = { status: 200, body: '{"jsonrpc":"2.0","id":1,"result":null}', id: 1 };
    expect(classify(nul, unpackEntry(packEntry({ params: ['0xcd'], note: 'older block', kind: 'hit', settled: true })))).to.deep.include({ cls: 'wrong' });
    expect(classify(nul, unpackEntry(packEntry({ params: ['0xcd'], note: 'recent block', kind: 'hit' })))).to.deep.equal({ cls: 'null_unexpected' });
  });
});

describe('load: answers recognised by fingerprint (core/reply.ts)', () => {
  it('marks the one id an answer echoes, where that number ends', () => {
    expect(replyText(tx(42), 42)).to.equal('{"jsonrpc":"2.0","id":\0,"result":{"hash":"0xab","nonce":"0x1"}}');
    expect(replyText(tx(42), 4), 'a longer number is not the id').to.equal(undefined);
    expect(replyText(envelope(4.5, {}), 4), 'nor a fraction').to.equal(undefined);
    expect(replyText(envelope(7, { result: { id: 7 } }), 7), 'two candidates: no text').to.equal(undefined);
    expect(replyText(envelope(7, {}), 8), 'an id not echoed: no text').to.equal(undefined);
    expect(replyText('{"jsonrpc":"2.0","id": 7}', 7), 'spaced: not recognised, so parsed every time').to.equal(undefined);
  });

  it('the same answer to another id has the same fingerprint; any other byte changes it', () => {
    expect(replyFingerprint(tx(1), 1)).to.match(/^[0-9a-f]{64}$/);
    expect(replyFingerprint(tx(1), 1)).to.equal(replyFingerprint(tx(123456), 123456));
    expect(replyFingerprint(tx(1), 1)).to.not.equal(replyFingerprint(tx(1).replace('0x1', '0x2'), 1));
    expect(replyFingerprint(tx(1), 1)).to.not.equal(replyFingerprint(tx(1).replace(':1,', ':1 ,'), 1));
  });

  it('an envelope id spelled otherwise ("id": 5, "\\u0069d":5, given twice) with "id":5 elsewhere: no fingerprint, so never recognised (red team F1)', () => {
    const result = '{"hash":"0xab","nonce":"0x1"}';
    // Each as sampled with id 5, then as a hostile endpoint answers request 77 (the envelope's id frozen at 5).
    const shapes: Array<[string, (id: number) => string, (id: number) => string]> = [
      ['a space after the colon', (id) => `{"jsonrpc":"2.0","id": ${id},"result":${result},"x":{"id":${id}}}`, (id) => `{"jsonrpc":"2.0","id": 5,"result":${result},"x":{"id":${id}}}`],
      ['a key escaped', (id) => `{"jsonrpc":"2.0","\\u0069d":${id},"result":${result},"x":{"id":${id}}}`, (id) => `{"jsonrpc":"2.0","\\u0069d":5,"result":${result},"x":{"id":${id}}}`],
      ['the key given twice (the last wins)', (id) => `{"jsonrpc":"2.0","id":${id},"result":${result},"id" :${id}}`, (id) => `{"jsonrpc":"2.0","id":${id},"result":${result},"id" :5}`],
      ['nested in the result', (id) => `{"jsonrpc":"2.0","id": ${id},"result":{"hash":"0xab","id":${id}}}`, (id) => `{"jsonrpc":"2.0","id": 5,"result":{"hash":"0xab","id":${id}}}`],
    ];
    for (const [name, sampledAs, answered] of shapes) {
      expect(classify({ status: 200, body: sampledAs(5), id: 5 }, { expect: 'value' }).cls, `${name}: a good answer at sampling`).to.equal('ok');
      expect(replyFingerprint(sampledAs(5), 5), name).to.equal(undefined);
      expect(classify({ status: 200, body: answered(77), id: 77 }, { expect: 'value' }).cls, `${name}: wrong under load`).to.equal('wrong');
    }
    // The same answer with the envelope's id where replyText marks it keeps its fingerprint.
    expect(replyFingerprint(`{"jsonrpc":"2.0","id":5,"result":${result}}`, 5)).to.match(/^[0-9a-f]{64}$/);
  });

  it('under load, the cheaper mark (markedText) matches a fingerprint only in the sampled answer with this id', () => {
    const sampledFingerprint = replyFingerprint(tx(1), 1);
    const underLoad = (body: string, id: number) => {
      const text = markedText(body, id);
      return text === undefined ? undefined : sha256Hex(text);
    };
    expect(underLoad(tx(77), 77)).to.equal(sampledFingerprint);
    expect(underLoad(tx(775), 77), 'an id that goes on').to.not.equal(sampledFingerprint);
    expect(underLoad(tx(5), 77), 'another id').to.equal(undefined);
    const result = { hash: '0xab', nonce: '0x1' };
    expect(underLoad(JSON.stringify({ meta: { id: 77 }, jsonrpc: '2.0', id: 5, result }), 77), 'this id nested before another').to.not.equal(sampledFingerprint);
    expect(underLoad(envelope(77, { result: { ...result, id: 77 } }), 77), 'echoed twice').to.not.equal(sampledFingerprint);
  });

  it('fuzz: 20k answers from an endpoint that mostly repeats what sampling saw; every one recognised under load (markedText) gets the verdict classify() gives it', () => {
    const rng = createRng(0x7e9ea7);
    const expectations: Expectation[] = [{ expect: 'value' }, { expect: 'null' }, { expect: 'error', errorCode: 3 }];
    // Each entry as sampling saw it: in one entry in three the answer meets the expectation, so it has a fingerprint.
    const entries = Array.from({ length: 48 }, (_, k) => {
      const expected = expectations[k % expectations.length] as Expectation;
      const id = rng.int(1000);
      let answer = randomAnswer(rng);
      for (let tries = 0; k % 3 === 0 && tries < 200 && !sampled(answer, expected, id); tries++) answer = randomAnswer(rng);
      return { answer, expected, reply: sampled(answer, expected, id) };
    });
    expect(entries.filter((e) => e.reply).length, 'entries with a fingerprint').to.be.at.least(12);
    let recognised = 0;
    for (let id = 1000; id < 21_000; id++) {
      const e = entries[rng.int(entries.length)] as (typeof entries)[number];
      // The endpoint mostly answers as at sampling; sometimes otherwise (a changed answer, an error, a fault).
      const outcome = (rng.next() < 0.8 ? e.answer : randomAnswer(rng))(id);
      if (outcome.status !== 200 || outcome.body === null || e.reply === undefined) continue;
      // k6 compares the cheaper markedText's hash: it recognises every answer replyText does, and only answers with the sampled verdict.
      const marked = markedText(outcome.body, id);
      const seen = marked !== undefined && sha256Hex(marked) === e.reply;
      if (replyFingerprint(outcome.body, id) === e.reply) expect(seen, outcome.body).to.equal(true);
      if (!seen) continue;
      recognised++;
      // With the request's id, as the scenario classifies: an answer carrying another id is `wrong`.
      expect(strip(classify({ ...outcome, id }, e.expected)), `${JSON.stringify(outcome)} as ${e.expected.expect}`).to.deep.equal(metVerdict(e.expected));
    }
    expect(recognised, 'recognition was exercised').to.be.above(1000);
  });
});

/** What sampling records (sample.ts, rpc-client.ts): a fingerprint for a JSON answer with HTTP 200 whose verdict meets the expectation. */
function sampled(answer: (id: number) => HttpOutcome, expected: Expectation, id: number): string | undefined {
  const outcome = answer(id);
  if (outcome.status !== 200 || outcome.body === null || !isJson(outcome.body)) return undefined;
  const verdict = strip(classify({ ...outcome, id }, expected));
  const met = metVerdict(expected);
  return verdict.cls === met.cls && verdict.code === met.code ? replyFingerprint(outcome.body, id) : undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The verdict without the parsed envelope (which only a parse has). */
const strip = ({ cls, code }: Classification): Classification => (code === undefined ? { cls } : { cls, code });
