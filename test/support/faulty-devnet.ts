// The fixture most self-tests share: a seeded embedded default behind a FaultProxy for the enclosing
// describe (started before its tests, the fault cleared after each, both stopped after); `opts`: a moving chain, say.
import { startDevnet, type Devnet, type DevnetOptions } from '../../devnet/index.ts';
import { FaultProxy } from './fault-proxy.ts';

export function faultyDevnet(use: (devnet: Devnet, proxy: FaultProxy) => void, opts: DevnetOptions = {}): void {
  let devnet: Devnet | undefined;
  let proxy: FaultProxy | undefined;
  before(async () => {
    devnet = await startDevnet(opts);
    proxy = new FaultProxy(devnet.url);
    await proxy.start();
    use(devnet, proxy);
  });
  afterEach(() => {
    if (proxy) proxy.fault = undefined;
  });
  after(async () => {
    await proxy?.stop();
    await devnet?.stop();
  });
}
