// Answers a hostile endpoint may send, as functions of the request id (the envelope's id echoed, frozen, respelled,
// nested "id" keys, errors, NULs): the fuzz of core/reply.ts (test/load/reply.test.ts) and the vectors that hold
// the Go recognition (k6ext/) to it (test/load/k6ext.test.ts).
import type { HttpOutcome } from '../../load/shared/classify.ts';
import type { Rng } from '../../load/shared/rng.ts';

export const envelope = (id: unknown, rest: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, ...rest });

/** An answer as a function of the request id: echoing or not, with nested "id" keys, errors, nulls, odd statuses. */
export function randomAnswer(rng: Rng): (id: number) => HttpOutcome {
  const status = rng.pick([200, 200, 200, 200, 500, 429]);
  const nested = rng.next() < 0.5;
  const result = rng.pick<unknown>([null, '0x5208', { hash: rng.hex(4) }, [{ id: 3 }], { logs: [] }]);
  const body = rng.pick<Record<string, unknown>>([
    { result },
    { error: { code: rng.pick([3, -32000, -32005, 429]), message: rng.pick(['execution reverted', 'rate limit', 'x']) } },
    { error: { code: 3, message: 'execution reverted', data: { id: 12 } } },
    {},
  ]);
  // 'frozen': the envelope echoes the first call's id (sampling's) ever after.
  const echoes = rng.pick(['id', 'id', 'id', 'one', 'longer', 'frozen', 'frozen']);
  // A nested "id" before the envelope's, and a raw NUL (no JSON text holds one), try to move or fake the mark.
  const nestedFirst = rng.next() < 0.5;
  const nul = rng.next() < 0.05;
  // Hand-written JSON: the envelope's id spelled another way, or given twice (red team F1).
  const spelling = rng.pick(['plain', 'spaced', 'escaped', 'twice']);
  // The id of the first call (sampling's): a frozen envelope id, or a second "id" key, is right then and wrong under load.
  let first: number | undefined;
  return (id) => {
    first ??= id;
    const echo = echoes === 'id' ? id : echoes === 'one' ? 1 : echoes === 'frozen' ? first : Number(`${id}7`);
    const extra = nested ? { meta: { id: rng.next() < 0.5 ? id : echo } } : {};
    const text = respell(nested && nestedFirst ? JSON.stringify({ ...extra, jsonrpc: '2.0', id: echo, ...body }) : envelope(echo, { ...body, ...extra }), spelling, first);
    const faulted = nul ? text.replace(`"id":${echo}`, `"id":\0${echo}`) : text;
    return { status, body: rng.next() < 0.02 ? `${faulted}x` : faulted };
  };
}

/** The envelope's id (the first "id" key of the text) spelled another way: `"id": n`, `"\\u0069d":n`, or followed by a second
 * `"id"` key (JSON.parse keeps the last) holding `frozen`. */
export function respell(text: string, spelling: string, frozen: number): string {
  if (spelling === 'spaced') return text.replace('"id":', '"id": ');
  if (spelling === 'escaped') return text.replace('"id":', '"\\u0069d":');
  if (spelling === 'twice') return `${text.slice(0, -1)},"id" :${frozen}}`;
  return text;
}
