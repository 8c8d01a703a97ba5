// A fault-injecting endpoint in front of the reference gateway. One fault at a time rewrites what the
// gateway answered (or the HTTP response itself); the self-tests prove each check fails on its fault.
// "Synthetic history" adds what a dev chain cannot have (an uncle, a pre-Byzantium receipt, a blob
// transaction) so the checks that need it run too.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcRequest {
  jsonrpc: string;
  id: number;
  method: string;
  params: unknown[];
}
export type RpcResponse = Record<string, unknown> & { id?: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

export interface RawReply {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** Ways an answer never arrives: no reply at all, a body shorter than its Content-Length, a chunked body never ended, a reset. */
export type Stall = 'stall' | 'bad-content-length' | 'unterminated-chunked' | 'reset';

export interface Fault {
  name: string;
  /** Check ids that must be among the failures while this fault is on. */
  kills: string[];
  /** Methods whose suites run for this fault (default: the methods of `kills`). */
  methods?: string[];
  /** Rewrites one answered call; return the response to send. */
  rewrite?: (req: RpcRequest, res: RpcResponse, ctx: FaultContext) => RpcResponse | Promise<RpcResponse>;
  /** Replaces the HTTP reply of a call entirely. */
  raw?: (req: RpcRequest, res: RpcResponse) => RawReply | undefined;
  /** Never answers this call (the socket stays open, or is reset). */
  stall?: (req: RpcRequest) => Stall | undefined;
  /** Replaces the HTTP reply to a raw body (not JSON, a batch) before it is parsed. */
  rawRequest?: (text: string) => RawReply | undefined;
  /** Rewrites the answers the gateway gave a batch. */
  rewriteBatch?: (answers: RpcResponse[]) => RpcResponse[];
  /** Serves requests whatever key their URL carries. */
  serveAnyKey?: boolean;
  /** Needs the synthetic history. */
  synthetic?: boolean;
  /** Acts on the order of the calls (one answer in two): run one check at a time, so each check meets it as its own calls come. */
  oneAtATime?: boolean;
  /** The failures must be exactly `kills`: the rest of the suite runs and passes. */
  exact?: boolean;
  /** Runs with the clean gateway behind the proxy as the reference node (--reference-url): the reference/* checks judge. */
  reference?: boolean;
  /** Runs side by side with two clean endpoints (the same synthetic history, if any): the quorum/* checks judge. */
  peers?: boolean;
  /** The run declares this near-head window (--near-head-window N, spec §8). */
  nearHeadWindow?: number;
}

export interface FaultContext {
  /** Sends a call to the gateway behind the proxy (e.g. to cause a side effect). */
  upstream(method: string, params: unknown[]): Promise<RpcResponse>;
  /** Which TCP connection the call came over, counted from 0 in the order they were opened (a connection-pinned balancer). */
  connection: number;
}

export interface Synthetic {
  rewrite(req: RpcRequest, res: RpcResponse, ctx: FaultContext): Promise<RpcResponse>;
}

export class FaultProxy {
  fault: Fault | undefined;
  synthetic: Synthetic | undefined;
  private server: Server | undefined;
  /** Each connection's number, in the order they were opened. */
  private readonly connections = new WeakMap<object, number>();
  private opened = 0;
  url = '';

  static readonly KEY = 'proxy-key-0001';

  constructor(private readonly upstreamUrl: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req).then((reply) => {
        if (typeof reply === 'string') return stall(reply, res);
        res.writeHead(reply.status, { ...reply.headers, 'content-type': reply.contentType });
        res.end(reply.body);
      });
    });
    this.server.on('connection', (socket) => this.connections.set(socket, this.opened++));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v3/${FaultProxy.KEY}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  readonly ctx: FaultContext = { upstream: (method, params) => this.forward({ jsonrpc: '2.0', id: 1, method, params }), connection: 0 };

  private async handle(req: IncomingMessage): Promise<RawReply | Stall> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    // Like the gateway behind it, the proxy serves its own key only: another key goes on as it is, and is refused there.
    if (req.url !== `/v3/${FaultProxy.KEY}` && !this.fault?.serveAnyKey) return this.passthrough(text, req.url?.replace(/^\/v3\/[^/]*/, '/v3/') ?? '/');
    const rawReply = this.fault?.rawRequest?.(text);
    if (rawReply) return rawReply;
    let parsed: RpcRequest;
    try {
      parsed = JSON.parse(text) as RpcRequest;
    } catch {
      return this.passthrough(text);
    }
    if (Array.isArray(parsed) && this.fault?.rewriteBatch) {
      const reply = await this.passthrough(text);
      const answers: unknown = JSON.parse(reply.body);
      return Array.isArray(answers) ? { ...reply, body: JSON.stringify(this.fault.rewriteBatch(answers as RpcResponse[])) } : reply;
    }
    // Batches and notifications (no id, and so no answer to rewrite) go through as they are.
    if (Array.isArray(parsed) || typeof parsed !== 'object' || parsed === null || !('id' in parsed)) return this.passthrough(text);
    const stalled = this.fault?.stall?.(parsed);
    if (stalled) return stalled;
    let res = await this.forward(parsed);
    const ctx: FaultContext = { ...this.ctx, connection: this.connections.get(req.socket) ?? 0 };
    if (this.synthetic) res = await this.synthetic.rewrite(parsed, res, ctx);
    const fault = this.fault;
    // A fault written for one request shape may not understand another (a call with no params, say):
    // then it does not apply, and the answer goes out as the gateway gave it.
    try {
      const raw = fault?.raw?.(parsed, res);
      if (raw) return raw;
      if (fault?.rewrite) res = await fault.rewrite(parsed, structuredClone(res), ctx);
    } catch {
      // not applicable to this request
    }
    return { status: 200, contentType: 'application/json', body: JSON.stringify(res) };
  }

  private async passthrough(text: string, path?: string): Promise<RawReply> {
    const url = path === undefined ? this.upstreamUrl : new URL(path, this.upstreamUrl).toString();
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    return { status: r.status, contentType: r.headers.get('content-type') ?? 'application/json', body: await r.text() };
  }

  private async forward(req: RpcRequest): Promise<RpcResponse> {
    const r = await fetch(this.upstreamUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req) });
    return (await r.json()) as RpcResponse;
  }
}

function stall(how: Stall, res: ServerResponse): void {
  const partial = '{"jsonrpc":"2.0","id":1,"result":[';
  switch (how) {
    case 'stall':
      return; // the socket stays open, silent
    case 'bad-content-length':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
      res.write(partial);
      return;
    case 'unterminated-chunked':
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.write(partial);
      return;
    case 'reset':
      res.socket?.resetAndDestroy();
      return;
  }
}
