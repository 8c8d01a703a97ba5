// Check builders every method file uses, so the same rule is written once: the envelope (§1, §7),
// null on a miss (§7), and extra fields beyond the spec (advisory).
import { keccak256, toHex } from 'viem';
import { declaredFields, type ShapeName } from '../../core/schemas.ts';
import { allowedExtras } from '../../core/networks.ts';
import type { Targets } from '../../core/targets.ts';
import { isObject, toQuantity } from '../../core/hex.ts';
import type { CheckContext, Coverage, MethodSuite } from './check.ts';
import type { Exchange } from './rpc-client.ts';

/** A zero-value transfer between addresses nobody holds a key to: it needs no balance on any chain. */
export const PROBE_TRANSFER = { from: '0x00000000000000000000000000000000c0ffee01', to: '0x00000000000000000000000000000000c0ffee02', value: '0x0' } as const;

/** The all-zero hash: genesis's parentHash, which names no block, transaction or receipt (an easy one to take for genesis or "empty"). */
export const ZERO_HASH = `0x${'00'.repeat(32)}`;

/** §7: the all-zero hash finds nothing, like any hash that names nothing. */
export function nullOnZeroHash(suite: MethodSuite, clause: string, what: string, params: (hash: string) => unknown[]): void {
  nullOnMiss(suite, 'null-zero-hash', `${clause}, §7`, `the all-zero hash (0x00…00) as ${what} returns result null`, () => params(ZERO_HASH));
}

/** A 32-byte hash that names nothing on any chain. */
export const UNKNOWN_HASH = keccak256(toHex('rpc-certify: a hash that matches nothing'));

/** Judges one exchange against the response envelope: HTTP 200, JSON content type, jsonrpc, id, result xor error. */
function assertEnvelope(t: CheckContext, ex: Exchange): void {
  if (ex.fault === 'timeout' || ex.fault === 'unreachable' || ex.fault === 'rate-limited') t.inconclusive(`endpoint could not be tested: ${ex.fault} ${ex.faultDetail ?? ''}`);
  t.expect(ex.httpStatus === 200, `HTTP status must be 200, got ${ex.httpStatus}`, { pointer: '', expected: 200, actual: ex.httpStatus });
  t.expect(/^application\/json\b/i.test(ex.contentType ?? ''), `Content-Type must be application/json, got ${ex.contentType ?? 'none'}`, { actual: ex.contentType });
  t.expect(ex.fault === undefined, `body must be JSON: ${ex.faultDetail ?? ''}`, { actual: ex.bodyText?.slice(0, 200) });
  const body = ex.body;
  if (!isObject(body)) return t.fail('response must be a single JSON object', { pointer: '', actual: typeof body });
  t.expect(!('result' in body && 'error' in body), 'a response carries both result and error: exactly one is allowed', { pointer: '/error', actual: { result: body['result'], error: body['error'] } });
  t.expectShape('envelope', body, '');
  const sent = (ex.request as { id: number }).id;
  t.expect(body['id'] === sent, `id must echo the request id ${sent} with its type`, { pointer: '/id', expected: sent, actual: body['id'] });
}

/** §1/§7: the envelope of a successful call and of a call that fails, for one method. */
export function envelopeChecks(suite: MethodSuite, hit: (t: CheckContext) => unknown[], failing?: (t: CheckContext) => unknown[]): void {
  suite.check(
    { intent: 'envelope', clause: '§1', layer: 'spec', title: 'success response: HTTP 200, JSON, jsonrpc "2.0", id echoed, exactly one of result/error', covers: ['hit'] },
    async (t) => {
      const ex = await t.exchange(suite.method, hit(t));
      assertEnvelope(t, ex);
    },
  );
  if (!failing) return;
  suite.check(
    { intent: 'envelope-error', clause: '§7', layer: 'spec', title: 'error response: jsonrpc, id echoed, an error object with integer code and string message, no result' },
    async (t) => {
      const ex = await t.exchange(suite.method, failing(t));
      const body = ex.body;
      if (isObject(body) && 'result' in body && !('error' in body)) t.skip('the endpoint answered this malformed request with a result; see the robustness checks');
      assertEnvelope(t, ex);
      t.expect(isObject(body) && 'error' in body, 'expected an error response');
    },
  );
}

/** §7: a lookup that finds nothing returns result null, not an error. */
export function nullOnMiss(suite: MethodSuite, intent: string, clause: string, title: string, params: (t: CheckContext) => unknown[] | Promise<unknown[]>, covers: Coverage[] = ['miss']): void {
  suite.check({ intent, clause, layer: 'spec', title, covers }, async (t) => {
    const result = await t.result(suite.method, await params(t));
    t.expectEqual(result, null, 'a lookup that finds nothing must return result null', '/result');
  });
}

/** Advisory: fields the spec does not list (L2 extras, client-specific fields), reported but not fatal. */
export function extraFieldsCheck(suite: MethodSuite, shape: ShapeName, params: (t: CheckContext) => unknown[] | undefined, pick: (result: unknown) => unknown[] = (r) => [r]): void {
  suite.check({ intent: 'extra-fields', clause: '§2', layer: 'advisory', title: `no fields beyond those the spec lists for a ${shape}, save the network's own (fixtures/networks.json)` }, async (t) => {
    const p = params(t);
    if (!p) return t.skip(`no ${shape} target found on this endpoint`);
    const result = await t.result(suite.method, p);
    const known = declaredFields(shape);
    const allowed = allowedExtras(t.targets.chainId, shape);
    const extras = new Set<string>();
    for (const item of pick(result)) if (isObject(item)) for (const k of Object.keys(item)) if (!known.has(k) && !allowed.fields.has(k)) extras.add(k);
    const where = allowed.network ? ` (nor among ${allowed.network}'s own)` : '';
    t.expect(extras.size === 0, `fields not in the spec${where}: ${[...extras].join(', ')}`, { actual: [...extras] });
  });
}

/** The next block number after the head plus a margin: a block no endpoint has yet. */
export function futureBlock(targets: Targets): string {
  return toQuantity(BigInt(targets.head.number) + 100_000n);
}
