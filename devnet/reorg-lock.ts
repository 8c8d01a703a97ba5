// A reorg as a real client makes it: at once. anvil_reorg rolls the chain back, then mines the new fork, and a call
// answered between the two sees a head blocks lower, or a parent that no longer exists: what no geth or reth shows
// (they switch forks in one write). The gateway's calls to the node are readers, the reorg the writer: it waits for
// the calls in flight, and calls that come meanwhile wait for it.
export class ReorgLock {
  private readers = 0;
  private writing: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  /** A call to the node: at once with the others, never during a reorg. */
  async read<T>(call: () => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    this.readers++;
    try {
      return await call();
    } finally {
      if (--this.readers === 0) this.drained?.();
    }
  }

  /** The reorg: alone, once the calls in flight are answered. */
  async write<T>(change: () => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    let done!: () => void;
    this.writing = new Promise<void>((resolve) => (done = resolve));
    try {
      if (this.readers > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      this.drained = undefined;
      return await change();
    } finally {
      this.writing = undefined;
      done();
    }
  }
}
