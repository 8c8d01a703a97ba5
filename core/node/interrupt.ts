// One abort signal for the whole command: the first Ctrl-C or SIGTERM asks every running part (the
// suite, k6, the embedded default) to stop and write what it has, marked incomplete; a second forces exit.
//
// The ways a run gets stopped, and what each delivers here:
// - Ctrl-C in a terminal, and `timeout N …`: the signal goes to the whole process group, npm's own
//   forwarding may repeat it, and k6 would get it too (k6 runs in its own session, load/run/k6.ts, and is
//   stopped by us instead). A repeat within REPEAT_MS is the same interrupt, not a request to force.
// - SIGTERM to npx (npm exec) only: npm exits at once and its shell with it, and nothing reaches this
//   process. Launched by npm, a change of parent is therefore taken as that SIGTERM.
import { EXIT, Interrupted } from './errors.ts';

const controller = new AbortController();
let installed = false;

const REPEAT_MS = 1000;
const PARENT_POLL_MS = 250;

/** Takes the signals over from bin/rpc-certify.js's handler, which exits at once (nothing was started yet). */
export function releaseEarlySignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    for (const listener of process.listeners(signal)) if (listener.name === 'earlyInterrupt') process.off(signal, listener);
  }
}

export function interruptSignal(): AbortSignal {
  if (!installed) {
    installed = true;
    let firstAt = 0;
    const onSignal = (signal: NodeJS.Signals | string) => {
      if (controller.signal.aborted) {
        if (Date.now() - firstAt > REPEAT_MS) process.exit(EXIT.interrupted);
        return;
      }
      firstAt = Date.now();
      console.error(`rpc-certify: ${signal}: stopping, and writing what was done so far (again to force)`);
      controller.abort(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    // Only now: removing the early handler first would leave a signal with no listener for a moment, and node stops
    // watching it then, dropping one that arrived while the modules loaded and waits to be dispatched (a run carried
    // on to PASS, exit 0).
    releaseEarlySignals();
    if (process.env['npm_command']) {
      const parent = process.ppid;
      const watch = setInterval(() => {
        if (process.ppid === parent) return;
        clearInterval(watch);
        onSignal('SIGTERM (npm, which started this run, has exited)');
      }, PARENT_POLL_MS);
      watch.unref();
    }
  }
  return controller.signal;
}

/**
 * A promise that rejects with Interrupted ("interrupted by SIGTERM <phase>") once `signal` aborts (at once if it has):
 * raced against a phase that has nothing to report, it ends that phase at once. release() detaches it.
 */
export function abortedAs(signal: AbortSignal | undefined, phase: string): { promise: Promise<never>; release(): void } {
  let release = (): void => {};
  const promise = new Promise<never>((_, reject) => {
    if (!signal) return;
    const onAbort = (): void => reject(new Interrupted(`interrupted by ${String(signal.reason)} ${phase}`));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    release = () => signal.removeEventListener('abort', onAbort);
  });
  promise.catch(() => {});
  return { promise, release: () => release() };
}
