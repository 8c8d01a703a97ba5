// What the command line says about a moving devnet (traffic.ts), kept out of traffic.ts so --help
// loads no viem.

/** Background transactions sent per block time (a steady rate; the seven kinds come round every few blocks). */
export const DEFAULT_TX_PER_BLOCK = 3;

/** The --block-time option as `devnet` and `load` (with no --url) describe it. */
export const BLOCK_TIME_HELP = `a moving chain (anvil): once seeded, mine a block every S seconds and keep
                        background traffic in the blocks (${DEFAULT_TX_PER_BLOCK} transactions a block time, in turn: legacy,
                        0x1, 0x2 with logs, 0x3 with a blob, 0x4 set-code, a creation, one mined with
                        status 0x0) until stopped; without it the chain stands still once seeded`;
