// Figure 0, the machine's own noise: how often this machine freezes this process while it does nothing,
// and the share of CPU time the hypervisor took away (steal). A freeze lands in any latency measured
// meanwhile, by the harness or bare k6 alike: the tails of the other figures are read against it.
import { round, saveFigure } from './support/lib.ts';
import { cpuTicks } from './support/noise.ts';

const SEC = 20;
const TICK_MS = 1;

const before = cpuTicks();
const lags: number[] = [];
await new Promise<void>((resolve) => {
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(now - last - TICK_MS);
    last = now;
  }, TICK_MS);
  setTimeout(() => {
    clearInterval(timer);
    resolve();
  }, SEC * 1000);
});
const after = cpuTicks();
const stealShare = (after.steal - before.steal) / Math.max(1, after.total - before.total);
const worst = Math.max(...lags);
const over = (ms: number) => lags.filter((l) => l > ms).length;
await saveFigure('machine', {
  idleSec: SEC,
  stealShare: round(stealShare, 4),
  timerLagMs: { worst: round(worst, 1), over10: over(10), over50: over(50) },
  rows: [
    [
      `Machine noise (${SEC} s idle)`,
      `CPU steal ${round(stealShare * 100, 1)}%; this process frozen up to ${round(worst, 1)} ms, ${over(10)} times over 10 ms, ${over(50)} over 50 ms`,
      '-',
      'n/a',
    ],
  ],
});
