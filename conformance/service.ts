// The service as a whole (§1 transport, §5 authentication), where the spec leaves the behaviour unsaid:
// reported in the advisory layer so a provider can see it.
import { isObject } from '../core/hex.ts';
import { MethodSuite, type CheckContext } from './framework/check.ts';
import { RpcClient } from '../core/node/rpc-client.ts';

const suite = new MethodSuite('service', 'conformance/service.ts');
export default suite;

/** The JSON-RPC error code of an exchange's body, if it carries one. */
function errorCode(body: unknown): unknown {
  return isObject(body) && isObject(body['error']) ? body['error']['code'] : undefined;
}

suite.check(
  { id: 'service/unknown-method', clause: { section: '1', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'an unknown method gets JSON-RPC error -32601 in an HTTP 200', covers: ['robustness'] },
  async (t) => {
    const ex = await t.exchange('rpc_certify_noSuchMethod', []);
    t.expect(ex.httpStatus === 200, `expected HTTP 200, got ${ex.fault ?? `HTTP ${ex.httpStatus}`}`, { pointer: '' });
    // The reason names what came back, so an --expect entry can excuse one client's code and not, say, a result.
    const code = errorCode(ex.body);
    const got = code !== undefined ? `error ${JSON.stringify(code)}` : isObject(ex.body) && 'result' in ex.body ? 'a result' : 'neither a result nor an error';
    t.expectEqual(code, -32601, `an unknown method must be error -32601 (method not found), got ${got}`, '/error/code');
  },
);

suite.check(
  { id: 'service/parse-error', clause: { section: '1', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'a body that is not JSON gets JSON-RPC error -32700 with id null', covers: ['robustness'] },
  async (t) => {
    const ex = await t.client.exchangeRaw('{"jsonrpc":"2.0","id":1,"method":', [{ note: 'truncated JSON body' }]);
    t.record(ex);
    t.expect(isObject(ex.body), `expected a JSON-RPC error body, got ${ex.fault ?? 'no JSON'}`, { pointer: '' });
    t.expectEqual(errorCode(ex.body), -32700, 'a body that is not JSON must be error -32700 (parse error)', '/error/code');
    t.expectEqual((ex.body as { id?: unknown }).id, null, 'the id of a parse error is null', '/id');
  },
);

suite.check(
  { id: 'service/batch', clause: { section: '1', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'a batch of two calls gets an array of two responses, matched by id', covers: ['robustness'] },
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

suite.check(
  { id: 'service/batch-ids', clause: [{ section: '1', part: 'id' }, { section: '1', part: 'batch', per: 'JSON-RPC 2.0' }], layer: 'spec', title: 'a batch the endpoint serves answers each call under its own id: the answer under each id is the one its call gets alone (never another call\'s result)', covers: ['robustness'] },
  async (t) => {
    // Two calls whose answers cannot be mistaken for each other: the head block, and the chain id.
    const calls = [
      { jsonrpc: '2.0', id: 9201, method: 'eth_getBlockByHash', params: [t.targets.head.hash, false] },
      { jsonrpc: '2.0', id: 9202, method: 'eth_chainId', params: [] },
    ];
    const ex = await t.client.exchangeRaw(JSON.stringify(calls), calls);
    t.record(ex);
    if (ex.fault === 'timeout' || ex.fault === 'unreachable') t.inconclusive(`endpoint could not be tested: ${ex.fault} ${ex.faultDetail ?? ''}`);
    const body: unknown[] = Array.isArray(ex.body) ? ex.body : t.notOnThisChain('no-batch', `not on this endpoint: a batch was answered with ${ex.fault ? `${ex.fault} (${ex.faultDetail ?? ''})` : isObject(ex.body) ? 'a single object' : typeof ex.body}, not an array: it serves no batches (service/batch judges that, advisory)`);
    const answered = calls.flatMap((call) => {
      const answer = body.find((r: unknown) => isObject(r) && r['id'] === call.id);
      return isObject(answer) && 'result' in answer ? [{ call, answer, at: body.indexOf(answer) }] : [];
    });
    if (answered.length === 0) t.skip('judged nothing: the batch answered neither call with a result under its id (service/batch judges that, advisory)');
    await t.each(answered, async ({ call, answer, at }) => {
      // Leaned on: a single answer of its own that is unusable (its shape broken) is that method's fault, judged by its checks.
      const alone = await t.leaned<unknown>(call.method, call.params, `the call of id ${call.id} sent alone`);
      t.expectEqual(answer['result'], alone, `the answer under id ${call.id} (${call.method}) must be what that call gets alone: results handed to the wrong ids, or another answer`, `/${at}/result`);
    });
  },
);

// JSON-RPC 2.0 service behaviour (§1 requires "jsonrpc": "2.0"; the rest is the JSON-RPC 2.0 spec, which §1 names).

/** A raw body sent as is, recorded as evidence; its answer parsed when it is JSON. */
async function raw(t: CheckContext, body: string, note: unknown): Promise<{ status?: number; text: string; body: unknown }> {
  const ex = await t.client.exchangeRaw(body, [note]);
  t.record(ex);
  if (ex.fault === 'timeout' || ex.fault === 'unreachable' || ex.fault === 'rate-limited') t.inconclusive(`endpoint could not be tested: ${ex.fault} ${ex.faultDetail ?? ''}`);
  return { ...(ex.httpStatus !== undefined ? { status: ex.httpStatus } : {}), text: ex.bodyText ?? '', body: ex.body };
}

suite.check(
  { id: 'service/batch-invalid-element', clause: { section: '1', part: 'batch', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'a batch with one invalid element gets an answer per element: the valid call its result, the invalid one error -32600 with id null', covers: ['robustness'] },
  async (t) => {
    const batch = [{ jsonrpc: '2.0', id: 9101, method: 'eth_chainId', params: [] }, 1];
    const answer = await raw(t, JSON.stringify(batch), { batch });
    if (!Array.isArray(answer.body)) return t.fail(`the batch was answered with ${answer.body === undefined ? 'no JSON' : 'a single object'}, not one answer per element: one invalid element must not reject the whole batch`, { pointer: '', actual: answer.text.slice(0, 200) });
    const valid = answer.body.find((r: { id?: unknown }) => isObject(r) && r.id === 9101) as { result?: unknown } | undefined;
    t.expect(valid?.result === t.targets.chainId, 'the valid call of the batch must get its own result', { pointer: '', expected: t.targets.chainId, actual: valid });
    const invalid = answer.body.find((r: { id?: unknown }) => isObject(r) && r.id === null);
    t.expectEqual(errorCode(invalid), -32600, 'the invalid element must get error -32600 (invalid request) with id null', '');
  },
);

suite.check(
  { id: 'service/batch-empty', clause: { section: '1', part: 'batch', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'an empty batch gets one error -32600 (not an empty array)', covers: ['robustness'] },
  async (t) => {
    const answer = await raw(t, '[]', { batch: [] });
    t.expect(isObject(answer.body), `an empty batch must be answered with a single error object, got ${answer.text.slice(0, 80) || 'no body'}`, { pointer: '', actual: answer.text.slice(0, 200) });
    t.expectEqual(errorCode(answer.body), -32600, 'an empty batch must be error -32600 (invalid request)', '/error/code');
  },
);

suite.check(
  { id: 'service/notification', clause: { section: '1', part: 'notification', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'a notification (a request without an id) gets no answer', covers: ['robustness'] },
  async (t) => {
    const notification = { jsonrpc: '2.0', method: 'eth_chainId', params: [] };
    const answer = await raw(t, JSON.stringify(notification), notification);
    t.expect(answer.status !== undefined && answer.status < 300, `a notification must be accepted (HTTP 200 or 204), got HTTP ${answer.status}`, { pointer: '', actual: answer.status });
    t.expect(answer.text.trim() === '', 'a notification must get no JSON-RPC answer, got a body', { pointer: '', actual: answer.text.slice(0, 200) });
  },
);

suite.check(
  { id: 'service/jsonrpc-version', clause: [{ section: '1' }, { section: '9' }], layer: 'advisory', title: 'a request without "jsonrpc", or with "1.0", is rejected with error -32600, not served', covers: ['robustness'] },
  async (t) => {
    for (const [what, request] of [
      ['without "jsonrpc"', { id: 9201, method: 'eth_chainId', params: [] }],
      ['with "jsonrpc": "1.0"', { jsonrpc: '1.0', id: 9202, method: 'eth_chainId', params: [] }],
    ] as const) {
      const answer = await raw(t, JSON.stringify(request), request);
      t.expect(!(isObject(answer.body) && 'result' in answer.body), `a request ${what} was served`, { pointer: '/result', actual: answer.text.slice(0, 200) });
      t.expectEqual(errorCode(answer.body), -32600, `a request ${what} must be error -32600 (invalid request)`, '/error/code');
    }
  },
);

// The envelope's id (§1: an integer, echoed back). JSON-RPC 2.0 allows a string, a number or null, discourages
// null (a notification is a call without any id) and numbers with fractions; any other id is an invalid request.

/** One eth_chainId call whose id is this JSON text, answered as JSON-RPC must answer a call: one object, in an HTTP 200. */
async function withId(t: CheckContext, id: string): Promise<Record<string, unknown>> {
  const text = `{"jsonrpc":"2.0","id":${id},"method":"eth_chainId","params":[]}`;
  const answer = await raw(t, text, JSON.parse(text));
  if (answer.text.trim() === '') t.fail(`a call with id ${id} got no answer (HTTP ${answer.status ?? 'none'}), as if it were a notification`, { pointer: '' });
  const got = answer.body === undefined ? 'no JSON' : Array.isArray(answer.body) ? 'an array' : !isObject(answer.body) ? typeof answer.body : `HTTP ${answer.status}`;
  if (answer.status !== 200 || !isObject(answer.body)) t.fail(`a call with id ${id} must get one JSON-RPC answer in an HTTP 200, got ${got}`, { pointer: '', actual: answer.text.slice(0, 200) });
  return answer.body;
}

/** A call with an id that may be served or refused: served, it echoes the id exactly with this call's result; refused, -32600 with id null. */
function servedOrRefused(t: CheckContext, body: Record<string, unknown>, id: string): void {
  if ('result' in body && !('error' in body)) {
    t.expectEqual(body['id'], JSON.parse(id), `a call with id ${id} was answered with id ${JSON.stringify(body['id']) ?? 'none'}`, '/id');
    t.expectEqual(body['result'], t.targets.chainId, `a call with id ${id} was answered with another call's result`, '/result');
    return;
  }
  invalidRequest(t, body, id);
}

/** JSON-RPC 2.0 "Invalid Request": error -32600, and id null (the request's id could not be taken). */
function invalidRequest(t: CheckContext, body: Record<string, unknown>, id: string): void {
  const code = errorCode(body);
  t.expectEqual(code, -32600, `a call with id ${id} refused must be error -32600 (invalid request), got ${code === undefined ? 'no error' : `error ${JSON.stringify(code)}`}`, '/error/code');
  t.expectEqual(body['id'], null, `the error refusing a call with id ${id} must have id null, got ${JSON.stringify(body['id']) ?? 'none'}`, '/id');
}

suite.check(
  { id: 'service/id-null', clause: { section: '1', part: 'id', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'a call with id null is answered with id null and its result, or refused with error -32600 and id null: never left unanswered as a notification, never answered with another id', covers: ['robustness'] },
  async (t) => servedOrRefused(t, await withId(t, 'null'), 'null'),
);

suite.check(
  { id: 'service/id-object', clause: { section: '1', part: 'id', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'a call with an object as its id ({}) is refused with error -32600 (invalid request) and id null, never served', covers: ['robustness'] },
  async (t) => {
    const body = await withId(t, '{}');
    t.expect(!('result' in body), 'a call with id {} was served', { pointer: '/result', actual: body['result'] });
    invalidRequest(t, body, '{}');
  },
);

suite.check(
  { id: 'service/id-fractional', clause: { section: '1', part: 'id', per: 'JSON-RPC 2.0' }, layer: 'advisory', title: 'a call with a fractional id (1.5) is answered with id 1.5 exactly and its result, or refused with error -32600 and id null: never answered with another id (1, "1.5")', covers: ['robustness'] },
  async (t) => servedOrRefused(t, await withId(t, '1.5'), '1.5'),
);

// A stack trace ("at f (/srv/app/x.js:1:2)", Go's "/x.go:12") or a source path tells an attacker what runs where.
const LEAK = /\bat \S.*\(?\S+:\d+:\d+\)?|(?:\/[\w.@-]+){2,}\.(?:js|mjs|cjs|ts|go|rs|py|java|rb)\b|node_modules|[A-Z]:\\\\\w/;

suite.check(
  { id: 'service/error-no-stack', clause: { section: '7' }, layer: 'advisory', title: 'error objects carry no stack trace or source file path (unknown method, invalid params, parse error)', covers: ['robustness'] },
  async (t) => {
    const answers = [
      (await t.exchange('rpc_certify_noSuchMethod', [])).body,
      (await t.exchange('eth_getBlockByHash', ['0x12', false])).body,
      (await raw(t, '{"jsonrpc":"2.0","id":1,"method":', { note: 'truncated JSON body' })).body,
    ];
    answers.forEach((body, i) => {
      if (!isObject(body) || !isObject(body['error'])) return;
      const error = body['error'];
      const keys = Object.keys(error).filter((k) => /^(stack|stacktrace|trace|file|filename)$/i.test(k));
      t.expect(keys.length === 0, `error ${i + 1} carries ${keys.join(', ')}`, { pointer: `/error/${keys[0]}`, actual: error[keys[0] ?? ''] });
      const text = JSON.stringify(error);
      const leak = LEAK.exec(text);
      t.expect(!leak, `error ${i + 1} shows a stack trace or source path: ${leak?.[0] ?? ''}`, { pointer: '/error', actual: text.slice(0, 300) });
    });
  },
);

/** The endpoint's URL with another key (or none) in place of its own; undefined when it has no /v3/<key>. */
function withKey(url: string, key: string): string | undefined {
  return /\/v3\/[^/?#]+/.test(url) ? url.replace(/\/v3\/[^/?#]+/, `/v3/${key}`) : undefined;
}

async function refused(t: CheckContext, key: string, what: string): Promise<void> {
  const url = withKey(t.client.url, key);
  // A URL with no key (a node's own, a gateway without keys) has no key handling to judge: left out of the judged share, listed.
  if (!url) return t.notOnThisChain('no-key', 'the endpoint URL has no /v3/<API_KEY> segment: no key to refuse on this endpoint');
  // The key is the harness's own invention, no secret: registered, its fragments ("00000000") would cut hex data everywhere.
  const other = new RpcClient({ url, concurrency: 1, secretUrl: false });
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
  { id: 'service/api-key-wrong', clause: { section: '5', unstated: true }, layer: 'advisory', title: 'a wrong API key is refused (HTTP 401/403 or a JSON-RPC error), never served', covers: ['robustness'] },
  (t) => refused(t, 'rpc-certify-invalid-key-000000000000', 'a wrong API key'),
);

suite.check(
  { id: 'service/api-key-missing', clause: { section: '5', unstated: true }, layer: 'advisory', title: 'a missing API key is refused (HTTP 401/403 or a JSON-RPC error), never served', covers: ['robustness'] },
  (t) => refused(t, '', 'no API key'),
);
