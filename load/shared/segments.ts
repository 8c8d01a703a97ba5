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

/** Fibonacci hashing's multiplier: 2^32 / the golden ratio. */
const GOLDEN = 0x9e3779b9;

/**
 * Whether iteration i is validated in full, for a share of them: its 32-bit Fibonacci hash is below share × 2^32. Any
 * n iterations in a row hold n × share of them within three, and so do every entry's visits (an arithmetic
 * progression of i): each entry is validated in its turn. (Every (1/share)-th iteration would validate only the
 * entries whose place in the cycle is a multiple of it: 10 of 200 at 5%.) k6ext/send.go mirrors it.
 */
export function validatesIteration(i: number, share: number): boolean {
  return (Math.imul(i, GOLDEN) >>> 0) < share * 4294967296;
}

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

/**
 * The entry iteration i asks of its lane's (stripeEntries): the lanes' entries in turn. In the capacity mix (`mixLength`:
 * its sequence's length M, iteration i calling mix[i % M]) the turn is the place's in the sequence, moved on by one each
 * time the sequence comes round: by i alone, with M a multiple of the entries' count (1,000 and 200), each place would
 * ask the same entry forever, and a method at 19 places of the sequence 19 of its 200 entries. k6ext/send.go mirrors it.
 */
export function entryIndex(stripes: readonly number[][], iteration: number, mixLength = 0): number {
  const lanes = stripes.length;
  const mine = stripes[iteration % lanes] ?? [];
  const turn = mixLength > 0 ? Math.floor((iteration % mixLength) / lanes) + Math.floor(iteration / mixLength) : Math.floor(iteration / lanes);
  return mine[turn % mine.length] ?? 0;
}
