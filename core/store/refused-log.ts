// Counts of refused requests (no key, a bad key, a rate or concurrency limit, an unverified payment notification),
// kept in memory and written once a minute as one row per source, target, code and minute (migration 009): a
// flood costs a few rows a minute, never a row a request, and the hot path pays a Map update, not a write. Rows
// are merged by an upsert, so a partial minute flushed early (a console read flushes first) and the rest flushed
// later, or two processes counting the same minute, add up in one row.
// Sources an attacker can multiply (addresses) are bounded per flush: past MAX_SOURCES distinct entries with an
// address the rest are counted under source '*', so memory and rows stay bounded however many addresses send.
import type { Kysely } from 'kysely';
import type { Logger } from '../kernel/logger.js';
import { inTransaction } from './group-commit.js';
import type { Database } from './schema.js';
import type { RefusedRequestsTable } from './schema-refused.js';

export interface RefusedEntry {
  kind: 'api' | 'notify';
  /** Address group of the sender (connection-limits.ts addressGroup). */
  source: string;
  userId: number | null;
  keyId: number | null;
  target: string | null;
  code: string;
  status: number;
}

export interface RefusedLog {
  count(e: RefusedEntry, at?: number): void;
  /** Write what is counted now (console reads, tests and shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const MINUTE_MS = 60_000;
/** Distinct entries with an address per flush before the rest go under '*'. */
export const MAX_SOURCES = 2_000;
/** Distinct entries kept across failed flushes (database down) before new ones are dropped. */
const MAX_PENDING = 20_000;
/** Rows per upsert statement: far below both databases' bound-parameter limits. */
const CHUNK = 50;

export const OVERFLOW_SOURCE = '*';

type Row = RefusedRequestsTable;

export function createRefusedLog(
  db: Kysely<Database>,
  logger: Logger,
  { intervalMs = MINUTE_MS }: { intervalMs?: number } = {},
): RefusedLog {
  let rows = new Map<string, Row>();
  let sources = 0;
  let flushing: Promise<void> = Promise.resolve();
  let failing = false;

  const idOf = (r: Row): string => `${r.minute}|${r.kind}|${r.source}|${r.key_id}|${r.target}|${r.code}`;
  const add = (id: string, r: Row): void => {
    const had = rows.get(id);
    if (had) had.count += r.count;
    else if (rows.size < MAX_PENDING) rows.set(id, r);
  };

  const write = async (batch: Row[]): Promise<void> => {
    await inTransaction(db, async (trx) => {
      for (let i = 0; i < batch.length; i += CHUNK)
        await trx
          .insertInto('refused_requests')
          .values(batch.slice(i, i + CHUNK))
          .onConflict((oc) =>
            oc
              .columns(['minute', 'kind', 'source', 'key_id', 'target', 'code'])
              .doUpdateSet((eb) => ({ count: eb('refused_requests.count', '+', eb.ref('excluded.count')) })),
          )
          .execute();
    });
  };

  const flush = (): Promise<void> => {
    flushing = flushing.then(async () => {
      if (rows.size === 0) return;
      // In one order in every process: two PostgreSQL workers upserting the same rows in different orders could
      // deadlock (as key touches did: call-log-rows.ts touchKeys).
      const batch = [...rows.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map((e) => e[1]);
      rows = new Map();
      sources = 0;
      try {
        await write(batch);
        if (failing) logger.info('refused-request counts are written again');
        failing = false;
      } catch (err) {
        for (const r of batch) add(idOf(r), r);
        if (!failing)
          logger.error('refused-request counts could not be written; kept for retry', {
            entries: rows.size,
            reason: (err as Error).message,
          });
        failing = true;
      }
    });
    return flushing;
  };

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    count(e, at = Date.now()) {
      const minute = at - (at % MINUTE_MS);
      const target = e.target ?? '';
      const keyId = e.keyId ?? 0;
      let id = `${minute}|${e.kind}|${e.source}|${keyId}|${target}|${e.code}`;
      const had = rows.get(id);
      if (had) {
        had.count++;
        return;
      }
      let source = e.source;
      // Entries without an address are bounded by the keys that exist; those with one by MAX_SOURCES.
      if (source !== '') {
        if (sources >= MAX_SOURCES) {
          source = OVERFLOW_SOURCE;
          id = `${minute}|${e.kind}|${source}|${keyId}|${target}|${e.code}`;
        } else sources++;
      }
      add(id, {
        minute,
        kind: e.kind,
        source,
        user_id: e.userId,
        key_id: keyId,
        target,
        code: e.code,
        status: e.status,
        count: 1,
      });
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
