// Faults for the advisory layer: malformed requests served as if valid, and service-wide rules broken.
import { allSuites } from '../../conformance/methods.ts';
import { isRpcMethod } from '../../core/methods.ts';
import type { Fault, RpcRequest, RpcResponse } from './fault-proxy.ts';

const rejected = (res: RpcResponse) => 'error' in res && res.error?.code === -32602;

/** For each method: its invalid-params errors answered as result null, or as an HTTP 500. */
function malformedServed(): Fault[] {
  return allSuites
    // The service-wide suites (service, reference, history) send no malformed params of their own.
    .filter((s) => isRpcMethod(s.method))
    .flatMap((s) => {
      const kills = s.checks.map((c) => c.spec.id).filter((id) => /\/robust-(?!uppercase)/.test(id));
      const uppercase = s.checks.some((c) => c.spec.id === `${s.method}/robust-uppercase-hex`) ? [`${s.method}/robust-uppercase-hex`] : [];
      const mine = (req: RpcRequest) => req.method === s.method;
      return [
        { name: `${s.method}: invalid params answered with result null`, kills, rewrite: (req, res) => (mine(req) && rejected(res) ? { jsonrpc: '2.0', id: res.id, result: null } : res) },
        { name: `${s.method}: invalid params answered with HTTP 500`, kills, raw: (req, res) => (mine(req) && rejected(res) ? { status: 500, contentType: 'text/plain', body: 'internal error' } : undefined) },
        ...(uppercase.length
          ? [{ name: `${s.method}: uppercase hex read as another value`, kills: uppercase, rewrite: (req: RpcRequest, res: RpcResponse) => (mine(req) && String(req.params[0]).startsWith('0X') ? { jsonrpc: '2.0', id: res.id, result: '0x1' } : res) }]
          : []),
      ] satisfies Fault[];
    });
}

export const robustnessFaults: Fault[] = [
  ...malformedServed(),
  { name: 'service: unknown method as -32600', kills: ['service/unknown-method'], rewrite: (req, res) => (req.method === 'rpc_certify_noSuchMethod' ? { ...res, error: { code: -32600, message: 'invalid request' } } : res) },
  { name: 'service: a body that is not JSON gets HTTP 500', kills: ['service/parse-error'], rawRequest: (text) => (text.startsWith('{') && !text.endsWith('}') ? { status: 500, contentType: 'text/html', body: '<h1>500</h1>' } : undefined) },
  {
    name: 'service: a batch answered with its first response only',
    kills: ['service/batch'],
    rawRequest: (text) => (text.startsWith('[') ? { status: 200, contentType: 'application/json', body: JSON.stringify({ jsonrpc: '2.0', id: 9001, result: null }) } : undefined),
  },
  { name: 'service: any API key is served', kills: ['service/api-key-wrong', 'service/api-key-missing'], serveAnyKey: true },
  ...serviceFaults(),
  ...everyAnswerFaults(),
];

/**
 * The envelope broken on some answers only, as a cache or a proxy in front of the nodes breaks it: the checks of every
 * answer of the run see it wherever it happens (the methods' own envelope checks see a few exchanges only).
 */
function everyAnswerFaults(): Fault[] {
  const receipts = (req: RpcRequest) => req.method === 'eth_getTransactionReceipt';
  const body = (res: RpcResponse) => JSON.stringify(res);
  let replayed: RpcResponse | undefined;
  return [
    { name: 'envelope: receipts echo the id as 7.0 (JSON.parse reads 7)', kills: ['service/every-answer-id'], methods: ['eth_getTransactionReceipt', 'service'], raw: (req, res) => (receipts(req) ? { status: 200, contentType: 'application/json', body: body(res).replace(`"id":${req.id}`, `"id":${req.id}.0`) } : undefined) },
    {
      name: 'envelope: a cache replays the previous receipt answer for the next request, its id with it',
      kills: ['service/every-answer-id'],
      methods: ['eth_getTransactionReceipt', 'service'],
      rewrite: (req, res) => {
        if (!receipts(req)) return res;
        const previous = replayed;
        replayed = res;
        return previous ?? res;
      },
    },
    { name: 'envelope: block answers served as text/plain', kills: ['service/every-answer-content-type'], methods: ['eth_getBlockByHash', 'service'], raw: (req, res) => (req.method === 'eth_getBlockByHash' ? { status: 200, contentType: 'text/plain', body: body(res) } : undefined) },
    { name: 'envelope: transactions by hash served under HTTP 500, results and all', kills: ['service/every-answer-status'], methods: ['eth_getTransactionByHash', 'service'], raw: (req, res) => (req.method === 'eth_getTransactionByHash' && 'result' in res ? { status: 500, contentType: 'application/json', body: body(res) } : undefined) },
    { name: 'envelope: errors of transactions by hash served under HTTP 400', kills: ['service/every-error-status'], methods: ['eth_getTransactionByHash', 'service'], raw: (req, res) => (req.method === 'eth_getTransactionByHash' && 'error' in res ? { status: 400, contentType: 'application/json', body: body(res) } : undefined) },
    { name: 'service: a batch answered with the results handed to the wrong ids', kills: ['service/batch-ids'], rewriteBatch: (answers) => answers.map((a, i) => ({ ...a, result: answers[(i + 1) % answers.length]?.result })) },
  ];
}

/** JSON-RPC 2.0 service behaviour broken the ways hardhat, ganache and anvil break it (facts.md). */
function serviceFaults(): Fault[] {
  const reply = (body: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
  const parsed = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  const single = (text: string) => {
    const p = parsed(text);
    return typeof p === 'object' && p !== null && !Array.isArray(p) ? (p as Record<string, unknown>) : undefined;
  };
  return [
    {
      name: 'service: a batch with an invalid element rejected whole',
      kills: ['service/batch-invalid-element'],
      rawRequest: (text) => {
        const p = parsed(text);
        return Array.isArray(p) && p.some((e) => typeof e !== 'object' || e === null) ? reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } }) : undefined;
      },
    },
    { name: 'service: an empty batch answered []', kills: ['service/batch-empty'], rawRequest: (text) => (text.trim() === '[]' ? reply([]) : undefined) },
    {
      name: 'service: a notification answered',
      kills: ['service/notification'],
      rawRequest: (text) => {
        const call = single(text);
        return call && !('id' in call) ? reply({ jsonrpc: '2.0', id: null, result: '0x1' }) : undefined;
      },
    },
    {
      name: 'service: a request without "jsonrpc" or with "1.0" served',
      kills: ['service/jsonrpc-version'],
      rawRequest: (text) => {
        const call = single(text);
        return call && 'id' in call && call['jsonrpc'] !== '2.0' ? reply({ jsonrpc: '2.0', id: call['id'], result: '0x1' }) : undefined;
      },
    },
    {
      name: 'service: a call with id null taken for a notification (no answer)',
      kills: ['service/id-null'],
      rawRequest: (text) => (single(text)?.['id'] === null ? { status: 204, contentType: 'application/json', body: '' } : undefined),
    },
    {
      name: 'service: an object id refused, but echoed as the error\'s id',
      kills: ['service/id-object'],
      rawRequest: (text) => {
        const id = single(text)?.['id'];
        return typeof id === 'object' && id !== null ? reply({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } }) : undefined;
      },
    },
    {
      name: 'service: a fractional id answered with it truncated',
      kills: ['service/id-fractional'],
      rawRequest: (text) => {
        const id = single(text)?.['id'];
        return typeof id === 'number' && !Number.isInteger(id) ? reply({ jsonrpc: '2.0', id: Math.trunc(id), result: '0x1' }) : undefined;
      },
    },
    {
      name: 'service: error objects carry a stack (ganache)',
      kills: ['service/error-no-stack'],
      rewrite: (_req, res) => (res.error ? { ...res, error: { ...res.error, name: 'Error', stack: 'Error: boom\n    at handle (/srv/node/rpc/handler.js:41:13)' } } : res),
    },
    {
      name: 'service: error data holding a source path',
      kills: ['service/error-no-stack'],
      rewrite: (_req, res) => (res.error ? { ...res, error: { ...res.error, data: 'panic: runtime error in /home/build/node/internal/ethapi/api.go:1204' } } : res),
    },
  ];
}
