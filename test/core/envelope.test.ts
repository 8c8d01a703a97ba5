// The envelope rules every answer of a run is held to (core/envelope.ts), on raw text: what JSON.parse smooths over fails.
import { expect } from 'chai';
import { envelopeBreaks, topLevelToken } from '../../core/envelope.ts';

describe('the envelope of every answer', function () {
  it('reads the raw token of a top-level member, past nested objects, strings holding braces, and escaped keys', function () {
    expect(topLevelToken('{"jsonrpc":"2.0","id":7,"result":"0x1"}', 'id')).to.equal('7');
    expect(topLevelToken('{"jsonrpc":"2.0","id":7.0,"result":"0x1"}', 'id')).to.equal('7.0');
    expect(topLevelToken('{ "result" : {"id":1,"s":"}\\"{"} , "\\u0069d" : "7" }', 'id')).to.equal('"7"');
    expect(topLevelToken('{"result":[{"id":3}],"id":1e0}', 'id')).to.equal('1e0');
    expect(topLevelToken('{"result":1}', 'id')).to.equal(undefined);
    expect(topLevelToken('[{"id":1}]', 'id')).to.equal(undefined);
  });

  it('an id echoed other than as sent, jsonrpc other than "2.0", another Content-Type, a result or revert not under HTTP 200: each named', function () {
    const ok = { sentId: 7, httpStatus: 200, contentType: 'application/json; charset=utf-8', idToken: '7', body: { jsonrpc: '2.0', id: 7, result: '0x1' } };
    expect(envelopeBreaks(ok)).to.deep.equal([]);
    expect(envelopeBreaks({ ...ok, idToken: '7.0' })).to.deep.equal([{ rule: 'id', what: 'id 7.0 for the request\'s 7' }]);
    expect(envelopeBreaks({ ...ok, body: { ...ok.body, jsonrpc: '1.0' } }).map((b) => b.rule)).to.deep.equal(['jsonrpc']);
    expect(envelopeBreaks({ ...ok, contentType: 'text/plain' }).map((b) => b.rule)).to.deep.equal(['content-type']);
    expect(envelopeBreaks({ ...ok, contentType: 'application/jsonp' }).map((b) => b.rule)).to.deep.equal(['content-type']);
    expect(envelopeBreaks({ ...ok, httpStatus: 500 }).map((b) => b.rule)).to.deep.equal(['status']);
    const revert = { ...ok, httpStatus: 400, body: { jsonrpc: '2.0', id: 7, error: { code: 3, message: 'execution reverted' } } };
    expect(envelopeBreaks(revert).map((b) => b.rule)).to.deep.equal(['status']);
    expect(envelopeBreaks({ ...revert, body: { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'invalid' } } }).map((b) => b.rule)).to.deep.equal(['error-status']);
  });
});
