// Mocha's spec reporter, closing with the slowest test files (CI has a 30-minute budget to keep) and the plain
// "N passed, N failed, N skipped" line CI systems read.
const Mocha = require('mocha');

class SpecWithTotals extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const spent = new Map();
    runner.on('suite', (suite) => {
      if (suite.parent?.root && suite.file) started.set(suite, performance.now());
    });
    runner.on('suite end', (suite) => {
      const t0 = started.get(suite);
      if (t0 !== undefined) spent.set(suite.file, (spent.get(suite.file) ?? 0) + performance.now() - t0);
    });
    runner.once('end', () => {
      const slowest = [...spent].sort((a, b) => b[1] - a[1]).slice(0, 15);
      console.log('slowest test files:');
      for (const [file, ms] of slowest) console.log(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${require('node:path').relative(process.cwd(), file)}`);
      const s = runner.stats;
      console.log(`mocha: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped`);
    });
  }
}

module.exports = SpecWithTotals;
