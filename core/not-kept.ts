// An error that says the history or state asked for is not kept: EIP-4444's code 4444, or the words pruned and
// non-archive nodes use (geth: "missing trie node", "historical state … is not available"). Archive not served,
// which the spec allows (§8), never a wrong answer. One rule for the load's sampling and the conformance checks.

const NOT_KEPT = /prun|history|archive|missing trie node|state.*not available|not available.*state/i;

export function notKept(code: unknown, message: string): boolean {
  return code === 4444 || NOT_KEPT.test(message);
}
