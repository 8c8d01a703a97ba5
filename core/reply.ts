// Recognising an answer without parsing it. Parsing is the largest cost of the k6 scenario's own work per
// request (JSON.parse of a 1 KB answer ~70 µs in k6, of a 90 KB block ~8 ms), and an endpoint answers the
// same lookup with the same bytes again and again, apart from the id it echoes. So sampling records a
// fingerprint of each answer it accepted: sha256 of replyText(answer, its id). Under load, an answer whose
// replyText has that fingerprint is the sampled answer with another id: it gets the sampled verdict, exactly.
// Why: the sampled answer parsed as JSON, so `"id":` in it can only be an object key (inside a string its
// quotes would be escaped); the new answer differs from it only in the whole-number value of that key; and
// the verdict reads `result` and `error` at the top level, never a key named "id". A NUL marks where the id
// was (raw JSON text cannot hold one): an answer cut elsewhere never matches. An answer without the id
// echoed once (a non-conforming endpoint) has no fingerprint, and is parsed every time. Under load, an answer is only
// compared with a fingerprint, so the cheaper markedText() does (no second scan of the body, no pattern).
// Pure: hashed by node:crypto at sampling, by k6/crypto under load.

/** markedText in Go: the k6 extension k6ext/ registers this module, reporting this rule (its Rule constant), and
 * test/load/k6ext.test.ts holds the two sides to the same results. A change to markedText changes the rule. The
 * extension's output (k6ext/totals.go TotalsOutput) takes its period from periodEnv (TotalsPeriodEnv). */
export const GO_RECOGNITION = { name: 'k6/x/rpccertify', rule: 'markedText-sha256-1', output: 'rpccertify', periodEnv: 'RPC_CERTIFY_EXPORT_MS' } as const;

/** Characters that would continue a JSON number after its integer digits. */
const NUMBER_GOES_ON = /^[0-9.eE]/;

/** The answer with NUL for the digits of the id it echoes (`"id":<id>` exactly once, where that number ends), when
 * that mark is the envelope's id: another number put there must be what the parsed answer's id reads (red team F1: an
 * envelope id spelled `"id": 5`, `"\u0069d":5` or given twice, with `"id":5` elsewhere, put the mark on the other one). */
export function replyText(body: string, id: number): string | undefined {
  const token = `"id":${id}`;
  const at = body.indexOf(token);
  const end = at + token.length;
  if (at < 0 || body.indexOf(token, at + 1) >= 0 || NUMBER_GOES_ON.test(body.charAt(end))) return undefined;
  const text = `${body.slice(0, end - String(id).length)}\0${body.slice(end)}`;
  return envelopeIdAt(text, id) ? text : undefined;
}

/** Whether the mark is where the parsed envelope reads its id: two other numbers put there are read back as the id. */
function envelopeIdAt(text: string, id: number): boolean {
  return [id + 1, id + 2].every((probe) => {
    try {
      const parsed: unknown = JSON.parse(text.replace('\0', String(probe)));
      return typeof parsed === 'object' && parsed !== null && (parsed as { id?: unknown }).id === probe;
    } catch {
      return false;
    }
  });
}

/**
 * replyText for comparing with a fingerprint only: the first `"id":<id>` marked, unchecked. A text that equals a fingerprinted
 * one is still that answer with this id: the fingerprinted text holds one NUL (JSON text holds none), where the envelope's id
 * was (replyText checks that the parsed answer reads its id there), before a character that does not continue a number; so the same bytes precede the mark (the envelope's `"id":` key),
 * the id is this one, whole, and the same bytes follow.
 */
export function markedText(body: string, id: number): string | undefined {
  const digits = String(id);
  const at = body.indexOf(`"id":${digits}`);
  if (at < 0) return undefined;
  const end = at + 5 + digits.length;
  return `${body.slice(0, end - digits.length)}\0${body.slice(end)}`;
}
