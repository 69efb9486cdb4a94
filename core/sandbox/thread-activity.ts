// Whether an isolate's own thread may have work now. isolated-vm runs an async call (`apply`) on the isolate's
// thread, and a sync call (`applySync`) on the caller's thread once it holds the isolate's lock: while the isolate's
// thread runs something, `applySync` waits for it, and its `timeout` does not count that wait. So the gateway
// thread calls an isolate synchronously (isolate-batch.ts) only when nothing can be running or queued there.
//
// What can put work on the isolate's thread: an async call into it (counted from start to answer), and the
// answer of a host call the isolate made (fetch, asset, hasAsset, the round trip of `many`: bridge.ts), after
// which the plugin's code goes on there for as long as it likes, untimed. Neither's end is visible from the host,
// so after them a barrier is sent: an async call that does nothing. isolated-vm runs an isolate's tasks in the
// order they were queued, so when the barrier answers, everything queued before it has run, and if nothing began
// meanwhile the thread is quiet. A plugin whose code spins there forever never lets its barrier answer: its
// isolate stays off the gateway thread, and its calls meet their deadlines on the isolate's thread, as before.
export class ThreadActivity {
  /** Async calls into the isolate and host calls out of it, not yet answered. */
  private open = 0;
  /** Counts every start, so a barrier can tell whether anything began after it was sent. */
  private started = 0;
  /** The `started` count the last barrier to come back saw; equal to `started` means quiet. */
  private confirmed = -1;
  private barrierOut = false;
  private barrier: (() => Promise<unknown>) | undefined;
  /** Run when the barrier out now comes back (see `afterBarrier`). */
  private waiting: Array<() => void> = [];
  private heldOffUntil = 0;

  /** Nothing runs or waits to run on the isolate's thread, and synchronous calls are not held off. */
  get quiet(): boolean {
    return this.open === 0 && this.confirmed === this.started && Date.now() >= this.heldOffUntil;
  }

  /** The barrier: an async call into the isolate that does nothing. Sent at once if the isolate may be busy. */
  useBarrier(barrier: () => Promise<unknown>): void {
    this.barrier = barrier;
    this.settle();
  }

  /**
   * When nothing is open but quiet is not yet confirmed, `then` runs once a barrier has come back (quiet or not),
   * and this returns true; otherwise false. A batch that waits for it, rather than going to the isolate's thread,
   * starts nothing there meanwhile, so the barrier can confirm quiet even under constant load.
   */
  afterBarrier(then: () => void): boolean {
    if (!this.barrier || this.open > 0 || Date.now() < this.heldOffUntil) return false;
    this.waiting.push(then);
    this.settle();
    return true;
  }

  /** No synchronous calls for `ms` (one ran past its budget, or failed as a whole). */
  holdOff(ms: number): void {
    this.heldOffUntil = Date.now() + ms;
  }

  /** `call` counted as open from its start until it settles (an async call into the isolate or out of it). */
  track<T>(call: () => Promise<T>): Promise<T> {
    this.begin();
    let p: Promise<T>;
    try {
      p = call();
    } catch (err) {
      this.end();
      throw err;
    }
    return p.finally(() => this.end());
  }

  begin(): void {
    this.open++;
    this.started++;
  }

  end(): void {
    if (--this.open === 0) this.settle();
  }

  /**
   * When nothing is open and the isolate may still have work from earlier, sends the barrier at the end of this
   * turn: after this turn's promise reactions, so isolated-vm has queued the answers of host calls that ended in
   * it before the barrier. Sent again if something began while it was out.
   */
  private settle(): void {
    const barrier = this.barrier;
    if (!barrier || this.open > 0 || this.barrierOut || this.confirmed === this.started) return;
    this.barrierOut = true;
    const seen = this.started;
    setImmediate(() => {
      const back = (ok: boolean): void => {
        this.barrierOut = false;
        if (ok) this.confirmed = seen; // else the isolate is gone: it stays not quiet
        for (const then of this.waiting.splice(0)) then();
        if (ok) this.settle();
      };
      try {
        barrier().then(
          () => back(true),
          () => back(false),
        );
      } catch {
        back(false);
      }
    });
  }
}
