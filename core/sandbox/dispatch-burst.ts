// Calls into isolates are started together, once per turn of the event loop, instead of one by one as each request
// reaches the plugin stage. Each call runs on its isolate's thread; a thread with nothing to do sleeps, and waking it
// is what a call paid most for on the gateway's thread (issue 14: ~18% of its CPU for a billed phone call, most of
// it the wake-up, which on a virtual machine crosses to the other CPU). Started in one burst, the first call wakes
// the thread and the others find it awake. Each call is still its own apply with its own deadline and outcome;
// only the moment it starts moves, to the end of the current turn (setImmediate: after this turn's I/O).
const waiting: Array<() => void> = [];

function startAll(): void {
  for (const start of waiting.splice(0)) start();
}

/** `start` runs at the end of this turn, with every other call started in it; its promise is passed through. */
export function inBurst<T>(start: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    waiting.push(() => start().then(resolve, reject));
    if (waiting.length === 1) setImmediate(startAll);
  });
}
