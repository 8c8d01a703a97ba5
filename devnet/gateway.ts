// Reference gateway: serves a node behind the service's POST {base}/v3/<API_KEY> shape. In front of anvil
// it normalises anvil's verified deviations from the service spec, so it is spec-conformant; with `raw`
// (in front of geth) it passes each body through untouched, so what is certified is the node itself.
import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { gethRevertMessage } from '../core/revert.ts';
import { toQuantity } from '../core/hex.ts';
import { blockSize } from '../core/invariants/block-size.ts';
import { factsOf } from '../core/methods.ts';
import type { ShapeName } from '../core/schemas.ts';
import { capabilities, pruneAnswer } from './pruned.ts';
import type { ReorgLock } from './reorg-lock.ts';

export interface Gateway {
  url: string; // http://127.0.0.1:<port>/v3/<apiKey>
  baseUrl: string; // http://127.0.0.1:<port>
  port: number;
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface GatewayOptions {
  upstream: string;
  apiKey: string;
  port?: number;
  raw?: boolean;
  /** Pruned mode (pruned.ts): history older than the latest N blocks answered error 4444. Not with `raw`. */
  serveLatest?: number;
  /** On a devnet that reorganises: each request is answered outside the reorgs (reorg-lock.ts). */
  reorgLock?: ReorgLock;
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  if (opts.raw && opts.serveLatest !== undefined) throw new Error('the gateway prunes history only in front of anvil (not raw)');
  const upstream = new URL(opts.upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const expectedKey = Buffer.from(opts.apiKey);

  const keyMatches = (given: string): boolean => {
    const buf = Buffer.from(given);
    return buf.length === expectedKey.length && timingSafeEqual(buf, expectedKey);
  };

  // One upstream request per call, so every answer is matched to its own request and batches
  // never depend on anvil's batch handling (it answers [1, notification] with a bare object).
  const forward = async (call: Json): Promise<Json | undefined> => {
    if (isObject(call) && call.method === 'eth_capabilities') return declare(call);
    const raw = await post(agent, upstream, JSON.stringify(normaliseRequest(call)));
    if (raw.length === 0) return undefined; // notification: anvil answers 204
    const normal = normaliseResponse(call, JSON.parse(raw) as Json);
    const answer = opts.serveLatest === undefined ? normal : pruneAnswer(call, normal, BigInt(String(await upstreamResult(agent, upstream, 'eth_blockNumber', []))), opts.serveLatest);
    return isBlockCall(call) && isObject(answer) && isObject(answer.result) ? { ...answer, result: await withSize(answer.result) } : answer;
  };

  // What this endpoint keeps, declared as geth does: the gateway knows it (anvil keeps all, pruned mode its window).
  const declare = async (call: JsonObject): Promise<Json> => {
    const head = await upstreamResult(agent, upstream, 'eth_getBlockByNumber', ['latest', false]);
    if (!isObject(head) || typeof head.number !== 'string' || typeof head.hash !== 'string') return { jsonrpc: '2.0', id: call.id ?? null, error: { code: -32603, message: 'upstream node unavailable' } };
    return { jsonrpc: '2.0', id: call.id ?? null, result: capabilities(BigInt(head.number), head.hash, opts.serveLatest) };
  };

  // anvil's block size leaves out the (empty) withdrawals list and counts blob sidecars: the gateway
  // states the size of the block's encoding instead, from its full transactions (blocks never change,
  // so once per hash). anvil mines no uncles.
  const sizes = new Map<string, string>();
  const withSize = async (block: JsonObject): Promise<JsonObject> => {
    const { hash, uncles, transactions } = block;
    if (typeof hash !== 'string' || !Array.isArray(uncles) || uncles.length > 0 || !Array.isArray(transactions)) return block;
    let size = sizes.get(hash);
    if (size === undefined) {
      const full = transactions.some((tx) => typeof tx === 'string') ? await upstreamResult(agent, upstream, 'eth_getBlockByHash', [hash, true]) : block;
      if (!isObject(full)) return block;
      try {
        size = toQuantity(blockSize(full, []));
      } catch {
        return block; // a block the recompute cannot encode keeps anvil's figure
      }
      sizes.set(hash, size);
    }
    return { ...block, size };
  };

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://gateway').pathname;
    if (path !== '/v3' && !path.startsWith('/v3/')) return refuse(res, 404, -32600, 'not found');
    if (req.method !== 'POST') return refuse(res, 405, -32600, 'method not allowed', { allow: 'POST' });
    if (!keyMatches(path.slice('/v3/'.length))) return refuse(res, 401, -32000, 'invalid project id');
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return refuse(res, 413, -32005, 'request body too large');

    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else if (!res.headersSent) {
        refuse(res, 413, -32005, 'request body too large');
        res.once('finish', () => req.destroy()); // stop reading the rest of an oversized body
      }
    });
    req.on('end', () => {
      if (res.headersSent) return;
      const outsideReorgs = <T>(call: () => Promise<T>): Promise<T> => (opts.reorgLock ? opts.reorgLock.read(call) : call());
      if (opts.raw) {
        outsideReorgs(() => passThrough(agent, upstream, Buffer.concat(chunks), res)).catch(() => refuse(res, 502, -32603, 'upstream node unavailable'));
        return;
      }
      outsideReorgs(() => handle(Buffer.concat(chunks).toString('utf8')))
        .then((body) => {
          if (body === undefined) res.writeHead(204).end();
          else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        })
        .catch(() => refuse(res, 502, -32603, 'upstream node unavailable'));
    });
  });

  const handle = async (text: string): Promise<Json | undefined> => {
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      return rpcError(-32700, 'parse error');
    }
    if (!Array.isArray(body)) return forward(body);
    if (body.length === 0) return rpcError(-32600, 'invalid request');
    const answers = (await Promise.all(body.map(forward))).filter((a) => a !== undefined);
    return answers.length > 0 ? answers : undefined;
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: `${baseUrl}/v3/${opts.apiKey}`,
    baseUrl,
    port,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}

// The body never echoes the path: it may hold a (wrong) API key.
function refuse(res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
  res.end(JSON.stringify(rpcError(code, message)));
}

function rpcError(code: number, message: string): JsonObject {
  return { jsonrpc: '2.0', id: null, error: { code, message } };
}

function post(agent: http.Agent, url: URL, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      // anvil rejects bodies without this header, whatever the client sent.
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The node's own answer, status, content type and body as they came. */
function passThrough(agent: http.Agent, url: URL, body: Buffer, res: http.ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (up) => {
      res.writeHead(up.statusCode ?? 502, { ...(up.headers['content-type'] ? { 'content-type': up.headers['content-type'] } : {}) });
      up.pipe(res);
      up.on('end', resolve);
      up.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The shape a call's result has: its row's (core/methods.ts), and a block for eth_getBlockByNumber beside the eight. */
function resultOf(call: Json): ShapeName | undefined {
  if (!isObject(call) || typeof call.method !== 'string') return undefined;
  return factsOf(call.method)?.result ?? (call.method === 'eth_getBlockByNumber' ? 'block' : undefined);
}

const isBlockCall = (call: Json): boolean => resultOf(call) === 'block';

async function upstreamResult(agent: http.Agent, url: URL, method: string, params: Json[]): Promise<Json | undefined> {
  const answer = JSON.parse(await post(agent, url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))) as Json;
  return isObject(answer) ? answer.result : undefined;
}

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A block parameter as the method's row allows it written (§4.8: pending as latest, a decimal number), as anvil takes it. */
function normaliseRequest(call: Json): Json {
  const facts = isObject(call) && typeof call.method === 'string' ? factsOf(call.method) : undefined;
  if (!isObject(call) || !facts || !Array.isArray(call.params)) return call;
  const at = facts.params.indexOf('block');
  const block = call.params[at];
  if (at < 0 || block === undefined) return call;
  const params = [...call.params];
  // anvil answers null for pending where the spec has the data of latest.
  if (facts.pendingIsLatest && block === 'pending') params[at] = 'latest';
  // anvil accepts only 0x-hex where the spec allows a decimal block number.
  else if (facts.decimalNumber && ((typeof block === 'string' && /^\d+$/.test(block)) || (typeof block === 'number' && Number.isSafeInteger(block) && block >= 0))) params[at] = toQuantity(BigInt(block));
  else return call;
  return { ...call, params };
}

/** anvil's answers as the spec has them, by the shape of the result the method answers (its row's). */
function normaliseResponse(call: Json, answer: Json): Json {
  if (!isObject(call) || !isObject(answer)) return answer;
  const error = isObject(answer.error) ? answer.error : undefined;
  switch (resultOf(call)) {
    case 'uncle':
      // Spec 7: a miss is result null; anvil errors when the block itself is unknown
      // (-32602 BlockOutOfRangeError past the head, -32001 for an unknown hash). Other errors stay.
      if (error && (isOutOfRange(error) || (error.code === -32001 && error.message === 'Resource not found'))) {
        return { jsonrpc: '2.0', id: answer.id ?? null, result: null };
      }
      return answer;
    case 'quantity':
      // Spec 7 / geth: the message carries the decoded Error(string) or Panic reason, else plain
      // "execution reverted"; anvil appends "custom error 0x…" or its own panic wording instead.
      if (error?.code === 3 && typeof error.data === 'string') {
        return { ...answer, error: { ...error, message: gethRevertMessage(error.data) } };
      }
      return answer;
    case 'transaction':
      return isObject(answer.result) ? { ...answer, result: stripTransaction(answer.result) } : answer;
    case 'block':
      return isObject(answer.result) && Array.isArray(answer.result.transactions)
        ? { ...answer, result: { ...answer.result, transactions: answer.result.transactions.map((tx) => (isObject(tx) ? stripTransaction(tx) : tx)) } }
        : answer;
    case 'receipt':
      return isObject(answer.result) ? { ...answer, result: stripReceipt(answer.result) } : answer;
    case 'block-receipts':
      return Array.isArray(answer.result) ? { ...answer, result: answer.result.map((r) => (isObject(r) ? stripReceipt(r) : r)) } : answer;
    default:
      return answer;
  }
}

const isOutOfRange = (e: JsonObject) => e.code === -32602 && typeof e.message === 'string' && e.message.startsWith('BlockOutOfRangeError');

// execution-apis ReceiptInfo is closed: anvil adds a numeric `blockTimestamp` (not a receipt field)
// and `blobGasPrice` on every receipt (specified for blob transactions, type 0x3, only).
// The logs' hex `blockTimestamp` stays: execution-apis' Log schema has it.
function stripReceipt(receipt: JsonObject): JsonObject {
  const out = { ...receipt };
  delete out.blockTimestamp;
  if (out.type !== '0x3') delete out.blobGasPrice;
  return out;
}

// anvil serves a blob transaction with its sidecar (`blobs`, 128 KiB each, `commitments`, `proofs`);
// execution-apis' TransactionInfo has no such fields: the sidecar travels in the network wrapper, not in RPC objects.
function stripTransaction(tx: JsonObject): JsonObject {
  const { blobs: _blobs, commitments: _commitments, proofs: _proofs, ...out } = tx;
  return out;
}

