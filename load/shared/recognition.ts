// Where the scenario recognises the answer sampling saw (core/reply.ts): in Go, through this repository's k6
// extension (k6ext/, built into the project's k6), or in JavaScript (markedText + k6/crypto) on a k6 without it.
// Both give the same verdicts; Go is cheaper per request. k6 fails at the import of a k6/x module it lacks, so the
// runner checks `k6 version` lists the extension and says so to the scenario through the environment.
// Pure: read by the k6 bundle and by Node.
import { GO_RECOGNITION } from '../../core/reply.ts';

/** The environment variable the runner sets: RECOGNITION values. */
export const RECOGNITION_ENV = 'RPC_CERTIFY_RECOGNITION';

export type Recognition = 'go' | 'js';

export const EXTENSION = GO_RECOGNITION;

/** What the run says about the path that ran (terminal, load.json's k6.recognition). */
export function recognitionNote(recognition: Recognition, inGo?: number): string {
  if (recognition === 'js') return `answers recognised in JavaScript (this k6 lacks ${EXTENSION.name}: slower, judging the same)`;
  return `answers recognised in Go (${EXTENSION.name}${inGo === undefined ? '' : `; ${inGo} iterations sent, recognised and recorded whole in Go, but for the last second's`})`;
}
