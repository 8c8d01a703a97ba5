// conformance.json and load.json open with one header (core/node/report-header.ts): their schemas must say the same.
import { expect } from 'chai';
import conformanceSchema from '../../schemas/files/conformance-report.json' with { type: 'json' };
import loadSchema from '../../schemas/files/load-report.json' with { type: 'json' };
import { reportHeader } from '../../core/node/report-header.ts';
import { harnessVersion } from '../../core/node/version.ts';

const HEADER = ['kind', 'schemaVersion', 'harness'];

describe('the report header both JSON reports share', () => {
  it('is required by both schemas, with the same harness object and each its own kind', () => {
    for (const schema of [conformanceSchema, loadSchema]) expect(schema.required.slice(0, 3), schema.$id).to.deep.equal(HEADER);
    expect(loadSchema.properties.harness).to.deep.equal(conformanceSchema.properties.harness);
    expect([conformanceSchema.properties.kind.const, loadSchema.properties.kind.const]).to.deep.equal(['rpc-certify-conformance', 'rpc-certify-load']);
  });

  it('names the harness version, package.json\'s', () => {
    expect(reportHeader('rpc-certify-load', 3)).to.deep.equal({ kind: 'rpc-certify-load', schemaVersion: 3, harness: { name: 'rpc-certify', version: harnessVersion } });
    expect(harnessVersion).to.match(/^\d+\.\d+\.\d+/);
  });
});
