// One writer at a time among this process's SQLite connections: the gateway's own (the group commit,
// group-commit.ts) and the writer thread's (writer-thread.ts). SQLite lets one connection write at a time; one that
// finds the lock taken sleeps in its busy handler, and on the event loop that sleep would stop every call in flight.
// Taking turns here, with promises, means neither meets the lock the other holds. The writer thread's transactions
// may follow each other without a gap (the worker runs them in order on its one connection), so several of them
// share a turn; a transaction of the gateway's waits until none is in flight, and once it waits, later ones of the
// thread wait behind it (first come, first served: neither side starves). Other writes on the gateway's connection
// are rare (console actions) and still wait in SQLite's busy handler, as before.
import type { Kysely } from 'kysely';

/** Who writes: the gateway's own connection, or the writer thread's. */
export type Writer = 'gateway' | 'thread';

export class WriteGate {
  private holder: Writer | null = null;
  private inFlight = 0;
  private readonly waiting: Array<{ writer: Writer; start: () => void }> = [];

  /** `work` starts when the other writer is done with everything that came before it. */
  run<T>(writer: Writer, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        this.holder = writer;
        this.inFlight++;
        work()
          .then(resolve, reject)
          .finally(() => this.done());
      };
      if (this.waiting.length === 0 && this.mayStart(writer)) start();
      else this.waiting.push({ writer, start });
    });
  }

  private mayStart(writer: Writer): boolean {
    return this.holder === null || (this.holder === 'thread' && writer === 'thread');
  }

  private done(): void {
    if (--this.inFlight > 0) return;
    this.holder = null;
    while (this.waiting.length > 0 && this.mayStart(this.waiting[0].writer)) this.waiting.shift()!.start();
  }
}

const gates = new WeakMap<object, WriteGate>();

/** The gate of one SQLite database handle (its Kysely instance). */
export function writeGateOf<DB>(db: Kysely<DB>): WriteGate {
  let gate = gates.get(db);
  if (!gate) gates.set(db, (gate = new WriteGate()));
  return gate;
}
