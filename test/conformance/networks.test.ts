// The networks table: URLs built from it, and the per-network allowlist of extra fields.
import { expect } from 'chai';
import { allowedExtras, networks } from '../../core/networks.ts';
import { networkUrl } from '../../cli/networks.ts';
import { UsageError } from '../../core/node/errors.ts';

describe('networks', function () {
  it('builds {base_url}/v3/<KEY>, with --base-url overriding the base', () => {
    expect(networkUrl('sepolia', 'k/1')).to.equal(`${networks['sepolia']!.baseUrl}/v3/k%2F1`);
    expect(networkUrl('mainnet', 'abc', 'http://127.0.0.1:9/')).to.equal('http://127.0.0.1:9/v3/abc');
    expect(() => networkUrl('atlantis', 'abc')).to.throw(UsageError, /unknown network/);
  });

  it('allows an L2 its own fields, by chain id, and nothing on mainnet', () => {
    expect([...allowedExtras('0xA', 'receipt').fields]).to.include('l1Fee');
    expect(allowedExtras('0xa', 'receipt').network).to.equal('optimism-mainnet');
    expect(allowedExtras('0x1', 'receipt').fields.size).to.equal(0);
    expect(allowedExtras('0x7a69', 'receipt').network).to.equal(undefined);
  });

  it('has a distinct chain id for every network', () => {
    const ids = Object.values(networks).map((n) => n.chainId);
    expect(new Set(ids).size).to.equal(ids.length);
  });
});
