// The JUnit XML builder both reports use (conformance.junit.xml, load.junit.xml), with the package's import quirk
// worked around once. Node only.
import junitModule, { type Builder } from 'junit-report-builder';

export type { Builder, TestCase, TestSuite } from 'junit-report-builder';

/**
 * A fresh builder per report: the package's singleton would accumulate across reports in one process. (Its typings
 * declare an ES default export, but under Node the CJS build's module.exports, the builder itself, is what a default
 * import yields.)
 */
export function newJunitBuilder(): Builder {
  return (junitModule as unknown as Builder).newBuilder();
}
