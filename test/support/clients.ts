// Real clients from npm that deviate from the service spec in documented ways (docs/clients.md): hardhat 2
// (`hardhat node`) and ganache 7, each started on 127.0.0.1 at a free port in its own process group, with
// anvil's dev mnemonic so devnet/seed.ts can seed them, and stopped with that whole group.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type NodeProcess, spawnNode, withFreePort } from '../../devnet/process.ts';

export type Client = 'hardhat' | 'ganache';

const require = createRequire(import.meta.url);
const REPO = join(import.meta.dirname, '..', '..');
const MNEMONIC = 'test test test test test test test test test test test junk';
const START_TIMEOUT_MS = 30_000;

/** A package's own file, e.g. its command-line entry, resolved through node_modules. */
const packageFile = (pkg: string, file: string): string => join(dirname(require.resolve(`${pkg}/package.json`)), file);

/**
 * hardhat node with its built-in network (chain 31337, its default hardfork osaka, accounts of anvil's mnemonic). A failed
 * transaction is mined with status 0x0 instead of being refused (throwOnTransactionFailures), as on any other
 * node. The config lives in a throwaway folder, its project root for hardhat; hardhat refuses to run
 * unless it is installed in the working directory's project, so it runs from the repository.
 */
export function startHardhat(): Promise<NodeProcess> {
  return withFreePort(undefined, async (port) => {
    // One folder per attempt: spawnNode's stop, on a failed start too, removes it.
    const dir = await mkdtemp(join(tmpdir(), 'rpc-certify-hardhat-'));
    const config = join(dir, 'hardhat.config.cjs');
    await writeFile(config, `module.exports = ${JSON.stringify({ networks: { hardhat: { throwOnTransactionFailures: false } } })};\n`);
    return spawnNode('hardhat', process.execPath, [packageFile('hardhat', 'internal/cli/cli.js'), '--config', config, 'node', '--hostname', '127.0.0.1', '--port', String(port)], port, START_TIMEOUT_MS, {
      cwd: REPO,
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
      onStopped: () => rm(dir, { recursive: true, force: true }),
    });
  });
}

/** ganache with its defaults (chain 1337, hardfork shanghai, instamine), accounts of anvil's mnemonic, quiet. */
export function startGanache(): Promise<NodeProcess> {
  return withFreePort(undefined, (port) =>
    spawnNode('ganache', process.execPath, [packageFile('ganache', 'dist/node/cli.js'), '--server.host', '127.0.0.1', '--server.port', String(port), '--wallet.mnemonic', MNEMONIC, '--logging.quiet'], port, START_TIMEOUT_MS),
  );
}

export const startClient = (client: Client): Promise<NodeProcess> => (client === 'hardhat' ? startHardhat() : startGanache());
