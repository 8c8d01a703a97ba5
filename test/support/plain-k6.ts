// k6 binaries as the runner finds them on PATH (a user's own k6 wins over the tools dir), behind a wrapper:
// - withoutExtension: a k6 without k6/x/rpccertify, as a user's own k6 is, whose `k6 version` lists no extension. The
//   runner must then take the JavaScript path. Used by test/load/load-verdicts.test.ts and bench/recognition.ts.
// - withScriptPatched: a k6 that runs the harness's bundle with one text replaced (a fault put into the script itself,
//   which no endpoint can provoke on purpose). Used by test/load/load-thrown.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function withoutExtension<T>(binary: string, body: () => Promise<T>): Promise<T> {
  return onPath(`if [ "$1" = version ]; then ${JSON.stringify(binary)} version | sed '/^Extensions:/,$d'; else exec ${JSON.stringify(binary)} "$@"; fi`, async () => body());
}

/** Runs `body` with a k6 first on PATH that replaces `from` with `to` in the script it runs (its last argument), once; the
 * script must hold `from`, or the run fails. `extension: false` also hides k6/x/rpccertify, as withoutExtension does. */
export function withScriptPatched<T>(binary: string, patch: { from: string; to: string; extension?: boolean }, body: () => Promise<T>): Promise<T> {
  const version = patch.extension === false ? `${JSON.stringify(binary)} version | sed '/^Extensions:/,$d'` : `exec ${JSON.stringify(binary)} version`;
  return onPath(`if [ "$1" = version ]; then ${version}; exit; fi\nfor last; do :; done\n${JSON.stringify(process.execPath)} "$(dirname "$0")/patch.mjs" "$last" || exit 97\nexec ${JSON.stringify(binary)} "$@"`, async (dir) => {
    const script = `import { readFileSync, writeFileSync } from 'node:fs';
const [path] = process.argv.slice(2);
const text = readFileSync(path, 'utf8');
if (!text.includes(${JSON.stringify(patch.from)})) { console.error('patch.mjs: the script does not hold the text to replace'); process.exit(1); }
writeFileSync(path, text.replace(${JSON.stringify(patch.from)}, ${JSON.stringify(patch.to)}));
`;
    await writeFile(join(dir, 'patch.mjs'), script);
    return body();
  });
}

async function onPath<T>(shell: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'rc-wrapped-k6-'));
  const path = process.env['PATH'];
  try {
    await writeFile(join(dir, 'k6'), `#!/bin/sh\n${shell}\n`, { mode: 0o755 });
    process.env['PATH'] = `${dir}:${path ?? ''}`;
    return await body(dir);
  } finally {
    process.env['PATH'] = path;
    await rm(dir, { recursive: true, force: true });
  }
}
