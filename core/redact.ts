// API keys live in the URL path ({base_url}/v3/<KEY>, or another provider's shape: urlKeySegments). Everything the harness prints or writes goes
// through these helpers, so a key can appear in no report, log line or metric.
//
// An endpoint can echo the key in any encoding: raw, percent-encoded as the client sent it (either hex
// case), JSON-escaped (`\u007b`, `\u007B`, `\"`), or a mix of these character by character. Each key is
// therefore matched by a pattern that accepts every one of those spellings of each of its characters.
// It can also echo it base64 or base64url-encoded, alone or inside a longer encoded text (a token, a
// path), or hex-encoded (Ethereum data): those forms are secrets too (base64Forms, hexForms). Every
// form is matched in any letter case.
// Redaction works on text values (a body, a message, a field), never on a serialised report: a key such
// as `true` or `1` would otherwise cut through JSON syntax.

const KEY_IN_PATH = /\/v3\/[^/?#\s"'<>]+/g;
export const REDACTED = '<redacted>';
const ASCII = /^[\x20-\x7e]*$/;
/** Each form of each secret: its pattern, and for an ASCII form its lower-cased text (the quick literal test in redacted()). */
const secrets = new Map<string, { re: RegExp; literal?: string }>();
/** The longest text one character of a key can take once encoded (`\u0025` + 2 hex digits, 4 UTF-8 bytes). */
let longestForm = 0;

/** Remembers a secret, of any length, so that redact() removes every spelling of it from any text; and for a key of
 * SHORT_KEY characters or more (`fragments`), every run of its characters long enough to give it away (registerFragments). */
export function registerSecret(secret: string | undefined, fragments = true): void {
  if (!secret) return;
  for (const text of new Set([secret, percentDecoded(secret)])) {
    if (!text) continue;
    if (fragments && [...text].length >= SHORT_KEY) registerFragments(text);
    for (const form of [text, ...base64Forms(text), ...hexForms(text)]) {
      if (secrets.has(form)) continue;
      secrets.set(form, { re: pattern(form), ...(ASCII.test(form) ? { literal: form.toLowerCase() } : {}) });
      longestForm = Math.max(longestForm, form.length * 32);
    }
  }
  memo.clear();
  // Longest first: a key that contains another is removed whole.
  const sorted = [...secrets].sort(([a], [b]) => b.length - a.length);
  secrets.clear();
  for (const [k, v] of sorted) secrets.set(k, v);
}

/**
 * Registers the secrets of a URL whose value can be removed from any text (urlKeySegments, and userinfo and query values
 * as long as a key). A URL with no path (a plain node) registers nothing. A short one found only by its place
 * (positionOnlySecrets) is hidden where the URL is shown, but not removed elsewhere: it would cut words.
 */
export function registerUrlSecrets(url: string): void {
  // Fragments of the key proper only: another long segment (`/ethereum-mainnet-archive/<KEY>`) is hidden whole, but its
  // words ("ethereum") must not be cut out of every text.
  const proper = new Set(urlPaths(url).map(keyProper).filter((k): k is string => k !== undefined));
  for (const key of urlKeySegments(url)) registerSecret(key, proper.has(key));
  for (const value of urlParts(url)) if ([...value].length >= SHORT_KEY) registerSecret(value);
}

/** The key of a path: the segment after a version label (`/v3/<KEY>`), else the last one. */
function keyProper(path: string): string | undefined {
  const parts = path.split('/').filter(Boolean);
  const afterLabel = parts.findIndex((p, i) => i > 0 && VERSION_LABEL.test(parts[i - 1]!));
  return afterLabel >= 0 ? parts[afterLabel] : parts.at(-1);
}

/** Userinfo and query values of a URL, as the client sends them and decoded. */
function urlParts(url: string): string[] {
  try {
    const u = new URL(url);
    return [u.password, u.username, ...u.searchParams.values()].filter(Boolean);
  } catch {
    return []; // not a URL: nothing more to learn from it
  }
}

/** `v3`, `V2`: an API version, a label in front of the key rather than part of it. */
const VERSION_LABEL = /^v[0-9]+$/i;

/**
 * The path segments of a URL whose value is a secret removed from any text (secretSegments: 'value'), as written in it
 * and as the client sends them (`{`, `}`, spaces and non-ASCII percent-encoded). Not only `/v3/<KEY>`: providers put
 * the key in `/v2/<KEY>`, `/<KEY>`, `/<network>/<KEY>`, and a typo (`/v3//KEY`, `/V3/KEY`) must not print it.
 */
export function urlKeySegments(url: string): string[] {
  return [...new Set(urlPaths(url).flatMap((path) => { const parts = path.split('/'); return secretSegments(parts).flatMap((kind, i) => (kind === 'value' ? [parts[i]!] : [])); }))];
}

/**
 * What of a URL may be the key but is hidden only where the URL is shown, being too short to remove from other text
 * without cutting words (`rpc` would vanish from `jsonrpc`): described by place and length, never by value, for the
 * warning that says so.
 */
export function positionOnlySecrets(url: string): string[] {
  const path = urlPaths(url)[0] ?? '';
  const parts = path.split('/');
  const where = secretSegments(parts).flatMap((kind, i) => (kind === 'position' ? [`path segment ${parts.slice(0, i + 1).filter(Boolean).length} (${[...parts[i]!].length} character${[...parts[i]!].length === 1 ? '' : 's'})`] : []));
  let query: URLSearchParams | undefined;
  try {
    const u = new URL(url);
    query = u.searchParams;
    if (u.username && [...decodeURIComponent(u.username)].length < SHORT_KEY) where.push('the user name');
    if (u.password && [...decodeURIComponent(u.password)].length < SHORT_KEY) where.push('the password');
  } catch {
    // not a URL: its path is all there is
  }
  for (const [k, v] of query ?? []) if (v && [...v].length < SHORT_KEY) where.push(`the query value of ${JSON.stringify(k)}`);
  return where;
}

function urlPaths(url: string): string[] {
  const paths = [/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(url)?.[1] ?? ''];
  try {
    paths.push(new URL(url).pathname);
  } catch {
    // not a URL: the text as written is all there is
  }
  return paths;
}

/** A key's length at least: providers' keys are 32-64 characters; a segment this long anywhere in the path is secret. */
const KEY_LENGTH = 16;

/** A secret found by its place shorter than this is not removed from other text: it occurs by chance in words, hashes, hex. */
export const SHORT_KEY = 8;

/**
 * The segments of a path split on "/": 'value' where the segment is a secret removed from any text, 'position' where it
 * may be the key but is hidden only where the URL is shown (too short to remove from text without cutting words), and
 * undefined where it is shown. The key is found by its place as well as its value:
 * - the segment after a version label (`/v3/<KEY>`, `/v2/<KEY>`), whatever its length ('value': the warning for a short
 *   key says what that garbles);
 * - any segment as long as a key (`/eth/<KEY>`, `/<KEY>/`);
 * - the last segment (`/ethereum-mainnet-archive/<KEY>`: the key is last even when another segment is long);
 * - when no segment is after a label or as long as a key, every segment but a version label (a short key anywhere).
 * Those last two are 'value' from SHORT_KEY characters up, else 'position'. So `/eth/<KEY>` keeps `eth` readable (it
 * would otherwise cut every method name), while no key is shown. A version label is never secret unless right after
 * another one (the harness's probes send `/v3/` with no key).
 */
function secretSegments(segments: string[]): Array<'value' | 'position' | undefined> {
  let previous: string | undefined;
  const kinds = segments.map((s) => {
    const afterLabel = previous !== undefined && VERSION_LABEL.test(previous);
    if (s) previous = s;
    if (!s) return 'none';
    if (afterLabel) return 'key';
    if (VERSION_LABEL.test(s)) return 'none';
    return s.length >= KEY_LENGTH ? 'key' : 'maybe';
  });
  const last = kinds.length - 1 - [...kinds].reverse().findIndex((k) => k !== 'none');
  const anyKey = kinds.includes('key');
  return segments.map((s, i) => {
    if (kinds[i] === 'key') return 'value';
    if (kinds[i] !== 'maybe' || (anyKey && i !== last)) return undefined;
    return [...s].length >= SHORT_KEY ? 'value' : 'position';
  });
}

/** `https://host/v3/abc` -> `https://host/v3/<redacted>`, `https://host/abc/def` -> `https://host/<redacted>/<redacted>`; userinfo and query values too. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const segments = u.pathname.split('/');
    const secret = secretSegments(segments);
    const cleanPath = segments.map((s, i) => (secret[i] === undefined ? s : REDACTED)).join('/');
    const query = [...u.searchParams.keys()].map((k) => `${k}=${REDACTED}`).join('&');
    // Userinfo is shown as redacted, not dropped: copy-as-curl must know the URL holds more than its path.
    const userinfo = u.username || u.password ? `${REDACTED}@` : '';
    return redact(`${u.protocol}//${userinfo}${u.host}${cleanPath}${query ? `?${query}` : ''}`);
  } catch {
    return redact(url);
  }
}

/**
 * Removes every spelling of every registered secret, and any /v3/<segment>, from a text. The secrets go first: a key
 * holding "/" would otherwise be cut by the /v3/<segment> rule and leave its tail behind.
 */
export function redact(text: string): string {
  if (text.length > MEMO_LONGEST) return redacted(text);
  let out = memo.get(text);
  if (out === undefined) {
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(text, (out = redacted(text)));
  }
  return out;
}

/** Short texts recur (a report's keys, method names, tags): their redaction is remembered until a secret is added. */
const memo = new Map<string, string>();
const MEMO_LONGEST = 64;
const MEMO_SIZE = 10_000;

function redacted(text: string): string {
  let out = text;
  let lower = literalOnly(out);
  for (const { re, literal } of secrets.values()) {
    // Most texts (answers) can hold a secret only literally: one case-blind substring test rules most out.
    if (lower !== undefined && literal !== undefined && !lower.includes(literal)) continue;
    const next = out.replace(re, REDACTED);
    if (next !== out) lower = literalOnly((out = next));
  }
  // Fragments after the whole key in every spelling: a whole echo goes as one mark, not cut around its escapes or padding.
  return withoutFragments(out).replace(KEY_IN_PATH, `/v3/${REDACTED}`);
}


/** The text lower-cased when it can spell a secret only literally (no `\` escape, `%` encoding or `+` for a space); else undefined.
 * An ASCII secret then occurs in it case-blind exactly when its lower-cased form does (pattern()'s `i` folds no other letter to ASCII). */
function literalOnly(text: string): string | undefined {
  return /[\\%+]/.test(text) ? undefined : text.toLowerCase();
}

/**
 * The first `max` characters of a text, redacted. Redacts before cutting (a key straddling the cut
 * must not leave its first half behind), but only as much of a huge text as the cut can keep.
 */
export function redactCapped(text: string, max: number): string {
  const clean = redact(text.length > max + longestForm ? text.slice(0, max + longestForm) : text);
  return clean.length > max ? clean.slice(0, max) : clean;
}

/**
 * A copy of a JSON-like value with every string (object keys too) redacted, except strings exactly equal to
 * one of `vocabulary`: the harness's own words (a schema's enums), which say nothing about any key.
 */
export function redactDeep<T>(value: T, vocabulary: ReadonlySet<string> = new Set()): T {
  const clean = (s: string) => (vocabulary.has(s) ? s : redact(s));
  if (typeof value === 'string') return clean(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, vocabulary)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), redactDeep(v, vocabulary)])) as T;
  }
  return value;
}

/**
 * Every string value redacted, the keys kept: for the harness's own records (a run's preflight answers, the reference's
 * figures, an exchange's envelope), whose field names are its own. A short key's variants (the base64 of "x" is "eA")
 * would cut them ("h<redacted>dBefore") and break the report's schema; an endpoint's JSON, whose keys may hold the key,
 * goes through redactDeep.
 */
export function redactValues<T>(value: T): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactValues(v)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValues(v)])) as T;
  return value;
}

/** Every string a JSON Schema fixes (`enum`, `const`), and its property names: the words a report may hold whatever the key. */
export function schemaVocabulary(schema: unknown): Set<string> {
  const words = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'enum' && Array.isArray(v)) || k === 'const') for (const w of [v].flat()) if (typeof w === 'string') words.add(w);
      if (k === 'properties' && v && typeof v === 'object') for (const name of Object.keys(v)) words.add(name);
      walk(v);
    }
  };
  walk(schema);
  return words;
}

/** A key's hex spelling shorter than this many digits is left alone: it would match by chance inside hashes and quantities. */
const MIN_HEX = 8;

/**
 * The hex of a text's UTF-8 bytes (the wire encoding of Ethereum bytes: an endpoint can echo the key as `0x…` data).
 * Matched in either case like every form, with or without `0x`, alone or inside longer hex data.
 */
export function hexForms(text: string): string[] {
  const hex = [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return hex.length >= MIN_HEX && hex.toLowerCase() !== text.toLowerCase() ? [hex] : [];
}

/** The base64 characters of a key inside a longer encoded text, when fewer than this, are left alone: they would match by chance. */
const MIN_EMBEDDED_BASE64 = 8;

/**
 * The base64 and base64url spellings of a text: encoded alone (padded or not), and the characters that encode
 * only its bytes when it sits inside a longer encoded text, at each of the three byte offsets modulo 3 (the
 * characters at its edges also carry the neighbouring bytes' bits, so they are not part of it).
 */
export function base64Forms(text: string): string[] {
  const bytes = new TextEncoder().encode(text);
  const encode = (b: Uint8Array) => btoa(String.fromCharCode(...b));
  const alone = encode(bytes);
  const forms = [alone, alone.replace(/=+$/, '')];
  for (const offset of [0, 1, 2]) {
    const encoded = encode(new Uint8Array([...new Uint8Array(offset), ...bytes]));
    const inner = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (inner.length >= MIN_EMBEDDED_BASE64) forms.push(inner);
  }
  const url = forms.map((f) => f.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  return [...new Set([...forms, ...url])].filter((f) => f !== text);
}

function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined; // a stray `%` (the key is taken as it is)
  }
}

/**
 * Every spelling of the text, character by character: literal, JSON escapes, percent-encoded UTF-8, in any letter
 * case (gateways normalise paths: "invalid project <the key lower-cased>").
 */
function pattern(text: string): RegExp {
  const parts = [...text].map((ch) => `(?:${charForms(ch).join('|')})`);
  return new RegExp(parts.join(''), 'gi');
}

function charForms(ch: string): string[] {
  // An astral character is two UTF-16 units, so two `\u` escapes.
  const forms = [escapeRegex(ch), [...Array(ch.length).keys()].map((i) => jsonUnicode(ch.charCodeAt(i))).join('')];
  const short: Record<string, string> = { '"': '\\\\"', '\\': '\\\\\\\\', '/': '\\\\/', '\b': '\\\\b', '\f': '\\\\f', '\n': '\\\\n', '\r': '\\\\r', '\t': '\\\\t' };
  if (short[ch]) forms.push(short[ch]);
  if (ch === ' ') forms.push('\\+');
  const percent = `(?:%|${jsonUnicode(0x25)})`;
  forms.push([...new TextEncoder().encode(ch)].map((b) => percent + anyCaseHex(b, 2)).join(''));
  return forms;
}

/** `\uXXXX` for one UTF-16 unit, hex digits in either case. */
function jsonUnicode(unit: number): string {
  return `\\\\u${anyCaseHex(unit, 4)}`;
}

function anyCaseHex(n: number, digits: number): string {
  return [...n.toString(16).padStart(digits, '0')].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join('');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * Fragments of a key: a provider that echoes it cut short ("invalid project id SENTINEL-KEY-7cb0...") gives most of it
 * away. Any run of FRAGMENT or more consecutive characters of the key (HEX_FRAGMENT when it is all hex: 8 hex digits
 * occur by chance), a `-` spelled `_`, or of its hex, base64, base64url or base32 spelling at any byte alignment, is
 * redacted wherever it stands, in any letter case. A run of the key's own characters is never redacted inside a longer
 * `0x` hex run, so hashes and data stay whole when an (all-hex) key shares digits with them; a run of its hex, base64 or
 * base32 spelling is redacted there too, since those spellings are what carries a key inside `0x` data (a revert's
 * Error(string) holding "invalid project id SENTINEL-KEY-7cb0"), and 16 hex digits of it occur in a hash by chance
 * next to never. Found by sliding a window of each length over the text and looking it up, not by a pattern per fragment.
 */
const FRAGMENT = 8;
const HEX_FRAGMENT = 12;
/** Per kind (the key's own characters, or an encoding of them) and window length: the lower-cased windows of every spelling. */
const fragmentWindows = { raw: new Map<number, Set<string>>(), encoded: new Map<number, Set<string>>() };
/** The first four characters of every window: most positions of a text are ruled out by one lookup. */
const fragmentHeads = new Set<string>();

function registerFragments(secret: string): void {
  const n = /^[0-9a-f]+$/i.test(secret) ? HEX_FRAGMENT : FRAGMENT;
  const bytes = (text: string) => new TextEncoder().encode(text);
  const spellings = [...new Set([secret, secret.replace(/-/g, '_')])];
  for (const text of spellings) {
    addWindows('raw', text, n);
    const b = bytes(text);
    addWindows('encoded', hexOf(b), 2 * n);
    for (const offset of [0, 1, 2]) addWindows('encoded', innerChars(b, offset, 3, 4, (x) => btoa(String.fromCharCode(...x))), Math.ceil((4 * n) / 3));
    for (const offset of [0, 1, 2, 3, 4]) addWindows('encoded', innerChars(b, offset, 5, 8, base32), Math.ceil((8 * n) / 5));
  }
  memo.clear();
}

/** The characters of an encoding (`group` bytes to `chars` characters) that carry only `bytes`' bits, put at `offset` bytes into a longer text. */
function innerChars(bytes: Uint8Array, offset: number, group: number, chars: number, encode: (b: Uint8Array) => string): string {
  const encoded = encode(new Uint8Array([...new Uint8Array(offset), ...bytes])).replace(/=+$/, '');
  const bits = (8 * group) / chars;
  return encoded.slice(Math.ceil((8 * offset) / bits), Math.floor((8 * (offset + bytes.length)) / bits));
}

function hexOf(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** RFC 4648 base32, unpadded. */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + alphabet[(value << (5 - bits)) & 31] : out;
}

/** Every window of `length` characters of a spelling (base64url's too: `+/` spelled `-_`), lower-cased. */
function addWindows(kind: keyof typeof fragmentWindows, text: string, length: number): void {
  if (text.length < length) return;
  const set = fragmentWindows[kind].get(length) ?? new Set<string>();
  fragmentWindows[kind].set(length, set);
  for (const spelling of new Set([text, text.replace(/\+/g, '-').replace(/\//g, '_')])) {
    for (let i = 0; i + length <= spelling.length; i++) {
      const w = asciiLower(spelling.slice(i, i + length));
      // One character repeated gives nothing of a key away, and matches zero padding everywhere.
      if (/^(.)\1*$/.test(w)) continue;
      set.add(w);
      fragmentHeads.add(w.slice(0, 4));
    }
  }
}

/** ASCII letters lower-cased, nothing else: the text keeps its length, so a window's place in it is its place in the text. */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** The text with every fragment run redacted: windows found merged into runs, runs of the key's own characters inside a longer `0x` hex run kept. */
function withoutFragments(text: string): string {
  if (fragmentHeads.size === 0) return text;
  const lower = asciiLower(text);
  const raw: Array<[number, number]> = [];
  const encoded: Array<[number, number]> = [];
  for (let i = 0; i + 4 <= lower.length; i++) {
    if (!fragmentHeads.has(lower.slice(i, i + 4))) continue;
    for (const [spans, windows] of [[raw, fragmentWindows.raw], [encoded, fragmentWindows.encoded]] as const) {
      for (const [length, set] of windows) if (i + length <= lower.length && set.has(lower.slice(i, i + length))) spans.push([i, i + length]);
    }
  }
  if (raw.length === 0 && encoded.length === 0) return text;
  const hexRuns = raw.length ? [...text.matchAll(/0x[0-9a-f]+/gi)].map((m) => [m.index, m.index + m[0].length] as const) : [];
  const insideHex = ([a, b]: [number, number]) => hexRuns.some(([x, y]) => x <= a && b <= y && y - x > b - a);
  const runs = merged([...merged(raw).filter((r) => !insideHex(r)), ...encoded]);
  let out = '';
  let at = 0;
  for (const [a, b] of runs) {
    out += text.slice(at, a) + REDACTED;
    at = b;
  }
  return out + text.slice(at);
}

/** Overlapping or touching spans merged into runs, in order. */
function merged(spans: Array<[number, number]>): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0] || y[1] - x[1])) {
    const last = runs.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else runs.push([a, b]);
  }
  return runs;
}
