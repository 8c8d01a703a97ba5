// Prints reports/bench.json as the Markdown table docs/benchmarks.md carries: one row per figure line, and the
// machine the figures were taken on.
import { readFile } from 'node:fs/promises';
import { BENCH_JSON, type Row } from './lib.ts';

interface Figure {
  machine: { cores: number; cpu: string; node: string; k6: string };
  rows: Row[];
}

const { figures } = JSON.parse(await readFile(BENCH_JSON, 'utf8')) as { figures: Record<string, Figure> };
const machines = new Set(Object.values(figures).map(({ machine: m }) => `${m.cores} cores (${m.cpu}), node ${m.node}, k6 ${m.k6}`));
console.log(`Taken on ${[...machines].join('; ')}: a small machine shared by the generator and the endpoint.\n`);
console.log('| figure | result | target | met |\n|---|---|---|---|');
for (const name of ['machine', 'overhead', 'recognition', 'costs', 'profile', 'soak', 'accuracy', 'omission', 'conformance', 'conformance-rtt', 'limit', 'gate-simulation', 'gate-noise']) for (const cells of figures[name]?.rows ?? []) console.log(`| ${cells.join(' | ')} |`);
