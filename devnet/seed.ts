// Seeds a fresh anvil, geth --dev, hardhat node or ganache with real, locally signed transactions of every kind
// the conformance checks look for: all tx types (a blob transaction among them), creations, logs, a failed tx,
// a multi-tx block and an empty block. What differs between the nodes (funding, mining on demand) is a
// NodeDriver. A step the node cannot do (a tx type its hardfork lacks) is skipped and listed in `skipped`.
import {
  type Abi,
  type Hex,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  createPublicClient,
  createWalletClient,
  defineChain,
  parseTransaction,
  type LocalAccount,
  type TransactionSerializable,
  encodeErrorResult,
  encodeFunctionData,
  http,
  parseEther,
  toHex,
} from 'viem';
import { pbkdf2Sync } from 'node:crypto';
import { HDKey, hdKeyToAccount, privateKeyToAccount } from 'viem/accounts';
import artifact from '../fixtures/contracts/Seed.json' with { type: 'json' };
import blobTx from '../fixtures/contracts/blob-tx.json' with { type: 'json' };
import { DEV_KEY } from './geth.ts';
import type { Omittable } from './moving.ts';

export interface SeedInfo {
  chainId: number;
  blocks: {
    multiTx: { number: string; hash: string }; // the head block, >= 4 txs of mixed types
    empty: { number: string; hash: string };
  };
  txs: {
    byType: Record<string, string>; // '0x0' -> tx hash; holds only the types actually seeded
    creation: string;
    withLogs: string; // several logs, indexed topics and non-empty data
    failed: string; // mined with status 0x0
  };
  contracts: { emitter: string; reverter: string };
  /** Steps the node could not do, each with the node's own answer: never silently dropped. */
  skipped: Array<{ step: string; reason: string }>;
  // eth_estimateGas({ to, data }) reverts with expectedData; reason is what follows
  // "execution reverted: " in a spec-conformant message (absent: plain "execution reverted").
  reverts: Array<{ kind: 'require' | 'custom' | 'panic'; to: string; data: string; reason?: string; expectedData: string }>;
}

// anvil's default dev accounts come from this mnemonic. The BIP-39 seed is derived once with
// node's native PBKDF2: viem's mnemonicToAccount does it in JS per account (~150 ms each).
const MNEMONIC = 'test test test test test test test test test test test junk';
let root: HDKey | undefined;
/** Anvil's dev account at an index of its default mnemonic (the BIP-39 seed is derived once). */
export const devAccount = (addressIndex: number) => hdKeyToAccount((root ??= HDKey.fromMasterSeed(pbkdf2Sync(MNEMONIC, 'mnemonic', 2048, 64, 'sha512'))), { addressIndex });
/** The account whose nonce-0 blob transaction is pre-signed in fixtures/contracts/blob-tx.json. */
export const BLOB_SENDER_INDEX = 7;

const { Emitter, Reverter } = artifact.contracts;
const emitterAbi = Emitter.abi as Abi;
const reverterAbi = Reverter.abi as Abi;
const RECEIPT_WAIT_MS = 30_000;
const REQUIRE_REASON = 'rpc-certify: require reason';
const builtinErrors = [
  { type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'reason' }] },
  { type: 'error', name: 'Panic', inputs: [{ type: 'uint256', name: 'code' }] },
] as const;

/**
 * The EIP-4844 transaction of fixtures/contracts/blob-tx.json (signed once by scripts/make-blob-fixture.ts:
 * KZG commitments are too slow to compute per start), signed again for this chain with the same sidecar;
 * for anvil's chain id it is the fixture itself (deterministic signatures).
 */
export async function blobTransaction(chainId: number, opts: { from?: LocalAccount; nonce?: number } = {}): Promise<Hex> {
  const { r: _r, s: _s, v: _v, yParity: _y, ...unsigned } = parseTransaction(blobTx.raw as Hex);
  const from = opts.from ?? devAccount(BLOB_SENDER_INDEX);
  return from.signTransaction({ ...unsigned, chainId, ...(opts.nonce !== undefined ? { nonce: opts.nonce } : {}) } as TransactionSerializable);
}

/** The node's own words for a transaction type its hardfork lacks (anvil, geth: "not supported"; ganache: it cannot decode it). */
const FORK_LACKS = /is not supported|unsupported transaction type|invalid transaction type|could not decode transaction/i;

/** A transaction type the hardfork lacks is left out and recorded; any other failure (a timeout, say) fails the seed. */
async function unlessForkLacks(step: string, skipped: SeedInfo['skipped'], run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (e) {
    const said = e instanceof Error ? `${'details' in e && e.details ? String(e.details) : e.message}` : String(e);
    if (!FORK_LACKS.test(said)) throw e;
    skipped.push({ step, reason: said.split('\n')[0]!.slice(0, 300) });
  }
}

export type TxRequest = Record<string, unknown>;
export type Rpc = (method: string, params?: unknown[]) => Promise<unknown>;

/** Sends (or only signs) a transaction from a local account, fees and gas filled in by viem. */
export interface Signer {
  send(from: LocalAccount, request: TxRequest): Promise<Hex>;
  sign(from: LocalAccount, request: TxRequest): Promise<Hex>;
}

/** What the seed needs from a node beyond standard JSON-RPC: funded accounts, and blocks on demand. */
interface NodeDriver {
  /** Funds the dev accounts of the mnemonic (anvil starts with them funded). */
  fund(accounts: LocalAccount[]): Promise<void>;
  /** Mines a block with no transactions. */
  mineEmpty(): Promise<void>;
  /** Mines the transactions together into one block; returns their hashes. */
  mineTogether(items: Array<{ from: LocalAccount; request: TxRequest }>): Promise<Hex[]>;
}

/**
 * anvil, hardhat and ganache: funded accounts, evm_mine for an empty block, mining held while several
 * transactions gather, then released into one block (anvil, hardhat: automine off, evm_mine, automine on;
 * ganache has no evm_setAutomine: miner_stop, then miner_start mines what is pending into one block).
 */
function automineDriver(rpc: Rpc, signer: Signer, node: 'anvil' | 'hardhat' | 'ganache'): NodeDriver {
  const hold = () => (node === 'ganache' ? rpc('miner_stop') : rpc('evm_setAutomine', [false]));
  const release = async () => {
    if (node === 'ganache') return void (await rpc('miner_start'));
    try {
      await rpc('evm_mine');
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
  };
  return {
    fund: async () => {},
    mineEmpty: async () => void (await rpc('evm_mine')),
    async mineTogether(items) {
      await hold();
      try {
        const hashes: Hex[] = [];
        for (const { from, request } of items) hashes.push(await signer.send(from, request));
        return hashes;
      } finally {
        await release();
      }
    },
  };
}

/**
 * geth --dev (--dev.period 0) mines as soon as a transaction is executable, so several transactions share
 * a block only when they become executable together: one sender's later nonces go first (queued behind a
 * gap), then the first one fills the gap. An empty block is the one a queued withdrawal makes.
 */
function gethDriver(rpc: Rpc, signer: Signer, mined: (hash: Hex) => Promise<unknown>): NodeDriver {
  let withdrawals = 0;
  const together = async (items: Array<{ from: LocalAccount; request: TxRequest }>): Promise<Hex[]> => {
    const from = items[0]!.from;
    const nonce = Number(await rpc('eth_getTransactionCount', [from.address, 'pending']));
    // One sender for all, nonces in order; a gas limit is given so nothing is estimated across the gap.
    const raws = await Promise.all(items.map(({ request }, i) => signer.sign(from, { gas: 300_000n, ...request, nonce: nonce + i })));
    const hashes: Hex[] = [];
    for (const i of [...raws.keys()].slice(1).concat(0)) hashes[i] = (await rpc('eth_sendRawTransaction', [raws[i]])) as Hex;
    for (const hash of hashes) await mined(hash);
    return hashes;
  };
  return {
    fund: async (accounts) => void (await together(accounts.map((a) => ({ from: privateKeyToAccount(DEV_KEY), request: { to: a.address, value: parseEther('1000') } })))),
    async mineEmpty() {
      const index = withdrawals++;
      const before = BigInt(String(await rpc('eth_blockNumber')));
      await rpc('dev_addWithdrawal', [{ index: toHex(index), validatorIndex: toHex(index + 1), address: '0x00000000000000000000000000000000000b0a75', amount: toHex(1_000_000_000) }]);
      // The block is sealed after the call returns.
      const deadline = Date.now() + RECEIPT_WAIT_MS;
      while (BigInt(String(await rpc('eth_blockNumber'))) === before) {
        if (Date.now() > deadline) throw new Error(`seed: geth mined no block for a withdrawal within ${RECEIPT_WAIT_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    mineTogether: together,
  };
}

/** The nodes the seed knows how to drive; hardhat and ganache are started with the same dev mnemonic as anvil. */
export type SeedNode = 'anvil' | 'geth' | 'hardhat' | 'ganache';

/** viem clients for a node: what the seed and the background traffic (traffic.ts) both send through. */
export async function chainClients(nodeUrl: string, timeoutMs: number) {
  const transport = http(nodeUrl, { timeout: timeoutMs, retryCount: 0 });
  const chainId = await createPublicClient({ transport }).getChainId();
  const chain = defineChain({
    id: chainId,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [nodeUrl] } },
  });
  const pub = createPublicClient({ chain, transport });
  const wallet = (account: LocalAccount) => createWalletClient({ account, chain, transport });
  const signer: Signer = {
    send: (from, request) => wallet(from).sendTransaction(request as never),
    sign: async (from, request) => wallet(from).signTransaction((await wallet(from).prepareTransactionRequest(request as never)) as never),
  };
  const rpc: Rpc = (method, params = []) => pub.request({ method, params } as never);
  return { chainId, pub, wallet, signer, rpc };
}

/** The seed's contracts' ABIs and creation code (fixtures/contracts/Seed.sol). */
export const seedContracts = { emitterAbi, reverterAbi, emitterBytecode: Emitter.bytecode as Hex };

export async function seedChain(nodeUrl: string, node: SeedNode = 'anvil', without: readonly Omittable[] = []): Promise<SeedInfo> {
  // anvil loads its KZG trusted setup at the first blob proof it checks (6-12 s of one core): viem's 10 s
  // timeout would fail the blob transaction or resend it, and its second answer ("nonce too low") drop it.
  const { chainId, pub, wallet, signer, rpc } = await chainClients(nodeUrl, 60_000);
  const [a0, a1, a2, a3, a4, a5] = [devAccount(0), devAccount(1), devAccount(2), devAccount(3), devAccount(4), devAccount(5)];
  const [w0, w1, w2, w3] = [wallet(a0), wallet(a1), wallet(a2), wallet(a3)];

  // Even with automine the receipt can lag eth_sendRawTransaction: wait, so each tx gets its own block.
  // The receipt itself is polled: viem's waitForTransactionReceipt waits for the next block after a miss,
  // and an automining anvil makes none when nothing more is sent (a 180 s wait).
  const mined = async (tx: Promise<Hex> | Hex): Promise<TransactionReceipt> => {
    const hash = await tx;
    const deadline = Date.now() + RECEIPT_WAIT_MS;
    for (;;) {
      const receipt = await pub.getTransactionReceipt({ hash }).catch((e: unknown) => {
        // geth answers this error, not null, until its transaction indexer has caught up after a start.
        if (e instanceof TransactionReceiptNotFoundError || /transaction indexing is in progress/.test(String((e as { details?: unknown }).details))) return undefined;
        throw e;
      });
      if (receipt) return receipt;
      if (Date.now() > deadline) throw new Error(`seed: transaction ${hash} was not mined within ${RECEIPT_WAIT_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const sent = async (tx: Promise<Hex>) => (await mined(tx)).transactionHash;
  const driver = node === 'geth' ? gethDriver(rpc, signer, mined) : automineDriver(rpc, signer, node);
  const skipped: SeedInfo['skipped'] = [];
  await driver.fund([a0, a1, a2, a3, a4, a5, devAccount(BLOB_SENDER_INDEX)]);

  const emitterDeploy = await mined(w0.deployContract({ abi: emitterAbi, bytecode: Emitter.bytecode as Hex }));
  const emitter = emitterDeploy.contractAddress!;
  const reverter = (await mined(w0.deployContract({ abi: reverterAbi, bytecode: Reverter.bytecode as Hex }))).contractAddress!;

  const emitterCall = (functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi: emitterAbi, functionName, args });
  const note = (tag: string) => emitterCall('note', [toHex(tag, { size: 32 }), toHex(`payload ${tag}`)]);

  const byType: Record<string, string> = {};
  byType['0x0'] = await sent(w1.sendTransaction({ type: 'legacy', to: a2.address, value: parseEther('1') }));
  // Access-list transactions carry their gas: ganache's estimate leaves out the access list's cost, so a
  // transaction sent with it is refused as below its intrinsic gas.
  byType['0x1'] = await sent(
    w2.sendTransaction({
      type: 'eip2930',
      gas: 100_000n,
      to: emitter,
      data: emitterCall('transfer', [a3.address, 7n]),
      accessList: [{ address: emitter, storageKeys: [toHex(0, { size: 32 })] }],
    }),
  );
  await driver.mineEmpty();
  const empty = await pub.getBlock();

  const withLogs = await sent(w1.sendTransaction({ to: emitter, data: emitterCall('burst', [3n]) }));
  byType['0x2'] = withLogs;
  // An explicit gas limit skips estimation, which would refuse the reverting call: mined with status 0x0.
  const failed = await sent(w0.sendTransaction({ to: reverter, gas: 100_000n, data: encodeFunctionData({ abi: reverterAbi, functionName: 'poke' }) }));

  // EIP-7702: a3 delegates its code to the Emitter, a2 pays and calls a3. Skipped if the fork lacks it.
  if (!without.includes('set-code')) await unlessForkLacks('EIP-7702 transaction (type 0x4)', skipped, async () => {
    const authorization = await w3.signAuthorization({ contractAddress: emitter });
    byType['0x4'] = await sent(w2.sendTransaction({ authorizationList: [authorization], to: a3.address, data: note('7702') }));
  });
  if (!without.includes('blob')) await unlessForkLacks('EIP-4844 blob transaction (type 0x3)', skipped, async () => {
    byType['0x3'] = await sent(pub.request({ method: 'eth_sendRawTransaction', params: [await blobTransaction(chainId)] }));
  });

  // Head block: 6 txs of mixed types mined together, from different senders where the node allows it
  // (anvil; the self-tests need spares beyond the first of each type), from one sender on geth.
  const pending = await driver.mineTogether([
    { from: a0, request: { type: 'legacy', to: emitter, data: emitterCall('transfer', [a1.address, 1n]) } },
    { from: a1, request: { type: 'eip2930', gas: 30_000n, to: a0.address, value: 1n, accessList: [{ address: emitter, storageKeys: [] }] } },
    { from: a2, request: { to: emitter, data: note('multi') } },
    { from: a3, request: { to: a2.address, value: 2n } },
    { from: a4, request: { to: emitter, data: emitterCall('transfer', [a5.address, 3n]) } },
    { from: a5, request: { type: 'legacy', to: a4.address, value: 3n } },
  ]);
  const blocks = new Set<Hex>();
  for (const hash of pending) {
    const receipt = await mined(hash);
    if (receipt.status !== 'success') throw new Error(`seed: multi-tx block tx ${hash} failed`);
    blocks.add(receipt.blockHash);
  }
  if (blocks.size !== 1) throw new Error(`seed: the ${pending.length} transactions meant for one block landed in ${blocks.size}`);
  const head = await pub.getBlock({ blockHash: [...blocks][0]! });
  if (head.hash !== (await pub.getBlock()).hash) throw new Error(`seed: the multi-tx block ${head.number} is not the head`);

  const reverterCall = (functionName: string) => encodeFunctionData({ abi: reverterAbi, functionName });
  return {
    chainId,
    blocks: {
      multiTx: { number: toHex(head.number), hash: head.hash },
      empty: { number: toHex(empty.number), hash: empty.hash },
    },
    txs: { byType, creation: emitterDeploy.transactionHash, withLogs, failed },
    contracts: { emitter, reverter },
    skipped,
    reverts: [
      {
        kind: 'require',
        to: reverter,
        data: reverterCall('failRequire'),
        reason: REQUIRE_REASON,
        expectedData: encodeErrorResult({ abi: builtinErrors, errorName: 'Error', args: [REQUIRE_REASON] }),
      },
      {
        kind: 'custom',
        to: reverter,
        data: reverterCall('failCustom'),
        expectedData: encodeErrorResult({ abi: reverterAbi, errorName: 'Denied', args: [reverter, 403n] }),
      },
      {
        kind: 'panic',
        to: reverter,
        data: reverterCall('failPanic'),
        reason: 'assert(false)', // Panic(0x01), geth's wording
        expectedData: encodeErrorResult({ abi: builtinErrors, errorName: 'Panic', args: [1n] }),
      },
    ],
  };
}
