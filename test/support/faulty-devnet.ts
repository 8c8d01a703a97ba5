// The fixture most self-tests share: a seeded embedded default behind a FaultProxy for the enclosing
// describe (started before its tests, the fault cleared after each, both stopped after).
import { startDevnet, type Devnet } from '../../devnet/index.ts';
import { FaultProxy } from './fault-proxy.ts';

export function faultyDevnet(use: (devnet: Devnet, proxy: FaultProxy) => void): void {
  let devnet: Devnet | undefined;
  let proxy: FaultProxy | undefined;
  before(async () => {
    devnet = await startDevnet();
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
