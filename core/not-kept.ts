// An error that says the history or state asked for is not kept: EIP-4444's code 4444, or the words pruned and
// non-archive nodes use (geth: "missing trie node", "historical state … is not available"; anvil: a block below its
// height "out of range"). Archive not served,
// which the spec allows (§8), never a wrong answer. One rule for the load's sampling and the conformance checks.

const NOT_KEPT = /prun|history|archive|missing trie node|state.*not available|not available.*state/i;

/** anvil, for state it dropped (it keeps a few thousand blocks of it): "block height is 4096 but requested was 1". */
const BELOW_HEIGHT = /block height is (\d+) but requested was (\d+)/;

export function notKept(code: unknown, message: string): boolean {
  const below = BELOW_HEIGHT.exec(message);
  return code === 4444 || NOT_KEPT.test(message) || (below !== null && BigInt(below[2] ?? '0') <= BigInt(below[1] ?? '0'));
}
