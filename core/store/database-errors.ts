// Errors that mean "the database cannot serve right now" rather than a bug: the caller gets 503 UNAVAILABLE
// with Retry-After (and is not charged), not 500. That covers a database that is down, hung past its timeouts,
// or cannot write (disk full, I/O error).
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // PostgreSQL: admin/crash shutdown, cannot connect now, connection exceptions, statement_timeout, disk full,
  // out of memory, I/O error.
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57014',
  '53100',
  '53200',
  '58030',
  // SQLite: busy beyond busy_timeout, file gone or unreadable, disk full, read-only file system, locking failure.
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_NOLCK',
  'SQLITE_PROTOCOL',
]);

/** SQLite extended codes (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT, SQLITE_READONLY_DBMOVED, ...) share a prefix. */
const SQLITE_EXTENDED = /^(SQLITE_IOERR|SQLITE_BUSY|SQLITE_CANTOPEN|SQLITE_READONLY|SQLITE_FULL)_/;

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || SQLITE_EXTENDED.test(e.code))) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /connection (is not open|terminated)|Connection terminated|driver has already been destroyed|Cannot use a pool after calling end|Query read timeout|timeout exceeded when trying to connect|database ping timed out/i.test(
    message,
  );
}

/**
 * The database accepted the connection but did not answer in time: the driver's own deadline for a new connection
 * (pg's pool and client connect timeouts) or for a query. Health calls this `timeout`, as it does when its own ping
 * deadline passes first: which fires first depends only on whether the pool had an idle connection.
 */
export function isDatabaseTimeout(err: unknown): boolean {
  const message = (err as { message?: unknown } | null)?.message;
  return (
    typeof message === 'string' &&
    /timeout exceeded when trying to connect|Connection terminated due to connection timeout|Query read timeout/i.test(
      message,
    )
  );
}

/** A write the database refused for lack of space or an I/O fault: health keeps reporting it until a write works. */
export function isStorageFault(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(SQLITE_FULL|SQLITE_IOERR|SQLITE_READONLY|SQLITE_CANTOPEN)/.test(code);
}
