// The machine's noise while a bench measures: the CPU the hypervisor took away (steal), the load average, and the
// CPU everything outside the bench used (other tenants' work, which competes with the generator and the responder
// for the same cores). bench/machine.ts reads the same ticks while idle.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { CLOCK_TICKS_PER_SEC, procStatFields, STAT } from '../../load/run/k6.ts';
import { descendants, liveCpuSec, round } from './lib.ts';

/** CPU ticks from /proc/stat's first line (all cores): all of them, busy (user, nice, system, irq, softirq) and steal. */
export function cpuTicks(): { total: number; busy: number; steal: number } {
  const v = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const at = (i: number) => v[i] ?? 0;
  return { total: v.reduce((a, x) => a + x, 0), busy: at(0) + at(1) + at(2) + at(5) + at(6), steal: at(7) };
}

/** The 1-minute load average. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/** CPU seconds of this process, its reaped children (each generator run, once it ended) and its live descendants (the
 * responder, esbuild's service). */
function ownCpuSec(): number {
  const f = procStatFields(readFileSync('/proc/self/stat', 'utf8'));
  const reaped = (Number(f[STAT.cutime]) + Number(f[STAT.cstime])) / CLOCK_TICKS_PER_SEC;
  return reaped + liveCpuSec(descendants(process.pid));
}

export interface Noise {
  wallSec: number;
  /** Share of all cores' time the hypervisor took away. */
  stealShare: number;
  /** Cores' worth of CPU everything but the bench used, on average. */
  othersCores: number;
  /** The 1-minute load average at each reading (the bench itself adds its generator and responder to it). */
  load: { min: number; max: number };
}

/** Starts measuring; `read()` samples the load average (call it between runs), `stop()` gives the noise so far. */
export function noiseMeter(): { read(): void; stop(): Noise } {
  const start = { ticks: cpuTicks(), own: ownCpuSec(), at: performance.now() };
  const loads = [loadAverage()];
  return {
    read: () => void loads.push(loadAverage()),
    stop: () => {
      loads.push(loadAverage());
      const ticks = cpuTicks();
      const wallSec = (performance.now() - start.at) / 1000;
      const machineBusySec = (ticks.busy - start.ticks.busy) / CLOCK_TICKS_PER_SEC;
      const others = Math.max(0, machineBusySec - (ownCpuSec() - start.own));
      return {
        wallSec: round(wallSec, 1),
        stealShare: round((ticks.steal - start.ticks.steal) / Math.max(1, ticks.total - start.ticks.total), 4),
        othersCores: round(others / Math.max(wallSec, 1e-3), 2),
        load: { min: Math.min(...loads), max: Math.max(...loads) },
      };
    },
  };
}

/** The noise row's text. */
export function noiseText(n: Noise): string {
  return `CPU steal ${round(n.stealShare * 100, 1)}%; other work on the machine ${n.othersCores} of ${availableParallelism()} cores on average; load average ${n.load.min}–${n.load.max} (the bench's own generator and responder included) over ${round(n.wallSec / 60, 1)} min`;
}
