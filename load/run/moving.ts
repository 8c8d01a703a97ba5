// Whether the chain under test moves, seen at sampling: on a chain that moves, `load` chases the head (fresh reads)
// without being asked, since a stale `latest` is a provider's commonest failure and a gate that does not look for it
// passes it. The node asked is the reference when there is one (an endpoint frozen at its head on a moving chain then
// still gets chased); without one, an endpoint whose head stands still cannot be told from a chain that does.
import { RpcClient } from '../../core/node/rpc-client.ts';
import type { FreshChase } from '../shared/load-report.ts';

export type { FreshChase } from '../shared/load-report.ts';

/** The wait for a block, in block intervals, and its bounds: a standing chain costs at least MIN_WAIT_S, a slow one at most MAX_WAIT_S. */
const INTERVALS = 2;
const MIN_WAIT_S = 2;
const MAX_WAIT_S = 30;
/** How far back the block interval is measured, in blocks. */
const SPAN = 8;
const POLL_MS = 250;
/** A head older than this many of its chain's block intervals (and this many seconds) is no head of a chain that moves: said so. */
const OLD_HEAD_INTERVALS = 10;
const OLD_HEAD_MIN_S = 60;

/**
 * Whether the head passed `sampledHead` (the head sampling started from) between `sinceMs` (Date.now() when sampling
 * started) and two of the chain's block intervals after it (as the timestamps of its last blocks space them; 2 to 30 s):
 * a chain that moves shows a block in that time; the wait is what sampling has not already spent of it.
 */
export async function headMoves(url: string, sampledHead: bigint, sinceMs: number, signal?: AbortSignal): Promise<FreshChase> {
  const client = new RpcClient({ url, timeoutMs: 10_000, ...(signal ? { signal } : {}) });
  try {
    const head = await blockAt(client, 'latest');
    if (head.number > sampledHead) return { chased: true, why: `the head moved during sampling (block ${sampledHead} to ${head.number})` };
    const earlier = head.number > 0n ? await blockAt(client, `0x${(head.number > BigInt(SPAN) ? head.number - BigInt(SPAN) : 0n).toString(16)}`) : head;
    const interval = head.number > earlier.number ? Number(head.timestamp - earlier.timestamp) / Number(head.number - earlier.number) : 0;
    const waitS = Math.min(MAX_WAIT_S, Math.max(MIN_WAIT_S, INTERVALS * interval));
    const until = sinceMs + waitS * 1000;
    while (Date.now() < until && !signal?.aborted) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      const now = await blockNumber(client);
      if (now !== undefined && now > sampledHead) return { chased: true, why: `the head moved during sampling (block ${sampledHead} to ${now})` };
    }
    // A head far older than its chain's pace: the chain stopped, or the endpoint is frozen at its head while the chain
    // moves on; its own head is all it shows. Not chased (a dev chain that stands is no stale endpoint), but said loudly.
    const ageS = Date.now() / 1000 - Number(head.timestamp);
    const frozen = interval > 0 && ageS > Math.max(OLD_HEAD_MIN_S, OLD_HEAD_INTERVALS * interval) ? `; its head is ${Math.round(ageS)} s old while its blocks came ${round1(interval)} s apart: AN ENDPOINT FROZEN AT ITS HEAD LOOKS LIKE THIS, and only --reference-url (or --fresh) tells it from a chain that stopped` : '';
    return { chased: false, why: `the head stood at block ${head.number} for ${round1((Date.now() - sinceMs) / 1000)} s from the start of sampling (${interval ? `two of its ${round1(interval)} s block intervals` : 'no block interval to measure'}, ${MIN_WAIT_S} s at least; its timestamp ${Math.round(ageS)} s old): a chain that does not move has no fresh reads to chase (--fresh chases it anyway)${frozen}` };
  } catch (e) {
    // No answer to decide on: chased, so a stale backend is looked for rather than assumed away.
    return { chased: true, why: `whether the head moves could not be read (${(e as Error).message}): chased` };
  } finally {
    client.close();
  }
}

async function blockAt(client: RpcClient, tag: string): Promise<{ number: bigint; timestamp: bigint }> {
  const ex = await client.exchange('eth_getBlockByNumber', [tag, false]);
  const block = (ex.body as { result?: { number?: unknown; timestamp?: unknown } } | undefined)?.result;
  if (typeof block?.number !== 'string' || typeof block.timestamp !== 'string') throw new Error(`eth_getBlockByNumber(${tag}) answered no block`);
  return { number: BigInt(block.number), timestamp: BigInt(block.timestamp) };
}

async function blockNumber(client: RpcClient): Promise<bigint | undefined> {
  const ex = await client.exchange('eth_blockNumber', []);
  const n = (ex.body as { result?: unknown } | undefined)?.result;
  return typeof n === 'string' && /^0x[0-9a-f]+$/i.test(n) ? BigInt(n) : undefined;
}

const round1 = (n: number) => Math.round(n * 10) / 10;
