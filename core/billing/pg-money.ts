// Group commit on PostgreSQL. A billed call writes twice (its hold, then its capture with the ledger and call-log
// rows); one transaction each made ~2 commits a call, and a worker's commit rate was its ceiling. Here the money
// writes the calls of a process queue while a batch is at the database go together in the next one: one statement
// (the tollgate_money function, core/store/migrations/money-function.ts), one round trip, one commit. Under load a
// batch carries every call that finished meanwhile; alone, a call waits one event-loop turn.
//
// A call whose plugin reaches no network sends one job after the plugin ran, the charge at once ("s"): the same
// guard as a hold's (balance - held >= price) on the debit itself, with its ledger and call-log rows. One round trip
// and one commit instead of two of each, and no hold row written and deleted in the same statement.
//
// Exact as before: the hold is a row and the user's `held`, written and committed before the plugin runs, so
// every process sees it; no caller learns its hold or its charge before the COMMIT returned. A job that fails
// alone (a swept hold, a reused reference) writes nothing and the others stand; if the statement or its COMMIT
// fails, every job of the batch fails: holds were not placed (the call answers 503, nothing reserved), captures
// charged nothing (the call answers 503 uncharged and its hold is released by a later batch, or by the sweeper
// after its expiry).
import { CompiledQuery, type Kysely } from 'kysely';
import { PREPARED } from '../store/pg-prepared.js';
import type { Database } from '../store/schema.js';

type Job =
  | { k: 'h'; id: string; u: number; a: number; e: number }
  | { k: 'c'; id: string; u: number; op: string; rows: unknown[][] }
  | { k: 'r'; id: string; u: number }
  | { k: 's'; id: string; u: number; a: number; op: string; rows: unknown[][] };
type Result = boolean | number | 'gone' | 'duplicate' | null;
/** A queued job and who waits for its result. */
interface Waiting {
  job: Job;
  ok: (r: Result) => void;
  fail: (err: unknown) => void;
}

/** Default bound on the jobs of one statement, so one batch never holds its user rows for long. */
const MAX_BATCH = 256;
const STATEMENT = `${PREPARED}select tollgate_money($1::jsonb) as r`;

/** Counts for the bench and tests: statements sent (each its own commit) and jobs they carried. */
export interface BatchCounts {
  batches: number;
  jobs: number;
}

export class PgMoneyBatch {
  private queue: Waiting[] = [];
  private scheduled = false;
  private inFlight = 0;
  readonly counts: BatchCounts = { batches: 0, jobs: 0 };

  /** `maxInFlight` batches at the database at once; jobs queued meanwhile wait for the next. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly maxInFlight = 1,
    private readonly maxBatch = MAX_BATCH,
  ) {}

  run(job: Job): Promise<Result> {
    return new Promise<Result>((ok, fail) => {
      this.queue.push({ job, ok, fail });
      this.schedule();
    });
  }

  /**
   * `woke`: the batch that just returned placed holds. Their calls run their plugins at the end of this turn
   * (kernel/turn-end.ts, after the immediate a plain schedule would send the next batch from) and queue their
   * captures then: sent a turn later, the next batch carries those captures too instead of leaving them a whole
   * round trip behind it, for the batch after. One batch, one commit, for the new holds and the captures.
   */
  private schedule(woke = false): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate, not a microtask: the calls this turn's I/O woke all get to queue their writes first.
    if (woke) setImmediate(() => setImmediate(this.flushNow));
    else setImmediate(this.flushNow);
  }

  private readonly flushNow = (): void => void this.flush();

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    const jobs = batch.map((w) => w.job);
    this.inFlight++;
    this.schedule(); // more queued than one batch takes, and room for another at the database
    this.counts.batches++;
    this.counts.jobs += jobs.length;
    let results: Result[] | undefined;
    let error: unknown;
    try {
      const param = JSON.stringify({ now: Date.now(), jobs });
      const res = await this.db.executeQuery<{ r: Result[] }>(CompiledQuery.raw(STATEMENT, [param]));
      results = res.rows[0]?.r;
      if (!Array.isArray(results) || results.length !== jobs.length) throw new Error('tollgate_money: bad answer');
    } catch (err) {
      error = err;
      results = undefined;
    }
    this.inFlight--;
    const done = results;
    // A hold placed is captured a turn later, once its plugin ran.
    this.schedule(!!done && jobs.some((job, i) => job.k === 'h' && done[i] === true));
    batch.forEach((w, i) => {
      if (done) w.ok(done[i] ?? null);
      else w.fail(error);
    });
  }
}
