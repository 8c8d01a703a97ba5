// The envelope every single answer keeps, whatever it answers (§1, §7): the request's id echoed exactly as sent (its
// raw token: `7.0` parses to 7 but is not the 7 sent), jsonrpc "2.0", Content-Type application/json (any parameters),
// HTTP 200 for a result or a revert (code 3). An error of another kind under another status breaks no rule of the spec
// but is named (advisory). Judged on the raw text and headers, so nothing JSON.parse smooths over passes.

export type EnvelopeRule = 'id' | 'jsonrpc' | 'content-type' | 'status' | 'error-status';

/** What one answer needs for its envelope to be judged: the id sent, and what came back (idToken: topLevelToken of the whole body). */
export interface Answered {
  sentId: number;
  httpStatus?: number;
  contentType?: string;
  idToken?: string;
  body?: unknown;
}

/** The rules one answer breaks, each with what it showed. An answer whose body is no JSON object breaks none here (other checks judge that). */
export function envelopeBreaks(a: Answered): Array<{ rule: EnvelopeRule; what: string }> {
  const body = a.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const out: Array<{ rule: EnvelopeRule; what: string }> = [];
  const token = a.idToken;
  if (token !== String(a.sentId)) out.push({ rule: 'id', what: `id ${token === undefined ? 'missing' : token.length > 40 ? `${token.slice(0, 40)}…` : token} for the request's ${a.sentId}` });
  const b = body as Record<string, unknown>;
  if (b['jsonrpc'] !== '2.0') out.push({ rule: 'jsonrpc', what: `jsonrpc ${JSON.stringify(b['jsonrpc']) ?? 'missing'}` });
  if (!/^application\/json\s*(;|$)/i.test(a.contentType ?? '')) out.push({ rule: 'content-type', what: `Content-Type ${a.contentType === undefined ? 'missing' : JSON.stringify(a.contentType)}` });
  if (a.httpStatus !== 200) {
    const error = b['error'];
    const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
    if ('result' in b || code === 3) out.push({ rule: 'status', what: `HTTP ${a.httpStatus} for ${'result' in b ? 'a result' : 'a revert (error 3)'}` });
    else out.push({ rule: 'error-status', what: `HTTP ${a.httpStatus} for error ${JSON.stringify(code)}` });
  }
  return out;
}

/**
 * The raw text of the value of a top-level member of a JSON object text (the last one, as JSON.parse keeps it), or
 * undefined when the text is not an object or has no such member. The key is compared decoded (`"\u0069d"` is `id`).
 */
export function topLevelToken(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  i = skipSpace(text, i + 1);
  let found: string | undefined;
  while (i < text.length && text[i] !== '}') {
    const keyEnd = stringEnd(text, i);
    if (keyEnd === undefined) return undefined;
    let name: unknown;
    try {
      name = JSON.parse(text.slice(i, keyEnd));
    } catch {
      return undefined;
    }
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return undefined;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (end === undefined) return undefined;
    if (name === key) found = text.slice(start, end);
    i = skipSpace(text, end);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return found;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  return i;
}

/** The index just past the string starting at i (a `"`), escapes skipped. */
function stringEnd(text: string, i: number): number | undefined {
  if (text[i] !== '"') return undefined;
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  return undefined;
}

/** The index just past the value starting at i: a string, an object or array (nesting counted, strings skipped), or a bare token. */
function valueEnd(text: string, i: number): number | undefined {
  if (text[i] === '"') return stringEnd(text, i);
  if (text[i] === '{' || text[i] === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') {
        const end = stringEnd(text, j);
        if (end === undefined) return undefined;
        j = end - 1;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return undefined;
  }
  let j = i;
  while (j < text.length && !',}] \t\n\r'.includes(text[j]!)) j++;
  return j > i ? j : undefined;
}
