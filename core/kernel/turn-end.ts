// Work that hands something to another thread or process — an isolate call, an answer on a socket — is done
// together at the end of the event-loop turn instead of one piece at a time as each request gets there. The
// receiving side (an isolate's thread, the client reading the socket: a load generator or a reverse proxy on the
// same host) sleeps when idle, and waking it is what each piece paid most for (a wake-up on a virtual machine is an
// interrupt to the other CPU; docs/performance.md "Costs cited by the code"). Done in one burst, the first piece wakes
// the receiver and the rest find it awake. Nothing is reordered; each piece only moves to the end of the current turn
// (setImmediate: after this turn's I/O callbacks and their promises).
const pending: Array<() => void> = [];

function runPending(): void {
  for (const work of pending.splice(0)) work();
}

/** Run `work` at the end of this turn, with everything else queued in it. `work` must not throw. */
export function atTurnEnd(work: () => void): void {
  pending.push(work);
  if (pending.length === 1) setImmediate(runPending);
}

/** `start` at the end of this turn (see atTurnEnd); its promise, or what it throws, is passed through. */
export function startAtTurnEnd<T>(start: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    atTurnEnd(() => {
      try {
        start().then(resolve, reject);
      } catch (err) {
        reject(err);
      }
    });
  });
}
