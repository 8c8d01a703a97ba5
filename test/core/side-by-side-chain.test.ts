// The chain a side-by-side run certifies (core/node/side-by-side.ts): the one most endpoints serve by chain id and genesis,
// whichever endpoint comes first; the first endpoint's among equals, said; an endpoint without block 0 joins its id's.
import { expect } from 'chai';
import { runChain } from '../../core/node/side-by-side.ts';

const G1 = `0x${'11'.repeat(32)}`;
const G2 = `0x${'22'.repeat(32)}`;

describe('the chain of a side-by-side run: the majority\'s, never just the first endpoint\'s', function () {
  it('the odd one out is named, even listed first; the lowest head is the members\'', function () {
    const c = runChain([
      { name: 'odd', chainId: '0x7a69', genesis: G2, head: 50 },
      { name: 'a', chainId: '0x7a69', genesis: G1, head: 12 },
      { name: 'b', chainId: '0x7a69', genesis: G1, head: 10 },
    ]);
    expect(c?.members).to.deep.equal(['a', 'b']);
    expect(c?.lowestHead).to.equal(10);
    expect(c?.others.get('odd')).to.match(/^it serves chain 31337 \(genesis 0x2222.*\), a, b chain 31337 \(genesis 0x1111.*\): not the chain the run certifies$/);
    expect(c?.tie).to.equal(undefined);
  });

  it('as many on each chain: the first endpoint\'s, and the tie said', function () {
    const c = runChain([{ name: 'x', chainId: '0x1', genesis: G1 }, { name: 'y', chainId: '0x5', genesis: G2 }]);
    expect(c?.members).to.deep.equal(['x']);
    expect(c?.tie).to.match(/as many endpoints serve another chain \(y\) as this one \(x\)/);
  });

  it('an endpoint that does not serve block 0 joins its chain id\'s; one that gave nothing is no member', function () {
    const c = runChain([{ name: 'a', chainId: '0x1', genesis: G1, head: 5 }, { name: 'expired', chainId: '0x1', head: 4 }, { name: 'dead', error: 'unreachable' }]);
    expect(c?.members).to.deep.equal(['a', 'expired']);
    expect(c?.others.size).to.equal(0);
    expect(runChain([{ name: 'dead', error: 'unreachable' }])).to.equal(undefined);
  });
});
