// The loopback endpoint the benches measure against: what it answers, and when. The delay schedules
// are deterministic, so the ground truth is exact; the responder applies them, the benches compute
// from them what a true measurement must show.
export const METHOD = 'eth_getTransactionByHash';
export const TX_HASH = '0x9b2ac55d3f0cb78a91ce04f5b2572234fe37cee3908d85bdaa528d470af31596';
export const REQUEST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: METHOD, params: [TX_HASH] });
/** The hashes the harness's corpus asks for (TX_HASH first): as many entries as sampling takes per method, so a
 * VU's verdict cache (load/repeat.ts) must learn each answer, as it must against a real endpoint. */
export const CORPUS_HASHES = [TX_HASH, ...Array.from({ length: 199 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, '0')}`)];

/** The answer's size in KiB when RPC_CERTIFY_BENCH_ANSWER_KB asks for one (real providers answer 1 KB to 100 KB: a
 * block's receipts, a contract call's input): the transaction's input data padded to it. Read by the bench and by the
 * responder it starts (which inherits the environment), so both hold the same bytes. Absent: the transaction as is (0.9 KB). */
export const ANSWER_KB = Number(process.env['RPC_CERTIFY_BENCH_ANSWER_KB'] ?? 0);
const BASE_INPUT = '0x657eb4ca0000000000000000000000000000000000000000000000000000000000000003';
/** ~0.9 KB of the answer is not its input. */
const padded = (kb: number) => (kb > 0 ? `${BASE_INPUT}${'0'.repeat(Math.max(0, Math.round(kb * 1024 - 900 - BASE_INPUT.length) & ~1))}` : BASE_INPUT);

/** A real, schema-valid answer (anvil's, for the seeded EIP-1559 transaction). */
export const TX = {
  type: '0x2',
  chainId: '0x7a69',
  nonce: '0x1',
  gas: '0x7435',
  maxFeePerGas: '0x6c5d71d9',
  maxPriorityFeePerGas: '0x3b9aca00',
  to: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
  value: '0x0',
  accessList: [],
  input: padded(ANSWER_KB),
  r: '0x3126e6878a181e1bc93dce23bae31accc64327b2a20b1f4a4b27bf53fc57467f',
  s: '0x128433487e600950a6f7753842ec6f6417c33a3e3d34f3e2ef9cfe851a769739',
  yParity: '0x1',
  v: '0x1',
  hash: TX_HASH,
  blockHash: '0xbc20b2eaa370917d6a0417674dcf9e5da6ab0fb689a026d1165a0786230a8001',
  blockNumber: '0x6',
  transactionIndex: '0x0',
  from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  gasPrice: '0x5a4ddee0',
};

/** The answer to a call of METHOD for `hash`: the canned transaction with that hash (the responder's bytes). */
export function txAnswer(id: number, hash: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result: { ...TX, hash } });
}

export const MODES = ['fast', 'fixed', 'tail', 'stall'] as const;
export type Mode = (typeof MODES)[number];

export const BASE_MS = 20;
const TAIL_MS = 200;
const TAIL_EVERY = 100;
/** The stalling endpoint freezes for `forMs` every `everyMs`, the first time `firstAtMs` after its first request. */
export const STALL = { everyMs: 10_000, forMs: 1_000, firstAtMs: 5_000 };

/** The delay of request `n` (0-based, arrival order) that arrived `atMs` after the first request. */
export function delayMs(mode: Mode, n: number, atMs: number): number {
  switch (mode) {
    case 'fast':
      return 0;
    case 'fixed':
      return BASE_MS;
    case 'tail':
      return n % TAIL_EVERY === TAIL_EVERY - 1 ? TAIL_MS : BASE_MS;
    case 'stall': {
      // An answer due inside a stall waits for its end, as from a server frozen by a GC pause.
      const due = atMs + BASE_MS;
      const phase = (due - STALL.firstAtMs) % STALL.everyMs;
      return due >= STALL.firstAtMs && phase < STALL.forMs ? due - phase + STALL.forMs - atMs : BASE_MS;
    }
  }
}

/**
 * Test data for chainbench (bench/support/chainbench.ts), served at its own path, which chainbench reads through its
 * --ref-url before the test: the chain id, the head and blocks with their transactions, from which it draws the hashes it
 * asks eth_getTransactionByHash for. The endpoint the generators measure (every other path) answers as before. Its chain
 * id is Sepolia's: chainbench refuses a chain it does not list (anvil's 31337, the canned transaction's own, among them).
 * Block n (1..head) holds TEST_DATA.txsPerBlock of CORPUS_HASHES, so chainbench asks for the harness's hashes and gets
 * the same 0.9 KB answers.
 */
export const TEST_DATA = { path: '/chainbench/test-data', chainId: '0xaa36a7', head: 100, txsPerBlock: 2 } as const;

const hex = (n: number) => `0x${n.toString(16)}`;
const blockHash = (n: number) => `0x${n.toString(16).padStart(64, 'b')}`;

/** The answer at TEST_DATA.path to a call (parsed JSON-RPC): the chain id, the head, a block (with full transactions or
 * their hashes); any other method is not there. */
export function testDataAnswer(call: { id?: unknown; method?: unknown; params?: unknown }): string {
  const id = call.id ?? null;
  const params = Array.isArray(call.params) ? call.params : [];
  const result = (value: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result: value });
  switch (call.method) {
    case 'eth_chainId':
      return result(TEST_DATA.chainId);
    case 'eth_blockNumber':
      return result(hex(TEST_DATA.head));
    case 'eth_getBlockByNumber': {
      const asked = params[0] === 'latest' ? TEST_DATA.head : typeof params[0] === 'string' ? Number.parseInt(params[0], 16) : NaN;
      if (!(asked >= 1 && asked <= TEST_DATA.head)) return result(null);
      const hashes = Array.from({ length: TEST_DATA.txsPerBlock }, (_, i) => CORPUS_HASHES[((asked - 1) * TEST_DATA.txsPerBlock + i) % CORPUS_HASHES.length] as string);
      const transactions = params[1] === true ? hashes.map((hash, i) => ({ ...TX, hash, blockHash: blockHash(asked), blockNumber: hex(asked), transactionIndex: hex(i) })) : hashes;
      return result({ number: hex(asked), hash: blockHash(asked), parentHash: blockHash(asked - 1), timestamp: hex(1_700_000_000 + 12 * asked), transactions });
    }
    default:
      return JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `${String(call.method)} is not served at ${TEST_DATA.path}` } });
  }
}
