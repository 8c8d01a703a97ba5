// The suites a run of one endpoint without --reference-url has: the reference/* and quorum/* checks compare with
// other nodes and are not on it (not listed, not in the judged share).
import { allSuites } from '../../conformance/methods.ts';

export const RUN_OF_ONE = allSuites.filter((s) => s.method !== 'reference' && s.method !== 'quorum');
/** How many checks such a run reports. */
export const RUN_OF_ONE_CHECKS = RUN_OF_ONE.reduce((n, s) => n + s.checks.length, 0);
