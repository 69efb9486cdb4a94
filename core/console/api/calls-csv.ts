// GET /console/api/calls.csv (core/console/contract/usage.ts): a user's call log as a streamed CSV. better-sqlite3
// runs on the main thread, so one big query would stall every other caller: rows are read by keyset (id < last id)
// in chunks of CHUNK_ROWS, and the event loop gets a turn between chunks. One export per user at a time, a few per
// minute, at most MAX_ROWS rows and a MAX_SPAN_DAYS time window per request (ask for the next window with
// from/to). The file opens with a UTF-8 BOM, its header is in the reader's language and its times in their zone
// (?lang=, ?tz=: csv-locale.ts).
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Context } from 'koa';
import { type CallFilter, listCalls } from '../../billing/usage.js';
import { ApiError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import { CALLS_CSV_MAX_ROWS, CALLS_CSV_MAX_SPAN_DAYS } from '../contract/usage.js';
import { CALL_CSV_HEADER, presentCall } from './calls-query.js';
import { type CsvLocale, csvHeader, localClock, UTF8_BOM } from './csv-locale.js';
import { takeExportSlot } from './export-slot.js';
import { invalid } from './input.js';
import { csvLine } from './present.js';

export const CSV_LIMITS = {
  maxRows: CALLS_CSV_MAX_ROWS,
  chunkRows: 1_000,
  maxSpanDays: CALLS_CSV_MAX_SPAN_DAYS,
  /** Exports per user: a bucket of `burst`, refilled at `perMinute`. */
  perMinute: 2,
  burst: 3,
  /** A stuck export frees its slot after this long. */
  slotTtlMs: 5 * 60_000,
} as const;

const DAY_MS = 24 * 3600 * 1000;

/** from/to bounded to MAX_SPAN_DAYS: a missing `from` means that many days before `to` (or now). */
export function boundedWindow(f: CallFilter, now: number): CallFilter {
  const to = f.to ?? now + 1;
  const from = f.from ?? to - CSV_LIMITS.maxSpanDays * DAY_MS;
  if (from >= to) throw invalid(`'from' must be before 'to'.`);
  if (to - from > CSV_LIMITS.maxSpanDays * DAY_MS) {
    throw invalid(
      `An export covers at most ${CSV_LIMITS.maxSpanDays} days: narrow 'from' and 'to' and export the rest separately.`,
    );
  }
  return { ...f, from, to: f.to };
}

async function* csvChunks(
  s: Services,
  filter: CallFilter,
  loc: CsvLocale,
  release: () => Promise<void>,
): AsyncGenerator<string> {
  try {
    const time = localClock(loc.tz);
    const keys = new Map(
      (
        await s.store.db
          .selectFrom('api_keys')
          .select(['id', 'name', 'prefix'])
          .where('user_id', '=', filter.userId)
          .execute()
      ).map((k) => [Number(k.id), `${k.name} (${k.prefix})`]),
    );
    yield UTF8_BOM + csvLine(csvHeader(CALL_CSV_HEADER, loc));
    let left = filter.limit;
    let before = filter.before;
    while (left > 0) {
      const rows = await listCalls(s.store.db, { ...filter, before, limit: Math.min(CSV_LIMITS.chunkRows, left) });
      if (rows.length === 0) break;
      let text = '';
      for (const r of rows) {
        const c = presentCall(r);
        text += csvLine([
          c.request_id,
          time(r.created_at),
          c.operation,
          c.key_id === null ? null : (keys.get(c.key_id as number) ?? null),
          c.status,
          c.error_code,
          c.charged,
          c.cached ? 1 : 0,
          c.free_reason,
          c.duration_ms,
          c.ip,
        ]);
      }
      yield text;
      left -= rows.length;
      before = Number(rows[rows.length - 1].id);
      if (rows.length < CSV_LIMITS.chunkRows) break;
      await nextTurn(); // let other requests run between chunks
    }
  } finally {
    await release();
  }
}

/**
 * Answers the user's calls matching `filter` (its window bounded already) as a streamed CSV, once the rate budget
 * and the export slot allow it.
 */
export async function sendCallsCsv(ctx: Context, s: Services, filter: CallFilter, loc: CsvLocale): Promise<void> {
  const scope = `console:csv:user:${filter.userId}`;
  const rate = await s.state.takeToken(scope, CSV_LIMITS.perMinute / 60, CSV_LIMITS.burst);
  if (!rate.allowed) {
    const wait = Math.max(1, Math.ceil(rate.retryAfterSeconds));
    ctx.set('Retry-After', String(wait));
    throw new ApiError('RATE_LIMITED', `Too many CSV exports. Retry in ${wait} seconds.`);
  }
  const release = await takeExportSlot(
    ctx,
    s,
    scope,
    CSV_LIMITS.slotTtlMs,
    'An export of this account is already running. Retry when it has finished.',
  );
  try {
    await s.callLog.flush();
  } catch (err) {
    await release();
    throw err;
  }
  const body = Readable.from(csvChunks(s, filter, loc, release), { objectMode: false });
  // A client that disconnects early ends the generator (its finally releases the slot).
  body.on('close', () => void release());
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', 'attachment; filename="calls.csv"');
  ctx.body = body;
}
