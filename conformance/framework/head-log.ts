// The run's log of every head it read (the runner's client feeds it; CheckContext carries it), for the one thing
// a moving chain never does: go back. Apart from the checks (head.ts), which the check framework's types build.
import { isObject } from '../../core/hex.ts';
import type { Exchange } from '../../core/node/rpc-client.ts';

/** One read of the chain head in a run: its number, its hash when the read gave the block, and when it was asked and answered. */
export interface HeadRead {
  number: bigint;
  hash?: string;
  /** The call that read it: `eth_blockNumber` or `eth_getBlockByNumber("latest")`. */
  via: string;
  /** performance.now() before the call was queued, and when its answer was in. */
  askedAt: number;
  answeredAt: number;
  /** The exchange, for evidence. */
  exchange: Exchange;
}

/**
 * Every read of the head a run makes (preflight, the head-bracketed checks, the checks' own reads, the last read),
 * fed by the run's client. Two reads are ordered only when the first was answered before the second was asked: an
 * honest chain, however fast it moves, then never shows the second a lower number. Overlapping reads are not
 * ordered (either may have been served first), and a reorg at the same height is not going back (numbers compared).
 */
export class HeadLog {
  readonly reads: HeadRead[] = [];

  observe(ex: Exchange, askedAt: number, answeredAt: number): void {
    if (Array.isArray(ex.request) || !isObject(ex.body) || ex.fault) return;
    const { method, params } = ex.request;
    const result = ex.body['result'];
    if (method === 'eth_blockNumber') {
      const number = quantity(result);
      if (number !== undefined) this.reads.push({ number, via: 'eth_blockNumber', askedAt, answeredAt, exchange: ex });
    } else if (method === 'eth_getBlockByNumber' && params[0] === 'latest' && isObject(result)) {
      const number = quantity(result['number']);
      const hash = typeof result['hash'] === 'string' ? result['hash'] : undefined;
      if (number !== undefined) this.reads.push({ number, ...(hash ? { hash } : {}), via: 'eth_getBlockByNumber("latest")', askedAt, answeredAt, exchange: ex });
    }
  }

  /** Pairs of reads the clock orders (the first answered before the second was asked). */
  ordered(): number {
    return this.reads.reduce((n, a) => n + this.reads.filter((b) => a.answeredAt <= b.askedAt).length, 0);
  }

  /** The ordered pair whose later read fell furthest below the earlier one, if the head ever went back. */
  wentBack(): { before: HeadRead; after: HeadRead } | undefined {
    let worst: { before: HeadRead; after: HeadRead } | undefined;
    for (const before of this.reads) {
      for (const after of this.reads) {
        if (before.answeredAt > after.askedAt || after.number >= before.number) continue;
        if (!worst || before.number - after.number > worst.before.number - worst.after.number) worst = { before, after };
      }
    }
    return worst;
  }
}

/** "block 12 (0xab…) by eth_getBlockByNumber("latest")": a head read as a message names it. */
export function headText(read: HeadRead): string {
  return `block ${read.number} (${read.hash ?? 'no hash'}) by ${read.via}`;
}

function quantity(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^0x[0-9a-f]{1,64}$/i.test(value) ? BigInt(value) : undefined;
}
