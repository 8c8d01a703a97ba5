import { spawn, execSync } from 'node:child_process';
import { ensureK6 } from '../scripts/setup-k6.ts';
const k6 = await ensureK6();
const child = spawn(k6.path, ['run', '--quiet', '--address', '127.0.0.1:6565', '--profiling-enabled', '/tmp/abl/init/hcold1500.js'], { env: { ...process.env, RPC_CERTIFY_URL: 'http://127.0.0.1:1/v3/x', RPC_CERTIFY_CORPUS: '/tmp/abl/corpus2.json', RPC_CERTIFY_SUMMARY: '/tmp/abl/init/s.json' }, stdio: 'inherit' });
await new Promise((r) => setTimeout(r, 800));
try { execSync(`curl -s -o /tmp/abl/init.pprof 'http://127.0.0.1:6565/debug/pprof/profile?seconds=3'`); } catch (e) { console.log('curl failed', String(e)); }
await new Promise((r) => child.once('close', r));
