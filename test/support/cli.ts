// Runs the command line as a user would (a child process, no API key in the environment).
import { spawn } from 'node:child_process';

export function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/rpc-certify.js', ...args], { env: { ...process.env, RPC_CERTIFY_API_KEY: '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}
