// Benchmark: the conformance suite against the embedded default: wall time, requests and peak memory,
// over several runs in one process. Prints the figures and writes reports/bench-conformance.json.
import { mkdir, writeFile } from 'node:fs/promises';
import { startDevnet } from '../devnet/index.ts';
import { runConformance } from '../conformance/framework/runner.ts';

const runs = Number(process.argv[2] ?? 5);
const started = performance.now();
const devnet = await startDevnet();
const startupMs = performance.now() - started;
const samples: Array<{ wallMs: number; requests: number; checks: number }> = [];
let peakRss = process.memoryUsage().rss;
try {
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await runConformance({ url: devnet.url, fixtures: [{ targets: { reverts: devnet.seed.reverts }, source: 'seed' }] });
    samples.push({ wallMs: performance.now() - t0, requests: r.requestCount, checks: r.checks.length });
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
} finally {
  await devnet.stop();
}
const walls = samples.map((s) => s.wallMs).sort((a, b) => a - b);
const median = walls[Math.floor(walls.length / 2)]!;
const result = {
  benchmark: 'conformance-suite-embedded-default',
  machine: `${(await import('node:os')).cpus().length} cores, node ${process.version}`,
  runs,
  devnetStartupMs: Math.round(startupMs),
  wallMsMedian: Math.round(median),
  wallMsMin: Math.round(walls[0]!),
  wallMsMax: Math.round(walls[walls.length - 1]!),
  requests: samples[0]!.requests,
  checks: samples[0]!.checks,
  peakRssMiB: Math.round(peakRss / 2 ** 20),
  targets: { wallMsUnder: 20_000, requestsUnder: 400 },
};
console.log(`conformance suite vs embedded default (${runs} runs): median ${result.wallMsMedian} ms (min ${result.wallMsMin}, max ${result.wallMsMax}), ${result.requests} requests, ${result.checks} checks, peak RSS ${result.peakRssMiB} MiB; devnet start ${result.devnetStartupMs} ms`);
console.log(`targets: under 20 s -> ${median < 20_000 ? 'met' : 'MISSED'}; under 400 requests -> ${result.requests < 400 ? 'met' : 'MISSED'}`);
await mkdir('reports', { recursive: true });
await writeFile('reports/bench-conformance.json', `${JSON.stringify(result, null, 2)}\n`);
