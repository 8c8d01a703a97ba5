// The one JSON-RPC client every check and discovery step uses. It never throws on a transport fault:
// an unreachable endpoint, a timeout, a non-JSON body or a 429 comes back as an Exchange with a
// `fault`, so a check can turn it into a verdict. The API key is registered for redaction up front.
import { isRateLimitCode } from '../rate-limit.ts';
import { Agent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { topLevelToken } from '../envelope.ts';
import { replyFingerprint } from './fingerprint.ts';
import { redact, redactCapped, registerUrlSecrets } from '../redact.ts';

export type TransportFault = 'unreachable' | 'timeout' | 'http-status' | 'non-json' | 'too-large' | 'too-deep' | 'rate-limited' | 'interrupted';

/** Faults that mean no answer came at all (as opposed to a bad one: not JSON, an HTTP error). */
export const NO_ANSWER: readonly TransportFault[] = ['timeout', 'unreachable', 'rate-limited', 'interrupted'];

/** Nesting an answer may have: these methods nest a few levels; 100,000 would overflow every recursive walk. */
export const MAX_DEPTH = 256;
/** The share of a raw body kept for evidence. */
const BODY_EXCERPT = 64 * 1024;

export interface Exchange {
  /** The request as sent (ids and params), for evidence. */
  request: { jsonrpc: '2.0'; id: number; method: string; params: unknown[] } | unknown[];
  httpStatus?: number;
  contentType?: string;
  /** Raw body text, capped; redacted before it is stored anywhere. */
  bodyText?: string;
  /** Parsed body when it was JSON. */
  body?: unknown;
  /** For a single call answered with a JSON object: the raw text of its top-level id, as sent back (core/envelope.ts judges it). */
  idToken?: string;
  /** With the `fingerprints` option, for a single call answered with HTTP 200 and JSON: core/reply.ts's fingerprint of the raw answer. */
  replyFingerprint?: string;
  durationMs: number;
  fault?: TransportFault;
  faultDetail?: string;
  retryAfterS?: number;
}

export interface RpcClientOptions {
  url: string;
  /** Whether the URL's key is a secret to remove from every text (default): not for a key the harness made up itself. */
  secretUrl?: boolean;
  timeoutMs?: number;
  concurrency?: number;
  maxBodyBytes?: number;
  /** Extra headers; Content-Type is always application/json. */
  headers?: Record<string, string>;
  /** PEM of a CA to trust (a private or self-signed TLS endpoint). */
  ca?: string;
  /** Retries after an HTTP 429, waiting as Retry-After says (at most maxRetryWaitS). */
  retries429?: number;
  maxRetryWaitS?: number;
  /** Fingerprint each single answer (Exchange.replyFingerprint): load sampling records them; nothing else reads them. */
  fingerprints?: boolean;
  /** Ctrl-C or the run deadline: calls in flight end at once, and later ones are not sent (fault `interrupted`). */
  signal?: AbortSignal;
  /**
   * After this many calls of one method in a row got no answer at all (timeout, reset, refused), further
   * calls of it fail at once with a timeout fault instead of waiting out the timeout again; an answer resets it.
   */
  noAnswerLimit?: number;
  /** Called with each single call's exchange, when it was asked (before it queued) and when it was answered: the run's head log. */
  onAnswer?: (ex: Exchange, askedAt: number, answeredAt: number) => void;
  /** The key's budget (--rate-limit): requests are sent at most this many a second, evenly spaced. */
  ratePerS?: number;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    readonly rpcMessage: string,
    readonly data: unknown,
    readonly exchange: Exchange,
  ) {
    super(`JSON-RPC error ${code}: ${rpcMessage}`);
  }
}

export class TransportError extends Error {
  constructor(readonly exchange: Exchange) {
    super(`${exchange.fault}: ${exchange.faultDetail ?? ''}`.trim());
  }
}

export class RpcClient {
  readonly url: string;
  requestCount = 0;
  /** How long some request was waiting for the budget (ratePerS), ms: the waits' union, not their sum. */
  pacedMs = 0;
  /** The end of the waits counted in pacedMs so far. */
  private pacedUntil = 0;
  /** When the next request may go under the budget (performance.now()). */
  private nextSlot = 0;
  private nextId = 1;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly agent: Agent;
  /** For calls made over a connection of their own (`apart`): never kept alive, so each opens a new one. */
  private readonly apartAgent: Agent;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly maxBodyBytes: number;
  private readonly headers: Record<string, string>;
  private readonly retries429: number;
  private readonly maxRetryWaitS: number;
  private readonly fingerprints: boolean;
  private readonly signal: AbortSignal | undefined;
  private readonly noAnswerLimit: number;
  private readonly onAnswer: RpcClientOptions['onAnswer'];
  private readonly ratePerS: number | undefined;
  /** Per method: calls in a row that got no answer. */
  private readonly silent = new Map<string, number>();

  constructor(opts: RpcClientOptions) {
    this.url = opts.url;
    if (opts.secretUrl !== false) registerUrlSecrets(opts.url);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.concurrency = opts.concurrency ?? 8;
    this.maxBodyBytes = opts.maxBodyBytes ?? 32 * 1024 * 1024;
    this.headers = { ...opts.headers, 'content-type': 'application/json', accept: 'application/json' };
    this.retries429 = opts.retries429 ?? 2;
    this.maxRetryWaitS = opts.maxRetryWaitS ?? 10;
    this.fingerprints = opts.fingerprints ?? false;
    this.signal = opts.signal;
    this.noAnswerLimit = opts.noAnswerLimit ?? Infinity;
    this.onAnswer = opts.onAnswer;
    this.ratePerS = opts.ratePerS;
    const isHttps = new URL(opts.url).protocol === 'https:';
    const agent = (keepAlive: boolean) => (isHttps ? new HttpsAgent({ keepAlive, maxSockets: this.concurrency, ...(opts.ca ? { ca: opts.ca } : {}) }) : new Agent({ keepAlive, maxSockets: this.concurrency }));
    this.agent = agent(true);
    this.apartAgent = agent(false);
  }

  /**
   * One call; the response's envelope is not judged here (checks do that), only transport. `apart`: over a new
   * connection, closed after it (a balancer that pins each connection to one backend is met on another one).
   */
  async exchange(method: string, params: unknown[], opts: { apart?: boolean } = {}): Promise<Exchange> {
    const req = { jsonrpc: '2.0' as const, id: this.nextId++, method, params };
    const askedAt = performance.now();
    const ex = await this.send(req, JSON.stringify(req), method, opts.apart === true);
    this.onAnswer?.(ex, askedAt, performance.now());
    return ex;
  }

  /** A raw body (malformed JSON, batches, wrong types) for the robustness checks. */
  async exchangeRaw(body: string, requestForEvidence: Exchange['request']): Promise<Exchange> {
    return this.send(requestForEvidence, body);
  }

  /** The result of a successful call; throws RpcError on a JSON-RPC error, TransportError otherwise. */
  async call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    return resultOf<T>(await this.exchange(method, params));
  }

  /** The run was stopped (Ctrl-C, the deadline): nothing more will be answered. */
  get stopped(): boolean {
    return this.signal?.aborted === true;
  }

  close(): void {
    this.agent.destroy();
    this.apartAgent.destroy();
  }

  /** `method`: a well-formed call of it, counted for noAnswerLimit (a raw body the endpoint may rightly ignore is not). */
  private async send(reqForEvidence: Exchange['request'], body: string, method?: string, apart = false): Promise<Exchange> {
    const missed = method === undefined ? 0 : (this.silent.get(method) ?? 0);
    if (missed >= this.noAnswerLimit) {
      return { request: reqForEvidence, durationMs: 0, fault: 'timeout', faultDetail: `not sent: ${method} gave no answer to its last ${missed} calls` };
    }
    await this.acquire();
    try {
      // A 429 is retried politely, as a user would expect: bounded, after the wait the server asked for.
      for (let attempt = 0; ; attempt++) {
        await this.pace();
        this.requestCount++;
        const ex = await this.post(reqForEvidence, body, apart);
        if (method !== undefined && ex.fault !== 'interrupted') this.silent.set(method, ex.fault === 'timeout' || ex.fault === 'unreachable' ? (this.silent.get(method) ?? 0) + 1 : 0);
        const wait = ex.retryAfterS ?? 1;
        if (ex.fault !== 'rate-limited' || attempt >= this.retries429 || wait > this.maxRetryWaitS || this.signal?.aborted) return ex;
        await this.sleep(wait * 1000);
      }
    } finally {
      this.release();
    }
  }

  private post(reqForEvidence: Exchange['request'], body: string, apart = false): Promise<Exchange> {
    const started = performance.now();
    const url = new URL(this.url);
    const send = url.protocol === 'https:' ? httpsRequest : request;
    const stopped = () => ({ fault: 'interrupted' as const, faultDetail: `run stopped (${String(this.signal?.reason)}) before an answer came` });
    if (this.signal?.aborted) return Promise.resolve({ request: reqForEvidence, durationMs: 0, ...stopped() });
    return new Promise((resolve) => {
      let settled = false;
      const done = (ex: Omit<Exchange, 'request' | 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.signal?.removeEventListener('abort', onAbort);
        resolve({ request: reqForEvidence, durationMs: Math.round((performance.now() - started) * 10) / 10, ...ex });
      };
      const onAbort = () => {
        done(stopped());
        req.destroy();
      };
      const req = send(url, { method: 'POST', agent: apart ? this.apartAgent : this.agent, headers: { ...this.headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxBodyBytes) {
            done({ httpStatus: res.statusCode, fault: 'too-large', faultDetail: `response body over ${this.maxBodyBytes} bytes` });
            res.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (err) => done({ httpStatus: res.statusCode, fault: 'unreachable', faultDetail: redact(err.message) }));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          // Headers and body are the endpoint's words: redacted before anything keeps them.
          const contentType = res.headers['content-type'] === undefined ? undefined : redactCapped(res.headers['content-type'], 200);
          const base = { httpStatus: status, contentType, bodyText: redactCapped(text, BODY_EXCERPT) };
          let parsed: unknown;
          let isJson = true;
          try {
            parsed = JSON.parse(text);
          } catch {
            isJson = false;
          }
          const depth = isJson ? nesting(parsed, MAX_DEPTH) : 0;
          if (depth > MAX_DEPTH) {
            done({ ...base, fault: 'too-deep', faultDetail: `HTTP ${status}, JSON nested more than ${MAX_DEPTH} levels deep` });
          } else if (status === 429 || isRateLimitCode((parsed as { error?: { code?: unknown } } | null)?.error?.code)) {
            // A 429, or a JSON-RPC "limit exceeded" (-32005) some services answer with HTTP 200: the key's budget spoke, not the method.
            const retry = Number(res.headers['retry-after']);
            done({ ...base, body: parsed, fault: 'rate-limited', faultDetail: status === 429 ? 'HTTP 429' : `JSON-RPC error ${String((parsed as { error: { code: unknown } }).error.code)} at HTTP ${status}`, ...(Number.isFinite(retry) ? { retryAfterS: retry } : {}) });
          } else if (!isJson) {
            done({ ...base, fault: status === 200 ? 'non-json' : 'http-status', faultDetail: `HTTP ${status}, body is not JSON` });
          } else if (status !== 200 && !isJsonRpc(parsed)) {
            done({ ...base, body: parsed, fault: 'http-status', faultDetail: `HTTP ${status}` });
          } else {
            const fingerprint = this.fingerprints && status === 200 && !Array.isArray(reqForEvidence) ? replyFingerprint(text, reqForEvidence.id) : undefined;
            const idToken = !Array.isArray(reqForEvidence) && isObjectBody(parsed) ? topLevelToken(text, 'id') : undefined;
            done({ ...base, body: parsed, ...(fingerprint ? { replyFingerprint: fingerprint } : {}), ...(idToken !== undefined ? { idToken: redactCapped(idToken, 200) } : {}) });
          }
        });
      });
      const timer = setTimeout(() => {
        done({ fault: 'timeout', faultDetail: `no complete response within ${this.timeoutMs} ms` });
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => done({ fault: 'unreachable', faultDetail: redact(describeSocketError(err)) }));
      this.signal?.addEventListener('abort', onAbort, { once: true });
      req.end(body);
    });
  }

  /** Waits for this request's slot under the budget: one every 1000 / ratePerS ms. */
  private async pace(): Promise<void> {
    if (!this.ratePerS) return;
    const now = performance.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + 1000 / this.ratePerS;
    if (slot <= now || this.signal?.aborted) return;
    // The run's time some request was held, not the sum of waits that overlap (requests wait together).
    this.pacedMs += Math.max(0, slot - Math.max(now, this.pacedUntil));
    this.pacedUntil = Math.max(this.pacedUntil, slot);
    await this.sleep(slot - now);
  }

  /** A wait that Ctrl-C or the run deadline ends at once (the call after it then ends as interrupted). */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.signal?.addEventListener('abort', done, { once: true });
    });
  }

  private async acquire(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

function describeSocketError(err: NodeJS.ErrnoException): string {
  const tls = ['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID'];
  if (err.code && tls.includes(err.code)) return `TLS certificate not trusted (${err.code}); to trust a private CA, pass --ca-file <pem>`;
  // OpenSSL's words for a server that answered the handshake in plain HTTP.
  if (err.code === 'EPROTO' && /wrong version number|packet length too long|http request/i.test(err.message)) return 'TLS handshake failed (EPROTO): the server does not speak TLS on that port; is it an http:// endpoint given as https://?';
  return `${err.code ?? ''} ${err.message}`.trim();
}

/** How deeply a parsed JSON value nests, counted without recursion and up to `limit + 1`. */
function nesting(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return depth + 1;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

function isObjectBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

function isJsonRpc(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'jsonrpc' in body;
}

/** The result of an exchange, or the error it carried, as exceptions. */
export function resultOf<T>(ex: Exchange): T {
  if (ex.fault) throw new TransportError(ex);
  const body = ex.body as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
  // A body with both a non-null result and an error breaks the envelope (the envelope checks fail it); the
  // other checks read its result, so one defect is one verdict, not a failure of every check.
  const hasResult = body && typeof body === 'object' && body.result !== undefined && body.result !== null;
  if (body && typeof body === 'object' && body.error && typeof body.error === 'object' && !hasResult) {
    throw new RpcError(Number(body.error.code), String(body.error.message), body.error.data, ex);
  }
  if (!body || typeof body !== 'object' || !('result' in body)) {
    throw new TransportError({ ...ex, fault: 'non-json', faultDetail: 'body is JSON but carries neither result nor error' });
  }
  return body.result as T;
}
