// The vote of the quorum/* checks (core/vote.ts): a field is held against the majority of the
// endpoints that serve it; absent fields and an optional field's presence never vote; hex is compared without regard
// to case; a tie (two values, or three) is no majority, never a side picked.
import { expect } from 'chai';
import { valueAt, valuesText, vote } from '../../core/vote.ts';

const b = (name: string, answer: unknown) => ({ name, answer });

describe('quorum vote: field by field against the majority of those serving the field', function () {
  it('outvoted: two endpoints serve one value, this one another; the contest names every value and who served it', function () {
    const v = vote('receipt', b('c', { gasUsed: '0x2', status: '0x1' }), [b('a', { gasUsed: '0x1', status: '0x1' }), b('b', { gasUsed: '0x1', status: '0x1' })]);
    expect(v.outvoted).to.have.length(1);
    expect(v.outvoted[0]).to.deep.include({ path: '/gasUsed', ours: '"0x2"', majority: '"0x1"' });
    expect(valuesText(v.outvoted[0]!, 'c')).to.equal('"0x1" from a, b against "0x2" from c (this endpoint)');
    expect(v.ties).to.deep.equal([]);
  });

  it('on the majority\'s side, the outvoted endpoint is named, not this one', function () {
    const v = vote('receipt', b('a', { gasUsed: '0x1' }), [b('b', { gasUsed: '0x1' }), b('c', { gasUsed: '0x2' })]);
    expect(v.outvoted).to.deep.equal([]);
    expect(v.others.map((c) => c.path)).to.deep.equal(['/gasUsed']);
  });

  it('a tie of two, and three values among three, are no majority', function () {
    expect(vote('receipt', b('a', { gasUsed: '0x1' }), [b('c', { gasUsed: '0x2' })]).ties.map((c) => c.majority)).to.deep.equal([undefined]);
    const three = vote('receipt', b('a', { gasUsed: '0x1' }), [b('b', { gasUsed: '0x2' }), b('c', { gasUsed: '0x3' })]);
    expect(three.outvoted).to.deep.equal([]);
    expect(three.ties).to.have.length(1);
  });

  it('an absent field never votes: a lone other value against it is a tie, not a majority', function () {
    const v = vote('other', b('a', { x: '0x1' }), [b('b', { x: '0x2' }), b('c', {})]);
    expect(v.outvoted).to.deep.equal([]);
    expect(v.ties[0]?.values.map((x) => x.by)).to.deep.equal([['a'], ['b']]);
  });

  it('an optional field\'s presence never votes, nor does hex case', function () {
    const tx = { hash: '0xAB', nonce: '0x1' };
    const v = vote('transaction', b('a', { ...tx, chainId: '0x1' }), [b('b', { ...tx, hash: '0xab' }), b('c', { ...tx, hash: '0xab' })]);
    expect(v).to.deep.equal({ outvoted: [], ties: [], others: [] });
  });

  it('a field named as an object\'s own property (constructor, toString) is a field like any other: absent here, it never votes against this endpoint', function () {
    const v = vote('transaction', b('a', { nonce: '0x1' }), [b('c1', { nonce: '0x1', constructor: 'x' }), b('c2', { nonce: '0x1', constructor: 'x' })]);
    expect(v).to.deep.equal({ outvoted: [], ties: [], others: [] });
  });

  it('nested paths and list lengths: a log field, a receipts list one longer', function () {
    const r = (data: string) => ({ logs: [{ data }] });
    const v = vote('receipt', b('c', r('0x02')), [b('a', r('0x01')), b('b', r('0x01'))]);
    expect(v.outvoted.map((c) => c.path)).to.deep.equal(['/logs/0/data']);
    expect(vote('receipts', b('c', [{}, {}]), [b('a', [{}]), b('b', [{}])]).outvoted.map((c) => c.path)).to.deep.equal(['/length']);
    expect(valueAt({ logs: [{ data: '0x1' }] }, '/logs/length')).to.equal(1);
  });
});
