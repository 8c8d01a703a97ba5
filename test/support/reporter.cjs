// Mocha's spec reporter, closing with the slowest test files (CI has a 30-minute budget to keep) and the plain
// "N passed, N failed, N skipped" line CI systems read. A file's time is its tests' and hooks' own: under --parallel
// the events of a file arrive together once it has run, so no clock here could time it.
const Mocha = require('mocha');

class SpecWithTotals extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const spent = new Map();
    const add = (runnable) => {
      const file = runnable.file ?? runnable.parent?.file;
      if (file && typeof runnable.duration === 'number') spent.set(file, (spent.get(file) ?? 0) + runnable.duration);
    };
    runner.on('test end', add);
    runner.on('hook end', add);
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
