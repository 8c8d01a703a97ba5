// The near-head window of spec §8: on a network that declares one, eth_getTransactionReceipt and
// eth_getTransactionByHash serve only the latest N blocks ("archive requests are unavailable"). Pure: the k6
// bundle judges its lookups with it. Which methods it limits is a fact of the method table (core/methods.ts).

/** A declared window: its size in blocks, and who declared it (the flag or the networks table). */
export interface NearHeadWindow {
  blocks: number;
  /** "--near-head-window" or "fixtures/networks.json (<network>)". */
  from: string;
}

/**
 * Blocks a hit target keeps clear of the window's edge, so that the chain moving during a run does not carry it
 * out: a quarter of the window (32 of 128), at least one.
 */
export function windowMargin(blocks: number): number {
  return Math.max(1, Math.floor(blocks / 4));
}

/** The oldest block inside the window of a head: the latest N blocks are head - N + 1 .. head. */
export function windowEdge(head: bigint, blocks: number): bigint {
  const edge = head - BigInt(blocks) + 1n;
  return edge < 0n ? 0n : edge;
}

/** Whether a block is inside the window of this head. */
export function insideWindow(block: bigint, head: bigint, blocks: number): boolean {
  return block >= windowEdge(head, blocks);
}
