// Most test files run two at a time (mocha --parallel: CI has 30 minutes, and most of a test's time is waiting on
// nodes and k6). The load runs whose figures hold only on a CPU of their own (100 rps on the JavaScript path, a
// capacity knee, a threshold on dropped iterations; a chain reorganising every few seconds, whose gate and reorg timing
// another file's load upsets; three endpoints' k6 runs in turn) run after them, one at a time: `npm test` runs both
// sets, this file choosing by RC_TESTS=serial.
const SERIAL = ['test/load/load-verdicts.test.ts', 'test/load/load-distributed.test.ts', 'test/load/load-thrown.test.ts', 'test/load/load-k6.test.ts', 'test/load/load-side-by-side.test.ts', 'test/nodes/reorg.test.ts'];
const serial = process.env.RC_TESTS === 'serial';

module.exports = {
  'node-option': ['import=tsx'],
  spec: serial ? SERIAL : ['test/**/*.test.ts'],
  ...(serial ? {} : { ignore: SERIAL, parallel: true, jobs: 2 }),
  timeout: 120000,
  reporter: './test/support/reporter.cjs',
};
