// Background traffic for a moving devnet (`devnet --block-time S`): anvil (or geth --dev.period S) mines on an interval and this
// keeps real, locally signed transactions flowing into its mempool, so the blocks it mines carry content:
// every transaction type anvil mines (legacy, 0x1, 0x2, 0x3 with a blob, 0x4 set-code), calls that emit
// logs, contract creations and transactions mined with status 0x0. It reuses the seed's contracts, dev
// accounts and blob fixture (seed.ts). A steady rate (txPerBlock a block time, one kind after the other),
// one sender per kind with its nonce counted here, a send error logged once and never fatal.
import { encodeFunctionData, type Hex, type LocalAccount, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEV_KEY } from './geth.ts';
import { DEFAULT_TX_PER_BLOCK, type Omittable } from './moving.ts';
import { blobTransaction, chainClients, devAccount, type SeedInfo, seedContracts, type TxRequest } from './seed.ts';

export const TRAFFIC_KINDS = ['legacy', 'access-list', 'logs', 'blob', 'set-code', 'creation', 'failed'] as const;
export type TrafficKind = (typeof TRAFFIC_KINDS)[number];

export interface TrafficOptions {
  blockTimeS: number;
  /** The node, for funding the senders: anvil sets their balance, geth's developer account pays them (default anvil). */
  node?: 'anvil' | 'geth';
  /** Transactions sent per block time (default 3): the seven kinds come round every few blocks. */
  txPerBlock?: number;
  /** Where a send error is said, once per kind and message (default: stderr). */
  log?: (line: string) => void;
  /** Kinds never sent (the devnet's --without). */
  without?: readonly Omittable[];
}

export interface Traffic {
  /** Transactions the node accepted, per kind. */
  readonly sent: Readonly<Record<TrafficKind, number>>;
  /** Sends that failed (each distinct one logged once). */
  readonly errors: number;
  /** Reads every sender's nonce from the node again at its next send (after a reorg dropped a transaction of theirs). */
  resync(): void;
  /** Stops sending and waits for the send in flight. */
  stop(): Promise<void>;
}

/** The traffic's senders: dev-mnemonic accounts far from those the seed uses (0-7), funded before the first send. */
const FIRST_SENDER_INDEX = 20;
/**
 * After this many full rounds of the seven kinds the traffic pauses two and a half block times, so an empty block
 * is mined (the pause holds two mining times at least, and the second finds nothing sent since the first):
 * discovery walks only so many blocks back from the head, and a chain whose every block is full would lose the
 * empty block the suite judges.
 */
const ROUNDS_BETWEEN_PAUSES = 3;
/** No more sending while the mempool holds this many blocks' worth: the traffic never outruns the chain. */
const BACKLOG_BLOCKS = 5;
const SEND_TIMEOUT_MS = 10_000;
/** Block times the senders' funding may take to be mined (geth: a transfer from its developer account each). */
const FUNDING_WAIT_BLOCKS = 10;

/** The account that sends a kind of traffic. */
export const trafficSender = (kind: TrafficKind): LocalAccount => devAccount(FIRST_SENDER_INDEX + TRAFFIC_KINDS.indexOf(kind));

/** Starts the traffic against a node seeded by seedChain, once the caller made it mine on an interval (anvil: evm_setIntervalMining; geth: started again with its period). */
export async function startTraffic(nodeUrl: string, seed: SeedInfo, opts: TrafficOptions): Promise<Traffic> {
  const txPerBlock = opts.txPerBlock ?? DEFAULT_TX_PER_BLOCK;
  const log = opts.log ?? ((line: string) => console.error(line));
  const { chainId, signer, rpc } = await chainClients(nodeUrl, SEND_TIMEOUT_MS);
  const { emitterAbi, reverterAbi, emitterBytecode } = seedContracts;
  const emitter = seed.contracts.emitter as Hex;
  const reverter = seed.contracts.reverter as Hex;
  const emitterCall = (functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi: emitterAbi, functionName, args });

  const senders = {} as Record<TrafficKind, LocalAccount>;
  for (const kind of TRAFFIC_KINDS) senders[kind] = trafficSender(kind);
  const funding = toHex(10n ** 24n);
  if (opts.node !== 'geth') for (const account of Object.values(senders)) await rpc('anvil_setBalance', [account.address, funding]);
  else {
    // geth has no anvil_setBalance: its developer account pays each sender, and the traffic starts once all are paid.
    const dev = privateKeyToAccount(DEV_KEY);
    const nonce = Number(await rpc('eth_getTransactionCount', [dev.address, 'pending']));
    const accounts = Object.values(senders);
    for (const [i, account] of accounts.entries()) await rpc('eth_sendRawTransaction', [await signer.sign(dev, { to: account.address, value: BigInt(funding), nonce: nonce + i })]);
    const deadline = Date.now() + FUNDING_WAIT_BLOCKS * opts.blockTimeS * 1000;
    for (const account of accounts) {
      while (BigInt(String(await rpc('eth_getBalance', [account.address, 'latest']))) === 0n) {
        if (Date.now() > deadline) throw new Error(`devnet traffic: geth did not mine the senders' funding within ${FUNDING_WAIT_BLOCKS} block times`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  // The next nonce of each sender; undefined: read it again from the node (at the start, and after a failed send,
  // which may or may not have reached the mempool).
  const nonces: Partial<Record<TrafficKind, number>> = {};
  const nextNonce = async (kind: TrafficKind): Promise<number> =>
    (nonces[kind] ??= Number(await rpc('eth_getTransactionCount', [senders[kind].address, 'pending'])));

  let sendCount = 0;
  const signed = async (kind: TrafficKind, nonce: number): Promise<Hex> => {
    const from = senders[kind];
    const tag = toHex(`traffic ${sendCount}`, { size: 32 });
    const request = (r: TxRequest) => signer.sign(from, { ...r, nonce });
    switch (kind) {
      case 'legacy':
        return request({ type: 'legacy', to: emitter, data: emitterCall('transfer', [senders.logs.address, 1n]) });
      case 'access-list':
        return request({ type: 'eip2930', gas: 100_000n, to: emitter, data: emitterCall('transfer', [from.address, 2n]), accessList: [{ address: emitter, storageKeys: [toHex(0, { size: 32 })] }] });
      case 'logs':
        return request({ to: emitter, data: emitterCall('burst', [3n]) });
      case 'blob':
        return blobTransaction(chainId, { from, nonce });
      case 'set-code': {
        // A fresh authority each time: its authorization nonce is 0, so none is ever stale, whatever was mined.
        const authority = privateKeyToAccount(generatePrivateKey());
        const authorization = await authority.signAuthorization({ chainId, nonce: 0, contractAddress: emitter });
        return request({ authorizationList: [authorization], to: authority.address, data: emitterCall('note', [tag, toHex('set-code')]) });
      }
      case 'creation':
        return request({ data: emitterBytecode });
      case 'failed':
        // An explicit gas limit skips estimation, which would refuse the reverting call: mined with status 0x0.
        return request({ to: reverter, gas: 100_000n, data: encodeFunctionData({ abi: reverterAbi, functionName: 'poke' }) });
    }
  };

  const sent = Object.fromEntries(TRAFFIC_KINDS.map((k) => [k, 0])) as Record<TrafficKind, number>;
  let errors = 0;
  const said = new Set<string>();
  const fail = (what: string, e: unknown): void => {
    errors++;
    const message = (e instanceof Error ? ('details' in e && e.details ? String(e.details) : e.message) : String(e)).split('\n')[0]!.slice(0, 300);
    const key = `${what}: ${message}`;
    if (said.has(key)) return;
    said.add(key);
    log(`devnet traffic: ${key} (the traffic goes on; this error is not said again)`);
  };

  const backlogged = async (): Promise<boolean> => {
    const status = (await rpc('txpool_status')) as { pending?: string; queued?: string };
    return Number(status.pending ?? 0) + Number(status.queued ?? 0) >= BACKLOG_BLOCKS * txPerBlock;
  };

  const kinds = TRAFFIC_KINDS.filter((k) => !(opts.without ?? []).includes(k as Omittable));
  const sendOne = async (): Promise<void> => {
    const kind = kinds[sendCount % kinds.length]!;
    sendCount++;
    try {
      if (await backlogged()) return fail('mempool', new Error(`${BACKLOG_BLOCKS * txPerBlock} or more transactions wait: a send skipped`));
      const nonce = await nextNonce(kind);
      await rpc('eth_sendRawTransaction', [await signed(kind, nonce)]);
      nonces[kind] = nonce + 1;
      sent[kind]++;
    } catch (e) {
      delete nonces[kind];
      fail(kind, e);
    }
  };

  // A steady rate: each send is planned one period after the last planned one; a slow send delays the next,
  // and a late schedule never catches up in a burst.
  const periodMs = (opts.blockTimeS * 1000) / txPerBlock;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let planned = Date.now();
  const pauseEvery = ROUNDS_BETWEEN_PAUSES * kinds.length;
  const schedule = (): void => {
    if (stopped) return;
    const pause = sendCount > 0 && sendCount % pauseEvery === 0 ? 2.5 * opts.blockTimeS * 1000 : 0;
    planned = Math.max(Date.now() + pause, planned + periodMs + pause);
    timer = setTimeout(() => {
      inFlight = sendOne().finally(schedule);
    }, planned - Date.now());
  };
  schedule();

  return {
    sent,
    get errors() {
      return errors;
    },
    resync: () => {
      for (const kind of TRAFFIC_KINDS) delete nonces[kind];
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
