// k6 binaries as the runner finds them on PATH (a user's own k6 wins over the tools dir), behind a wrapper:
// - withoutExtension: a k6 without k6/x/rpccertify, as a user's own k6 is, whose `k6 version` lists no extension. The
//   runner must then take the JavaScript path. Used by test/load/load-verdicts.test.ts and bench/recognition.ts.
// - withScriptPatched: a k6 that runs the harness's bundle with one text replaced (a fault put into the script itself,
//   which no endpoint can provoke on purpose). Used by test/load/load-thrown.test.ts.
// - withExportsRelayed: a k6 whose metrics exports go through a relay the test runs. Used by
//   test/load/load-otlp-lost.test.ts and test/load/load-final-export.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `k6 version` as the binary prints it, or without its extensions (a k6 without k6/x/rpccertify). */
const version = (binary: string, extension: boolean) => (extension ? `exec ${JSON.stringify(binary)} version` : `${JSON.stringify(binary)} version | sed '/^Extensions:/,$d'`);

export function withoutExtension<T>(binary: string, body: () => Promise<T>): Promise<T> {
  return onPath(`if [ "$1" = version ]; then ${version(binary, false)}; else exec ${JSON.stringify(binary)} "$@"; fi`, async () => body());
}

/** Runs `body` with a k6 first on PATH whose `k6 run` sends its metrics exports to 127.0.0.1:`port` (a relay the test
 * runs) instead of where the harness asked: k6/x/rpccertify's output's URL, or k6's OpenTelemetry output's endpoint. The
 * harness's address (host:port) goes into `upstreamFile`, for the relay to forward to. `extension: false` also hides
 * k6/x/rpccertify, as withoutExtension does. */
export function withExportsRelayed<T>(binary: string, relay: { port: number; upstreamFile: string; extension?: boolean }, body: () => Promise<T>): Promise<T> {
  const { port, upstreamFile } = relay;
  const file = JSON.stringify(upstreamFile);
  const rewrite = [
    `printf %s "$K6_OTEL_HTTP_EXPORTER_ENDPOINT" > ${file}; K6_OTEL_HTTP_EXPORTER_ENDPOINT=127.0.0.1:${port}; export K6_OTEL_HTTP_EXPORTER_ENDPOINT`,
    `for a; do shift; case "$a" in rpccertify=http://*) at=\${a#rpccertify=http://}; printf %s "\${at%%/*}" > ${file}; a="rpccertify=http://127.0.0.1:${port}/\${at#*/}";; esac; set -- "$@" "$a"; done`,
  ].join('\n');
  return onPath(`if [ "$1" = version ]; then ${version(binary, relay.extension !== false)}; exit; fi\nif [ "$1" = run ]; then\n${rewrite}\nfi\nexec ${JSON.stringify(binary)} "$@"`, async () => body());
}

/** Runs `body` with a k6 first on PATH that replaces `from` with `to` in the script it runs (its last argument), once; the
 * script must hold `from`, or the run fails. `extension: false` also hides k6/x/rpccertify, as withoutExtension does. */
export function withScriptPatched<T>(binary: string, patch: { from: string; to: string; extension?: boolean }, body: () => Promise<T>): Promise<T> {
  return onPath(`if [ "$1" = version ]; then ${version(binary, patch.extension !== false)}; exit; fi\nfor last; do :; done\n${JSON.stringify(process.execPath)} "$(dirname "$0")/patch.mjs" "$last" || exit 97\nexec ${JSON.stringify(binary)} "$@"`, async (dir) => {
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
