// The service as a whole (§1 transport, §5 authentication), where the spec leaves the behaviour unsaid:
// reported in the advisory layer so a provider can see it.
import { isObject } from '../core/hex.ts';
import { MethodSuite, type CheckContext } from './framework/check.ts';
import { RpcClient } from './framework/rpc-client.ts';

const suite = new MethodSuite('service');
export default suite;

/** The JSON-RPC error code of an exchange's body, if it carries one. */
function errorCode(body: unknown): unknown {
  return isObject(body) && isObject(body['error']) ? body['error']['code'] : undefined;
}

suite.check(
  { intent: 'unknown-method', clause: '§1 (JSON-RPC 2.0)', layer: 'advisory', title: 'an unknown method gets JSON-RPC error -32601 in an HTTP 200', covers: ['robustness'] },
  async (t) => {
    const ex = await t.exchange('rpc_certify_noSuchMethod', []);
    t.expect(ex.httpStatus === 200, `expected HTTP 200, got ${ex.fault ?? `HTTP ${ex.httpStatus}`}`, { pointer: '' });
    t.expectEqual(errorCode(ex.body), -32601, 'an unknown method must be error -32601 (method not found)', '/error/code');
  },
);

suite.check(
  { intent: 'parse-error', clause: '§1 (JSON-RPC 2.0)', layer: 'advisory', title: 'a body that is not JSON gets JSON-RPC error -32700 with id null', covers: ['robustness'] },
  async (t) => {
    const ex = await t.client.exchangeRaw('{"jsonrpc":"2.0","id":1,"method":', [{ note: 'truncated JSON body' }]);
    t.record(ex);
    t.expect(isObject(ex.body), `expected a JSON-RPC error body, got ${ex.fault ?? 'no JSON'}`, { pointer: '' });
    t.expectEqual(errorCode(ex.body), -32700, 'a body that is not JSON must be error -32700 (parse error)', '/error/code');
    t.expectEqual((ex.body as { id?: unknown }).id, null, 'the id of a parse error is null', '/id');
  },
);

suite.check(
  { intent: 'batch', clause: '§1 (JSON-RPC 2.0)', layer: 'advisory', title: 'a batch of two calls gets an array of two responses, matched by id', covers: ['robustness'] },
  async (t) => {
    const batch = [
      { jsonrpc: '2.0', id: 9001, method: 'eth_getBlockByHash', params: [t.targets.head.hash, false] },
      { jsonrpc: '2.0', id: 9002, method: 'eth_getTransactionByHash', params: [t.targets.successTx ?? t.targets.head.hash] },
    ];
    const ex = await t.client.exchangeRaw(JSON.stringify(batch), batch);
    t.record(ex);
    const body = ex.body;
    if (!Array.isArray(body)) return t.fail(`a batch must be answered with an array, got ${ex.fault ?? typeof body}`, { pointer: '' });
    t.expectEqual(body.map((r: { id?: unknown }) => r.id).sort(), [9001, 9002], 'one response per call, with the calls\' ids', '');
    const block = body.find((r: { id?: unknown }) => r.id === 9001) as { result?: { hash?: string } } | undefined;
    t.expectEqual(block?.result?.hash, t.targets.head.hash, 'each response must answer its own call', '/0/result/hash');
  },
);

/** The endpoint's URL with another key (or none) in place of its own; undefined when it has no /v3/<key>. */
function withKey(url: string, key: string): string | undefined {
  return /\/v3\/[^/?#]+/.test(url) ? url.replace(/\/v3\/[^/?#]+/, `/v3/${key}`) : undefined;
}

async function refused(t: CheckContext, key: string, what: string): Promise<void> {
  const url = withKey(t.client.url, key);
  if (!url) return t.skip('the endpoint URL has no /v3/<API_KEY> segment');
  const other = new RpcClient({ url, concurrency: 1 });
  try {
    const ex = await other.exchange('eth_chainId', []);
    t.record(ex);
    t.expect(ex.fault !== 'timeout' && ex.fault !== 'unreachable', `a request with ${what} made the endpoint ${ex.fault}`, { pointer: '' });
    t.expect(!(isObject(ex.body) && 'result' in ex.body), `a request with ${what} was served`, { pointer: '/result' });
    t.expect(ex.httpStatus === 401 || ex.httpStatus === 403 || errorCode(ex.body) !== undefined, `a request with ${what} must get HTTP 401/403 or a JSON-RPC error, got HTTP ${ex.httpStatus}`, { pointer: '' });
  } finally {
    other.close();
  }
}

suite.check(
  { intent: 'api-key-wrong', clause: '§5 (not shown)', layer: 'advisory', title: 'a wrong API key is refused (HTTP 401/403 or a JSON-RPC error), never served', covers: ['robustness'] },
  (t) => refused(t, 'rpc-certify-invalid-key-000000000000', 'a wrong API key'),
);

suite.check(
  { intent: 'api-key-missing', clause: '§5 (not shown)', layer: 'advisory', title: 'a missing API key is refused (HTTP 401/403 or a JSON-RPC error), never served', covers: ['robustness'] },
  (t) => refused(t, '', 'no API key'),
);
