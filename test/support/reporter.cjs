// Mocha's spec reporter, closing with the plain "N passed, N failed, N skipped" line CI systems read.
const Mocha = require('mocha');

class SpecWithTotals extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const s = runner.stats;
      console.log(`mocha: ${s.passes} passed, ${s.failures} failed, ${s.pending} skipped`);
    });
  }
}

module.exports = SpecWithTotals;
