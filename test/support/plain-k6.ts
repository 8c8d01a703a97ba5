// A k6 without k6/x/rpccertify, as a user's own k6 on PATH is: the given binary behind a wrapper whose `k6 version`
// lists no extension, put first on PATH (a user's own k6 wins over the tools dir). The runner must then take the
// JavaScript path. Used by test/load/load-verdicts.test.ts and bench/recognition.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function withoutExtension<T>(binary: string, body: () => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'rc-plain-k6-'));
  const path = process.env['PATH'];
  try {
    await writeFile(join(dir, 'k6'), `#!/bin/sh\nif [ "$1" = version ]; then ${JSON.stringify(binary)} version | sed '/^Extensions:/,$d'; else exec ${JSON.stringify(binary)} "$@"; fi\n`, { mode: 0o755 });
    process.env['PATH'] = `${dir}:${path ?? ''}`;
    return await body();
  } finally {
    process.env['PATH'] = path;
    await rm(dir, { recursive: true, force: true });
  }
}
