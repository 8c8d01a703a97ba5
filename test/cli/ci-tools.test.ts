// A test that needs k6 or geth skips where the binary is missing, except under CI=true (as CI runs .ci/run):
// there the suite fails. Proved on a real Mocha run of a one-test file, with PATH and the tools dir empty.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { underCi } from '../support/tools.ts';

const root = resolve(import.meta.dirname, '..', '..');

/** Mocha on a file whose one test needs `tool`, with nothing on PATH and an empty tools dir. */
async function runWithout(tool: 'k6' | 'geth', ci: string | undefined): Promise<{ code: number; out: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'rc-ci-tools-'));
  try {
    const file = join(dir, `needs-${tool}.test.ts`);
    await writeFile(file, `import { requireTool } from ${JSON.stringify(join(root, 'test', 'support', 'tools.ts'))};\ndescribe('needs ${tool}', function () {\n  before(async function () { await requireTool(this, '${tool}'); });\n  it('runs ${tool}', () => undefined);\n});\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: dir, RPC_CERTIFY_TOOLS: dir };
    if (ci === undefined) delete env['CI'];
    else env['CI'] = ci;
    return await new Promise((done) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--no-config', '--reporter', 'spec', file], { cwd: root, env });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => done({ code: code ?? -1, out }));
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('tests that need k6 or geth, where it is missing', function () {
  this.timeout(60_000);

  for (const tool of ['k6', 'geth'] as const) {
    it(`${tool}: under CI=true the suite fails, naming it; elsewhere its tests skip`, async () => {
      const ci = await runWithout(tool, 'true');
      expect(ci.code, ci.out).to.equal(1);
      expect(ci.out).to.match(/0 passing/).and.match(/1 failing/);
      expect(ci.out).to.include(`${tool} is not built`).and.include(`under CI=true a missing ${tool} fails the suite`);
      const local = await runWithout(tool, undefined);
      expect(local.code, local.out).to.equal(0);
      expect(local.out).to.match(/1 pending/);
    });
  }

  it('CI is on for true, 1 and yes (any case), off when unset, empty, false or 0', () => {
    for (const v of ['true', 'TRUE', '1', 'yes']) expect(underCi({ CI: v }), v).to.equal(true);
    for (const v of [undefined, '', 'false', '0']) expect(underCi(v === undefined ? {} : { CI: v }), String(v)).to.equal(false);
  });
});
