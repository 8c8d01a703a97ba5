// The verdict cache of the k6 scenario (load/repeat.ts): a remembered verdict must always be the verdict
// classify() gives the same answer, whatever the endpoint sends next.
import { expect } from 'chai';
import { type Classification, classify, type Expectation, type HttpOutcome } from '../load/classify.ts';
import { cutAtId, RepeatCache, type RepeatSlot } from '../load/repeat.ts';
import { createRng, type Rng } from '../load/rng.ts';

const VALUE: Expectation = { expect: 'value' };
const envelope = (id: unknown, rest: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, ...rest });
const tx = (id: number) => envelope(id, { result: { hash: '0xab', nonce: '0x1' } });
const ok = (body: string): HttpOutcome => ({ status: 200, body });

describe('load: verdicts remembered per corpus entry (repeat.ts)', () => {
  it('cuts an answer around the one id it echoes, where that number ends', () => {
    expect(cutAtId(tx(42), 42)).to.deep.equal({ head: '{"jsonrpc":"2.0","id":', rest: ',"result":{"hash":"0xab","nonce":"0x1"}}' });
    expect(cutAtId(tx(42), 4), 'a longer number is not the id').to.equal(undefined);
    expect(cutAtId(envelope(4.5, {}), 4), 'nor a fraction').to.equal(undefined);
    expect(cutAtId(envelope(7, { result: { id: 7 } }), 7), 'two candidates: no cut').to.equal(undefined);
    expect(cutAtId(envelope(7, {}), 8)).to.equal(undefined);
    expect(cutAtId('{"jsonrpc":"2.0","id": 7}', 7), 'spaced: not recognised, so parsed every time').to.equal(undefined);
  });

  it('an echoing endpoint: the second answer reuses the first verdict without parsing; the first and a validated one are parsed', () => {
    const cache = new RepeatCache(1 << 20);
    const slot: RepeatSlot = {};
    const first = cache.classify(slot, 1, ok(tx(1)), VALUE, false);
    expect(first.cls).to.equal('ok');
    expect(first.envelope, 'parsed').to.not.equal(undefined);
    const second = cache.classify(slot, 2, ok(tx(2)), VALUE, false);
    expect(second).to.deep.equal({ cls: 'ok' }); // no envelope: not parsed
    expect(cache.classify(slot, 3, ok(tx(3)), VALUE, true).envelope, 'validation always parses').to.not.equal(undefined);
  });

  it('an endpoint that does not echo ids: the same bytes again reuse the verdict', () => {
    const cache = new RepeatCache(1 << 20);
    const slot: RepeatSlot = {};
    cache.classify(slot, 1, ok(tx(9)), VALUE, false);
    expect(cache.classify(slot, 2, ok(tx(9)), VALUE, false)).to.deep.equal({ cls: 'ok' });
  });

  it('anything else than the id changed, or another status: classified afresh', () => {
    const cache = new RepeatCache(1 << 20);
    const slot: RepeatSlot = {};
    cache.classify(slot, 1, ok(tx(1)), VALUE, false);
    expect(cache.classify(slot, 2, ok(envelope(2, { result: null })), VALUE, false).cls).to.equal('null_unexpected');
    cache.classify(slot, 3, ok(tx(3)), VALUE, false);
    expect(cache.classify(slot, 4, { status: 500, body: tx(4) }, VALUE, false).cls).to.equal('http_error');
    expect(cache.classify(slot, 5, { status: 0, body: null, timedOut: true }, VALUE, false).cls).to.equal('timeout');
  });

  it('remembers only successes, and holds no more than its budget', () => {
    const cache = new RepeatCache(200);
    const slots: RepeatSlot[] = Array.from({ length: 10 }, () => ({}));
    cache.classify(slots[0] as RepeatSlot, 1, ok(envelope(1, { error: { code: -32000, message: 'x' } })), VALUE, false);
    expect(slots[0]?.repeat, 'an rpc_error is not remembered').to.equal(undefined);
    for (const [i, slot] of slots.entries()) cache.classify(slot, i, ok(tx(i)), VALUE, false);
    expect(cache.held).to.be.at.most(200);
    expect(slots.filter((s) => s.repeat).length, 'some, not all').to.be.within(1, 9);
    for (const [i, slot] of slots.entries()) cache.classify(slot, i + 10, ok(tx(i + 10)), VALUE, false); // replacing frees
    expect(cache.held).to.be.at.most(200);
  });

  it('fuzz: 20k answers from an endpoint that mostly repeats itself; every verdict equals classify() of that answer', () => {
    const rng = createRng(0x7e9ea7);
    const cache = new RepeatCache(4096);
    const slots: RepeatSlot[] = Array.from({ length: 8 }, () => ({}));
    const expectations: Expectation[] = [VALUE, { expect: 'null' }, { expect: 'error', errorCode: 3 }];
    const answers = slots.map(() => randomAnswer(rng));
    let reused = 0;
    for (let id = 0; id < 20_000; id++) {
      const k = rng.int(slots.length);
      if (rng.next() < 0.1) answers[k] = randomAnswer(rng); // the endpoint changes its answer
      const outcome = (answers[k] as (id: number) => HttpOutcome)(id);
      const expected = expectations[k % expectations.length] as Expectation;
      const got = cache.classify(slots[k] as RepeatSlot, id, outcome, expected, rng.next() < 0.05);
      if (got === slots[k]?.repeat?.verdict) reused++;
      expect(strip(got), `${JSON.stringify(outcome)} as ${expected.expect}`).to.deep.equal(strip(classify(outcome, expected)));
    }
    expect(reused, 'the cache was exercised').to.be.above(1000);
  });
});

/** The verdict without the parsed envelope (which only a parse has). */
const strip = ({ cls, code }: Classification) => ({ cls, code });

/** An answer as a function of the request id: echoing or not, with nested "id" keys, errors, nulls, odd statuses. */
function randomAnswer(rng: Rng): (id: number) => HttpOutcome {
  const status = rng.pick([200, 200, 200, 200, 500, 429]);
  const nested = rng.next() < 0.3;
  const result = rng.pick<unknown>([null, '0x5208', { hash: rng.hex(4) }, [{ id: 3 }], { logs: [] }]);
  const body = rng.pick<Record<string, unknown>>([
    { result },
    { error: { code: rng.pick([3, -32000, -32005, 429]), message: rng.pick(['execution reverted', 'rate limit', 'x']) } },
    { error: { code: 3, message: 'execution reverted', data: { id: 12 } } },
    {},
  ]);
  const echoes = rng.next() < 0.8;
  return (id) => {
    const echo = echoes ? id : 1;
    const extra = nested ? { meta: { id: echo } } : {};
    return { status, body: rng.next() < 0.02 ? `${envelope(echo, { ...body, ...extra })}x` : envelope(echo, { ...body, ...extra }) };
  };
}
