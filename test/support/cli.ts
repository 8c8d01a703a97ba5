// Runs the command line as a user would: a child process, no API key in the environment, from `cwd`
// (this process's by default), timed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export function cli(args: string[], cwd?: string): Promise<{ code: number; out: string; err: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'rpc-certify.js'), ...args], { cwd: cwd ?? process.cwd(), env: { ...process.env, RPC_CERTIFY_API_KEY: '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err, ms: performance.now() - started }));
  });
}
