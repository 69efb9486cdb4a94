// What /api/health learns about the database. A `select 1` proves the database answers, not that it can
// write: with the disk full SQLite still reads. So a storage fault seen on any write (SQLITE_FULL, an I/O
// error) raises a flag, and while it is up health makes one small real write; the first that succeeds clears
// it. Only a status word leaves here, never the driver's error text (that goes to the log).
import { type Kysely, sql } from 'kysely';
import { isDatabaseTimeout, isStorageFault } from './database-errors.js';
import type { Database } from './schema.js';

/** What /api/health may say about the database: which way it fails, never the driver's error text. */
export type DatabaseStatus = 'ok' | 'unreachable' | 'timeout' | 'write_failed';

export interface FaultFlag {
  raise(err: unknown): void;
  readonly raised: boolean;
  clear(): void;
}

export function createFaultFlag(): FaultFlag {
  let raised = false;
  return {
    raise: () => void (raised = true),
    get raised() {
      return raised;
    },
    clear: () => void (raised = false),
  };
}

export class DeadlineError extends Error {
  constructor(ms: number) {
    super(`database ping timed out after ${ms} ms`);
  }
}

export function withDeadline<T>(work: Promise<T>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(ms)), ms);
    timer.unref();
  });
  work.catch(() => undefined); // a late failure after the deadline is not unhandled
  return Promise.race([work.then(() => undefined), deadline]).finally(() => clearTimeout(timer));
}

/** Bigger than a page, so the write needs new pages just as a real call's writes would. */
const PROBE_FILLER = 'x'.repeat(16 * 1024);

/**
 * A small real write. On SQLite also a checkpoint: with checkpoints on a worker thread (checkpointer.ts) the
 * write-ahead log is reused, so a small write can land in space the log already has even with the disk full; the
 * copy into the database file is what then needs new space, and is what must work for the next writes to.
 */
async function writeProbe(db: Kysely<Database>, sqlite: boolean): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`insert into health_probe (filler, created_at) values (${PROBE_FILLER}, ${Date.now()})`.execute(trx);
    await sql`delete from health_probe`.execute(trx);
  });
  if (sqlite) await sql`pragma wal_checkpoint(PASSIVE)`.execute(db);
}

export async function storeStatus(
  db: Kysely<Database>,
  ping: () => Promise<void>,
  faults: FaultFlag,
  deadlineMs: number,
  sqlite = false,
): Promise<DatabaseStatus> {
  try {
    await ping();
  } catch (err) {
    if (err instanceof DeadlineError || isDatabaseTimeout(err)) return 'timeout';
    return isStorageFault(err) ? 'write_failed' : 'unreachable';
  }
  if (!faults.raised) return 'ok';
  try {
    await withDeadline(writeProbe(db, sqlite), deadlineMs);
    faults.clear();
    return 'ok';
  } catch (err) {
    return err instanceof DeadlineError ? 'timeout' : 'write_failed';
  }
}
