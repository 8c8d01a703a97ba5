// The run's head log (conformance/framework/head.ts): which pairs of head reads it may compare, and when the head went back.
import { expect } from 'chai';
import { HeadLog, headText } from '../../conformance/framework/head-log.ts';
import type { Exchange } from '../../core/node/rpc-client.ts';

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const blockNumber = (n: number): Exchange => ({ request: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }, body: { jsonrpc: '2.0', id: 1, result: `0x${n.toString(16)}` }, durationMs: 1 });
const latest = (n: number, h = hash(n)): Exchange => ({ request: { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['latest', false] }, body: { jsonrpc: '2.0', id: 1, result: { number: `0x${n.toString(16)}`, hash: h } }, durationMs: 1 });

describe('the head log: a head that goes back', () => {
  it('two reads in turn, the second lower: went back, both named (number, hash, call)', () => {
    const log = new HeadLog();
    log.observe(latest(12), 0, 1);
    log.observe(blockNumber(10), 2, 3);
    const back = log.wentBack();
    expect(back?.before.number).to.equal(12n);
    expect(back?.after.number).to.equal(10n);
    expect(headText(back!.before)).to.equal(`block 12 (${hash(12)}) by eth_getBlockByNumber("latest")`);
    expect(headText(back!.after)).to.equal('block 10 (no hash) by eth_blockNumber');
  });

  it('reads that overlap in time are not ordered: a lower answer to a read asked before the higher one was answered is no regression', () => {
    const log = new HeadLog();
    log.observe(latest(12), 0, 5);
    log.observe(latest(11), 4, 6);
    expect(log.wentBack()).to.equal(undefined);
    expect(log.ordered()).to.equal(0);
  });

  it('a reorg at the same height (another hash) and a head moving on are not going back', () => {
    const log = new HeadLog();
    log.observe(latest(12), 0, 1);
    log.observe(latest(12, hash(99)), 2, 3);
    log.observe(blockNumber(13), 4, 5);
    log.observe(latest(14), 6, 7);
    expect(log.wentBack()).to.equal(undefined);
    expect(log.ordered()).to.equal(6);
  });

  it('names the deepest fall; ignores what is no head read (another block, an error, a malformed number)', () => {
    const log = new HeadLog();
    log.observe({ ...latest(1), request: { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x1', false] } }, 0, 1);
    log.observe({ ...blockNumber(1), body: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } } }, 0, 1);
    log.observe({ ...blockNumber(1), body: { jsonrpc: '2.0', id: 1, result: '12' } }, 0, 1);
    expect(log.reads).to.have.length(0);
    log.observe(latest(20), 0, 1);
    log.observe(blockNumber(19), 2, 3);
    log.observe(blockNumber(15), 4, 5);
    expect([log.wentBack()?.before.number, log.wentBack()?.after.number]).to.deep.equal([20n, 15n]);
  });
});
