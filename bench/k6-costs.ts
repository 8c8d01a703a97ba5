// Figure 1b, where a k6 scenario's CPU goes: what the operations a per-request scenario may do cost
// inside k6's JavaScript runtime, each timed over many calls in one VU (on a response of the bench
// responder, so the response object is k6's own). It explains the overhead figure: a bare script
// pays for http.post only; every property read, metric sample or parse on top is paid per request.
// It also shows why the scenario reads packed corpus lines, recognises an answer by its fingerprint
// instead of parsing it, and skips the answer digest of an answer it recognised.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runK6 } from '../load/run/k6.ts';
import { ensureK6 } from '../core/node/tools/k6.ts';
import { REQUEST } from './support/endpoint.ts';
import { pureScript, round, saveFigure, startResponder } from './support/lib.ts';

const CALLS = 20_000;
const MARKER = 'COSTS';
/** Each operation as the body of `(i) => …`, with `res` a real response, `body` its text, `parsed` that parsed, and
 * `objects`/`lines` 200 corpus entries in a SharedArray as objects and as packed lines. */
const OPERATIONS: Record<string, string> = {
  'exec.scenario (a new object per read)': 'exec.scenario.iterationInTest',
  'a property of a kept exec.scenario': 'scenario.iterationInTest',
  'res.body': 'res.body',
  'res.timings.duration': 'res.timings.duration',
  'Counter.add(1)': 'counter.add(1)',
  'Counter.add(1, tags)': 'counter.add(1, tags)',
  'Trend.add(x)': 'trend.add(1.5)',
  'a SharedArray element: a corpus entry object': 'objects[i % 200]',
  'a SharedArray element: a packed line': 'lines[i % 200]',
  'JSON.parse of the 0.9 KB answer': 'JSON.parse(body)',
  'its fingerprint (cut at the id, sha256)': "crypto.sha256(replyText(body, 1), 'hex')",
  'its answer digest (canonical JSON, sha256)': "answerDigest(parsed.result, (text) => crypto.sha256(text, 'hex'))",
};
/** The pure functions the scenario runs. */
const PURE = await pureScript(['core/reply.ts', 'load/shared/answer.ts', 'load/shared/corpus.ts', 'load/k6/packed-entry.ts']);

const responder = await startResponder('fast');
const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-bench-'));
try {
  const script = join(dir, 'costs.js');
  const out = join(dir, 'console.log');
  await writeFile(
    script,
    `import http from 'k6/http';
import crypto from 'k6/crypto';
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';
import { Counter, Trend } from 'k6/metrics';
export const options = { scenarios: { costs: { executor: 'shared-iterations', iterations: 1, vus: 1 } } };
${PURE}
const counter = new Counter('cost_counter'); const trend = new Trend('cost_trend', true); const tags = { b: '123' };
const entry = (i) => ({ params: ['0x' + String(i).padStart(64, '0')], note: 'bench', kind: 'hit', answer: '1x2b3c4d5e6f', reply: 'f'.repeat(64) });
const objects = new SharedArray('objects', () => Array.from({ length: 200 }, (_, i) => entry(i)));
const lines = new SharedArray('lines', () => Array.from({ length: 200 }, (_, i) => packEntry(entry(i))));
export default function () {
  const res = http.post(__ENV.URL, ${JSON.stringify(REQUEST)}, { headers: { 'Content-Type': 'application/json' } });
  const body = res.body; const parsed = JSON.parse(body);
  const scenario = exec.scenario;
  const time = (f) => { const t0 = Date.now(); for (let i = 0; i < ${CALLS}; i++) f(i); return ((Date.now() - t0) * 1000) / ${CALLS}; };
  const empty = time(() => {});
  const costs = [];
${Object.entries(OPERATIONS)
  .map(([, op]) => `  costs.push(time((i) => ${op}) - empty);`)
  .join('\n')}
  console.log(\`${MARKER} \${costs.join(' ')}\`);
}
`,
  );
  const k6 = await ensureK6();
  const run = await runK6({ binary: k6.path, script, env: { URL: responder.url, K6_CONSOLE_OUTPUT: out } });
  if (run.exitCode !== 0) throw new Error(`k6 failed (exit ${run.exitCode}): ${run.log.at(-1)?.line ?? 'no output'}`);
  // The VU prints its timings in OPERATIONS order on one console line (handleSummary runs in another VU).
  const line = (await readFile(out, 'utf8')).split('\n').find((l) => l.includes(MARKER)) ?? '';
  const values = line.slice(line.indexOf(MARKER) + MARKER.length).replace(/[^\d. e+-].*$/, '').trim().split(' ').map(Number);
  if (values.length !== Object.keys(OPERATIONS).length) throw new Error(`k6 printed no timings: ${line || 'nothing'}`);
  const us = Object.fromEntries(Object.keys(OPERATIONS).map((name, i) => [name, round(Math.max(0, values[i] ?? NaN), 2)]));
  await saveFigure('costs', {
    callsEach: CALLS,
    microseconds: us,
    rows: [['k6 per-operation cost, µs (one VU, hot loop)', Object.entries(us).map(([name, c]) => `${name} ${c}`).join('; '), '-', 'n/a']],
  });
} finally {
  await rm(dir, { recursive: true, force: true });
  responder.stop();
}
