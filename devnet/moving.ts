// What the command line says about a moving devnet (traffic.ts), kept out of traffic.ts so --help
// loads no viem.

/** Background transactions sent per block time (a steady rate; the seven kinds come round every few blocks). */
export const DEFAULT_TX_PER_BLOCK = 3;

/** What --block-time does, as `start`, `devnet` and `load` (with no --url) describe it, indented to their option column. */
export function blockTimeHelp(indent: number): string {
  return [
    'mine a block every S seconds once seeded, with background traffic in the blocks',
    `(${DEFAULT_TX_PER_BLOCK} transactions a block time, in turn: legacy, 0x1, 0x2 with logs, 0x3 with a`,
    'blob, 0x4 set-code, a creation, one mined with status 0x0) until stopped; without it',
    'the chain stands still once seeded',
  ]
    .map((line) => `${' '.repeat(indent)}${line}`)
    .join('\n');
}

/** What a moving devnet adds to the embedded default's name, in the terminal and in load reports (so a
 *  standing run's baseline is refused for a moving run: not the same test). Empty for a standing one. */
export const movingSuffix = (blockTimeS: number | undefined): string => (blockTimeS ? `, moving: a block every ${blockTimeS} s with background traffic` : '');

/** Transaction kinds a devnet can be told to leave out (--without), to stand for a chain that holds none of them (an honest chain without blobs). */
export const OMITTABLE = ['blob', 'set-code'] as const;
export type Omittable = (typeof OMITTABLE)[number];

/** A reorganising devnet's deepest reorg, by default and at most (deeper ones replace more than the traffic's last blocks). */
export const DEFAULT_REORG_DEPTH = 2;
export const MAX_REORG_DEPTH = 8;
/** Why a devnet cannot reorganise but on a moving anvil (facts.md: geth --dev has no way to reorg). */
export const REORG_NEEDS = 'a devnet that reorganises needs anvil (anvil_reorg; geth --dev cannot reorg) and a moving chain (--block-time)';
