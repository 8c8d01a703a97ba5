// Advisory robustness checks: what the spec leaves unsaid ("Behaviour for missing, extra or malformed
// params: not shown"), reported so a provider sees it. A malformed call should get a JSON-RPC error
// (ideally -32602 invalid params), never a result, an HTTP 500 or a dropped connection.
import { isObject } from '../../core/hex.ts';
import { factsOf, HASH_KINDS, type ParamKind } from '../../core/methods.ts';
import type { Targets } from '../../core/targets.ts';
import type { CheckContext, MethodSuite } from './check.ts';
import { PROBE_TRANSFER, UNKNOWN_HASH } from './common.ts';

/** What a call's first parameter is, as the malformations see it: a hash of either kind is a hash. */
type FirstParam = 'hash' | 'block' | 'call';

/** This builder's file, for the catalogue: the ids it declares are composed from the suite's method. */
const HERE = 'conformance/framework/robustness.ts';

/**
 * A well-formed call to mutate into malformed ones, from the method's parameter kinds (core/methods.ts): an unknown
 * hash, the head by number (an estimate's block is 'latest', the state it runs on), index 0, the flag false.
 */
function validCall(kinds: readonly ParamKind[]): { first: FirstParam; params: (t: Targets) => unknown[] } | undefined {
  const [kind0] = kinds;
  const first: FirstParam | undefined = kind0 && HASH_KINDS.includes(kind0) ? 'hash' : kind0 === 'block' || kind0 === 'call' ? kind0 : undefined;
  if (!first) return undefined;
  const value = (kind: ParamKind, t: Targets): unknown => {
    if (kind === 'call') return PROBE_TRANSFER;
    if (HASH_KINDS.includes(kind)) return UNKNOWN_HASH;
    if (kind === 'index') return '0x0';
    if (kind === 'flag') return false;
    return first === 'call' ? 'latest' : t.head.number;
  };
  return { first, params: (t) => kinds.map((k) => value(k, t)) };
}

interface Malformation {
  intent: string;
  title: string;
  appliesTo: FirstParam[];
  params: (valid: unknown[], first: FirstParam) => unknown[];
}

const malformations: Malformation[] = [
  { intent: 'bad-hash-length', title: 'a 31-byte hash parameter', appliesTo: ['hash'], params: (p) => [(p[0] as string).slice(0, -2), ...p.slice(1)] },
  // eth_estimateGas without its block parameter is the spec's own example, so it loses its call object instead.
  { intent: 'missing-param', title: 'a required parameter left out', appliesTo: ['hash', 'block', 'call'], params: (p, first) => (first === 'call' ? [] : p.slice(0, -1)) },
  { intent: 'extra-param', title: 'one parameter too many', appliesTo: ['hash', 'block', 'call'], params: (p) => [...p, '0x1', '0x2'] },
  // A boolean is never a hash, quantity, tag or (decimal) block number; a string is never a call object.
  { intent: 'wrong-type', title: 'a parameter of the wrong JSON type (a boolean for a hex string, a string for an object)', appliesTo: ['hash', 'block', 'call'], params: (p, first) => [first === 'call' ? 'not-an-object' : true, ...p.slice(1)] },
];

export function robustnessChecks(suite: MethodSuite): void {
  const kinds = factsOf(suite.method)?.params;
  const call = kinds && validCall(kinds);
  if (!call) return;
  for (const m of malformations.filter((x) => x.appliesTo.includes(call.first))) {
    suite.check({ id: `${suite.method}/robust-${m.intent}`, clause: { section: '4', unstated: true }, layer: 'advisory', title: `${m.title} gets a JSON-RPC error, not a result or an HTTP error`, covers: ['robustness'] }, async (t) => {
      await expectRejected(t, suite.method, m.params(call.params(t.targets), call.first));
    }, HERE);
  }
  if (suite.method === 'eth_getBlockByHash') {
    // The flag is a boolean (§4.2); ganache reads the string "true" as true and serves the block.
    suite.check({ id: `${suite.method}/robust-flag-string`, clause: { section: '4.2', part: 'params', unstated: true }, layer: 'advisory', title: 'the transaction details flag as the string "true" (§4.2: a boolean) gets a JSON-RPC error -32602 (invalid params), never a block', covers: ['robustness'] }, async (t) => {
      await expectRejected(t, suite.method, [t.targets.head.hash, 'true']);
    }, HERE);
  }
  if (call.first === 'call') return;
  // geth and anvil accept uppercase hex digits and a 0X prefix in input; what matters is that it means the
  // same value: the same answer as the lowercase form, or a clean rejection.
  suite.check({ id: `${suite.method}/robust-uppercase-hex`, clause: { section: '1', unstated: true }, layer: 'advisory', title: 'a hex parameter in uppercase (0X prefix, A-F) gets the same answer as in lowercase, or a JSON-RPC error', covers: ['robustness'] }, async (t) => {
    const params = call.params(t.targets);
    const first = params[0] as string;
    const lower = await t.exchange(suite.method, params);
    const upper = await t.exchange(suite.method, [`0X${first.slice(2).toUpperCase()}`, ...params.slice(1)]);
    const body = upper.body;
    t.expect(upper.httpStatus === 200 && isObject(body), `expected a JSON-RPC answer, got ${upper.fault ?? `HTTP ${upper.httpStatus}`}`, { pointer: '' });
    if (isObject(body) && 'error' in body) return;
    t.expectEqual((body as { result?: unknown }).result, (lower.body as { result?: unknown } | undefined)?.result, 'the uppercase form must mean the same value as the lowercase one', '/result');
  }, HERE);
}

/** The call must come back as an HTTP 200 JSON-RPC error; -32602 is what clients expect for bad params. */
async function expectRejected(t: CheckContext, method: string, params: unknown[], codes: number[] = [-32602]): Promise<void> {
  const ex = await t.exchange(method, params);
  if (ex.fault === 'timeout' || ex.fault === 'unreachable') t.fail(`the endpoint ${ex.fault === 'timeout' ? 'hung' : 'dropped the connection'} on a malformed request`, { pointer: '' });
  t.expect(ex.httpStatus === 200, `expected HTTP 200 with a JSON-RPC error, got HTTP ${ex.httpStatus}`, { pointer: '', actual: ex.httpStatus });
  const body = ex.body;
  if (!isObject(body)) return t.fail('expected a JSON-RPC error object', { pointer: '', actual: ex.bodyText?.slice(0, 200) });
  t.expect(!('result' in body), 'a malformed request was answered with a result', { pointer: '/result', actual: body['result'] });
  const code = isObject(body['error']) ? body['error']['code'] : undefined;
  t.expect(typeof code === 'number' && codes.includes(code), `expected error code ${codes.join(' or ')}, got ${String(code)}`, { pointer: '/error/code', expected: codes, actual: code });
}
