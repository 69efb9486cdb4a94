// GET /console/api/admin/exports/{users,orders,ledger}.csv (core/console/contract/exports.ts): whole tables as
// streamed CSV, the way calls.csv does it (core/console/api/calls-csv.ts): keyset chunks by id, newest first, an event-loop turn between chunks so
// one export never stalls the other callers, one export per admin at a time. Like every console CSV it starts
// with a UTF-8 BOM and has its header in the reader's language and its times in their zone (csv-locale.ts).
// Orders and ledger rows carry the user's email next to the id: an admin reads people, not numbers.
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Context } from 'koa';
import { type Expression, type SqlBool, sql } from 'kysely';
import { asMicro, toToken } from '../../kernel/money.js';
import type { Services } from '../../services.js';
import { audit } from './audit.js';
import { type CsvLocale, csvHeader, localClock, UTF8_BOM } from './csv-locale.js';
import { takeExportSlot } from './export-slot.js';
import { csvLine, iso } from './present.js';

export const EXPORT_LIMITS = { chunkRows: 1_000, slotTtlMs: 10 * 60_000 } as const;

type Cell = string | number | null;
/** Which rows: created in [from, to), of one user (orders, ledger). */
export interface Window {
  from?: number;
  to?: number;
  userId?: number;
}
/** One chunk of rows with ids below `before`, newest first, as CSV cells; the id is the first cell. */
type Clock = ReturnType<typeof localClock>;
type ChunkReader = (
  db: Services['store']['db'],
  before: number | undefined,
  limit: number,
  w: Window,
  time: Clock,
) => Promise<Cell[][]>;

const money = (v: unknown): number => toToken(asMicro(v));

/** The columns a chunk is chosen by, as the query names them; users have no owner column. */
interface ChunkColumns {
  id: string;
  created: string;
  owner?: string;
}

/**
 * Narrows a table's query to one chunk: ids below `before` and rows in the window. One place for the three
 * tables, so an export's window always means the same rows whichever table it reads.
 */
function inChunk<Q extends { where(e: Expression<SqlBool>): Q }>(
  q: Q,
  c: ChunkColumns,
  before: number | undefined,
  w: Window,
): Q {
  let out = q;
  if (before !== undefined) out = out.where(sql<SqlBool>`${sql.ref(c.id)} < ${before}`);
  if (c.owner !== undefined && w.userId !== undefined) out = out.where(sql<SqlBool>`${sql.ref(c.owner)} = ${w.userId}`);
  if (w.from !== undefined) out = out.where(sql<SqlBool>`${sql.ref(c.created)} >= ${w.from}`);
  if (w.to !== undefined) out = out.where(sql<SqlBool>`${sql.ref(c.created)} < ${w.to}`);
  return out;
}

export type ExportName = 'users' | 'orders' | 'ledger';

const TABLES: Record<ExportName, { header: string[]; read: ChunkReader }> = {
  users: {
    header: ['id', 'email', 'role', 'status', 'balance', 'held', 'created_at'],
    read: async (db, before, limit, w, time) => {
      const q = db.selectFrom('users').select(['id', 'email', 'role', 'status', 'balance', 'held', 'created_at']);
      const rows = await inChunk(q, { id: 'id', created: 'created_at' }, before, w)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => [
        Number(r.id),
        r.email,
        r.role,
        r.status,
        money(r.balance),
        money(r.held),
        time(r.created_at),
      ]);
    },
  },
  orders: {
    header: [
      'id',
      'user_id',
      'user_email',
      'kind',
      'item_id',
      'item_name',
      'amount',
      'provider',
      'status',
      'created_at',
      'paid_at',
    ],
    read: async (db, before, limit, w, time) => {
      // The email by the user's primary key, per row of the chunk: still one keyset query on orders.id.
      const q = db
        .selectFrom('orders as o')
        .leftJoin('users as u', 'u.id', 'o.user_id')
        .select([
          'o.id',
          'o.user_id',
          'u.email',
          'o.kind',
          'o.item_id',
          'o.item_name',
          'o.amount',
          'o.provider',
          'o.status',
          'o.created_at',
          'o.paid_at',
        ]);
      const rows = await inChunk(q, { id: 'o.id', created: 'o.created_at', owner: 'o.user_id' }, before, w)
        .orderBy('o.id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => [
        Number(r.id),
        Number(r.user_id),
        r.email,
        r.kind,
        r.item_id,
        r.item_name,
        money(r.amount),
        r.provider,
        r.status,
        time(r.created_at),
        time(r.paid_at),
      ]);
    },
  },
  ledger: {
    header: [
      'id',
      'user_id',
      'user_email',
      'created_at',
      'kind',
      'amount',
      'balance_after',
      'ref',
      'operation',
      'note',
    ],
    read: async (db, before, limit, w, time) => {
      const q = db
        .selectFrom('ledger as l')
        .leftJoin('users as u', 'u.id', 'l.user_id')
        .select([
          'l.id',
          'l.user_id',
          'u.email',
          'l.created_at',
          'l.kind',
          'l.amount',
          'l.balance_after',
          'l.ref',
          'l.operation',
          'l.note',
        ]);
      const rows = await inChunk(q, { id: 'l.id', created: 'l.created_at', owner: 'l.user_id' }, before, w)
        .orderBy('l.id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => [
        Number(r.id),
        Number(r.user_id),
        r.email,
        time(r.created_at),
        r.kind,
        money(r.amount),
        money(r.balance_after),
        r.ref,
        r.operation,
        r.note,
      ]);
    },
  },
};

async function* chunks(
  db: Services['store']['db'],
  header: string[],
  read: ChunkReader,
  w: Window,
  maxRows: number,
  loc: CsvLocale,
  release: () => Promise<void>,
): AsyncGenerator<string> {
  try {
    const time = localClock(loc.tz);
    yield UTF8_BOM + csvLine(csvHeader(header, loc));
    let left = maxRows;
    let before: number | undefined;
    while (left > 0) {
      const rows = await read(db, before, Math.min(EXPORT_LIMITS.chunkRows, left), w, time);
      if (rows.length === 0) break;
      yield rows.map(csvLine).join('');
      left -= rows.length;
      before = Number(rows[rows.length - 1][0]);
      if (rows.length < EXPORT_LIMITS.chunkRows) break;
      await nextTurn();
    }
  } finally {
    await release();
  }
}

/** Answers the table `name` as a streamed CSV, once the admin's export slot is free; the export is audited. */
export async function sendAdminExport(
  ctx: Context,
  s: Services,
  adminId: number,
  name: ExportName,
  w: Window,
  limit: number,
  loc: CsvLocale,
): Promise<void> {
  const { header, read } = TABLES[name];
  const release = await takeExportSlot(
    ctx,
    s,
    `console:admin-export:${adminId}`,
    EXPORT_LIMITS.slotTtlMs,
    'An export by this admin is already running. Retry when it has finished.',
  );
  try {
    await audit(ctx, s, {
      action: 'export',
      targetType: name,
      detail: { from: iso(w.from ?? null), to: iso(w.to ?? null), user_id: w.userId ?? null, limit },
    });
  } catch (err) {
    await release();
    throw err;
  }
  const body = Readable.from(chunks(s.store.db, header, read, w, limit, loc, release), { objectMode: false });
  body.on('close', () => void release());
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${name}.csv"`);
  ctx.body = body;
}
