// How the checks of a run are started: up to `width` at once, in the catalogue's order (a check behind a slow one
// does not wait for it), so a run over a real network costs its longest checks, not the sum of its round trips. A
// check that judges the run so far (every answer, every head read) or the head at one moment runs alone: it starts
// once every check before it has ended, and none after it starts before it ends.

export interface Job<T> {
  alone: boolean;
  run: () => Promise<T>;
}

/**
 * Starts the jobs, each as soon as the rules allow; one promise per job, in the jobs' order: its result, or undefined
 * for a job never started because `stopped()` said so (the deadline, Ctrl-C) before its turn. A job's rejection is its
 * promise's; the others go on.
 */
export function schedule<T>(jobs: ReadonlyArray<Job<T>>, width: number, stopped: () => boolean): Array<Promise<T | undefined>> {
  const settle: Array<(v: Promise<T | undefined>) => void> = [];
  const out = jobs.map(() => new Promise<T | undefined>((resolve) => settle.push(resolve)));
  let next = 0;
  let running = 0;
  let aloneRunning = false;
  const pump = (): void => {
    for (; next < jobs.length; next++) {
      if (stopped()) {
        settle[next]!(Promise.resolve(undefined));
        continue;
      }
      const job = jobs[next]!;
      if (aloneRunning || running >= Math.max(1, width) || (job.alone && running > 0)) return;
      running++;
      aloneRunning = job.alone;
      const done = job.run();
      settle[next]!(done);
      const free = () => {
        running--;
        aloneRunning = false;
        pump();
      };
      done.then(free, free);
    }
  };
  pump();
  return out;
}
