// The harness's version (package.json), for `--version` and the header of every report (report-header.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const harnessVersion = (JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string }).version;
