import { runK6 } from '../load/k6.ts';
import { ensureK6 } from '../scripts/setup-k6.ts';
import { startResponder } from './lib.ts';
const r = await startResponder('fast');
const k6 = await ensureK6();
for (let round = 0; round < 2; round++) for (const f of ['b1', 'b400', 'hcold1', 'hcold400']) {
  const o = await runK6({ binary: k6.path, script: `/tmp/abl/init/${f}.js`, env: { URL: r.url, RPC_CERTIFY_URL: r.url, RPC_CERTIFY_CORPUS: '/tmp/abl/corpus2.json', RPC_CERTIFY_SUMMARY: '/tmp/abl/init/s.json' } });
  // cpuSec is sampled each second while k6 runs; use the reaped total instead
  console.log(f, o.exitCode, o.cpuSec, o.wallSec.toFixed(2));
}
r.stop();
