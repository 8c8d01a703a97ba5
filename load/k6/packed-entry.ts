// A corpus entry as the VUs read it: one line of text. Every read of a SharedArray element decodes and
// deep-freezes it anew, and k6 hands iterations to its VUs in turn, so at high rates nearly every request
// is some VU's first read of its entry: an object costs ~25 µs (more when cold), a string ~5 µs. The
// line carries only what a request needs; the params (JSON text, which may hold "|") come last.
// Pure: packed and unpacked in k6, tested in Node.
import type { Expectation } from '../shared/classify.ts';
import { type CorpusEntry, expectationOf, onMissSide } from '../shared/corpus.ts';

export interface PackedEntry extends Expectation {
  miss: boolean;
  /** The fingerprint of the answer seen at sampling (core/reply.ts). */
  reply?: string;
  /** The digest of that answer, for validation (answer.ts). */
  answer?: string;
  /** What any answer must hold (bounds.ts). */
  bounds?: string;
  /** The block of a hit a declared near-head window limits (CorpusEntry.windowBlock), as a number. */
  windowBlock?: number;
  /** The answer seen at sampling conforms to the schemas (CorpusEntry.shaped). */
  shaped?: true;
  /** The depth stratum a hit reads (CorpusEntry.depth): its latency and failures are counted under it too. */
  depth?: string;
  /** The params as JSON text. */
  params: string;
}

const EXPECT: Record<Expectation['expect'], string> = { value: 'v', null: 'n', error: 'e' };
const EXPECTED: Record<string, Expectation['expect']> = { v: 'value', n: 'null', e: 'error' };

export function packEntry(e: CorpusEntry): string {
  const expected = expectationOf(e.kind);
  return [EXPECT[expected.expect], expected.errorCode ?? '', onMissSide(e.kind) ? 1 : 0, e.reply ?? '', e.answer ?? '', e.bounds ?? '', e.settled ? 1 : '', e.windowBlock === undefined ? '' : Number(e.windowBlock), e.shaped ? 1 : '', e.depth ?? '', JSON.stringify(e.params)].join('|');
}

export function unpackEntry(line: string): PackedEntry {
  const a = line.indexOf('|');
  const b = line.indexOf('|', a + 1);
  const c = line.indexOf('|', b + 1);
  const d = line.indexOf('|', c + 1);
  const f = line.indexOf('|', d + 1);
  const g = line.indexOf('|', f + 1);
  const h = line.indexOf('|', g + 1);
  const w = line.indexOf('|', h + 1);
  const x = line.indexOf('|', w + 1);
  const y = line.indexOf('|', x + 1);
  const entry: PackedEntry = { expect: EXPECTED[line.slice(0, a)] ?? 'value', miss: line.slice(b + 1, c) === '1', params: line.slice(y + 1) };
  if (b > a + 1) entry.errorCode = Number(line.slice(a + 1, b));
  if (d > c + 1) entry.reply = line.slice(c + 1, d);
  if (f > d + 1) entry.answer = line.slice(d + 1, f);
  if (g > f + 1) entry.bounds = line.slice(f + 1, g);
  if (line.slice(g + 1, h) === '1') entry.settled = true;
  if (w > h + 1) entry.windowBlock = Number(line.slice(h + 1, w));
  if (line.slice(w + 1, x) === '1') entry.shaped = true;
  if (y > x + 1) entry.depth = line.slice(x + 1, y);
  return entry;
}
