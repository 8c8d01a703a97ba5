// The head lag against --reference-url, sampled beside k6 while a load run measures: once a period it reads the
// reference's eth_blockNumber, then the endpoint's (eth_blockNumber and the block `latest` names: the lower), then the reference's again. One process and one clock hold both
// nodes' reads (k6 instances each see only the endpoint), and the two reference reads bracket the endpoint's: the
// endpoint lags by at least the first reference head minus its own (the reference had it before the endpoint was
// asked), the reference by at least the endpoint's head minus the second reference head. Seconds: how long the other
// node had already shown the first block this one lacks (its first read at or above that block; for blocks it
// had before the first read, that read's time less the block timestamps between: run/head-lag.ts's only estimate).
// Every figure is a lower bound, so an honest endpoint is never made late by the sampler's own delays.
import { type Exchange, RpcClient } from '../../core/node/rpc-client.ts';
import { inert } from '../../core/inert.ts';
import { EndpointError } from '../../core/node/errors.ts';
import { otherGenesis } from '../../core/node/same-chain.ts';
import type { HeadLagRecord, HeadLagSample } from '../shared/measurement.ts';

/** One sample a second: the figure's resolution, at three eth_blockNumber calls a second (the k6 side polls as often). */
export const HEAD_LAG_PERIOD_MS = 1000;
/** A read slower than this is a failed read: the sample judges nothing. */
const READ_TIMEOUT_MS = 5000;

export interface HeadLagOptions {
  url: string;
  referenceUrl: string;
  periodMs?: number;
  signal?: AbortSignal;
}

type Read = { head: number; sentAt: number; at: number } | { error: string };

/** One node's heads as the sampler saw them: when it first showed each block. */
class HeadWatch {
  private first: { head: number; at: number } | undefined;
  /** Each new highest head, with when it was answered. */
  private readonly rises: Array<{ head: number; at: number }> = [];
  private readonly timestamps = new Map<number, number>();

  constructor(
    readonly client: RpcClient,
    readonly who: 'reference' | 'endpoint',
  ) {}

  async read(): Promise<Read> {
    const sentAt = performance.now();
    const ex = await this.client.exchange('eth_blockNumber', []);
    const result = resultOf(ex);
    const number = typeof result === 'string' && /^0x[0-9a-f]+$/i.test(result) ? Number.parseInt(result, 16) : undefined;
    if (number === undefined) return { error: `${this.who}: eth_blockNumber ${failureOf(ex, result)}` };
    // The endpoint's head is what its clients get: an eth_blockNumber that is current over a `latest` that lags is a
    // lag (red team: 20 blocks behind read as 0). Read second, an honest `latest` is at or above that number.
    const latest = this.who === 'endpoint' ? await this.latestNumber() : number;
    if (typeof latest !== 'number') return latest;
    const head = Math.min(number, latest);
    const at = performance.now();
    this.first ??= { head, at };
    if (head > (this.rises.at(-1)?.head ?? -1)) this.rises.push({ head, at });
    return { head, sentAt, at };
  }

  /** The number of the block `latest` names. */
  private async latestNumber(): Promise<number | { error: string }> {
    const ex = await this.client.exchange('eth_getBlockByNumber', ['latest', false]);
    const result = resultOf(ex);
    const n = (result as { number?: unknown } | null | undefined)?.number;
    if (typeof n !== 'string' || !/^0x[0-9a-f]+$/i.test(n)) return { error: `${this.who}: eth_getBlockByNumber(latest) ${failureOf(ex, result)}` };
    return Number.parseInt(n, 16);
  }

  /** When (performance.now() ms) this node first showed block `n`, at the latest; an error when it cannot be told. */
  async shownAt(n: number): Promise<number | { error: string }> {
    const first = this.first;
    if (!first) return { error: `${this.who}: no head read yet` };
    if (n > first.head) return this.rises.find((r) => r.head >= n)?.at ?? { error: `${this.who}: block ${n} never shown` };
    // A block it had before the first read: that read's time less the chain time between the two blocks.
    const [tsFirst, tsN] = [await this.timestamp(first.head), await this.timestamp(n)];
    if (typeof tsFirst !== 'number') return tsFirst;
    if (typeof tsN !== 'number') return tsN;
    return first.at - 1000 * Math.max(0, tsFirst - tsN);
  }

  private async timestamp(n: number): Promise<number | { error: string }> {
    const known = this.timestamps.get(n);
    if (known !== undefined) return known;
    const ex = await this.client.exchange('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    const result = resultOf(ex);
    const ts = (result as { timestamp?: unknown } | null | undefined)?.timestamp;
    if (typeof ts !== 'string' || !/^0x[0-9a-f]+$/i.test(ts)) return { error: `${this.who}: eth_getBlockByNumber(${n}) ${failureOf(ex, result)}` };
    this.timestamps.set(n, Number.parseInt(ts, 16));
    return this.timestamps.get(n) ?? 0;
  }
}

function resultOf(ex: Exchange): unknown {
  const body = ex.body as { result?: unknown } | undefined;
  return ex.fault ? undefined : body?.result;
}

/** What a failed read got, in a few words (the reasons are counted: no block numbers in them). */
function failureOf(ex: Exchange, result: unknown): string {
  if (ex.fault) return `${ex.fault}${ex.faultDetail ? ` (${inert(ex.faultDetail, 80)})` : ''}`;
  const error = (ex.body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (error) return `answered error ${String(error.code)} ${JSON.stringify(inert(String(error.message), 80))}`;
  return `answered ${inert(JSON.stringify(result) ?? 'nothing', 40)}`;
}

/** A reference on another chain, or one that cannot say its chain, is refused before the run (exit 2). */
export async function assertSameChain(opts: HeadLagOptions): Promise<void> {
  const [endpoint, reference] = [opts.url, opts.referenceUrl].map((url) => new RpcClient({ url, timeoutMs: 30_000, ...(opts.signal ? { signal: opts.signal } : {}) })) as [RpcClient, RpcClient];
  const chainOf = async (client: RpcClient, who: string) => {
    const ex = await client.exchange('eth_chainId', []);
    const id = resultOf(ex);
    if (typeof id !== 'string' || !/^0x[0-9a-f]+$/i.test(id)) throw new EndpointError(`${who}: eth_chainId ${failureOf(ex, id)}`);
    return BigInt(id);
  };
  try {
    const [ours, theirs] = await Promise.all([chainOf(endpoint, 'the endpoint'), chainOf(reference, 'the reference (--reference-url)')]);
    if (ours !== theirs) throw new EndpointError(`the reference (--reference-url) serves chain ${theirs}, the endpoint chain ${ours}: a head lag between two chains means nothing`);
    const other = await otherGenesis(endpoint, reference);
    if (other) throw new EndpointError(other);
  } finally {
    endpoint.close();
    reference.close();
  }
}

export class HeadLagSampler {
  private readonly reference: HeadWatch;
  private readonly endpoint: HeadWatch;
  private readonly periodMs: number;
  private readonly samples: HeadLagSample[] = [];
  private readonly started = performance.now();
  private stopped = false;
  private readonly loop: Promise<void>;
  private wake: (() => void) | undefined;

  constructor(opts: HeadLagOptions) {
    const common = { timeoutMs: READ_TIMEOUT_MS, concurrency: 1, retries429: 0, ...(opts.signal ? { signal: opts.signal } : {}) };
    this.reference = new HeadWatch(new RpcClient({ url: opts.referenceUrl, ...common }), 'reference');
    this.endpoint = new HeadWatch(new RpcClient({ url: opts.url, ...common }), 'endpoint');
    this.periodMs = opts.periodMs ?? HEAD_LAG_PERIOD_MS;
    this.loop = this.run();
  }

  /** Ends the sampling (the round in flight finishes) and returns what it saw; again, the same. */
  stop(): Promise<HeadLagRecord> {
    this.record ??= this.finish();
    return this.record;
  }

  private record: Promise<HeadLagRecord> | undefined;

  private async finish(): Promise<HeadLagRecord> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.reference.client.close();
    this.endpoint.client.close();
    return { periodSec: this.periodMs / 1000, durationSec: tenths(performance.now() - this.started), samples: this.samples };
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const roundStart = performance.now();
      this.samples.push(await this.sample());
      // A round starts a period after the last one started; a slow round is followed at once (no catching up).
      const wait = roundStart + this.periodMs - performance.now();
      if (wait > 0 && !this.stopped) await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => (clearTimeout(timer), resolve());
      });
    }
  }

  private async sample(): Promise<HeadLagSample> {
    const r1 = await this.reference.read();
    const e = 'error' in r1 ? r1 : await this.endpoint.read();
    const r2 = 'error' in e ? e : await this.reference.read();
    const t = tenths(('sentAt' in e ? e.sentAt : performance.now()) - this.started);
    if ('error' in r1) return { t, unjudged: r1.error };
    if ('error' in e) return { t, unjudged: e.error };
    if ('error' in r2) return { t, unjudged: r2.error };
    const heads = { reference: [r1.head, r2.head] as [number, number], endpoint: e.head };
    if (r2.head < r1.head) return { t, ...heads, unjudged: 'reference: eth_blockNumber went back between two reads' };
    const lag = r1.head > e.head ? await this.since(this.reference, e.head + 1, e.sentAt) : 0;
    if (typeof lag !== 'number') return { t, ...heads, unjudged: lag.error };
    const behind = e.head > r2.head ? await this.since(this.endpoint, r2.head + 1, r2.sentAt) : 0;
    if (typeof behind !== 'number') return { t, ...heads, unjudged: behind.error };
    return { t, ...heads, lagBlocks: Math.max(0, r1.head - e.head), lagSec: lag, referenceBehindBlocks: Math.max(0, e.head - r2.head), referenceBehindSec: behind };
  }

  /** Seconds `watch`'s node had shown block `n` before `askedAt` (when the other node was asked and lacked it). */
  private async since(watch: HeadWatch, n: number, askedAt: number): Promise<number | { error: string }> {
    const shown = await watch.shownAt(n);
    return typeof shown === 'number' ? tenths(Math.max(0, askedAt - shown)) : shown;
  }
}

/** Milliseconds as seconds to a tenth, rounded down: the sampling is no finer, and a lower bound stays one. */
const tenths = (ms: number) => Math.floor(ms / 100) / 10;
