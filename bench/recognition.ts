// Recognition in Go against recognition in JavaScript: CPU per request of the harness at one steady rate (2,000 rps by
// default, `npm run bench:recognition -- RPS`) with the project's k6 (k6/x/rpccertify, k6ext/) and with the same k6 hiding
// its extension (as a k6 without it runs: the JavaScript path), beside bare k6 under the harness's own k6 scenario, against
// the same loopback responder. Runs alternate; each generator's median run of 3 by CPU per request (the overhead protocol). CPU is
// k6's while it sends.
import { ensureK6 } from '../core/node/tools/k6.ts';
import { withoutExtension } from '../test/support/plain-k6.ts';
import { CEILING, cpuMsPerRequest as cpuMs, harnessScenario, medianCpu, round, runBare, runHarness, sampledLatencyMs, saveFigure, startResponder, whileSending } from './support/lib.ts';

const RATE = Number(process.argv[2] ?? 2000);
const responder = await startResponder('fast');
const latencyMs = await sampledLatencyMs(responder.url);
try {
  const k6 = await ensureK6();
  if (!k6.extension) throw new Error(`${k6.path} lacks k6/x/rpccertify: this bench compares the two paths (npm run setup builds it)`);
  const sending = <T extends { cpuSec: number; requests: number }>(run: () => Promise<T>) => () => whileSending(responder, run);
  const harness = () => runHarness(responder.url, RATE, CEILING.sec, { latencyMs });
  const [bare, go, js] = await medianCpu([sending(() => runBare(responder.url, harnessScenario(RATE, CEILING.sec, latencyMs), CEILING.sec)), sending(harness), sending(() => withoutExtension(k6.path, harness))]);
  if (go.recognition !== 'go' || js.recognition !== 'js') throw new Error(`the runs recognised in ${go.recognition ?? '?'} and ${js.recognition ?? '?'}, not go and js`);
  const ratio = (f: { cpuSec: number; requests: number }) => round(cpuMs(f) / cpuMs(bare), 2);
  const row = `CPU/request harness recognising in Go ${cpuMs(go)} ms (×${ratio(go)} of bare, ${round(go.rps, 0)} rps), in JavaScript ${cpuMs(js)} ms (×${ratio(js)}, ${round(js.rps, 0)} rps), bare k6 ${cpuMs(bare)} ms (${round(bare.rps, 0)} rps)`;
  console.log(row);
  await saveFigure('recognition', {
    rps: RATE,
    bareCpuMsPerRequest: cpuMs(bare),
    goCpuMsPerRequest: cpuMs(go),
    jsCpuMsPerRequest: cpuMs(js),
    rows: [[`Recognition in Go vs JavaScript at ${RATE} rps (gate profile, same k6 binary, median of 3 alternating)`, row, '≤ 1.2× bare (issue 26)', ratio(go) <= 1.2 ? 'yes' : 'no']],
  });
} finally {
  responder.stop();
}
