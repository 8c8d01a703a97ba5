// Check builders every method file uses, so the same rule is written once: the envelope (§1, §7),
// null on a miss (§7), and extra fields beyond the spec (advisory).
import { keccak256, toHex } from 'viem';
import { fieldOrigins, type ShapeName } from '../../core/schemas.ts';
import { allowedExtras } from '../../core/networks.ts';
import type { Targets } from '../../core/targets.ts';
import { isObject, toQuantity } from '../../core/hex.ts';
import type { CheckContext, CheckId, Coverage, MethodSuite } from './check.ts';
import type { Clause, Section } from './clause.ts';
import type { Exchange } from '../../core/node/rpc-client.ts';

/** This builder's file, for the catalogue: the ids it declares are composed from the suite's method. */
const HERE = 'conformance/framework/common.ts';

/** A zero-value transfer between addresses nobody holds a key to: it needs no balance on any chain. */
export const PROBE_TRANSFER = { from: '0x00000000000000000000000000000000c0ffee01', to: '0x00000000000000000000000000000000c0ffee02', value: '0x0' } as const;

/** The all-zero hash: genesis's parentHash, which names no block, transaction or receipt (an easy one to take for genesis or "empty"). */
export const ZERO_HASH = `0x${'00'.repeat(32)}`;

/** §7: the all-zero hash finds nothing, like any hash that names nothing. */
export function nullOnZeroHash(suite: MethodSuite, section: Section, what: string, params: (hash: string) => unknown[]): void {
  nullOnMiss(suite, `${suite.method}/null-zero-hash`, [{ section }, { section: '7' }], `the all-zero hash (0x00…00) as ${what} returns result null`, () => params(ZERO_HASH), ['miss'], HERE);
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
    { id: `${suite.method}/envelope`, clause: { section: '1' }, layer: 'spec', title: 'success response: HTTP 200, JSON, jsonrpc "2.0", id echoed, exactly one of result/error', covers: ['hit'] },
    async (t) => {
      const ex = await t.exchange(suite.method, hit(t));
      assertEnvelope(t, ex);
    },
    HERE,
  );
  if (!failing) return;
  suite.check(
    { id: `${suite.method}/envelope-error`, clause: { section: '7' }, layer: 'spec', title: 'error response: jsonrpc, id echoed, an error object with integer code and string message, no result' },
    async (t) => {
      const ex = await t.exchange(suite.method, failing(t));
      const body = ex.body;
      if (isObject(body) && 'result' in body && !('error' in body)) t.skip('the endpoint answered this malformed request with a result; see the robustness checks');
      assertEnvelope(t, ex);
      t.expect(isObject(body) && 'error' in body, 'expected an error response');
    },
    HERE,
  );
}

/** §7: a lookup that finds nothing returns result null, not an error. `file`: where `id` is written (the suite's file unless a builder composes it). */
export function nullOnMiss(suite: MethodSuite, id: CheckId, clause: Clause, title: string, params: (t: CheckContext) => unknown[] | Promise<unknown[]>, covers: Coverage[] = ['miss'], file = suite.file): void {
  suite.check({ id, clause, layer: 'spec', title, covers }, async (t) => {
    const result = await t.result(suite.method, await params(t));
    t.expectEqual(result, null, 'a lookup that finds nothing must return result null', '/result');
  }, file);
}

/** What an extra-fields check looks at: objects of a shape (a block, its transactions, a receipt, its logs). */
export type Shaped = Array<[ShapeName, unknown]>;

/**
 * Advisory: every field beyond those the spec lists. Protocol fields the spec leaves out (schemas'
 * x-origin: yParity, blob and set-code fields, post-London header fields, blockTimestamp) are listed in
 * the verdict's note and pass; a field of neither the spec nor the protocol (nor the network's own,
 * fixtures/networks.json) fails the advisory.
 */
export function extraFieldsCheck(suite: MethodSuite, what: string, collect: (t: CheckContext) => Promise<Shaped | undefined>): void {
  suite.check({ id: `${suite.method}/extra-fields`, clause: { section: '2' }, layer: 'advisory', title: `no fields in ${what} beyond the spec's and the protocol's (those listed in a note), save the network's own (fixtures/networks.json)` }, async (t) => {
    const objects = await collect(t);
    if (!objects?.length) return t.skip(`no ${what} found on this endpoint`);
    const protocol = new Map<string, Set<string>>();
    const unknown = new Map<string, Set<string>>();
    let network: string | undefined;
    const add = (into: Map<string, Set<string>>, shape: string, field: string) => into.set(shape, (into.get(shape) ?? new Set()).add(field));
    for (const [shape, value] of objects) {
      if (!isObject(value)) continue;
      const origins = fieldOrigins(shape);
      const allowed = allowedExtras(t.targets.chainId, shape);
      for (const field of Object.keys(value)) {
        const origin = origins.get(field);
        if (origin === 'spec') continue;
        if (origin) add(protocol, shape, `${field} [${origin.replace(/^protocol: /, '')}]`);
        else if (allowed.fields.has(field)) network = allowed.network;
        else add(unknown, shape, field);
      }
    }
    const list = (m: Map<string, Set<string>>) => [...m].map(([shape, fields]) => `${shape}: ${[...fields].join(', ')}`).join('; ');
    if (protocol.size) t.note(`protocol fields the spec does not list: ${list(protocol)}`);
    if (network) t.note(`fields ${network} adds (fixtures/networks.json) are not counted`);
    const where = network ? ` (nor among ${network}'s own)` : '';
    t.expect(unknown.size === 0, `fields of neither the spec nor the protocol${where}: ${list(unknown)}`, { actual: Object.fromEntries([...unknown].map(([k, v]) => [k, [...v]])) });
  }, HERE);
}

/** The next block number after the head plus a margin: a block no endpoint has yet. */
export function futureBlock(targets: Targets): string {
  return toQuantity(BigInt(targets.head.number) + 100_000n);
}
