// The exit codes every command shares and the failures a command expects (a wrong command line, an endpoint
// that cannot be tested, a tool that is missing or fails), with the one function that turns an error into what
// the user sees: an exit code and a one-line reason. The command line (cli/main.ts, cli/load.ts) and the load
// run (load/run/run.ts) all answer through it, so an error reads and exits the same wherever it is caught.

/** The exit codes (rpc-certify --help lists them). */
export const EXIT = { pass: 0, fail: 1, unusable: 2, inconclusive: 3, interrupted: 130 } as const;

/** A mistake in the command line. */
export class UsageError extends Error {}

/** The endpoint cannot be tested (unreachable, refuses the key, not JSON-RPC, another chain). */
export class EndpointError extends Error {}

/** A tool (k6) missing, unbuildable, or failing before it measured anything. */
export class ToolError extends Error {}

/** The user stopped the run (Ctrl-C, SIGTERM) before it had anything to report: its message says in which phase. */
export class Interrupted extends Error {}

export interface Failure {
  /** `unexpected`: not one of the failures above (a bug, a disk error): still one line and exit 2, never a stack trace. */
  kind: 'usage' | 'endpoint' | 'tool' | 'interrupted' | 'unexpected';
  exitCode: number;
  /** One line, not yet redacted nor made inert: the caller does both where it prints. */
  message: string;
}

/** What an error means for the command that caught it: its exit code and one line saying why. */
export function failureOf(e: unknown): Failure {
  const message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ');
  if (e instanceof UsageError || isParseArgsError(e)) return { kind: 'usage', exitCode: EXIT.unusable, message };
  if (e instanceof EndpointError) return { kind: 'endpoint', exitCode: EXIT.unusable, message: `endpoint not usable: ${message}` };
  if (e instanceof ToolError) return { kind: 'tool', exitCode: EXIT.unusable, message };
  if (e instanceof Interrupted) return { kind: 'interrupted', exitCode: EXIT.interrupted, message };
  return { kind: 'unexpected', exitCode: EXIT.unusable, message: `error: ${message}` };
}

/** node's parseArgs throws plain TypeErrors, told apart by their code (ERR_PARSE_ARGS_UNKNOWN_OPTION, …). */
export function isParseArgsError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
