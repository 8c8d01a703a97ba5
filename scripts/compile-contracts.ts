// Compiles fixtures/contracts/Seed.sol with the npm solc package and writes the committed
// artifact fixtures/contracts/Seed.json (abi + creation bytecode), so runtime never needs solc.
import { readFileSync, writeFileSync } from 'node:fs';
import solc from 'solc';

const dir = new URL('../fixtures/contracts/', import.meta.url);
const source = readFileSync(new URL('Seed.sol', dir), 'utf8');

const input = {
  language: 'Solidity',
  sources: { 'Seed.sol': { content: source } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    // paris (no PUSH0) keeps the bytecode deployable on any EVM chain, not only on anvil.
    evmVersion: 'paris',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
for (const e of output.errors ?? []) console.error(e.formattedMessage);
if (errors.length > 0) process.exit(1);

const contracts: Record<string, { abi: unknown[]; bytecode: string }> = {};
for (const [name, c] of Object.entries(output.contracts['Seed.sol'] ?? {})) {
  contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}
const artifact = { compiler: `solc ${solc.version()}`, evmVersion: input.settings.evmVersion, contracts };
writeFileSync(new URL('Seed.json', dir), `${JSON.stringify(artifact, null, 2)}\n`);
console.log(`wrote fixtures/contracts/Seed.json: ${Object.keys(contracts).join(', ')}`);
