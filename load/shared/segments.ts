// k6 execution segments: how one test is split over N k6 processes (here, or as k6-operator pods),
// which corpus entries each one asks, and whether a set of results covers the whole test. Pure.

export interface Segment {
  from: number;
  to: number;
}

/** k6's `--execution-segment` values for N equal instances, and the `--execution-segment-sequence` they share. */
export function segmentArgs(instances: number): { sequence: string; segments: string[] } {
  const point = (i: number) => (i === 0 ? '0' : i === instances ? '1' : `${i}/${instances}`);
  return {
    sequence: Array.from({ length: instances + 1 }, (_, i) => point(i)).join(','),
    segments: Array.from({ length: instances }, (_, i) => `${point(i)}:${point(i + 1)}`),
  };
}

/** "1/4:1/2", "0.25:0.5" or "25%:50%" (k6's forms); null or "" is the whole test. */
export function parseSegment(text: string | null | undefined): Segment {
  if (!text) return { from: 0, to: 1 };
  const [from, to] = text.split(':').map(fraction);
  if (from === undefined || to === undefined || !(from >= 0 && to <= 1 && from < to)) throw new Error(`not an execution segment: "${text}"`);
  return { from, to };
}

function fraction(text: string): number {
  const t = text.trim();
  if (t.endsWith('%')) return Number(t.slice(0, -1)) / 100;
  const [n, d] = t.split('/');
  return d === undefined ? Number(n) : Number(n) / Number(d);
}

/** The part of the test the segments leave out or run twice, or undefined when they tile it exactly. */
export function coverageGap(segments: readonly Segment[]): string | undefined {
  const sorted = [...segments].sort((a, b) => a.from - b.from);
  let at = 0;
  for (const s of sorted) {
    if (Math.abs(s.from - at) > 1e-9) return s.from > at ? `${round(at)}-${round(s.from)} of the test has no result` : `${round(s.from)}-${round(at)} of the test has two results`;
    at = s.to;
  }
  return Math.abs(at - 1) > 1e-9 ? `${round(at)}-1 of the test has no result` : undefined;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * Which corpus entry iteration i asks, so that N instances ask disjoint entries. With N equal segments k6
 * gives instance j exactly the iterations i ≡ j (mod N), so each distinct parameter list (hits and misses
 * ranked apart, so every instance keeps the miss share) belongs to one residue: no instance warms another's
 * cache, and the whole test asks what one process would. `stripes` holds the entry indexes per residue;
 * `entry(i)` is the i-th of `count` entries, its params as JSON text.
 */
export function stripeEntries(count: number, entry: (i: number) => { params: string; miss: boolean }, instances: number): number[][] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (instances === 1) return [all];
  const rank = new Map<string, number>();
  const distinct = { hit: 0, miss: 0 };
  const stripes: number[][] = Array.from({ length: instances }, () => []);
  for (const i of all) {
    const e = entry(i);
    const key = `${e.miss}${e.params}`;
    if (!rank.has(key)) rank.set(key, distinct[e.miss ? 'miss' : 'hit']++);
    stripes[(rank.get(key) ?? 0) % instances]?.push(i);
  }
  // Fewer distinct entries than instances: an instance left with none asks them all.
  return stripes.map((s) => (s.length > 0 ? s : all));
}

/** Where iteration i falls among its lane's entries (stripeEntries): the entry (its index in the corpus), its place in
 * the lane, and how many times the lane had come round before (its lap). */
export interface EntryTurn {
  index: number;
  place: number;
  lap: number;
}

/**
 * Iteration i's entry: the lane's entries in turn. In the capacity mix (`mixLength`: its sequence's length M, iteration
 * i calling mix[i % M]) the turn moves on by one more each time the sequence comes round: by i alone, with M a multiple
 * of the entries' count (1,000 and 200), each place of the sequence would ask the same entry forever, and a method at 19
 * places 19 of its 200 entries. k6ext/send.go's target mirrors it.
 */
export function entryTurn(stripes: readonly number[][], iteration: number, mixLength = 0): EntryTurn {
  const lanes = stripes.length;
  const mine = stripes[iteration % lanes] ?? [];
  const turn = Math.floor(iteration / lanes) + (mixLength > 0 ? Math.floor(iteration / mixLength) : 0);
  const place = mine.length > 0 ? turn % mine.length : 0;
  return { index: mine[place] ?? 0, place, lap: mine.length > 0 ? Math.floor(turn / mine.length) : 0 };
}

/** Fibonacci hashing's multiplier: 2^32 / the golden ratio. */
const GOLDEN = 0x9e3779b9;
const TWO_32 = 4294967296;

/**
 * Whether an entry's visit is validated in full, for a share of them. Each entry counts its laps in 32-bit fixed point,
 * `share` a lap, from a phase of its own (its place's Fibonacci hash), and is validated on the laps its count wraps: one
 * lap in 1/share, evenly, each entry's first within its first 1/share laps. The phases of any run of places are spread
 * evenly (the three-gap theorem), so each lap validates share × its entries within a few, whatever their count. (Every
 * (1/share)-th iteration validated only the entries whose place is a multiple of it, 10 of 200 at 5%; a hash of the
 * iteration alone left most of them unvalidated for entry counts near a multiple of the golden ratio, 199 and 233
 * among them.) k6ext/send.go's validates mirrors it.
 */
export function validatesTurn(turn: EntryTurn, share: number): boolean {
  if (!(share > 0)) return false;
  // Rounded up: 1/share laps then wrap at least once, from any phase (0 included).
  const step = Math.ceil(share * TWO_32);
  if (step >= TWO_32) return true;
  const count = (Math.imul(turn.place, GOLDEN) + Math.imul(turn.lap, step)) >>> 0;
  return count >= TWO_32 - step;
}
