#!/usr/bin/env node
// Runs the command line bundled into dist/ (bin/build-cli.js: built at install, rebuilt here when a source
// changed), so --help answers at node's speed. Should the build fail, the TypeScript runs through tsx.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCli, currentBuild } from './build-cli.js';

// Until the command installs its own handlers (core/node/interrupt.ts releaseEarlySignals), a signal ends the run as
// interrupted through process.exit, so exit hooks run: a node started in its own session is killed, not orphaned.
function earlyInterrupt() {
  process.exit(130);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, earlyInterrupt);

const built = join(currentBuild(), 'main.js');
const entry = existsSync(built) ? built : await buildCli().catch(() => undefined);
if (entry) await import(pathToFileURL(entry).href);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../cli/main.ts');
}
