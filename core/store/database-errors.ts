// Errors that mean "the database cannot be reached right now" rather than a bug: the caller gets 503
// UNAVAILABLE with Retry-After (and is not charged), not 500.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  // PostgreSQL: admin/crash shutdown, cannot connect now, connection exceptions.
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006',
  // SQLite: busy beyond busy_timeout, file gone or unreadable.
  'SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR',
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /connection (is not open|terminated)|Connection terminated|driver has already been destroyed|Cannot use a pool after calling end/i.test(message);
}
