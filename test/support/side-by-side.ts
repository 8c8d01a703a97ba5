// The fixture of the side-by-side tests (issue 42): one seeded chain (no blob or set-code transaction, so it passes
// without an --expect file) served three ways: the gateway itself, a faithful proxy, and a proxy that corrupts a
// receipt field (effectiveGasPrice one wei higher) consistently, in eth_getTransactionReceipt and eth_getBlockReceipts alike.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { toQuantity } from '../../core/hex.ts';
import { FaultProxy, type Fault, type RpcResponse } from './fault-proxy.ts';

/** effectiveGasPrice one wei higher, in every receipt however it is asked for: consistent, so no cross-method check sees it. */
const pricier = (r: unknown): unknown => (r && typeof r === 'object' && typeof (r as Record<string, unknown>)['effectiveGasPrice'] === 'string' ? { ...r, effectiveGasPrice: toQuantity(BigInt((r as Record<string, string>)['effectiveGasPrice']!) + 1n) } : r);
const CORRUPT: Fault = {
  name: 'effectiveGasPrice one wei higher in every receipt',
  kills: [],
  rewrite: (req, res): RpcResponse => {
    if (req.method === 'eth_getTransactionReceipt') return { ...res, result: pricier(res.result) };
    if (req.method === 'eth_getBlockReceipts' && Array.isArray(res.result)) return { ...res, result: res.result.map(pricier) };
    return res;
  },
};

/** Every file under dir, read as text. */
export async function allText(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(entries.filter((e) => e.isFile()).map((e) => readFile(join(e.parentPath, e.name), 'utf8')));
  return texts.join('\n');
}

/** Started before the enclosing describe's tests, stopped after; the keys are every endpoint's (none may appear in any output). */
export function threeEndpoints(): { devnet: () => Devnet; faithful: () => FaultProxy; corrupt: () => FaultProxy; keys: () => string[] } {
  let devnet: Devnet | undefined;
  let faithful: FaultProxy | undefined;
  let corrupt: FaultProxy | undefined;
  before(async () => {
    devnet = await startDevnet({ without: ['blob', 'set-code'] });
    faithful = new FaultProxy(devnet.url);
    corrupt = new FaultProxy(devnet.url);
    await Promise.all([faithful.start(), corrupt.start()]);
    corrupt.fault = CORRUPT;
  });
  after(async () => {
    await Promise.all([faithful?.stop(), corrupt?.stop()]);
    await devnet?.stop();
  });
  return { devnet: () => devnet!, faithful: () => faithful!, corrupt: () => corrupt!, keys: () => [devnet!.url.slice(devnet!.url.lastIndexOf('/') + 1), FaultProxy.KEY] };
}
