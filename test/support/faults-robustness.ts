// Faults for the advisory layer: malformed requests served as if valid, and service-wide rules broken.
import { allSuites } from '../../conformance/methods.ts';
import type { Fault, RpcRequest, RpcResponse } from './fault-proxy.ts';

const rejected = (res: RpcResponse) => 'error' in res && res.error?.code === -32602;

/** For each method: its invalid-params errors answered as result null, or as an HTTP 500. */
function malformedServed(): Fault[] {
  return allSuites
    .filter((s) => s.method !== 'service')
    .flatMap((s) => {
      const kills = s.checks.map((c) => s.id(c.spec.intent)).filter((id) => /\/robust-(?!uppercase)/.test(id));
      const uppercase = s.checks.some((c) => c.spec.intent === 'robust-uppercase-hex') ? [s.id('robust-uppercase-hex')] : [];
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
];
