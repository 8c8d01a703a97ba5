// One abort signal for the whole command: the first Ctrl-C or SIGTERM asks every running part (the
// suite, k6, the embedded default) to stop and write what it has, marked incomplete; a second forces exit.
const controller = new AbortController();
let installed = false;

export const INTERRUPTED_EXIT = 130;

export function interruptSignal(): AbortSignal {
  if (!installed) {
    installed = true;
    const onSignal = (signal: NodeJS.Signals) => {
      if (controller.signal.aborted) process.exit(INTERRUPTED_EXIT);
      console.error(`rpc-certify: ${signal}: stopping, and writing what was done so far (again to force)`);
      controller.abort(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return controller.signal;
}
