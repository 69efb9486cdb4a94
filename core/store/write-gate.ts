// One write transaction at a time among this process's SQLite connections: the gateway's own (the group commit,
// group-commit.ts) and the call-log thread's (call-log-thread.ts). SQLite lets one connection write at a time; one
// that finds the lock taken sleeps in its busy handler, and on the event loop that sleep would stop every call in
// flight. Taking turns here, with promises, means neither meets the lock the other holds. Other writes on the
// gateway's connection are rare (console actions) and still wait in SQLite's busy handler, as before.
import type { Kysely } from 'kysely';

export class WriteGate {
  private tail: Promise<unknown> = Promise.resolve();

  /** `work` starts when every earlier turn has ended (settled either way). */
  run<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.tail.then(work);
    this.tail = turn.catch(() => undefined);
    return turn;
  }
}

const gates = new WeakMap<object, WriteGate>();

/** The gate of one SQLite database handle (its Kysely instance). */
export function writeGateOf<DB>(db: Kysely<DB>): WriteGate {
  let gate = gates.get(db);
  if (!gate) gates.set(db, (gate = new WriteGate()));
  return gate;
}
