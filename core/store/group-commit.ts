// Group commit for SQLite: the commit, not the SQL, is what a billed call pays for (one write transaction per
// call caps the gateway at about a quarter of bare Koa; docs/performance.md). Money writes queued in
// the same event-loop turn share one transaction; each runs inside its own savepoint, so one that fails (not
// enough balance, a reused reference, a lost idempotency claim) rolls back alone and the others still commit.
// Every caller is answered only after the shared COMMIT returned, so "no success before its charge is durably
// committed" holds exactly as with one transaction per call; if the COMMIT fails, every job in the group fails.
//
// On the gateway's SQLite file, captures that are plain data run on the writer thread instead, in a transaction of
// the same shape (writer-thread.ts); what still comes here takes turns with it (write-gate.ts).
//
// On PostgreSQL `inTransaction` passes straight through (a transaction of its own): a billed call's hold and capture
// are group-committed there by core/billing/pg-money.ts instead, one statement per batch.
import { type Kysely, SqliteAdapter, sql, type Transaction } from 'kysely';
import { directSqlite, runDirect } from './direct-sqlite.js';
import type { Database } from './schema.js';
import { writeGateOf } from './write-gate.js';

type Work<T> = (trx: Transaction<Database>) => Promise<T>;
interface Job {
  work: Work<unknown>;
  ok: (value: unknown) => void;
  fail: (err: unknown) => void;
}
type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/** Upper bound on the jobs of one transaction, so one group never holds the connection for long. */
const MAX_GROUP = 256;

class GroupCommitter {
  private queue: Job[] = [];
  private scheduled = false;

  constructor(private readonly db: Kysely<Database>) {}

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((ok, fail) => {
      this.queue.push({ work: work as Work<unknown>, ok: ok as (value: unknown) => void, fail });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not a microtask: the calls answered by this turn's I/O all get to queue their writes first.
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const jobs = this.queue.splice(0, MAX_GROUP);
    let outcomes: Outcome[] | undefined;
    let groupError: unknown;
    try {
      // In turn with the call-log thread's transactions (write-gate.ts), never into its lock.
      outcomes = await writeGateOf(this.db).run('gateway', () =>
        this.db.transaction().execute(async (trx) => {
          const out: Outcome[] = [];
          for (const job of jobs) out.push(await runIsolated(trx, job.work));
          return out;
        }),
      );
    } catch (err) {
      groupError = err;
    }
    this.scheduled = false;
    if (this.queue.length > 0) this.schedule();
    jobs.forEach((job, i) => {
      const o = outcomes?.[i];
      if (!o) job.fail(groupError);
      else if (o.ok) job.ok(o.value);
      else job.fail(o.err);
    });
  }
}

/** One job inside the shared transaction, behind a savepoint so its failure undoes only its own writes. */
async function runIsolated(trx: Transaction<Database>, work: Work<unknown>): Promise<Outcome> {
  await statement(trx, 'savepoint job');
  try {
    const value = await work(trx);
    await statement(trx, 'release savepoint job');
    return { ok: true, value };
  } catch (err) {
    try {
      await statement(trx, 'rollback to savepoint job');
      await statement(trx, 'release savepoint job');
    } catch {
      // A storage fault (disk full, I/O error) can end the whole transaction, savepoints included: the group
      // fails with the job's real error (503 material), not with "no such savepoint".
      throw err;
    }
    return { ok: false, err };
  }
}

/** Straight on the connection the transaction holds (direct-sqlite.ts), or through Kysely when there is no handle. */
async function statement(trx: Transaction<Database>, text: string): Promise<void> {
  const direct = directSqlite(trx);
  if (direct) runDirect(direct, text, []);
  else await sql.raw(text).execute(trx);
}

const committers = new WeakMap<Kysely<Database>, GroupCommitter | null>();

/**
 * Run `work` in a transaction: on SQLite a transaction shared with the other money writes of this turn (answered
 * after its commit), elsewhere a transaction of its own.
 */
export function inTransaction<T>(db: Kysely<Database>, work: Work<T>): Promise<T> {
  let committer = committers.get(db);
  if (committer === undefined) {
    committer = db.getExecutor().adapter instanceof SqliteAdapter && !db.isTransaction ? new GroupCommitter(db) : null;
    committers.set(db, committer);
  }
  return committer ? committer.run(work) : db.transaction().execute(work);
}
